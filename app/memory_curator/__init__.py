"""Memory Curator: curate the long-term memory of LLM assistants.

The engine lives in :mod:`memory_curator.core`; this package re-exports its public facade.
"""

__version__ = "0.1.0"

from memory_curator.core.service import MemoryService  # noqa: E402

__all__ = ["MemoryService", "__version__"]
