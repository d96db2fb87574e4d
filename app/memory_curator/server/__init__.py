"""The local HTTP API (`memory-curator serve`) and what it shares with the MCP server: the engine thread."""
