"""Run by test_containment in a child process:
``python -m tests.harness._many_floods NOFILE N_FLOODED N_GOOD CONCURRENCY PAUSE_AT``. Lowers its soft
and hard file-handle limits to NOFILE first (so raising the soft one cannot help), runs dev tasks with
the ``link_flood`` agent, flooding the first N_FLOODED of them, and prints one JSON line per run.

Each flooder first holds PAUSE_AT connections (fewer than one link may hold): together they pass the
harness's budget, so one of them must be ended for it; once that run has ended, the others go on
flooding."""

import json
import os
import resource
import sys
import tempfile
from pathlib import Path

from mcpbench.agents.spec import PROJECT_ROOT, ProcessAgent
from tasks_catalog.loader import load_valid_tasks
from tests.harness.conftest import AGENTS, DEV, run


def main(nofile: int, n_flooded: int, n_good: int, concurrency: int, pause_at: int) -> None:
    resource.setrlimit(resource.RLIMIT_NOFILE, (nofile, nofile))
    tasks = [t.model_copy(update={"timeout_s": 60.0}) for t in load_valid_tasks([DEV])[: n_flooded + n_good]]
    flooded = [t.id for t in tasks[:n_flooded]]
    signals = Path(tempfile.mkdtemp(prefix="mcpbench-flood-"))
    signals.chmod(0o755)  # the agent's uid reads it through a read-only bind
    go = signals / "go"
    agent = ProcessAgent("command:link_flood", (sys.executable, "-S", str(AGENTS / "link_flood.py")),
                         baseline="oracle", readonly_paths=(str(PROJECT_ROOT), str(signals)),
                         extra_env=(("MCPBENCH_FLOOD_TASK", ",".join(flooded)),
                                    ("MCPBENCH_FLOOD_PAUSE_AT", str(pause_at)), ("MCPBENCH_FLOOD_GO", str(go))))
    print(json.dumps({"nofile": resource.getrlimit(resource.RLIMIT_NOFILE)}), flush=True)
    order = []

    class Landed(list):
        def append(self, result) -> None:
            order.append(result.run.task_id)
            if result.run.task_id in flooded:
                go.touch()

    try:
        results = run(tasks, agent, concurrency=concurrency, landed=Landed())
    finally:
        go.unlink(missing_ok=True)
        os.rmdir(signals)
    for result in results:
        print(json.dumps({
            "task_id": result.run.task_id, "flooded": result.run.task_id in flooded, "status": result.run.status,
            "agent_error": result.run.agent_error, "timed_out": result.run.timed_out,
            "end_reason": result.run.end_reason, "infra_error": result.run.infra_error,
            "killed_reason": result.outcome.killed_reason if result.outcome else None,
            "notes": list(result.outcome.notes) if result.outcome else [],
            "stdout": result.outcome.stdout_tail[-300:] if result.outcome else None,
            "stderr": result.outcome.stderr_tail[-300:] if result.outcome else None,
            "landed": order.index(result.run.task_id),
        }), flush=True)


if __name__ == "__main__":
    main(*(int(arg) for arg in sys.argv[1:]))
