"""Memory Curator: curate the long-term memory of LLM assistants.

The engine lives in :mod:`memory_curator.core`; this package re-exports its public facade.
"""

__version__ = "0.1.0"

__all__ = ["AsyncMemoryService", "MemoryService", "__version__"]


def __getattr__(name: str):
    # The engine is imported on first use, so processes that need a single module (the rebuild's helper
    # process, `--version`) do not pay the 0.7 s it takes to import all of it.
    if name == "MemoryService":
        from memory_curator.core.service import MemoryService

        return MemoryService
    if name == "AsyncMemoryService":
        from memory_curator.aio import AsyncMemoryService

        return AsyncMemoryService
    raise AttributeError(f"module 'memory_curator' has no attribute {name!r}")
