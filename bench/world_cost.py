"""World generation cost and identity.

``cost``: the CPU of building a month's distinct worlds in one process as a gate does (``load_world``:
the organisation, the generator, the model's validation, the collection after it), with the gate's
collector thresholds; the month is built as the rotation builds it, and every task's world references
are collected.

``digests OUT [N]``: the digest of every generator version's world and of the organisation for seeds
1..N (40 by default), both sizes, as JSON; ``compare A B``: the keys whose digests differ (exit 1 if any).
Run ``digests`` on the code before and after a change that must not change a world:

    PYTHONPATH=. python bench/world_cost.py cost
    PYTHONPATH=. python bench/world_cost.py digests /tmp/after.json && python bench/world_cost.py compare /tmp/before.json /tmp/after.json
"""

from __future__ import annotations

import gc
import importlib
import json
import os
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
NAMES = sorted(p.parent.name for p in (ROOT / "servers").glob("*/world.py") if p.parent.name != "kit")


def month_references(month: str = "2026-12") -> list[tuple[str, int, int, str]]:
    os.environ.setdefault("MCPBENCH_SECRET", "bench-secret-0123456789abcdef")
    import tasks_catalog.rotation as rotation
    from servers.kit.world import is_world_reference
    from tasks_catalog.sealed import month_seed
    from tasks_catalog.templates import load_pool

    built = rotation.build_month(load_pool(), month, month_seed(month))
    refs = {(ref["generator"], ref["version"], ref["seed"], ref.get("size", "default"))
            for task in built.tasks for state in task.initial_states().values() if is_world_reference(state)
            for ref in [state["world"]]}
    return sorted(refs, key=lambda r: (r[2], r[3], r[0], r[1]))  # by seed, as a gate judges them


def state_model(name: str) -> type:
    from servers.kit.state import ServerState

    module = importlib.import_module(f"servers.{name}.state")
    for value in vars(module).values():
        if isinstance(value, type) and issubclass(value, ServerState) and getattr(value, "world_generator", None) == name:
            return value
    raise LookupError(f"servers/{name}/state.py has no state model for its world")


def cost() -> None:
    from servers.kit.world import _generated, load_world
    from tasks_catalog.gate import FULL_COLLECTION_EVERY

    refs = month_references()
    young, middle, _ = gc.get_threshold()
    gc.set_threshold(young, middle, FULL_COLLECTION_EVERY)
    started = time.process_time()
    for name, version, seed, size in refs:
        _generated.cache_clear()
        load_world(state_model(name), {"world": {"generator": name, "version": version, "seed": seed, "size": size}},
                   copy=False)
    print(f"{len(refs)} distinct worlds: {time.process_time() - started:.2f} CPU-s")


def digests(out: str, seeds: int = 40) -> None:
    import servers.org as org
    from servers.kit.world import _generated, digest, generators

    found: dict[str, str] = {}
    for seed in range(1, seeds + 1):
        for size in ("default", "small"):
            found[f"org:1:{seed}:{size}"] = org.digest(org.organisation(1, seed, size))
            for name in NAMES:
                for version, generator in generators(name).items():
                    try:
                        found[f"{name}:{version}:{seed}:{size}"] = digest(generator.generate(seed, size))
                    except Exception as exc:  # noqa: BLE001 - a version that cannot build this seed must fail alike after
                        found[f"{name}:{version}:{seed}:{size}"] = f"error {type(exc).__name__}: {exc}"
            _generated.cache_clear()
            org.organisation.cache_clear()
    Path(out).write_text(json.dumps(found, indent=0, sort_keys=True))
    print(f"{len(found)} digests in {out}")


def compare(before: str, after: str) -> int:
    a, b = json.loads(Path(before).read_text()), json.loads(Path(after).read_text())
    differ = sorted(k for k in a.keys() | b.keys() if a.get(k) != b.get(k))
    print(f"{len(a)} and {len(b)} digests; {len(differ)} differ" + (": " + ", ".join(differ[:30]) if differ else ""))
    return 1 if differ else 0


if __name__ == "__main__":
    command, *args = sys.argv[1:] or ["cost"]
    if command == "cost":
        cost()
    elif command == "digests":
        digests(args[0], *(int(a) for a in args[1:]))
    elif command == "compare":
        sys.exit(compare(*args))
    else:
        sys.exit(f"unknown command {command!r} (cost, digests OUT [N], compare A B)")
