"""Composition root for the command line."""
