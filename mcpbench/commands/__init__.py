"""CLI commands, one module per command group."""
