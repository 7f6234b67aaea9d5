"""One gate, one policy, everywhere a month is judged: the rotation (library, CLI and flow) and the
catalog flow ask the TypeScript verifier for every verdict when it is built, and say so when it is
not; and `mcpbench rotate` prints the same public report as the flow: ids and counts, never a
sampled value of the month.

Months here are built for the slack server only (PER_SERVER tasks), so each gate run stays small."""

from __future__ import annotations

import json
import shutil
import stat

import pytest
from click.testing import CliRunner

from mcpbench.cli import main
from runstore.store import open_store
from tasks_catalog import ts_verifier
from tasks_catalog.rotation import MIN_RECOVERY, PER_SERVER, drawn_levels
from tests.months.conftest import SECRET

needs_ts = pytest.mark.skipif(not ts_verifier.available(), reason="the TypeScript verifier is not built "
                              "(scripts/setup.sh builds it); the policy without it is tested below")


@pytest.fixture
def slack_only(monkeypatch):
    import tasks_catalog.rotation

    monkeypatch.setattr(tasks_catalog.rotation, "SERVER_NAMES", ("slack",))
    monkeypatch.setenv("MCPBENCH_SECRET", SECRET)
    from tasks_catalog.templates import load_pool

    return [t for t in load_pool() if t.server == "slack"]


@pytest.fixture
def asked(monkeypatch):
    """How many verdicts the real TypeScript verifier was asked for (it still answers every one), alone
    or beside frame judgements in one call."""
    real, real_joint = ts_verifier.evaluate_many, ts_verifier.judge_many
    cases: list = []

    def spy(batch, **options):
        cases.extend(batch)
        return real(batch, **options)

    def joint_spy(verdict_cases, frame_cases, **options):
        cases.extend(verdict_cases)
        return real_joint(verdict_cases, frame_cases, **options)

    monkeypatch.setattr(ts_verifier, "evaluate_many", spy)
    monkeypatch.setattr(ts_verifier, "judge_many", joint_spy)
    return cases


@needs_ts
def test_the_rotation_asks_the_typescript_verifier_for_every_verdict(slack_only, asked, tmp_path):
    from tasks_catalog.months import rotate

    report = rotate(open_store(str(tmp_path / "lib")), "2026-11", secret=SECRET, pool=slack_only)
    assert report.gate_failures == [] and report.verifiers == ["python", "typescript"]
    assert len(asked) >= 3 * PER_SERVER, "initial state, reference solution and a wrong solution of every task"


@needs_ts
def test_the_rotate_command_and_the_rotation_flow_use_the_same_dual_gate(slack_only, asked, tmp_path):
    from flows.catalog import gate_month
    from flows.rotate import rotate as rotate_task

    # one gate process, as the flow's: a helper process would ask its share of the verdicts where this spy
    # cannot count them (a helper gates with the verifiers it is handed, or not at all: gate_pool._helper)
    out = CliRunner().invoke(main, ["rotate", "--month", "2026-11", "--store", str(tmp_path / "cli"),
                                    "--pool", _pool_dir(tmp_path, slack_only), "--gate-processes", "1"])
    assert out.exit_code == 0, out.output
    assert "gate verifiers: python + typescript" in out.output
    by_cli = len(asked)
    flow_report = rotate_task.fn("2026-11", str(tmp_path / "flow"), [], None, True)
    assert flow_report["verifiers"] == ["python", "typescript"] and len(asked) == 2 * by_cli
    checked = gate_month.fn("2026-11", str(tmp_path / "flow"))
    assert checked["failed"] == [] and checked["verifiers"] == ["python", "typescript"]
    assert len(asked) == 3 * by_cli


def test_without_the_typescript_verifier_the_dev_gate_says_so_or_refuses_when_required(monkeypatch, tmp_path):
    from tasks_catalog.gate import GateUnavailable, acceptance_gate

    monkeypatch.setattr(ts_verifier, "CLI", tmp_path / "not-built" / "cli.js")
    gate = acceptance_gate()
    assert gate.verifiers == ["python"] and "not built" in gate.describe()
    monkeypatch.setenv("MCPBENCH_REQUIRE_TYPESCRIPT", "1")
    with pytest.raises(GateUnavailable, match="not built"):
        acceptance_gate()


def _not_built(monkeypatch, tmp_path, build):
    """The TypeScript verifier as a fresh clone has it: not built; ``build`` stands in for npm."""
    monkeypatch.setattr(ts_verifier, "CLI", tmp_path / "dist" / "cli.js")
    monkeypatch.setattr(ts_verifier, "build", build)


def test_a_month_is_never_gated_with_one_verifier_where_the_typescript_one_cannot_be_built(slack_only, monkeypatch,
                                                                                          tmp_path):
    """A worker in a fresh clone, without npm's packages: the rotation refuses, saying why, and writes
    nothing (the month used to be gated by Python alone, with a warning)."""
    from flows.catalog import gate_month
    from flows.rotate import rotate as rotate_task
    from tasks_catalog.gate import GateUnavailable

    def cannot_build():
        raise ts_verifier.TypeScriptVerifierError("`npm ci` failed: the registry cannot be reached")

    _not_built(monkeypatch, tmp_path, cannot_build)
    store = tmp_path / "s"
    out = CliRunner().invoke(main, ["rotate", "--month", "2026-11", "--store", str(store),
                                    "--pool", _pool_dir(tmp_path, slack_only)])
    assert out.exit_code == 1, out.output
    assert "a private month is gated by both verifiers" in out.output and "the registry cannot be reached" in out.output
    assert not (store / "private").exists() and not (store / "public").exists()
    with pytest.raises(GateUnavailable, match="gated by both verifiers"):
        rotate_task.fn("2026-11", str(tmp_path / "flow"), [], _pool_dir(tmp_path, slack_only), True)
    with pytest.raises(GateUnavailable, match="gated by both verifiers"):
        gate_month.fn("2026-11", str(tmp_path / "flow"))


def test_a_month_given_a_gate_of_one_verifier_is_refused(slack_only, tmp_path):
    from tasks_catalog.gate import GateUnavailable, acceptance_gate
    from tasks_catalog.months import rotate

    with pytest.raises(GateUnavailable, match=r"gated by python alone: a private month is gated by both verifiers"):
        rotate(open_store(str(tmp_path / "s")), "2026-11", secret=SECRET, pool=slack_only,
               gate=acceptance_gate(typescript=False))
    assert not (tmp_path / "s" / "private").exists()


@needs_ts
def test_a_worker_without_the_typescript_verifier_builds_it_before_gating_a_month(slack_only, monkeypatch, tmp_path,
                                                                                 gate_cache):
    """The build itself (npm ci, npm run build) is stood in for by copying the verifier built in this
    checkout where the fresh clone's would be: what is under test is that the policy builds and then
    asks both verifiers."""
    built = ts_verifier.CLI.parent
    builds = []

    def build():
        builds.append(1)
        (tmp_path / "dist").symlink_to(built)  # node runs it from where it was built (it reads ../frames)

    _not_built(monkeypatch, tmp_path, build)
    monkeypatch.setenv("MCPBENCH_GATE_CACHE", str(gate_cache))
    out = CliRunner().invoke(main, ["rotate", "--month", "2026-11", "--store", str(tmp_path / "s"),
                                    "--pool", _pool_dir(tmp_path, slack_only)])
    assert out.exit_code == 0, out.output
    assert builds == [1] and "gate verifiers: python + typescript" in out.stdout
    assert (tmp_path / "s" / "private" / "months" / "2026-11.sealed").exists()


def test_the_rotation_prints_its_stages_and_gate_progress_with_ids_and_counts_only(slack_only, tmp_path, gate_cache,
                                                                                   monkeypatch):
    monkeypatch.setenv("MCPBENCH_GATE_CACHE", str(gate_cache))
    out = CliRunner().invoke(main, ["rotate", "--month", "2026-11", "--store", str(tmp_path / "s"),
                                    "--pool", _pool_dir(tmp_path, slack_only)])
    assert out.exit_code == 0, out.output
    lines = out.stderr.splitlines()
    assert lines[0].startswith("rotating 2026-11 in ")
    assert any(line.startswith("rendering 2026-11 from ") for line in lines)
    assert any(line.startswith(f"rendered {PER_SERVER} tasks (the first month: every task new); gating them with python")
               for line in lines)
    assert any(line.startswith(f"progress: {PER_SERVER}/{PER_SERVER} tasks done ({PER_SERVER} gated)") for line in lines)
    assert any(line.startswith("sealing 2026-11") for line in lines)
    for value in _sampled_values(_pool_dir(tmp_path, slack_only)):
        assert value not in out.stderr


def _pool_dir(tmp_path, templates, *, break_goal: str | None = None) -> str:
    """The templates as a pool folder; ``break_goal`` rewrites that template's goal so it no longer
    names the channel its predicate checks (every parameter is still used)."""
    folder = tmp_path / f"pool-{break_goal or 'ok'}"
    if folder.exists():
        return str(folder)
    (folder / "slack").mkdir(parents=True)
    if break_goal:  # exactly a month's worth (16, two of them recovery), so the broken one is drawn
        recovery = [t for t in templates if t.category == "recovery" and t.id != break_goal][:2]
        rest = [t for t in templates if t not in recovery and t.id != break_goal]
        templates = [t for t in templates if t.id == break_goal] + recovery + rest[:13]
    for t in templates:
        doc = t.model_dump(mode="json", by_alias=True, exclude_none=True)
        if t.id == break_goal:
            doc["task"]["goal"] = "Create a public channel for the {{what}} work of {{team}}."
        (folder / "slack" / f"{t.id}.json").write_text(json.dumps(doc))
    return str(folder)


def _sampled_values(pool_dir: str) -> set[str]:
    """Every sampled parameter value of the month the rotation renders (as text, 5+ characters)."""
    from pathlib import Path

    from tasks_catalog.rotation import build_month
    from tasks_catalog.sealed import month_seed
    from tasks_catalog.templates import load_pool

    month = build_month(load_pool(Path(pool_dir)), "2026-11", month_seed("2026-11", SECRET))
    values: set[str] = set()

    def walk(v):
        if isinstance(v, dict):
            for x in v.values():
                walk(x)
        elif isinstance(v, list):
            for x in v:
                walk(x)
        elif not isinstance(v, bool) and v is not None:
            values.add(str(v))

    for task in month.tasks:
        walk(task.template.params)
    return {v for v in values if len(v) >= 5}


@needs_ts
def test_rotate_prints_only_ids_and_counts_even_when_the_gate_fails(slack_only, tmp_path, monkeypatch, gate_cache):
    from flows.rotate import GateFailed
    from flows.rotate import rotate as rotate_task

    # the session's cache: the month is gated three times, and only the failing task is judged each time
    # (a cache keeps passes only); the passing ones are mostly the shared months' slack tasks, judged once
    # a session whoever asks first
    monkeypatch.setenv("MCPBENCH_GATE_CACHE", str(gate_cache))
    broken = next(t for t in slack_only if t.id == "sl-t-create-channel")
    drawn = [t for t in slack_only if t.difficulty in drawn_levels()]  # the levels a month draws
    recovery = [t for t in drawn if t.category == "recovery"][:MIN_RECOVERY]
    rest = [t for t in drawn if t not in (broken, *recovery)]
    month_pool = [broken, *recovery, *rest][:PER_SERVER]  # a month's worth exactly: the broken one is drawn
    pool = _pool_dir(tmp_path, month_pool, break_goal="sl-t-create-channel")
    store = tmp_path / "store"
    reasons = tmp_path / "reasons.json"
    runner = CliRunner()
    out = runner.invoke(main, ["rotate", "--month", "2026-11", "--store", str(store), "--pool", pool,
                               "--reasons-file", str(reasons)])
    as_json = runner.invoke(main, ["rotate", "--month", "2026-11", "--store", str(store), "--pool", pool, "--json"])
    assert out.exit_code == 1 and as_json.exit_code == 1
    (failing,) = json.loads(as_json.stdout)["gate_failures"]
    assert failing.startswith("sl-t-create-channel-") and f"FAIL {failing}\n" in out.output
    assert "NOT sealed" in out.output and not (store / "private/months/2026-11.sealed").exists()

    why = json.loads(reasons.read_text())[failing]
    assert any("goal does not name" in r for r in why), why  # the reasons exist, for the operator only
    assert stat.S_IMODE(reasons.stat().st_mode) == 0o600
    with pytest.raises(GateFailed) as by_flow:
        rotate_task.fn("2026-11", str(store), [], pool, True)
    sampled = _sampled_values(pool)
    assert len(sampled) > 20
    for text in (out.output, as_json.output, str(by_flow.value)):  # stdout and stderr: progress lines too
        assert failing in text
        assert sorted(v for v in sampled if v in text) == []
    shutil.rmtree(store, ignore_errors=True)
