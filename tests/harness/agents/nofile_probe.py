"""Prints the open-file limits the agent was given, then exits."""
import resource

print("nofile", *resource.getrlimit(resource.RLIMIT_NOFILE), flush=True)
