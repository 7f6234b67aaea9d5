"""What a run lands and where: the run and call records (the contract between the harness, the store
and the warehouse) and the object store that keeps them as Parquet; and
the leftovers a run can leave on the host, named after their owner so a later process can sweep them.

The lowest layer of the project: the harness (``mcpbench``), the warehouse and the flows import it;
it imports none of them.
"""
