"""Agents. Kept import-light: the baseline agents run as ``python -S -m mcpbench.agents.baselines``
inside the sandbox and must not pay for anything but the standard library."""
