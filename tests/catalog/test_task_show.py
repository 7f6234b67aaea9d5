"""``mcpbench tasks show ID``: what an agent is given for a task (goal, tools, budget, faults), never its
solution, predicate or frame; a private month's tasks are never shown."""

from __future__ import annotations

import json

from click.testing import CliRunner

from mcpbench.cli import main
from tasks_catalog.loader import DEV_DIR, load_valid_tasks

TASKS = {t.id: t for t in load_valid_tasks([DEV_DIR])}
FAULTED = "browser-report-laptop-fault"
CROSS = "x-march-charge-complaints"  # four servers, a fault


def _show(*args):
    return CliRunner().invoke(main, ["tasks", "show", *args])


def _solution_texts(task) -> list[str]:
    """Every string of the task's solutions, predicate and frame that nothing public says: not its goal,
    nor its id, nor its server's tool names and descriptions, nor the fault messages."""
    from mcpbench.commands.tasks import task_brief

    brief = task_brief(task)
    public = json.dumps([brief["id"], brief["goal"], brief["tools"], brief["faults"]], ensure_ascii=False)
    found: list[str] = []

    def walk(value):
        if isinstance(value, dict):
            for v in value.values():
                walk(v)
        elif isinstance(value, list):
            for v in value:
                walk(v)
        elif isinstance(value, str) and len(value) >= 4 and value not in public:
            found.append(value)

    doc = task.to_json()
    for key in ("reference_solution", "wrong_solutions", "success", "frame"):
        walk(doc.get(key))
    return found


def test_show_gives_the_goal_tools_budget_and_faults():
    task = TASKS[FAULTED]
    out = _show(FAULTED)
    assert out.exit_code == 0, out.output
    text = out.output
    assert text.splitlines()[0] == f"{FAULTED} (browser, {task.difficulty}, recovery)"
    assert task.goal in text
    assert f"budget: {task.max_steps} tool calls, {task.timeout_s:g} s" in text
    for tool in task.available_tools:
        assert f"  {tool} " in text
    assert "browser_click" in text and "Click an element" in text
    (fault,) = task.faults
    assert f"call {fault.on_call} of {fault.tool}: {fault.kind} (gateway timeout (HTTP 504)" in text
    assert "initial state: world browser v1" in text


def test_show_never_prints_the_solution_the_predicate_or_the_frame():
    for task_id in (FAULTED, "pg-ship-order-1042", "slack-archive-resolved-incident", "calendar-cover-john-berg-meetings",
                    CROSS):
        task = TASKS[task_id]
        for args in ((task_id,), (task_id, "--json")):
            out = _show(*args)
            assert out.exit_code == 0, out.output
            secret = _solution_texts(task)
            assert len(secret) >= 3, task_id  # the check has something to look for
            leaked = [s for s in secret if s in out.output]
            assert leaked == [], f"{task_id} shows {leaked[:5]}"
        brief = json.loads(_show(task_id, "--json").output)
        assert set(brief) == {"id", "server", "servers", "difficulty", "category", "goal", "max_steps", "timeout_s",
                              "tools", "faults", "initial_state"}


def test_a_private_months_task_is_never_shown_and_an_unknown_one_is_named():
    out = _show("slack-archive-resolved-incident", "--split", "2026-11")
    assert out.exit_code == 2 and "2026-11 is a private month: its tasks are sealed and never shown" in out.output
    out = _show("slack-no-such-task")
    assert out.exit_code == 1 and "no such task: slack-no-such-task" in out.output


def test_show_reads_a_folder_of_task_files(tmp_path):
    (tmp_path / "mine.json").write_text((DEV_DIR / "slack" / "slack-archive-resolved-incident.json").read_text())
    out = _show("slack-archive-resolved-incident", "--tasks-dir", str(tmp_path), "--json")
    assert out.exit_code == 0 and json.loads(out.output)["goal"] == TASKS["slack-archive-resolved-incident"].goal


def test_show_gives_a_cross_server_tasks_servers_tools_and_each_servers_world():
    task = TASKS[CROSS]
    out = _show(CROSS)
    assert out.exit_code == 0, out.output
    text = out.output
    assert text.splitlines()[0] == f"{CROSS} (cross-server, {task.difficulty}, {task.category})"
    for tool in task.available_tools:
        assert f"  {tool} " in text
    assert "gmail__send_email" in text and "Send a new email" in text
    for server in task.server_names:
        assert f"initial state of {server}: world {server} v2, seed 1" in text
    brief = json.loads(_show(CROSS, "--json").output)
    assert brief["servers"] == list(task.server_names) and set(brief["initial_state"]) == set(task.server_names)
