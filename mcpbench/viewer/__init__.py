"""The run viewer: a store's runs as web pages (``mcpbench view``, served or written as a static site)
and as trajectories (``mcpbench export``). It only reads the store. docs/viewer.md."""
