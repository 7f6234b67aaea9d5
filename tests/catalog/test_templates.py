"""Task templates: seeded rendering is reproducible and varied, substitution keeps types, and a
template that does not add up is rejected with a clear error."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner
from pydantic import ValidationError

from mcpbench.cli import main
from tasks_catalog.hashing import task_hash
from tasks_catalog.loader import validate_task
from tasks_catalog.templates import (
    POOL_DIR,
    Template,
    TemplateError,
    load_pool,
    load_template,
    render,
    sample_params,
    substitute,
)

ROOT = Path(__file__).resolve().parents[2]
FS_POOL = ROOT / "tasks_catalog" / "templates" / "filesystem"
TOPICS = ["budget-review", "hiring-sync", "vendor-audit", "roadmap-planning", "incident-retro", "security-review",
          "launch-checklist", "onboarding-plan", "pricing-update", "q3-forecast"]


def _template_doc() -> dict[str, Any]:
    """A small filesystem template over a topic, a decoy topic (distinct), a day and a step budget."""
    return {
        "id": "fs-t-test-archive",
        "server": "filesystem",
        "difficulty": "easy",
        "category": "standard",
        "params": {
            "topic": {"choice": TOPICS},
            "other": {"choice": TOPICS, "distinct_from": ["topic"]},
            "day": {"int": [10, 28]},
            "steps": {"int": [5, 12]},
        },
        "task": {
            "goal": "Move notes/{{topic}}-{{day}}.md into archive/, keeping its name, so that "
                    "archive/{{topic}}-{{day}}.md exists. Leave notes/{{other}}.md where it is.",
            "initial_state": {
                "files": {"notes/{{topic}}-{{day}}.md": "# {{topic}}\n", "notes/{{other}}.md": "# {{other}}\n"},
                "directories": ["archive"],
            },
            "available_tools": ["list_directory", "move_file"],
            "max_steps": "{{steps}}",
            "timeout_s": 60,
            "success": {"all": [
                {"filesystem.fileExists": {"path": "archive/{{topic}}-{{day}}.md"}},
                {"filesystem.fileExists": {"path": "notes/{{other}}.md"}},
            ]},
            "reference_solution": [
                {"tool": "move_file",
                 "arguments": {"source": "notes/{{topic}}-{{day}}.md", "destination": "archive/{{topic}}-{{day}}.md"}},
            ],
            "frame": [
                {"entity": "filesystem.file", "change": ["create"], "ids": ["archive/{{topic}}-{{day}}.md"]},
                {"entity": "filesystem.file", "change": ["delete"], "ids": ["notes/{{topic}}-{{day}}.md"]},
            ],
            "wrong_solutions": [
                {"why": "moves the decoy", "kind": "lookalike", "calls": [
                    {"tool": "move_file",
                     "arguments": {"source": "notes/{{other}}.md", "destination": "archive/{{other}}.md"}},
                ]},
                {"why": "moves the notes, then empties the decoy", "kind": "collateral", "calls": [
                    {"tool": "move_file",
                     "arguments": {"source": "notes/{{topic}}-{{day}}.md", "destination": "archive/{{topic}}-{{day}}.md"}},
                    {"tool": "write_file", "arguments": {"path": "notes/{{other}}.md", "content": ""}},
                ]},
            ],
        },
    }


def _template(doc: dict[str, Any] | None = None) -> Template:
    return Template.model_validate(doc or _template_doc())


def test_the_same_seed_renders_the_same_task():
    template = _template()
    a, b = render(template, b"2026-05:secret"), render(template, b"2026-05:secret")
    assert a == b
    assert a.to_json() == b.to_json()
    assert task_hash(a) == task_hash(b)


def test_different_seeds_render_different_params_ids_and_hashes():
    template = _template()
    tasks = [render(template, f"seed-{i}".encode()) for i in range(20)]
    assert len({json.dumps(t.template.params, sort_keys=True) for t in tasks}) == 20
    assert len({t.id for t in tasks}) == 20
    assert len({task_hash(t) for t in tasks}) == 20


def test_a_rendered_task_records_its_template_and_loads_cleanly():
    task = render(_template(), b"seed")
    assert task.id.startswith("fs-t-test-archive-") and len(task.id) == len("fs-t-test-archive-") + 10
    assert (task.server, task.difficulty, task.category) == ("filesystem", "easy", "standard")
    assert task.template is not None and task.template.id == "fs-t-test-archive"
    assert set(task.template.params) == {"topic", "other", "day", "steps"}
    _, errors = validate_task(task.to_json())
    assert errors == []


def test_distinct_from_is_respected_over_many_seeds():
    template = _template()
    for i in range(500):
        params = sample_params(template, f"distinct-{i}".encode())
        assert params["topic"] != params["other"]


def test_distinct_from_is_respected_for_integers_and_samples():
    doc = _template_doc()
    doc["params"] = {
        "a": {"int": [1, 8]},
        "b": {"int": [1, 8], "distinct_from": ["a"]},
        "people": {"sample": TOPICS[:8], "k": 3},
        "guest": {"choice": TOPICS[:8], "distinct_from": ["people"]},
    }
    doc["task"] = {"goal": "{{a}} {{b}} {{people}} {{guest}}"}
    template = _template(doc)
    for i in range(300):
        params = sample_params(template, f"narrow-{i}".encode())
        assert params["a"] != params["b"]
        assert len(set(params["people"])) == 3
        assert params["guest"] not in params["people"]


def test_a_whole_string_placeholder_takes_the_value_with_its_type():
    task = render(_template(), b"typed")
    assert isinstance(task.max_steps, int) and 5 <= task.max_steps <= 12
    assert task.max_steps == task.template.params["steps"]
    out = substitute({"n": "{{n}}", "x": "{{x}}", "l": "{{l}}", "s": "{{n}} steps", "first": "{{l.0}}"},
                     {"n": 7, "x": 12.5, "l": ["Ana", "Bo"]})
    assert out == {"n": 7, "x": 12.5, "l": ["Ana", "Bo"], "s": "7 steps", "first": "Ana"}
    assert type(out["n"]) is int


def test_placeholders_inside_text_render_numbers_and_lists_as_text():
    out = substitute("pay {{amount}} to {{people}} on day {{day}}", {"amount": 12.5, "people": ["Ana", "Bo"], "day": 9})
    assert out == "pay 12.50 to Ana, Bo on day 9"


def test_keys_are_substituted_too():
    assert substitute({"notes/{{topic}}.md": "# {{topic}}"}, {"topic": "q3"}) == {"notes/q3.md": "# q3"}


def test_a_placeholder_without_a_parameter_is_rejected():
    doc = _template_doc()
    doc["task"]["goal"] += " Tell {{manager}}."
    with pytest.raises(ValidationError, match=r"placeholders without a parameter: \['manager'\]"):
        _template(doc)


def test_an_unused_parameter_is_rejected():
    doc = _template_doc()
    doc["params"]["year"] = {"int": [2019, 2026]}
    with pytest.raises(ValidationError, match=r"parameters never used: \['year'\]"):
        _template(doc)


def test_distinct_from_an_unknown_parameter_is_rejected():
    doc = _template_doc()
    doc["params"]["other"]["distinct_from"] = ["subject"]
    with pytest.raises(ValidationError, match="distinct_from names unknown parameter 'subject'"):
        _template(doc)


def test_a_range_with_too_little_variety_is_rejected():
    doc = _template_doc()
    doc["params"]["day"] = {"int": [10, 12]}
    with pytest.raises(ValidationError, match="fewer than 8 values"):
        _template(doc)


def test_a_template_may_not_set_the_fields_rendering_fills_in():
    doc = _template_doc()
    doc["task"]["id"] = "fixed-id"
    with pytest.raises(ValidationError, match=r"must not set \['id'\]"):
        _template(doc)


def test_loading_a_bad_template_file_names_the_file_and_the_problem(tmp_path):
    doc = _template_doc()
    doc["task"]["goal"] += " Tell {{manager}}."
    path = tmp_path / "bad.json"
    path.write_text(json.dumps(doc), encoding="utf-8")
    with pytest.raises(TemplateError) as info:
        load_template(path)
    assert str(path) in str(info.value) and "manager" in str(info.value)


def test_loading_a_template_file_that_is_not_json_is_a_clear_error(tmp_path):
    path = tmp_path / "broken.json"
    path.write_text("{", encoding="utf-8")
    with pytest.raises(TemplateError, match="not valid JSON"):
        load_template(path)


def test_a_template_that_renders_an_invalid_task_is_a_clear_error():
    doc = _template_doc()
    doc["task"]["max_steps"] = "{{steps}} steps"
    with pytest.raises(TemplateError, match=r"renders an invalid task:\n\$\.max_steps"):
        render(_template(doc), b"seed")


def test_the_public_pool_loads_with_unique_ids():
    pool = load_pool(POOL_DIR)
    assert pool and len({t.id for t in pool}) == len(pool)


def test_every_template_of_the_pool_and_every_dev_task_starts_from_a_default_size_world():
    from servers.kit.world import is_world_reference
    from tasks_catalog.loader import DEV_DIR, load_tasks

    dev, errors = load_tasks([DEV_DIR])
    assert errors == [] and sum(not t.cross_server for t in dev) == 40
    assert sum(t.id.startswith("x-") and not t.id.startswith(("x-eng-", "x-h-")) for t in dev) == 8
    assert sum(t.id.startswith("x-h-") for t in dev) == 4
    # a cross-server task starts each of its servers from a world: each is held to the rule
    starts = {f"{t.id}/{server}": state for t in dev for server, state in t.initial_states().items()}
    pool = load_pool(POOL_DIR)
    starts |= {t.id: t.task["initial_state"] for t in pool if not t.servers}
    starts |= {f"{t.id}/{server}": t.task["initial_state"][server] for t in pool for server in t.servers or ()}
    assert sum(not t.servers for t in pool) == 200
    assert len(starts) == sum(len(t.server_names) for t in dev) + sum(len(t.servers or "x") for t in pool)
    inline = sorted(i for i, state in starts.items() if not is_world_reference(state))
    assert inline == []
    assert {state["world"]["size"] for state in starts.values()} == {"default"}


def check_templates(*args: str):
    """``mcpbench author check-templates ARGS``: the exit code and what it printed."""
    result = CliRunner().invoke(main, ["author", "check-templates", *args])
    return result.exit_code, result.output


def test_the_filesystem_templates_pass_the_check():
    """Two seeds, not the command's five: the suite's months gate more renderings of every server's
    templates (these included), and the check's own behaviour is tested below."""
    code, out = check_templates(str(FS_POOL), "--seeds", "2")
    assert code == 0, out
    assert "FAIL" not in out
    assert re.fullmatch(r"(\d+) templates ok, 0 failed, \1 templates x 2 seeds \(verifiers: .+\)", out.strip().splitlines()[-1])


def test_the_check_fails_a_template_whose_renderings_fail_the_gate(tmp_path):
    doc = _template_doc()
    doc["task"]["wrong_solutions"][0]["calls"] = doc["task"]["reference_solution"]
    (tmp_path / "t.json").write_text(json.dumps(doc), encoding="utf-8")
    code, text = check_templates(str(tmp_path), "--seeds", "2", "--no-typescript")
    assert code == 1
    out = text.splitlines()
    failing = [line for line in out if line.startswith("FAIL")]
    assert len(failing) == 2, out
    for i, line in enumerate(failing):
        assert re.match(rf"FAIL fs-t-test-archive seed check:fs-t-test-archive:{i} \(fs-t-test-archive-[0-9a-f]{{10}}\): "
                        r"wrong solution 1 \(moves the decoy\) passes", line), line
    assert out[-1] == "0 templates ok, 1 failed, 1 templates x 2 seeds (verifiers: python only (not asked for))"


def test_the_test_template_passes_the_check_at_fresh_seeds(tmp_path):
    (tmp_path / "t.json").write_text(json.dumps(_template_doc()), encoding="utf-8")
    code, out = check_templates(str(tmp_path), "--seeds", "2", "--salt", "fresh", "--no-typescript")
    assert code == 0
    assert out.strip() == (
        "1 templates ok, 0 failed, 1 templates x 2 seeds (verifiers: python only (not asked for))")


def test_a_sweep_renders_other_seeds_than_the_check_and_gates_them():
    pair = [FS_POOL / "fs-t-guides-index.json", POOL_DIR / "slack" / "sl-t-rename-channel.json"]
    code, out = check_templates(*map(str, pair), "--seeds", "2", "--salt", "sweep-test", "--no-typescript")
    assert code == 0
    assert out.strip().splitlines()[-1] == (
        "2 templates ok, 0 failed, 2 templates x 2 seeds (verifiers: python only (not asked for))")
    template = load_template(pair[0])
    swept = {render(template, f"sweep-test:{template.id}:{i}".encode()).id for i in range(2)}
    checked = {render(template, f"check:{template.id}:{i}".encode()).id for i in range(2)}
    assert swept.isdisjoint(checked)
