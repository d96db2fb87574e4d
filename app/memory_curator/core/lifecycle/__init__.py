"""The life of a memory after it is saved: importance, decay, pinning, supersede, cleanup, consolidation,
dedup, batch updates, expiry and typed fields. Each module holds one concept; MemoryService delegates here."""
