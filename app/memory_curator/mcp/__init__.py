"""The MCP server: LLM clients (Claude Desktop, IDEs, agents) read and write the vault through MCP tools."""
