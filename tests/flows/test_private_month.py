"""The monthly pipeline end to end, as Prefect runs it, and the containment scan.

One process of its own (``pipeline.py``) runs the ``rotate_month`` flow, then ``evaluate_submission``
with the oracle on every task of the month and with noop on two per server and two cross-server (concurrency 4, local sandbox), then
``detect_anomalies``. The month is the shared months' (tests/conftest.py ``MONTH_SERVERS``: four servers'
tasks and their cross-server share, 64), which the session gates once. Every place it can write is a temporary folder: the store, the warehouse, Prefect's
home (its database and result storage), HOME, TMPDIR, its logs (stdout and stderr) and the session's
gate cache (shared with the other tests that rotate months). Afterwards every file under those folders
is scanned for the month's plaintext.

What the scan looks for, and why:
* every goal text of the sealed month, whole and in 40-character pieces (a truncated goal is a leak too);
* every sampled parameter value (``task.template.params``, nested lists and dicts flattened), in its
  text form — except values whose text is shorter than 6 characters (numbers below 100000, short words:
  they occur by chance in any database file) and values that also occur in the public text of the
  repository's dev set and template pool (a value the public pool lists as a choice is public; which
  one was drawn is what the goal, scanned above, would give away). A numeric value counts only where
  no other digit touches it (``310717`` inside the timestamp ``11:58:09.310717`` is not a hit).
Each needle is looked for as is and JSON-escaped. Compressed containers are opened first: Parquet files
are read and every value scanned; the DuckDB warehouse is opened and every table and view definition
scanned; every other file (Prefect's SQLite database and its WAL, logs, JSON) is scanned as raw bytes.
The filesystem server keeps a run's files in /dev/shm (memory), outside this scan by design.
"""

from __future__ import annotations

import fcntl
import functools
import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from _flow_support import REPO, SECRET

from tasks_catalog.rotation import CROSS_PER_SERVER, PER_SERVER, REPLACE_SHARE
from tasks_catalog.schema import CROSS_SERVER
from tests.conftest import MONTH_SERVERS

#: the months tests/conftest.py's ``rotated_months`` builds, with the same secret and pool (one gate cache)
MONTH, NEXT = "2026-11", "2026-12"
#: the pipeline (a gated month, 180 sandboxed runs) may be built inside the first test that asks for it
pytestmark = [pytest.mark.slow, pytest.mark.timeout(900)]
MIN_TEXT = 6
PIECE = 40


def _run_pipeline(root: Path, gate_cache: Path) -> dict:
    dirs = {name: root / name for name in ("store", "warehouse", "prefect", "home", "tmp", "logs")}
    for d in dirs.values():
        d.mkdir(parents=True, exist_ok=True)
    servers = MONTH_SERVERS
    env = {"PATH": os.environ["PATH"], "LANG": "C.UTF-8", "HOME": str(dirs["home"]), "TMPDIR": str(dirs["tmp"]),
           "PREFECT_HOME": str(dirs["prefect"]), "PREFECT_SERVER_ANALYTICS_ENABLED": "false",
           "PREFECT_SERVER_EPHEMERAL_STARTUP_TIMEOUT_SECONDS": "180", "MCPBENCH_SECRET": SECRET,
           "MCPBENCH_GATE_CACHE": str(gate_cache), "PYTHONDONTWRITEBYTECODE": "1"}
    db = dirs["warehouse"] / "warehouse.duckdb"
    with open(dirs["logs"] / "stdout.json", "wb") as out, open(dirs["logs"] / "stderr.log", "wb") as err:
        proc = subprocess.run([sys.executable, str(REPO / "tests/flows/pipeline.py"), MONTH, str(dirs["store"]),
                               str(db), "--servers", ",".join(servers)],
                              cwd=dirs["tmp"], env=env, stdout=out, stderr=err, timeout=900)
    assert proc.returncode == 0, (dirs["logs"] / "stderr.log").read_text()[-4000:]
    result = json.loads((dirs["logs"] / "stdout.json").read_text())
    done = {"result": result, "servers": list(servers)}
    (root / "done.json").write_text(json.dumps(done))  # outside the scanned folders
    return done


@pytest.fixture(scope="session")
def pipeline(request, tmp_path_factory, gate_cache):
    """The pipeline runs once per test session, also under pytest-xdist: the first worker to take the
    lock runs it, the others wait for it (at most the subprocess's timeout) and read what it left."""
    base = tmp_path_factory.getbasetemp()
    if hasattr(request.config, "workerinput"):
        base = base.parent  # shared by all workers of this session
    root = base / "flows-pipeline"
    with open(base / "flows-pipeline.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        try:
            done = json.loads((root / "done.json").read_text()) if (root / "done.json").exists() \
                else _run_pipeline(root, gate_cache)
        finally:
            fcntl.flock(lock, fcntl.LOCK_UN)
    dirs = {name: root / name for name in ("store", "warehouse", "prefect", "home", "tmp", "logs")}
    return {"dirs": dirs, "gate_cache": gate_cache, "db": dirs["warehouse"] / "warehouse.duckdb",
            "result": done["result"],
            "servers": tuple(done["servers"])}


def test_the_rotation_flow_seals_a_months_gated_tasks_single_and_cross_server(pipeline):
    report = pipeline["result"]["rotation"]
    n = len(pipeline["servers"])
    cross = sum(CROSS_PER_SERVER.values()) * n if n >= 2 else 0
    assert report["month"] == MONTH and report["tasks"] == PER_SERVER * len(pipeline["servers"]) + cross
    assert report["by_server"] == {**dict.fromkeys(pipeline["servers"], PER_SERVER), **({CROSS_SERVER: cross} if cross else {})}
    store = pipeline["dirs"]["store"]
    assert (store / f"private/months/{MONTH}.sealed").exists()
    assert (store / f"public/attestations/{MONTH}.json").exists()


def test_the_oracle_scores_one_on_every_task_of_the_sealed_month_and_noop_zero(pipeline):
    oracle, noop = pipeline["result"]["oracle"], pipeline["result"]["noop"]
    n = pipeline["result"]["rotation"]["tasks"]
    assert oracle["infra_errors"] == [] and noop["infra_errors"] == []
    assert oracle["score"]["attempted"] == n and oracle["score"]["success_rate"] == 1.0
    rows = pipeline["result"]["rotation"]["by_server"]  # each server's tasks, and the cross-server ones
    assert noop["score"]["attempted"] == 2 * len(rows) and noop["score"]["success_rate"] == 0.0


# -- the containment scan ---------------------------------------------------------------------------
def _flatten(value):
    if isinstance(value, dict):
        for v in value.values():
            yield from _flatten(v)
    elif isinstance(value, (list, tuple)):
        for v in value:
            yield from _flatten(v)
    elif isinstance(value, bool) or value is None:
        return
    else:
        yield str(value)


def _public_text() -> str:
    parts = []
    for folder in ("tasks_catalog/dev", "tasks_catalog/templates"):
        for path in sorted((REPO / folder).rglob("*")):
            if path.is_file() and path.suffix in (".json", ".yaml", ".yml", ".md", ".py"):
                parts.append(path.read_text(errors="replace"))
    return "\n".join(parts)


def _needles(tasks) -> dict[str, str]:
    """needle -> what it is (for the failure message); as is and JSON-escaped."""
    public = _public_text()
    is_public = functools.cache(public.__contains__)  # a value many tasks share is looked up once
    found: dict[str, str] = {}
    for task in tasks:
        texts = [(task.goal, f"goal of {task.id}")]
        texts += [(task.goal[i:i + PIECE], f"goal piece of {task.id}") for i in range(0, len(task.goal) - PIECE, PIECE)]
        texts += [(v, f"parameter of {task.id}") for v in _flatten(task.template.params)
                  if len(v) >= MIN_TEXT and not is_public(v)]
        for text, what in texts:
            for variant in (text, json.dumps(text)[1:-1]):
                found.setdefault(variant, what)
    return found


def _readable_forms(path: Path) -> list[bytes]:
    """The file's bytes, and for compressed containers their decoded contents."""
    forms = [path.read_bytes()]
    if path.suffix == ".parquet":
        import pyarrow.parquet as pq

        table = pq.read_table(path)
        forms.append("\n".join(str(v) for col in table.columns for v in col.to_pylist()).encode())
    elif path.suffix == ".duckdb":
        import duckdb

        with duckdb.connect(str(path), read_only=True) as con:
            texts = [row[0] or "" for row in con.execute("select sql from duckdb_views() where not internal").fetchall()]
            for (table,) in con.execute("select table_name from duckdb_tables()").fetchall():
                texts += [str(r) for r in con.execute(f'select * from "{table}"').fetchall()]
        forms.append("\n".join(texts).encode())
    return forms


def _trie(words: set[bytes]) -> bytes:
    """One regex for many short literals, shaped as a trie so each position tries few branches."""
    heads: dict[bytes, set[bytes]] = {}
    for w in words:
        heads.setdefault(w[:1], set()).add(w[1:])
    branches = []
    for head, tails in sorted(heads.items()):
        rest = {t for t in tails if t}
        tail = _trie(rest) if rest else b""
        if rest and b"" in tails:
            tail = b"(?:" + tail + b")?"
        branches.append(re.escape(head) + tail)
    return branches[0] if len(branches) == 1 else b"(?:" + b"|".join(branches) + b")"


_NUMBER = re.compile(rb"[0-9][0-9.,]*")


def _inside_a_token(data: bytes, at: int, size: int) -> bool:
    """Whether the bytes at ``at`` touch a letter, digit or decimal point on either side: a sampled
    number there is a piece of a longer token (a timestamp's microseconds, a hex UUID such as
    ``...aabecd351740f...`` in Prefect's database), not the value printed."""
    before = data[at - 1:at] if at > 0 else b""
    after = data[at + size:at + size + 1]
    return (before.isalnum() or before == b".") or after.isalnum()


def _scan(roots: list[Path], needles: dict[str, str]) -> tuple[int, list[str]]:
    """Files scanned, and one line per hit. Candidates are found by the needles' first ``MIN_TEXT``
    bytes, then checked whole. A numeric needle must stand alone (``_inside_a_token``)."""
    by_prefix: dict[bytes, list[bytes]] = {}
    for n in needles:
        by_prefix.setdefault(n.encode()[:MIN_TEXT], []).append(n.encode())
    candidates = re.compile(b"(?=(" + _trie(set(by_prefix)) + b"))")
    files, hits = 0, []
    for root in roots:
        for path in sorted(p for p in root.rglob("*") if p.is_file()):
            files += 1
            for data in _readable_forms(path):
                for m in candidates.finditer(data):
                    at = m.start()
                    for needle in by_prefix[m.group(1)]:
                        if not data.startswith(needle, at):
                            continue
                        if _NUMBER.fullmatch(needle) and _inside_a_token(data, at, len(needle)):
                            continue
                        hits.append(f"{path.relative_to(root.parent)}: {needles[needle.decode()]}")
    return files, hits


@pytest.fixture(scope="module")
def month_tasks(pipeline):
    from runstore.store import open_store
    from tasks_catalog.months import load_month_tasks

    return load_month_tasks(open_store(str(pipeline["dirs"]["store"])), MONTH, SECRET)


@pytest.fixture(scope="module")
def needles(month_tasks):
    """``_needles`` of the sealed month, made once (each value is looked up in the public text of the whole pool)."""
    return _needles(month_tasks)


def test_the_scan_finds_plaintext_where_it_is(month_tasks, needles, tmp_path):
    import pyarrow as pa
    import pyarrow.parquet as pq

    # a cross-server template's tasks of one month may share their goal (each is another organisation)
    assert sum(w.startswith("goal of") for w in needles.values()) >= len({t.goal for t in month_tasks})
    assert any(w.startswith("parameter of") for w in needles.values())
    goal = month_tasks[0].goal
    pq.write_table(pa.table({"goal": [goal]}), tmp_path / "leak.parquet", compression="zstd")
    (tmp_path / "log.txt").write_text("x" + goal[:PIECE * 2 + 3])
    files, hits = _scan([tmp_path], needles)
    assert files == 2
    assert {h.split(":")[0].rsplit("/", 1)[1] for h in hits} == {"leak.parquet", "log.txt"}


def test_a_sampled_number_is_found_where_it_is_printed_and_not_inside_a_longer_token(tmp_path):
    (tmp_path / "run.json").write_text('{"ticket": 351740}')
    (tmp_path / "log.txt").write_text("refunded ticket #351740, done")
    (tmp_path / "ids.txt").write_text("6b77139b-9eb3-43c2-8f8e-aabecd351740f 2026-12-03 05:28:31.351740 T351740")
    files, hits = _scan([tmp_path], {"351740": "parameter of st-t"})
    assert files == 3
    assert sorted(h.split(":")[0].rsplit("/", 1)[1] for h in hits) == ["log.txt", "run.json"]


def test_no_goal_or_sampled_value_of_the_sealed_month_reaches_any_file_the_pipeline_wrote(pipeline, needles):
    dirs = pipeline["dirs"]
    files, hits = _scan([*dirs.values(), pipeline["gate_cache"]], needles)
    assert files >= 4 and (dirs["prefect"] / "prefect.db").exists() and pipeline["db"].exists()
    assert hits == [], f"{len(hits)} plaintext hits in {files} files:\n" + "\n".join(hits[:40])


def test_the_next_month_carries_three_quarters_over_perturbed_and_replaces_a_quarter(pipeline, monkeypatch, secret,
                                                                                      tmp_path, gate_cache):
    """On a copy of the store, since retiring the month publishes its plaintext (by design): the flow's
    rotation task."""
    import tasks_catalog.rotation
    from flows.rotate import rotate
    from runstore.store import open_store
    from tasks_catalog.months import load_month_tasks, verify_historical

    monkeypatch.setattr(tasks_catalog.rotation, "SERVER_NAMES", pipeline["servers"])
    monkeypatch.setenv("MCPBENCH_GATE_CACHE", str(gate_cache))
    store = str(tmp_path / "store")
    shutil.copytree(pipeline["dirs"]["store"], store)  # the scan reads the pipeline's own store
    report = rotate.fn(NEXT, store, [], None, True)
    k = len(pipeline["servers"])
    n = PER_SERVER * k + (sum(CROSS_PER_SERVER.values()) * k if k >= 2 else 0)
    assert report["tasks"] == n and report["retired"] == f"Historical-{MONTH}"
    # a quarter of each server's templates is replaced (and of each level's cross-server ones, when the pool
    # has unused ones); the rest are carried over with fresh parameters
    assert report["replaced"] >= round(PER_SERVER * REPLACE_SHARE) * k
    assert report["gate_failures"] == []  # the public report: ids only, the same `mcpbench rotate` prints
    before = {t.template.id: t for t in load_month_tasks(open_store(store), MONTH, secret)}
    after = load_month_tasks(open_store(store), NEXT, secret)
    carried = [t for t in after if t.template.id in before]
    assert len({t.template.id for t in carried}) == report["carried"]
    assert all(t.template.params != before[t.template.id].template.params for t in carried)
    assert verify_historical(open_store(store), f"Historical-{MONTH}").ok
