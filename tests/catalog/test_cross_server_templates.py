"""A template may render cross-server tasks: it names `servers`, its task is written as a cross-server
task is, and every rendering loads and passes the gate; a month draws them
(tests/months/test_cross_server_rotation.py)."""

from __future__ import annotations

import json
from pathlib import Path

import anyio
import pytest

from tasks_catalog.gate import gate_tasks
from tasks_catalog.loader import validate_task
from tasks_catalog.rotation import check_pool
from tasks_catalog.templates import Template, TemplateError, load_pool, load_template, render

CROSS = Path(__file__).resolve().parents[1] / "cross_server_tasks"
NOTES = ["fixed in release 1.5", "closed after the 1.5 release", "done: shipped in 1.5", "resolved by release 1.5",
         "fixed, see release 1.5", "closed: the fix is in 1.5", "shipped with 1.5", "released in 1.5"]


def _template_doc() -> dict:
    task = json.loads((CROSS / "x-close-fixed-bug.json").read_text(encoding="utf-8"))
    body = {k: v for k, v in task.items() if k not in ("$schema", "id", "servers", "difficulty", "category", "nonce")}
    body["reference_solution"][2]["arguments"]["text"] = "booking-api issue #17 is {{note}}"
    return {"id": "x-t-close-fixed-bug", "servers": ["github", "linear", "slack"], "difficulty": "easy",
            "category": "standard", "params": {"note": {"choice": NOTES}}, "task": body}


def test_a_cross_server_template_renders_tasks_that_load_and_pass_the_gate(tmp_path):
    path = tmp_path / "x-t-close-fixed-bug.json"
    path.write_text(json.dumps(_template_doc()), encoding="utf-8")
    template = load_template(path)
    tasks = [render(template, f"seed-{i}".encode()) for i in range(3)]
    assert all(t.server_names == ("github", "linear", "slack") and t.server is None for t in tasks)
    assert len({t.reference_solution[2].arguments["text"] for t in tasks}) >= 2
    for task in tasks:
        assert validate_task(task.to_json())[1] == []
    results = anyio.run(gate_tasks, tasks)
    assert [r.reasons for r in results] == [[], [], []]


@pytest.mark.parametrize("change, fragment", [({"server": "slack"}, "exactly one of the two"),
                                              ({"servers": None}, "exactly one of the two")])
def test_a_template_names_its_server_or_its_servers(tmp_path, change, fragment):
    doc = {**_template_doc(), **change}
    doc = {k: v for k, v in doc.items() if v is not None}
    path = tmp_path / "t.json"
    path.write_text(json.dumps(doc), encoding="utf-8")
    with pytest.raises(TemplateError, match=fragment):
        load_template(path)


def test_the_pool_check_counts_the_cross_server_templates_a_month_draws():
    pool = load_pool()
    cross = Template.model_validate(_template_doc())
    assert check_pool([*pool, cross])["cross-server"] == check_pool(pool)["cross-server"] + 1


def test_a_placeholder_path_reaches_into_a_case_object_and_keeps_the_type_of_a_whole_value():
    from tasks_catalog.templates import substitute

    params = {"case": {"seed": 7, "customer": {"emails": ["a@x.example", "b@x.example"]}, "calls": [{"tool": "t"}]}}
    assert substitute({"seed": "{{case.seed}}", "to": "{{case.customer.emails.1}}", "text": "hi {{case.seed}}",
                       "calls": "{{case.calls}}"}, params) == {
        "seed": 7, "to": "b@x.example", "text": "hi 7", "calls": [{"tool": "t"}]}
    with pytest.raises(TemplateError, match="'missing', which its value does not have"):
        substitute("{{case.missing}}", params)
    with pytest.raises(TemplateError, match="indexes past"):
        substitute("{{case.customer.emails.2}}", params)


def test_every_case_of_a_template_is_rendered_once_when_checked_with_all_cases(tmp_path):
    from tasks_catalog.authoring.template_check import every_case

    template = Template.model_validate(_template_doc())
    tasks = every_case(template)
    assert sorted(t.reference_solution[2].arguments["text"] for t in tasks) == sorted(
        f"booking-api issue #17 is {n}" for n in NOTES)
    assert len({t.id for t in tasks}) == len(NOTES)
