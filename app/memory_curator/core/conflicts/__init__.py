"""Sync conflicts: a memory that two machines changed at once (git's conflict markers, the copies Syncthing,
Dropbox and iCloud leave, a second file with an id that exists), recognised, merged when no person is needed,
shown side by side and resolved. ``markers`` and ``names`` are pure (the vault and the indexer use them);
``unit.Conflicts`` is what the facade exposes as ``svc.conflicts``."""
