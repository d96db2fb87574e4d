"""The headless engine. Nothing in this package may import Qt (tests/test_architecture.py)."""
