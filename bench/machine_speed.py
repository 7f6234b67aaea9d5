"""The speed of this host right now, as one number: seconds for a fixed piece of work like a server's.

A shared host's speed drifts by a factor of two or more between days, and within an hour: a test suite
or a bench table means little without it. ``bench/world_bench.py`` records it with its table, and
``.ci/run`` prints it before the tests, so that timings from different runs can be compared.

    python bench/machine_speed.py     # prints e.g. "machine speed 0.62 s (lower is faster)"
"""

from __future__ import annotations

import copy
import json
import math
import time


def machine_speed_s() -> float:
    """Seconds for a fixed piece of work like a server's (200,000 small records built, a quarter of them
    deep-copied and encoded as JSON), best of three. Lower is faster."""
    best = math.inf
    for _ in range(3):
        started = time.perf_counter()
        rows = [{"id": i, "name": f"customer {i}", "tags": ["a", "b"], "score": i / 7} for i in range(200_000)]
        json.dumps(copy.deepcopy(rows[:50_000]))
        best = min(best, time.perf_counter() - started)
    return best


if __name__ == "__main__":
    print(f"machine speed {machine_speed_s():.2f} s (bench/machine_speed.py; lower is faster)")
