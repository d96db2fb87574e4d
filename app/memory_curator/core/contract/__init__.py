"""The engine's operations, each defined once: inputs (names, types, defaults, limits), result and error codes.

Every face is derived from here or checked against it: the HTTP routes and OpenAPI document (server/), the MCP
tool schemas (mcp/), and the CLI flags and Python API, which ``tests/test_contract.py`` walks. To add a field,
add it to the operation's input model in ``inputs.py`` (and the engine method); to add an operation, add an
``Operation`` to ``operations.py`` and its call to ``serving/calls.py``. README's "LLM clients" section lists them.

Import the parts (``operations``, ``errors``, ``inputs``, ``results``, ``text``): the engine's own validation
imports ``text`` while the rest imports the engine.
"""
