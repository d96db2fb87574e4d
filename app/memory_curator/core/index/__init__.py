"""The SQLite index: derived state, always rebuildable from the vault."""
