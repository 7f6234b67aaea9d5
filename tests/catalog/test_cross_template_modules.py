"""The pool's cross-server templates are built by code (tasks_catalog/authoring/cross/, one module per
template): every module imports and is named after its template, every template file has its module, and
a module rebuilds its committed file byte for byte (one module here: each takes 10-60 s to scan the
organisations; `mcpbench author cross-templates --check` checks them all)."""

from __future__ import annotations

import functools
import importlib

import pytest
from click.testing import CliRunner

from mcpbench.cli import main
from tasks_catalog.authoring.cross import OUT_DIR, modules, text_of
from tasks_catalog.templates import load_template


def test_every_cross_server_template_file_has_its_module_and_every_module_its_file():
    files = {p.stem for p in OUT_DIR.glob("*.json")}
    assert files and files == {m.replace("_", "-") for m in modules()}
    for name in modules():
        module = importlib.import_module(f"tasks_catalog.authoring.cross.{name}")
        assert callable(module.build), name
        template = load_template(OUT_DIR / f"{name.replace('_', '-')}.json")
        assert template.servers and set(template.params) == {"case"}, name


@pytest.fixture(scope="module")
def built_once():
    """``cross.build`` remembering what it built, for this file's tests: a module's build reads many
    organisations (about 10 CPU-s), and the same template's document serves the check, the naming and
    the stale file. The first test that builds it builds it for real; the document is only read."""
    import tasks_catalog.authoring.cross as cross

    return functools.cache(cross.build)


def test_a_module_rebuilds_its_committed_template_byte_for_byte(monkeypatch, built_once):
    import tasks_catalog.authoring.cross as cross

    monkeypatch.setattr(cross, "build", built_once)
    result = CliRunner().invoke(main, ["author", "cross-templates", "--check", "x_t_fix_pr_on_followups"])
    assert result.exit_code == 0 and result.output == "", result.output


def test_a_template_is_named_by_its_module_or_by_its_id(tmp_path, monkeypatch, built_once):
    import tasks_catalog.authoring.cross as cross

    monkeypatch.setattr(cross, "build", built_once)
    monkeypatch.setattr(cross, "OUT_DIR", tmp_path)
    result = CliRunner().invoke(main, ["author", "cross-templates", "x-t-fix-pr-on-followups"])
    assert result.exit_code == 0, result.output
    assert [p.name for p in tmp_path.iterdir()] == ["x-t-fix-pr-on-followups.json"]


def test_a_stale_template_file_is_named_and_exits_1(tmp_path, monkeypatch, built_once):
    import tasks_catalog.authoring.cross as cross

    # built once, then read by the checks below (test_a_module_rebuilds_... checks the build itself)
    monkeypatch.setattr(cross, "build", built_once)
    name = "x_t_fix_pr_on_followups"
    stale = tmp_path / f"{name.replace('_', '-')}.json"
    stale.write_text(text_of(cross.build(name)).replace('"version": 1', '"version": 2', 1), encoding="utf-8")
    assert cross.write_all(tmp_path, check=True, names=[name]) == [stale]
    monkeypatch.setattr(cross, "OUT_DIR", tmp_path)
    result = CliRunner().invoke(main, ["author", "cross-templates", "--check", name])
    assert result.exit_code == 1 and f"stale {stale}" in result.output


def test_an_unknown_module_is_refused_naming_the_modules():
    result = CliRunner().invoke(main, ["author", "cross-templates", "x_t_no_such_template"])
    assert result.exit_code == 2 and "no cross-server template module x_t_no_such_template" in result.output


def test_a_module_must_build_the_template_it_is_named_after(monkeypatch):
    import tasks_catalog.authoring.cross as cross

    bad = "x_t_no_such"
    real = importlib.import_module

    def fake(name, *args):
        if name.endswith(bad):
            return type("M", (), {"build": staticmethod(lambda: {"id": "x-t-something-else"})})
        return real(name, *args)

    monkeypatch.setattr(cross.importlib, "import_module", fake)
    with pytest.raises(ValueError, match="builds template 'x-t-something-else'"):
        cross.build(bad)


def _case(seed: int, calls: int) -> dict:
    return {"reference": [{"tool": "slack__get_users", "arguments": {}}] * calls} if seed % 2 else {
        "reference": [{"tool": "slack__get_users", "arguments": {}}] * (calls - 10)}


def test_cases_of_a_level_keep_only_references_as_long_as_the_levels():
    from tasks_catalog.authoring.cross import cases

    # odd seeds make 30 calls, even ones 20: hard keeps the odd, medium the even
    hard = cases(lambda seed: _case(seed, 30), level="hard", want=8)
    assert [c["seed"] for c in hard] == [1, 3, 5, 7, 9, 11, 13, 15]
    assert {len(c["reference"]) for c in cases(lambda seed: _case(seed, 30), level="medium", want=8)} == {20}
    with pytest.raises(ValueError, match="only 0 cases found"):
        cases(lambda seed: _case(seed, 90), level="hard")


def test_a_template_refuses_a_case_shorter_than_its_level_naming_the_seed():
    from tasks_catalog.authoring.cross import template

    with pytest.raises(ValueError, match="x-t-demo: the case of seed 2 has a reference of 20 calls; a hard "
                                         r"cross-server task's has 25-60 \(cases\(..., level='hard'\)"):
        template(id="x-t-demo", version=1, servers=["slack", "notion"], difficulty="hard", category="standard",
                 case_list=[{"seed": 1, **_case(1, 30)}, {"seed": 2, **_case(2, 30)}], task={})


#: The cross-server templates whose answers count business or working days, or pick the days a desk is
#: open: they start from Slack version 3, whose holiday closures are the organisation's (version 2's name
#: random weekdays: tests/servers/test_slack_holidays.py).
COUNTS_DAYS = {"x-t-advisory-remediation", "x-t-leave-cover", "x-t-support-desk-april"}


def test_the_templates_that_count_days_start_from_slack_3_and_the_others_from_version_2():
    import json

    versions = {}
    for path in OUT_DIR.glob("*.json"):
        doc = json.loads(path.read_text(encoding="utf-8"))
        for server, state in doc["task"]["initial_state"].items():
            versions[(doc["id"], server)] = state["world"]["version"]
    assert {t for (t, server), v in versions.items() if server == "slack" and v == 3} == COUNTS_DAYS
    assert {v for (t, server), v in versions.items() if (t, server) not in {(t, "slack") for t in COUNTS_DAYS}} == {2}


def test_on_worlds_names_the_newer_version_only_while_the_decorated_function_runs():
    from tasks_catalog.authoring.cross import on_worlds, world_state, world_version

    @on_worlds(slack=3)
    def inside() -> tuple[int, int, int]:
        return world_version("slack"), world_version("gmail"), world_state("slack")["world"]["version"]

    assert inside() == (3, 2, 3)
    assert (world_version("slack"), world_state("slack")["world"]["version"]) == (2, 2)
