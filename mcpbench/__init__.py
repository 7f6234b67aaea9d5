"""MCPBench: a benchmark and evaluation pipeline for LLM agents that use MCP servers."""

__version__ = "0.1.0"
