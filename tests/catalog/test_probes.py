"""The gate's generated probes (tasks_catalog/probes, docs/frames.md "Probes"): damage the goal does not ask
for must fail and the same result reached another way must pass, so a frame too loose or too tight is
refused with the probe named. Each test takes a dev task, loosens or tightens one thing of it the way the
audit found it, and checks the gate names the probe that catches it."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import anyio
import pytest
from click.testing import CliRunner

from mcpbench.cli import main
from servers import SERVER_NAMES, get_spec
from tasks_catalog.frames import Extracted, diff, extract_at, server_entities, with_entity
from tasks_catalog.gate import gate_tasks, replay
from tasks_catalog.loader import DEV_DIR
from tasks_catalog.probes import BENIGN_ONLY, RECIPES, Reference, damages, writable_tools
from tasks_catalog.schema import Task

ROOT = Path(__file__).resolve().parents[2]


def _dev(name: str, **changes: Any) -> Task:
    path = next(DEV_DIR.rglob(f"{name}.json"))
    doc = json.loads(path.read_text(encoding="utf-8"))
    doc.update(changes)
    return Task.model_validate(doc)


def _gate(task: Task) -> tuple[list[str], list[dict[str, Any]]]:
    (result,) = anyio.run(gate_tasks, [task])
    return result.reasons, result.probes


def _frame(name: str) -> list[dict[str, Any]]:
    return json.loads(next(DEV_DIR.rglob(f"{name}.json")).read_text(encoding="utf-8"))["frame"]


def test_every_writable_tool_of_every_server_has_a_damage_recipe_or_changes_only_benign_state():
    missing = [f"{server}.{tool}" for server in SERVER_NAMES for tool in sorted(writable_tools(server))
               if not any(key.split(" ")[0] == tool for key in RECIPES.get(server, {}))
               and tool not in BENIGN_ONLY.get(server, set())]
    assert missing == []


def test_a_whole_property_map_in_the_frame_is_refused_naming_the_key_a_probe_changed():
    """notion-mark-harbor-invoice-paid before issue 32: the whole property map was allowed, so the
    invoice's Amount set beside its Status passed."""
    task = _dev("notion-mark-harbor-invoice-paid", frame=[
        {"entity": "notion.page", "ids": ["3f6c2d1e-8a4b-4c7d-9e2f-5a1b7c3d9e60"], "fields": ["properties"]}])
    reasons, _ = _gate(task)
    assert any(r.startswith("probe field:0:properties.Amount ") and "passes" in r for r in reasons), reasons
    assert not any("properties.Status" in r for r in reasons), "the Status the goal asks for is not a probe"


def test_an_attendee_list_without_values_is_refused_and_with_them_passes():
    """calendar-add-aisha-to-budget-review before issue 32: any attendee list that kept the checked
    guests passed, so an outside address invited beside Aisha passed."""
    loose = [{k: v for k, v in a.items() if k != "values"} for a in _frame("calendar-add-aisha-to-budget-review")]
    reasons, _ = _gate(_dev("calendar-add-aisha-to-budget-review", frame=loose))
    assert any(r.startswith("probe field:0:attendees ") for r in reasons), reasons
    reasons, probes = _gate(_dev("calendar-add-aisha-to-budget-review"))
    assert reasons == []
    assert {p["probe"] for p in probes if p["outcome"] == "held"} >= {"field:0:attendees", "untouched:delete_event"}


def test_members_of_a_created_channel_without_values_are_refused():
    """slack-launch-channel-with-team before issue 32: a non-security user invited into the private
    security channel passed."""
    loose = [{k: v for k, v in a.items() if k != "values"} for a in _frame("slack-launch-channel-with-team")]
    reasons, _ = _gate(_dev("slack-launch-channel-with-team", frame=loose))
    assert any(r.startswith("probe field:0:members ") for r in reasons), reasons


def test_blocks_allowed_on_any_page_are_refused_by_a_call_on_a_page_the_task_never_names():
    """notion-start-weekly-ops-sync before issue 32: four new blocks allowed on any page, so a paragraph
    added to the Company Handbook passed."""
    frame = _frame("notion-start-weekly-ops-sync")
    frame[1] = {"entity": "notion.block", "change": ["create"], "max": 4}
    reasons, _ = _gate(_dev("notion-start-weekly-ops-sync", frame=frame))
    assert any(r.startswith("probe untouched:append_block_children ") for r in reasons), reasons


def test_a_max_above_what_the_goal_implies_is_refused_by_the_task_done_twice():
    frame = _frame("slack-announce-release")
    creates = [i for i, a in enumerate(frame) if "create" in a.get("change", [])]
    assert creates, frame
    frame[creates[0]] = {**frame[creates[0]], "max": 2}
    reasons, _ = _gate(_dev("slack-announce-release", frame=frame))
    assert any(r.startswith(f"probe copy:{creates[0]} ") or r.startswith(f"probe again:{creates[0]} ")
               for r in reasons), reasons


def test_a_max_that_counts_the_commits_of_a_branch_fails_the_split_variant():
    """github-codeowners-on-branch before issue 32 allowed at most 101 commits on the branch, main's 100
    and the reference's one: a solution in two commits failed."""
    frame = _frame("github-codeowners-on-branch")
    for a in frame:
        if a["entity"] == "github.commit" and a["change"] == ["create"]:
            a["max"] = 1
    reasons, _ = _gate(_dev("github-codeowners-on-branch", frame=frame))
    assert any(r.startswith("probe split ") and "fails, though it does what the goal asks" in r for r in reasons), reasons


def test_a_frame_that_forbids_the_pull_request_the_goal_implies_fails_the_alternative_solution():
    frame = [a for a in _frame("github-codeowners-on-branch") if a["entity"] != "github.pull_request"]
    reasons, _ = _gate(_dev("github-codeowners-on-branch", frame=frame))
    assert any(r.startswith("probe alternative:1 ") and "github.pull_request" in r for r in reasons), reasons


def test_a_budget_without_room_for_one_retry_fails_the_retry_variant():
    task = _dev("fs-set-log-level")
    task = task.model_copy(update={"max_steps": len(task.reference_solution)})
    reasons, _ = _gate(task)
    assert any(r.startswith("probe retry ") and "max_steps" in r for r in reasons), reasons


def test_duplicates_of_what_a_passing_variant_makes_more_of_are_skipped_as_ambiguous():
    reasons, probes = _gate(_dev("github-codeowners-on-branch"))
    assert reasons == []
    skipped = {p["probe"]: p["detail"] for p in probes if p["outcome"] == "skipped"}
    commits = next(i for i, a in enumerate(_frame("github-codeowners-on-branch"))
                   if a["entity"] == "github.commit" and a["change"] == ["create"])
    assert skipped[f"copy:{commits}"].startswith("ambiguous: a passing variant makes more")
    held = {p["probe"] for p in probes if p["outcome"] == "held"}
    assert {"split", "alternative:1", "retry", "reads"} <= held


def test_skipped_probes_are_listed_with_their_reason_in_the_json_output():
    path = next(DEV_DIR.rglob("browser-open-holiday-policy-2026.json"))
    result = CliRunner().invoke(main, ["tasks", "validate", str(path), "--json", "--no-typescript"])
    assert result.exit_code == 0, result.output
    (task,) = json.loads(result.output)["results"]
    probes = {p["probe"]: p for p in task["probes"]}
    assert probes["untouched:browser_navigate"]["outcome"] == "skipped"
    assert "benign" in probes["untouched:browser_navigate"]["detail"]
    assert probes["untouched:browser_click"]["outcome"] == "held"
    assert all({"probe", "kind", "how", "what", "outcome", "detail"} <= set(p) for p in task["probes"])


@pytest.mark.parametrize("name", ["notion-move-claire-to-offer", "stripe-refund-march-double-charges",
                                  "calendar-cover-john-berg-meetings", "slack-open-incident-and-hand-off",
                                  "pg-ship-order-1042"])
def test_a_state_edit_probes_diff_made_from_the_references_is_the_full_diff(name):
    """A field probe edits one entity of the reference's final state; its diff is made from the
    reference's by recomputing that entity alone, and must be what diffing the whole state gives."""
    task = _dev(name)
    written = []
    done = anyio.run(lambda: replay(task, task.reference_solution, faults=True, at_start=lambda s: s.dump(),
                                    after_write=lambda i, s: written.append((i, s.dump()))))
    start, final = done.initial, done.state.dump()
    before = Extracted(task.server, start)
    ref = Reference(start, final, diff(task.server, before, final), [])
    frame = [a.model_dump(mode="json", exclude_none=True) for a in task.frame]
    edits = [p for p in damages(task, ref, frame, set()) if p.target is not None]
    assert edits
    for probe in edits:
        dump = probe.edit(final)
        kind = server_entities(task.server).kind(probe.target.entity.split(".", 1)[1])
        found = extract_at(kind, dump, probe.at)
        assert list(found) == [probe.target.id], probe.name
        assert with_entity(kind, ref.changes, probe.target, found[probe.target.id], before) == diff(task.server, before, dump), probe.name


def test_every_dev_task_and_template_carries_a_version():
    from tasks_catalog.templates import POOL_DIR

    unversioned = [p.name for root in (DEV_DIR, POOL_DIR) for p in root.rglob("*.json")
                   if not isinstance(json.loads(p.read_text(encoding="utf-8")).get("version"), int)]
    assert unversioned == []


def test_the_recipes_find_something_to_damage_in_every_servers_world():
    """On each server's seed-1 world, with nothing named, every recipe builds a call: a probe that is
    skipped is skipped for what a task names, not for a recipe that never applies."""
    from tasks_catalog.probes import Named

    nothing = Named([], "")
    empty = {server: [key for key, recipe in RECIPES[server].items()
                      if not recipe(get_spec(server).state_model.load(
                          {"world": {"generator": server, "version": 1, "seed": 1, "size": "default"}}).dump(), nothing)]
             for server in SERVER_NAMES}
    # slack's viewer (a bot) has posted nothing it could delete, and no stripe invoice is a draft
    assert {s: keys for s, keys in empty.items() if keys} == {
        "slack": ["delete_message"], "stripe": ["create_invoice_item", "finalize_invoice"]}
