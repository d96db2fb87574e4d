"""The real servers of tests/servers (HTTP under uvicorn, the engine on its own thread) for the seed tests."""

from servers.conftest import api  # noqa: F401  (a fixture)
