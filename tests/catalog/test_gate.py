"""The acceptance gate: the dev set passes; a corrupted task fails, named, with the reason."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from mcpbench.cli import main
from tasks_catalog.gate import validate_paths

ROOT = Path(__file__).resolve().parents[2]
DEV_DIR = ROOT / "tasks_catalog" / "dev"
#: An inline-state task (the toy filesystem task of issue 10, kept as a fixture: the dev set moved to worlds)
DEV_TASK = ROOT / "tests" / "catalog" / "inline_tasks" / "fs-archive-meeting-notes.json"
TASK_ID = "fs-archive-meeting-notes"


def _doc() -> dict[str, Any]:
    return json.loads(DEV_TASK.read_text(encoding="utf-8"))


def _copy(tmp_path: Path, doc: dict[str, Any] | None = None, name: str = "task.json") -> Path:
    """A tmp copy of the filesystem dev task (never modify tasks_catalog/dev in place)."""
    tmp_path.mkdir(parents=True, exist_ok=True)
    path = tmp_path / name
    if doc is None:
        shutil.copyfile(DEV_TASK, path)
    else:
        path.write_text(json.dumps(doc, indent=2), encoding="utf-8")
    return path


def _reasons(tmp_path: Path, doc: dict[str, Any]) -> list[str]:
    results, total = validate_paths([_copy(tmp_path, doc)])
    assert total == 1
    (result,) = results
    assert result.task_id == doc["id"]
    assert not result.ok
    return result.reasons


def test_the_whole_dev_set_passes_the_gate(gate_cache):
    """As `mcpbench tasks validate tasks_catalog/dev` judges it (both verifiers where the TypeScript one
    is built), through the session's gate cache: a pass recorded by this code earlier in the session
    stands (tests/catalog/test_gate_cache.py holds the cache to that)."""
    from tasks_catalog.gate import acceptance_gate

    results, total = acceptance_gate(cache=gate_cache).check_paths([DEV_DIR])
    failing = {r.task_id: r.reasons for r in results if not r.ok}
    assert failing == {}
    assert total >= 1 and len(results) == total


def test_a_copy_of_a_dev_task_passes_the_gate(tmp_path):
    results, total = validate_paths([_copy(tmp_path)])
    assert total == 1 and results[0].ok and results[0].task_id == TASK_ID


def test_a_negated_predicate_fails_the_gate_naming_the_task(tmp_path):
    doc = _doc()
    doc["success"] = {"not": doc["success"]}
    reasons = _reasons(tmp_path, doc)
    assert "predicate is true on the initial state; it must be false" in " ".join(reasons)
    assert any("after the reference solution" in r and "must be true" in r for r in reasons)


def test_a_flipped_literal_that_the_reference_no_longer_satisfies_fails_the_gate(tmp_path):
    doc = _doc()
    doc["success"]["all"][0]["filesystem.fileExists"]["path"] = "archive/2026/2026-03-21-hiring-sync.md"
    doc["goal"] += " (archive/2026/2026-03-21-hiring-sync.md)"  # keep the goal naming it: only the verdict fails
    reasons = _reasons(tmp_path, doc)
    assert "predicate is false after the reference solution; it must be true" in reasons
    assert [r for r in reasons if "reference solution" in r] == [
        "predicate is false after the reference solution; it must be true"]


def test_a_wrong_solution_that_succeeds_fails_the_gate(tmp_path):
    doc = _doc()
    doc["wrong_solutions"].append({"why": "is in fact the right solution", "kind": "other", "calls": doc["reference_solution"]})
    n = len(doc["wrong_solutions"])
    reasons = _reasons(tmp_path, doc)
    assert reasons == [f"wrong solution {n} (is in fact the right solution) passes: the predicate is true and the frame holds"]


def test_a_goal_that_does_not_name_a_checked_literal_fails_the_gate(tmp_path):
    doc = _doc()
    doc["goal"] = doc["goal"].replace(", so that archive/2026/2026-03-14-budget-review.md exists", "")
    reasons = _reasons(tmp_path, doc)
    assert reasons == [
        f'goal does not name $.success.all[0]["filesystem.fileExists"].path = {ARCHIVED!r}',
        f'goal does not name $.success.all[1]["filesystem.fileContentMatches"].path = {ARCHIVED!r}']


def test_a_goal_that_does_not_match_a_checked_pattern_fails_the_gate(tmp_path):
    doc = _doc()
    doc["success"]["all"][1]["filesystem.fileContentMatches"]["pattern"] = "until Q3"
    reasons = _reasons(tmp_path, doc)
    assert len(reasons) == 1
    assert "pattern 'until Q3' requires no literal of 3+ characters that the goal contains" in reasons[0]


def test_a_reference_solution_that_errors_fails_the_gate(tmp_path):
    doc = _doc()
    doc["reference_solution"][1]["arguments"]["source"] = "notes/2026-03-15-budget-review.md"
    reasons = _reasons(tmp_path, doc)
    assert reasons[0].startswith("reference solution: call 2 (move_file) failed")


def test_a_task_that_does_not_load_fails_the_gate_and_the_others_are_still_gated(tmp_path):
    bad = _doc()
    bad["id"] = "fs-broken-predicate"
    bad["success"] = {"all": []}
    _copy(tmp_path, name="good.json")
    _copy(tmp_path, bad, name="bad.json")
    results, total = validate_paths([tmp_path])
    assert total == 2
    verdicts = {r.task_id: r.ok for r in results}
    assert verdicts == {TASK_ID: True, "fs-broken-predicate": False}
    (broken,) = [r for r in results if not r.ok]
    assert broken.reasons == ["$.success.all: 'all' takes a non-empty list of predicates"]


def test_validate_exits_0_when_every_task_passes(tmp_path):
    _copy(tmp_path)
    result = CliRunner().invoke(main, ["tasks", "validate", "--no-typescript", str(tmp_path)])
    assert result.exit_code == 0, result.output
    assert result.output.strip().splitlines()[-1] == "1 valid, 0 failed, 1 tasks (verifiers: python)"


def test_validate_exits_1_and_prints_one_line_per_failing_reason(tmp_path):
    doc = _doc()
    doc["wrong_solutions"].append({"why": "is in fact the right solution", "kind": "other", "calls": doc["reference_solution"]})
    _copy(tmp_path, doc)
    result = CliRunner().invoke(main, ["tasks", "validate", "--no-typescript", str(tmp_path)])
    assert result.exit_code == 1
    lines = result.output.strip().splitlines()
    n = len(doc["wrong_solutions"])
    assert lines[0].startswith(f"FAIL {TASK_ID}: wrong solution {n} (is in fact the right solution) passes")
    assert lines[-1] == "0 valid, 1 failed, 1 tasks (verifiers: python)"


def test_validate_exits_1_when_there_are_no_tasks(tmp_path):
    result = CliRunner().invoke(main, ["tasks", "validate", "--no-typescript", str(tmp_path)])
    assert result.exit_code == 1
    assert "0 tasks" in result.output


def test_validate_json_reports_every_task(tmp_path):
    doc = _doc()
    doc["id"] = "fs-negated"
    doc["success"] = {"not": doc["success"]}
    _copy(tmp_path, name="good.json")
    _copy(tmp_path, doc, name="negated.json")
    result = CliRunner().invoke(main, ["tasks", "validate", "--no-typescript", "--json", str(tmp_path)])
    assert result.exit_code == 1
    report = json.loads(result.output)
    assert set(report) == {"tasks", "valid", "failed", "verifiers", "results"}
    assert (report["tasks"], report["valid"], report["failed"]) == (2, 1, 1)
    assert report["verifiers"] == ["python"]
    by_task = {r["task"]: r for r in report["results"]}
    assert set(by_task) == {TASK_ID, "fs-negated"}
    probes = by_task[TASK_ID].pop("probes")
    assert by_task[TASK_ID] == {"task": TASK_ID, "ok": True, "reasons": []}
    assert probes and {p["outcome"] for p in probes} <= {"held", "skipped"}
    assert by_task["fs-negated"]["ok"] is False
    assert by_task["fs-negated"]["reasons"] and all(isinstance(r, str) for r in by_task["fs-negated"]["reasons"])


def test_validate_json_exits_0_when_every_task_passes(tmp_path):
    _copy(tmp_path)
    result = CliRunner().invoke(main, ["tasks", "validate", "--no-typescript", "--json", str(tmp_path)])
    assert result.exit_code == 0, result.output
    report = json.loads(result.output)
    assert (report["tasks"], report["valid"], report["failed"]) == (1, 1, 0)


# -- the stricter gate (issue 10) -------------------------------------------------------------------
NOTES = "notes/2026-03-14-budget-review.md"
ARCHIVED = "archive/2026/2026-03-14-budget-review.md"
FRAME = [{"entity": "filesystem.file", "change": ["create"], "ids": [ARCHIVED]},
         {"entity": "filesystem.file", "change": ["delete"], "ids": [NOTES]},
         {"entity": "filesystem.directory", "change": ["create"], "ids": ["archive/2026"]}]
MOVE = {"tool": "move_file", "arguments": {"source": NOTES, "destination": ARCHIVED}}
MOVE_OTHER = {"tool": "move_file", "arguments": {"source": "notes/2026-03-21-hiring-sync.md",
                                               "destination": "archive/2026/2026-03-21-hiring-sync.md"}}
EMPTY_OFFSITE = {"tool": "write_file", "arguments": {"path": "archive/2025/2025-11-02-offsite.md", "content": ""}}


def _framed(**changes) -> dict[str, Any]:
    doc = _doc()
    doc["frame"] = FRAME
    doc["wrong_solutions"] = [
        {"why": "moves the other meeting's notes", "kind": "lookalike", "calls": [MOVE_OTHER]},
        {"why": "moves both files", "kind": "other", "calls": [MOVE, MOVE_OTHER]},
        {"why": "moves the notes and empties the offsite notes", "kind": "collateral", "calls": [MOVE, EMPTY_OFFSITE]}]
    doc.update(changes)
    return doc


def _gate(tmp_path: Path, doc: dict[str, Any]) -> list[str]:
    (result,), _ = validate_paths([_copy(tmp_path, doc)])
    return result.reasons


def test_a_task_with_a_frame_and_both_near_misses_passes_the_gate(tmp_path):
    assert _gate(tmp_path, _framed()) == []


def test_a_reference_solution_outside_the_frame_fails_the_gate_naming_the_entity(tmp_path):
    reasons = _reasons(tmp_path, _framed(frame=FRAME[:1] + FRAME[2:]))
    assert f"the reference solution leaves the frame: filesystem.file {NOTES} deleted: outside the frame" in reasons


def test_the_collateral_near_miss_is_caught_by_the_frame_alone(tmp_path):
    assert _gate(tmp_path, _framed()) == []
    loose = _framed(frame=[*FRAME, {"entity": "filesystem.file", "change": ["update"]}])
    reasons = _reasons(tmp_path, loose)
    assert "wrong solution 3 (moves the notes and empties the offsite notes) passes: the predicate is true and the " \
           "frame holds" in reasons


def test_every_task_needs_a_collateral_and_a_lookalike_wrong_solution(tmp_path):
    doc = _framed()
    doc["wrong_solutions"] = doc["wrong_solutions"][:2]
    assert _reasons(tmp_path, doc) == [
        "every task needs a collateral and a lookalike wrong solution (wrong_solutions[].kind); this one has no collateral"]
    for wrong in doc["wrong_solutions"]:
        wrong["kind"] = "other"
    assert _reasons(tmp_path, doc) == [
        "every task needs a collateral and a lookalike wrong solution (wrong_solutions[].kind); this one has no "
        "collateral and no lookalike"]


def test_a_wrong_solution_without_a_kind_fails_the_gate_naming_it(tmp_path):
    doc = _framed()
    del doc["wrong_solutions"][1]["kind"]
    assert _reasons(tmp_path, doc) == [
        "wrong solution 2 (moves both files) has no kind: every wrong solution says what it tests "
        "(wrong_solutions[1].kind: collateral, lookalike or other)"]


def test_a_task_without_a_frame_does_not_load(tmp_path):
    doc = _framed()
    del doc["frame"]
    reasons = _reasons(tmp_path, doc)
    assert len(reasons) == 1 and reasons[0].startswith("$.frame:"), reasons


def test_a_wrong_solution_marked_collateral_must_break_the_frame_with_the_positive_part_holding(tmp_path):
    doc = _framed()
    doc["wrong_solutions"][2] = {"why": "empties the offsite notes only", "kind": "collateral", "calls": [EMPTY_OFFSITE]}
    reasons = _reasons(tmp_path, doc)
    assert any("wrong solution 3 (empties the offsite notes only) is marked collateral" in r
               and "positive part False, frame broken True" in r for r in reasons)


def test_a_wrong_solution_that_changes_nothing_or_only_errors_is_rejected(tmp_path):
    doc = _framed()
    doc["wrong_solutions"].append({"why": "only looks", "kind": "other",
                                   "calls": [{"tool": "list_directory", "arguments": {"path": "notes"}}]})
    doc["wrong_solutions"].append({"why": "moves a file that is not there", "kind": "other",
                                   "calls": [{"tool": "move_file", "arguments": {"source": "notes/nope.md",
                                                                                 "destination": ARCHIVED}}]})
    reasons = _reasons(tmp_path, doc)
    assert reasons == ["wrong solution 4 (only looks) changes nothing, so it tests nothing",
                       "wrong solution 5 (moves a file that is not there) changes nothing (every call errors), "
                       "so it tests nothing"]


def test_a_recovery_task_whose_only_step_is_eaten_by_its_fault_is_rejected(tmp_path):
    doc = _framed(category="recovery", reference_solution=[MOVE], max_steps=1,
                  faults=[{"tool": "move_file", "kind": "unavailable"}])
    assert _reasons(tmp_path, doc) == ["max_steps 1 leaves no room for the faults: the reference solution with its "
                                       "faults injected takes 2 calls, retries included"]
    assert _gate(tmp_path, {**doc, "max_steps": 2}) == []


def test_a_fault_that_outlasts_the_oracles_retries_fails_the_reference_solution(tmp_path):
    doc = _framed(category="recovery", faults=[{"tool": "move_file", "times": 4, "kind": "rate_limit"}])
    reasons = _reasons(tmp_path, doc)
    assert "reference solution with its faults injected: call 2 (move_file) met fault rate_limit 4 times" in reasons


def test_a_partial_failure_is_not_retried_and_the_reference_checks_instead(tmp_path):
    check = {"tool": "list_directory", "arguments": {"path": "archive/2026"}}
    doc = _framed(category="recovery", reference_solution=[MOVE, check], max_steps=2,
                  faults=[{"tool": "move_file", "kind": "timeout_after_commit"}])
    assert _gate(tmp_path, doc) == []


def test_a_pattern_that_requires_no_literal_is_not_named_by_the_goal(tmp_path):
    doc = _doc()
    doc["success"]["all"][1]["filesystem.fileContentMatches"]["pattern"] = ".+"
    reasons = _reasons(tmp_path, doc)
    assert reasons == ["goal does not name $.success.all[1][\"filesystem.fileContentMatches\"].pattern: "
                       "pattern '.+' requires no literal of 3+ characters that the goal contains"]


def test_a_pattern_with_an_alternative_that_requires_no_literal_is_not_named_by_the_goal(tmp_path):
    """``abc|.+`` matches anything, so the goal naming ``abc`` names nothing the predicate needs: the
    gate refuses it whether the alternation is at the top, in a group or under anchors."""
    doc = _doc()
    match = doc["success"]["all"][1]["filesystem.fileContentMatches"]
    goal_words = "freeze travel"
    assert goal_words in doc["goal"]
    for pattern in (f"{goal_words}|.+", f"({goal_words}|.+)", f"^(?:{goal_words}|[\\d\\D]*)$", f"(.*|{goal_words})"):
        match["pattern"] = pattern
        path = '$.success.all[1]["filesystem.fileContentMatches"].pattern'
        assert _reasons(tmp_path, doc) == [f"goal does not name {path}: pattern {pattern!r} requires no literal "
                                          f"of 3+ characters that the goal contains"], pattern


def test_a_pattern_is_named_only_when_every_alternative_requires_a_literal():
    from tasks_catalog.literals import pattern_named, required_literals

    goal = "Write that the Security on-call rotation starts 1 April, in the harbour office"
    for pattern in ("Security on-call rotation starts 1 April|.+", "abc|.+", "(abc|.+)", "^(?:abc|.*)$",
                    "(abc|def)|.+", "((abc|.+)|def)", "x(abc|.*)", "abc|Q3"):
        assert required_literals(pattern) == [], pattern
        assert not pattern_named(pattern, goal + " abc def", {"abc"}), pattern
    # every alternative requires a literal: one alternative's in the goal names it (the parser pulls
    # the shared prefix out in front, harbo(?:ur|r), and each alternative is read with it joined back)
    assert required_literals("harbour|harbor") == ["harbour", "harbor"]
    assert pattern_named("harbour|harbor", goal) and pattern_named("harbor|harbour", goal)
    assert not pattern_named("harbour|harbor", "in the port office")
    # an alternation that requires nothing names nothing, but the rest of the pattern still requires
    assert required_literals("freeze (travel|.*) spend") == ["freeze ", " spend"]
    assert not pattern_named("freeze (travel|.*) spend", "no travel")
    assert pattern_named("freeze (travel|hotel) spend", "no hotel")
    # a shared prefix stays required when another alternative requires nothing of its own
    assert required_literals("Security(?: on-call|.*)") == ["Security on-call", "Security"]
    assert not pattern_named("Security(?: on-call|.*)", "the on-call rotation")


def test_a_pattern_counts_as_named_by_a_required_literal_the_goal_contains(tmp_path):
    doc = _doc()
    doc["success"]["all"][1]["filesystem.fileContentMatches"]["pattern"] = "freeze (travel|hotel) spend"
    assert _gate(tmp_path, doc) == []


def test_an_id_of_the_initial_state_counts_as_named(tmp_path):
    doc = _doc()
    doc["success"]["all"].append({"filesystem.fileExists": {"path": "archive/2025/2025-11-02-offsite.md"}})
    assert _gate(tmp_path, doc) == []
    doc["success"]["all"][-1] = {"filesystem.fileExists": {"path": "archive/2025/missing.md"}}
    assert any("goal does not name" in r and "archive/2025/missing.md" in r for r in _reasons(tmp_path, doc))


def test_a_pattern_counts_as_named_when_a_literal_it_requires_is_an_id_of_the_initial_state():
    from tasks_catalog.literals import pattern_named

    goal = "Close the Engineering copy and point to the Platform issue in a comment"
    assert pattern_named("PLT-305", goal, {"PLT-305", "ENG-167"})
    assert pattern_named(r"[Dd]uplicate.*\bPLT-305\b", goal, {"PLT-305"})
    assert pattern_named("PLT-305|ENG-9", goal, {"ENG-9"})  # one alternative's id suffices, as for the goal
    assert not pattern_named("PLT-305", goal, {"PLT-30"})  # a required run must be the id, not contain it
    assert not pattern_named("PLT-305", goal)


# -- measured difficulty (issue 11): the rule applies to tasks on a world --------------------------------
WORLD_TASK = DEV_DIR / "slack" / "slack-archive-resolved-incident.json"


def _world_doc(**changes) -> dict[str, Any]:
    doc = json.loads(WORLD_TASK.read_text(encoding="utf-8"))
    doc.update(changes)
    return doc


def test_a_world_task_declared_hard_that_measures_easy_is_refused_naming_what_is_short(tmp_path):
    doc = _world_doc(difficulty="hard")
    calls = len(doc["reference_solution"])
    reasons = _reasons(tmp_path, doc)
    assert reasons == [f"{doc['id']} is declared hard but measures easy: hard needs at least 11 reference calls, "
                       f"the reference makes {calls}; hard needs at least 3 discovery reads or a paginated search, "
                       f"the reference has 1 read(s) and no later page or search"]


def test_a_world_task_declared_medium_without_a_discovery_read_names_both_shortfalls(tmp_path):
    doc = _world_doc(difficulty="medium")
    doc["reference_solution"] = [c for c in doc["reference_solution"] if c["tool"] != "list_channels"
                                 and not c["tool"].startswith(("get_", "search_", "read_", "list_"))]
    (reason,) = _reasons(tmp_path, doc)
    assert reason.startswith(f"{doc['id']} is declared medium but measures easy: medium needs 5-10 reference calls")
    assert reason.endswith("medium needs at least 1 discovery read (a read-only tool call), the reference has 0")


def test_a_world_task_with_a_budget_far_above_its_reference_is_refused(tmp_path):
    doc = _world_doc()
    calls = len(doc["reference_solution"])
    limit = max(-(-3 * calls // 2), calls + 3)
    assert _gate(tmp_path, {**doc, "max_steps": limit}) == []
    assert _reasons(tmp_path, {**doc, "max_steps": limit + 1}) == [
        f"{doc['id']}: max_steps {limit + 1} is more than about 1.5x the reference: at most {limit} "
        f"for {calls} reference calls"]


def test_the_budget_counts_the_retries_a_fault_forces(tmp_path):
    doc = _world_doc(category="recovery")
    first = doc["reference_solution"][-1]["tool"]
    calls = len(doc["reference_solution"])
    limit = max(-(-3 * calls // 2), calls + 3) + 2
    doc["faults"] = [{"tool": first, "kind": "rate_limit", "times": 2}]
    assert _gate(tmp_path, {**doc, "max_steps": limit}) == []
    assert _reasons(tmp_path, {**doc, "max_steps": limit + 1})[-1].endswith(
        f"at most {limit} for {calls} reference calls + 2 its faults force")


def test_an_inline_task_is_exempt_from_the_difficulty_rule(tmp_path):
    doc = _doc()
    assert "world" not in doc["initial_state"]
    assert _gate(tmp_path, {**doc, "difficulty": "hard", "max_steps": 40}) == []


def test_a_number_is_named_only_as_a_whole_number_of_the_goal():
    from tasks_catalog.literals import value_named

    assert value_named(1042, "Ship order 1042 today", set())
    assert value_named(1042, "Ship order 1,042 today", set())
    assert value_named(88.8, "refund 88.80 EUR", set())
    assert not value_named(6, "Close the duplicate before the 2026 planning", set())
    assert not value_named(42, "Ship order 1042 today", set())
    assert not value_named(104, "Ship order 1042 today", set())
    assert not value_named(7, "Release 7.2 is out", set())  # a piece of a version number names nothing
    assert value_named(6, "Close issue #6 as a duplicate", set())
    assert value_named(6, "Close the duplicate", {"6"})  # a stable id the agent discovers


def test_a_string_the_initial_state_holds_is_named_but_a_new_one_is_not():
    from tasks_catalog.literals import state_strings, value_named

    state = {"issues": [{"id": "ENG-7", "state": "In Review", "labels": ["Bug", "regression"]}]}
    present = state_strings(state)
    assert value_named("regression", "Tag the checkout crash", set(), present)
    assert not value_named("hotfix", "Tag the checkout crash", set(), present)
    assert not value_named(7, "Tag the checkout crash", set(), present)  # numbers never by presence


def test_a_frame_that_allows_creating_an_entity_by_an_id_no_agent_can_know_fails_the_gate():
    # The ADR task's frame once allowed only the branch its reference created, a name the goal never
    # gives: every agent that named its branch otherwise failed on the frame.
    from servers import get_spec
    from tasks_catalog.gate import literal_problems
    from tasks_catalog.loader import load_task_file

    path = Path(__file__).resolve().parents[2] / "tasks_catalog/dev/github/github-adr-via-pull-request.json"
    task, _ = load_task_file(path)
    initial = get_spec("github").load_state(task.initial_state).dump()
    assert literal_problems(task, initial) == []
    branch = "kestrel-freight/route-planner:docs/adr-0003-eta-schedule"
    doc = task.model_dump(mode="json", by_alias=True, exclude_none=True)
    doc["frame"][0] = {"entity": "github.branch", "ids": [branch], "change": ["create"]}
    named_by_reference = type(task).model_validate(doc)
    [problem] = literal_problems(named_by_reference, initial)
    assert problem.startswith("$.frame[0].ids[0] lets the agent create") and "'adr-0003-eta-schedule'" in problem
    doc["goal"] += " Use the branch docs/adr-0003-eta-schedule."
    assert literal_problems(type(task).model_validate(doc), initial) == []


def test_tasks_on_one_worlds_seed_are_judged_together_and_reported_in_the_order_given(monkeypatch):
    """A process keeps only the last few worlds it built, and a month draws each template's tasks on other
    seeds: the gate judges the tasks of one seed together (each seed's worlds built once), whatever
    order they come in, and reports them in that order, with the verdicts each has alone."""
    import anyio

    import tasks_catalog.gate as gate
    from tasks_catalog.loader import load_task_file

    task, _ = load_task_file(DEV_DIR / "slack" / "slack-archive-resolved-incident.json")

    def on_seed(seed: int, n: int):
        doc = task.model_dump(mode="json", by_alias=True, exclude_none=True)
        doc["id"] = f"slack-seed-{seed}-{n}"
        doc["initial_state"]["world"]["seed"] = seed
        return type(task).model_validate(doc)

    given = [on_seed(7, 1), on_seed(1, 1), on_seed(7, 2), on_seed(1, 2), task]
    judged: list[str] = []
    real = gate._judge

    async def spy(t, *args):
        judged.append(t.id)
        return await real(t, *args)

    monkeypatch.setattr(gate, "_judge", spy)
    results = anyio.run(gate.gate_tasks, given)
    assert [r.task_id for r in results] == [t.id for t in given]
    assert judged == ["slack-seed-1-1", "slack-seed-1-2", task.id, "slack-seed-7-1", "slack-seed-7-2"]
    assert results[-1].ok and not results[0].ok  # seed 7's world lacks the task's channel: another verdict
    alone = [anyio.run(gate.gate_tasks, [t])[0] for t in given]
    assert [r.to_json() for r in results] == [r.to_json() for r in alone]


def test_a_replay_opens_only_the_servers_its_calls_go_to_and_shares_the_others_worlds(monkeypatch):
    """A hard cross-server task's wrong solutions leave some of its servers alone: those are not copied
    into a backend no call reaches (a world's copy is tens of milliseconds, every replay of every task),
    their state is the world as loaded, and the final state is the same as with every server opened."""
    import anyio

    from servers.kit.tools import Toolset
    from servers.kit.world import load_world
    from tasks_catalog.loader import load_task_file
    from tasks_catalog.replay import dumped, replay

    task, _ = load_task_file(DEV_DIR / "cross-server" / "x-client-invoices-sync.json")
    wrong = task.wrong_solutions[1].calls
    assert {call.tool.split("__")[0] for call in wrong} == {"notion"}
    opened: list[str] = []
    real_init = Toolset.__init__

    def counting(self, state):
        opened.append(type(state).__name__)
        real_init(self, state)

    monkeypatch.setattr(Toolset, "__init__", counting)
    done = anyio.run(replay, task, wrong)
    assert opened == ["NotionState"] and done.untouched == {"slack", "stripe"} and done.errors == []
    from servers import get_spec

    for server in ("slack", "stripe"):
        world = load_world(get_spec(server).state_model, task.initial_states()[server], copy=False)
        assert done.state[server] is world
    monkeypatch.setattr(Toolset, "__init__", real_init)
    everything = anyio.run(lambda: replay(task, [*wrong, *task.reference_solution[:1]]))  # slack opened too
    assert everything.untouched == {"stripe"}
    assert dumped(done.state)["slack"] == dumped(everything.state)["slack"]
    assert dumped(done.state)["notion"] == dumped(everything.state)["notion"]


@pytest.mark.parametrize("path", ["cross-server/x-client-invoices-sync.json", "stripe/stripe-refund-march-double-charges.json",
                                  "github/github-merge-geocoding-fix.json"])
def test_a_final_dump_is_the_fresh_dump_sharing_with_the_initial_one_what_did_not_change(path):
    """``Replay.dump_sharing``, each final dump the gate judges: the same JSON, byte for byte, as the state
    dumped afresh, where every collection no call changed is the initial dump's own object (what the frame
    judge, the "changes nothing" check and the TypeScript payload then take as equal without encoding
    it), and a server no call went to is the initial dump's part itself."""
    import marshal
    from functools import partial

    import anyio

    from tasks_catalog.frames import ExactSame
    from tasks_catalog.loader import load_task_file
    from tasks_catalog.replay import dumped, replay

    task, _ = load_task_file(DEV_DIR / path)
    for calls in [task.reference_solution, *(w.calls for w in task.wrong_solutions)]:
        done = anyio.run(partial(replay, task, calls, strict=False, at_start=dumped))
        start = done.initial
        before_bytes = marshal.dumps(start, 2)
        fresh = dumped(done.state)
        shared = done.dump_sharing(start, ExactSame())
        assert marshal.dumps(shared, 2) == marshal.dumps(fresh, 2)
        each = {s: (start[s], fresh[s], shared[s]) for s in task.server_names} if task.cross_server \
            else {task.server: (start, fresh, shared)}
        for server, (before, after, kept) in each.items():
            if server in done.untouched:
                assert kept is before
                continue
            for top in after:
                unchanged = marshal.dumps(before[top], 2) == marshal.dumps(after[top], 2)
                assert (kept[top] is before[top]) == unchanged, (path, server, top)
        assert marshal.dumps(start, 2) == before_bytes  # the initial dump is left alone


def test_a_database_no_call_reaches_is_loaded_once_per_world_and_then_left_unopened(monkeypatch):
    """A postgres backend keeps the state it is opened on (``keeps_given_state``) but loads it into a database,
    which may refuse what the state model accepts (tens of milliseconds a load): a replay whose calls never
    reach it opens it until a backend has opened that world's shared state without error, then leaves it
    unopened, its state the world as loaded, the same final state; a load that fails is not remembered."""
    import anyio

    import tasks_catalog.replay as replay_module
    from servers import get_spec
    from servers.kit.recent import Recent
    from servers.kit.world import load_world
    from servers.postgres import _engine
    from tasks_catalog.loader import load_task_file
    from tasks_catalog.replay import dumped, replay

    task, _ = load_task_file(DEV_DIR / "cross-server" / "x-eng-stuck-pending-order.json")
    linear_only = [call for call in task.reference_solution if call.tool.startswith("linear__")]
    assert linear_only and len(linear_only) < len(task.reference_solution)
    world = load_world(get_spec("postgres").state_model, task.initial_states()["postgres"], copy=False)
    monkeypatch.setattr(replay_module, "_OPENED", Recent(32))
    loads = []
    real_open = _engine.open_database

    def refusing(state, *args, **kwargs):
        loads.append(state)
        raise _engine.SQLError("refused, as a database may refuse a state its model accepts")

    monkeypatch.setattr(_engine, "open_database", refusing)
    for _ in range(2):  # refused each time: never remembered as opened
        with pytest.raises(ValueError, match="refused"):
            anyio.run(replay, task, linear_only)
    assert len(loads) == 2 and len(replay_module._OPENED) == 0

    def counting(state, *args, **kwargs):
        loads.append(state)
        return real_open(state, *args, **kwargs)

    monkeypatch.setattr(_engine, "open_database", counting)
    loads.clear()
    first = anyio.run(replay, task, linear_only)
    assert loads == [world] and "postgres" not in first.untouched and first.state["postgres"] is world
    second = anyio.run(replay, task, linear_only)
    assert loads == [world] and second.untouched == {"postgres"} and second.state["postgres"] is world
    assert dumped(first.state) == dumped(second.state) and first.errors == second.errors == []
    whole = anyio.run(replay, task, task.reference_solution)  # a call reaches it: opened, and written
    assert len(loads) == 2 and whole.untouched == frozenset() and whole.errors == []
    assert dumped(whole.state)["postgres"] != world.dump()
    assert load_world(get_spec("postgres").state_model, task.initial_states()["postgres"], copy=False).dump() \
        == dumped(second.state)["postgres"]  # the write went to the database, not to the shared world


@pytest.mark.parametrize(("path", "kind"), [
    ("stripe/stripe-rebill-hanbit-seat-upgrade.json", "InvoiceLine"),  # voids, bills new lines, finalizes
    ("stripe/stripe-refund-march-double-charges.json", "Charge"),  # refunds charges
    ("github/github-merge-geocoding-fix.json", "Commit"),  # merges: new commits on a branch
])
def test_a_replays_writes_leak_neither_into_the_next_replay_nor_into_the_shared_world(path, kind):
    """A world's copy for a replay shares its frozen records (a Stripe world's invoice lines and charges, a
    repository's commits) with the world every replay of the process starts from: a reference that writes
    around them leaves that world as it was (its digest), and a second replay starts from the same state and
    ends in the same."""
    import anyio

    from servers import get_spec
    from servers.kit.state import Model, _shared
    from servers.kit.world import load_world
    from tasks_catalog.loader import load_task_file
    from tasks_catalog.replay import replay

    def records(value):
        if isinstance(value, Model):
            if type(value).__name__ == kind:
                assert _shared(type(value))
                yield value
            for field in value.__dict__.values():
                yield from records(field)
        elif isinstance(value, (list, dict)):
            for item in value.values() if isinstance(value, dict) else value:
                yield from records(item)

    task, _ = load_task_file(DEV_DIR / path)
    world = load_world(get_spec(task.server).state_model, task.initial_states()[task.server], copy=False)
    digest = world.digest()
    mine = {id(r) for r in records(world)}
    runs = [anyio.run(lambda: replay(task, task.reference_solution, at_start=lambda state: state.digest()))
            for _ in range(2)]
    first, second = runs
    assert first.errors == second.errors == [] and world.digest() == digest
    assert first.initial == second.initial == digest  # the second replay starts from the world as it was
    assert first.state.digest() == second.state.digest() != digest
    kept = [r for r in records(second.state) if id(r) in mine]
    assert kept, f"the replay's copy shares none of the world's {kind} records: nothing is tested"


def test_a_gate_run_in_the_tests_catches_a_change_in_place_of_a_shared_world(monkeypatch):
    """pydantic refuses an assignment to a frozen record, not a change of its dict in place: with
    MCPBENCH_CHECK_WORLDS set (tests/conftest.py sets it) a cached world is fingerprinted, and a gate run, or
    the world leaving the cache, names one that changed."""
    import anyio

    import servers.kit.world as world_module
    import tasks_catalog.gate as gate
    from servers import get_spec
    from servers.kit.recent import Recent
    from servers.kit.world import get_generator, load_world

    monkeypatch.setenv("MCPBENCH_CHECK_WORLDS", "1")
    monkeypatch.setattr(world_module, "_VALIDATED", Recent(1))
    monkeypatch.setattr(world_module, "_FINGERPRINTS", {})
    ref = {"world": {"generator": "stripe", "version": get_generator("stripe").version, "seed": 4, "size": "small"}}
    world = load_world(get_spec("stripe").state_model, ref, copy=False)
    assert anyio.run(gate.gate_tasks, []) == []  # unchanged: nothing to say
    world.charges[0].metadata["leaked"] = "a write that reached the shared world"
    with pytest.raises(AssertionError, match="changed in place"):
        anyio.run(gate.gate_tasks, [])
    monkeypatch.setattr(world_module, "_VALIDATED", Recent(1))  # a fresh cache: validated and fingerprinted again
    world = load_world(get_spec("stripe").state_model, ref, copy=False)
    assert anyio.run(gate.gate_tasks, []) == []
    world.charges[0].metadata["leaked"] = "again"
    with pytest.raises(AssertionError, match="changed in place"):  # checked as it leaves the cache of one
        load_world(get_spec("stripe").state_model, {**ref, "world": {**ref["world"], "seed": 5}}, copy=False)


def test_a_gate_collects_the_oldest_generation_rarely_while_it_runs_and_restores_the_thresholds(tmp_path, monkeypatch):
    import gc

    import tasks_catalog.gate as gate

    seen = []
    judge = gate._judge

    async def judged(*args, **kwargs):
        seen.append(gc.get_threshold())
        return await judge(*args, **kwargs)

    monkeypatch.setattr(gate, "_judge", judged)
    before = gc.get_threshold()
    try:
        gc.set_threshold(700, 10, 10)
        results, _ = validate_paths([_copy(tmp_path)])
        assert [r.reasons for r in results] == [[]]
        assert seen == [(700, 10, gate.FULL_COLLECTION_EVERY)]
        assert gc.get_threshold() == (700, 10, 10)
    finally:
        gc.set_threshold(*before)


def test_gates_running_at_once_share_one_change_of_the_thresholds_and_the_last_restores_them():
    """Two gates in threads of one process: the second to start must not save the first one's raised
    threshold as the one to restore, and the first to end must not restore while the other runs."""
    import gc

    import tasks_catalog.gate as gate

    before = gc.get_threshold()
    try:
        gc.set_threshold(700, 10, 10)
        first, second = gate._rare_full_collections(), gate._rare_full_collections()
        first.__enter__()
        second.__enter__()
        assert gc.get_threshold() == (700, 10, gate.FULL_COLLECTION_EVERY)
        first.__exit__(None, None, None)
        assert gc.get_threshold() == (700, 10, gate.FULL_COLLECTION_EVERY)
        second.__exit__(None, None, None)
        assert gc.get_threshold() == (700, 10, 10)
    finally:
        gc.set_threshold(*before)
