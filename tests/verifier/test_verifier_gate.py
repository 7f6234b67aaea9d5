"""The acceptance gate asks both verifiers and fails a task where they disagree."""

from __future__ import annotations

import shutil
from pathlib import Path

from click.testing import CliRunner

from mcpbench.cli import main
from servers import get_spec
from tasks_catalog import ts_verifier
from tasks_catalog.gate import validate_paths
from tasks_catalog.predicates import evaluate

ROOT = Path(__file__).resolve().parents[2]
DEV_TASK = ROOT / "tasks_catalog" / "dev" / "slack" / "slack-archive-resolved-incident.json"


def _copy(tmp_path: Path) -> Path:
    path = tmp_path / DEV_TASK.name
    shutil.copyfile(DEV_TASK, path)
    return path


def _inverse_of_python(cases):
    return [not evaluate(pred, get_spec(server).state_model.load(state)) for server, state, pred in cases]


def test_the_gate_fails_a_task_when_the_other_verifier_disagrees(tmp_path):
    (result,), _ = validate_paths([_copy(tmp_path)], extra=_inverse_of_python)
    assert not result.ok
    assert any(r.startswith("verifiers disagree on the initial state: python False, typescript True") for r in result.reasons)
    assert any("after the reference solution" in r for r in result.reasons)


def test_the_gate_fails_a_task_the_typescript_verifier_cannot_decide(tmp_path):
    def undecided(cases):
        return [ts_verifier.NoVerdict(i, "SQL outside the subset") for i in range(len(cases))]

    (result,), _ = validate_paths([_copy(tmp_path)], extra=undecided)
    assert any("typescript no verdict (SQL outside the subset)" in r for r in result.reasons)


def test_the_gate_passes_a_task_both_real_verifiers_agree_on(tmp_path, ts_cli):
    (result,), _ = validate_paths([_copy(tmp_path)], extra=ts_verifier.evaluate_many)
    assert result.ok, result.reasons


def test_validate_reports_both_verifiers_once_the_typescript_one_is_built(tmp_path, ts_cli):
    result = CliRunner().invoke(main, ["tasks", "validate", str(_copy(tmp_path))])
    assert result.exit_code == 0, result.output
    assert "1 valid, 0 failed, 1 tasks (verifiers: python + typescript)" in result.output


def test_the_gate_fails_a_task_when_the_frame_judges_disagree(tmp_path):
    def sees_nothing(cases):
        return [[] for _ in cases]

    (result,), _ = validate_paths([_copy(tmp_path)], extra_frames=sees_nothing)
    assert not result.ok
    assert any(r.startswith("verifiers disagree on the frame after wrong solution") and "typescript []" in r
               for r in result.reasons)


def test_the_gate_passes_a_task_both_real_frame_judges_agree_on(tmp_path, ts_cli):
    (result,), _ = validate_paths([_copy(tmp_path)], extra=ts_verifier.evaluate_many,
                                  extra_frames=ts_verifier.frame_violations_many)
    assert result.ok, result.reasons


def _python_refuting_another_clause(cases):
    """Python's verdicts, a false one naming a clause the Python verifier does not name."""
    from tasks_catalog.predicates import Refuted

    verdicts = [evaluate(pred, get_spec(server).state_model.load(state)) for server, state, pred in cases]
    return [True if v else Refuted(("$.all[9]",)) for v in verdicts]


def test_the_gate_fails_a_task_when_the_verifiers_name_other_failing_clauses(tmp_path):
    (result,), _ = validate_paths([_copy(tmp_path)], extra=_python_refuting_another_clause)
    assert not result.ok
    disagreements = [r for r in result.reasons if r.startswith("verifiers disagree on the failing clauses")]
    assert any(r.startswith("verifiers disagree on the failing clauses on the initial state: python $")
               and r.endswith("typescript $.all[9]") for r in disagreements), result.reasons


def test_the_policys_gate_asks_the_typescript_verifier_for_the_failing_clauses_and_agrees(tmp_path, ts_cli):
    from tasks_catalog.gate import acceptance_gate

    gate = acceptance_gate(typescript=True)
    asked = []
    real = gate.extra

    def spy(cases):
        answers = real(cases)
        asked.extend(answers)
        return answers

    import dataclasses

    (result,), _ = dataclasses.replace(gate, extra=spy, joint=None).check_paths([_copy(tmp_path)])
    assert result.ok, result.reasons
    from tasks_catalog.predicates import Refuted

    assert any(isinstance(a, Refuted) and a.clauses for a in asked)
