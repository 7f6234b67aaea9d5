"""bench/calibration/batch.py: a solver's batch rendered from templates with throwaway seeds, and the
interactive harness started on it, as bench/history/calibration.md's rounds were run."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tasks_catalog.loader import load_valid_tasks

ROOT = Path(__file__).resolve().parents[2]
BATCH = ROOT / "bench" / "calibration" / "batch.py"


def _batch(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, str(BATCH), *args], capture_output=True, text=True, timeout=300,
                          stdin=subprocess.DEVNULL, cwd=ROOT)


def _case_seed(line: str) -> int:
    return int(line.split("case seed ")[1].split()[0])


def test_a_batch_renders_each_template_with_a_case_no_earlier_solver_had(tmp_path):
    first = _batch(str(tmp_path / "S1"), "x-t-one-on-one-moved", "--salt", "t", "--no-start")
    assert first.returncode == 0, first.stderr
    seed = _case_seed(first.stdout)
    again = _batch(str(tmp_path / "S2"), "x-t-one-on-one-moved", "--salt", "t", "--no-start",
                   "--avoid-case", f"x-t-one-on-one-moved:{seed}")
    assert again.returncode == 0, again.stderr
    assert _case_seed(again.stdout) != seed
    (task,) = load_valid_tasks([tmp_path / "S2.tasks"])  # beside the solver's folder, never in it
    assert task.id.startswith("x-t-one-on-one-moved-") and task.difficulty == "easy"
    assert not (tmp_path / "S2").exists()  # --no-start: nothing runs


def test_a_batch_refuses_a_used_folder_an_unknown_template_and_a_malformed_avoid(tmp_path):
    assert _batch(str(tmp_path / "S1"), "x-t-one-on-one-moved", "--no-start").returncode == 0
    used = _batch(str(tmp_path / "S1"), "x-t-one-on-one-moved", "--no-start")
    assert used.returncode != 0 and "already holds a batch" in used.stderr
    unknown = _batch(str(tmp_path / "S3"), "x-t-no-such-template", "--no-start")
    assert unknown.returncode != 0 and "no template 'x-t-no-such-template'" in unknown.stderr
    bad = _batch(str(tmp_path / "S4"), "x-t-one-on-one-moved", "--avoid-case", "49", "--no-start")
    assert bad.returncode != 0 and "--avoid-case '49'" in bad.stderr


def _wait_for(path: Path, text: str, timeout: float = 120.0) -> str:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        seen = path.read_text() if path.exists() else ""
        if text in seen:
            return seen
        time.sleep(0.2)
    raise AssertionError(f"{text!r} never appeared in {path}:\n{path.read_text() if path.exists() else ''}")


def test_a_started_batch_is_solved_through_its_calls_file_and_lands_in_the_store(tmp_path):
    folder, store = tmp_path / "S1", tmp_path / "store"
    started = _batch(str(folder), "x-t-order-db-stripe-link", "--store", str(store))
    assert started.returncode == 0, started.stderr
    pid = int((folder / "pid").read_text())
    try:
        (task,) = load_valid_tasks([tmp_path / "S1.tasks"])
        assert sorted(p.name for p in folder.iterdir()) == ["calls.jsonl", "err.txt", "out.txt", "pid"]
        shown = _wait_for(folder / "out.txt", "One call per line")
        assert task.goal in shown and task.id not in shown and "reference_solution" not in shown
        with (folder / "calls.jsonl").open("a") as calls:
            for call in task.reference_solution:
                calls.write(json.dumps({"tool": call.tool, "arguments": call.arguments}) + "\n")
                calls.flush()
                time.sleep(0.05)
            calls.write("done\n")
        text = _wait_for(folder / "out.txt", '"success_rate"')
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            try:
                os.kill(pid, 0)
            except ProcessLookupError:
                break
            time.sleep(0.2)
        else:
            pytest.fail("the harness did not end after the last task")
    finally:
        try:
            os.killpg(pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
    card = json.loads(text[text.rindex("\n{\n") + 1:])
    assert card["success_rate"] == 1.0 and card["agent"] == "interactive"
    assert card["submission_id"].startswith("solver-S1-")
