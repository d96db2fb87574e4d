"""What the HTTP API (server/) and the MCP server (mcp/) share: the engine thread, the bearer token and its
check, the Host allow-list, the JSON error body, and the operations' calls with the caller's ownership."""
