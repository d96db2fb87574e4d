"""Composition root for the desktop app (PySide6)."""
