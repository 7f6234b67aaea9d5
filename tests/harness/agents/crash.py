"""Dies with an exception before doing anything."""
raise RuntimeError("agent crashed on purpose")
