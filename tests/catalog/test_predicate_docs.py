"""docs/predicates.md, the one description both verifiers follow, is generated from the registry
(``mcpbench author docs``)."""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner

from mcpbench.cli import main
from tasks_catalog.authoring import frames_doc
from tasks_catalog.authoring.predicates_doc import COMMAND, render
from tasks_catalog.predicates import primitives

DOC_PATH = Path(__file__).resolve().parents[2] / "docs" / "predicates.md"


def test_the_committed_predicate_docs_are_up_to_date():
    current = DOC_PATH.read_text(encoding="utf-8") if DOC_PATH.exists() else ""
    if current != render():  # not a bare assert: the full diff of two long documents says less than this
        pytest.fail(f"{DOC_PATH} is stale: run `{COMMAND}` and commit the result", pytrace=False)


def test_the_docs_describe_every_primitive_and_every_argument():
    text = render()
    for key, prim in primitives().items():
        assert f"### {key}\n" in text
        for name in prim.args.model_fields:
            assert f"| `{name}` |" in text
        first_line = prim.args.__doc__.strip().splitlines()[0].strip()
        assert first_line in text


def test_the_docs_state_the_common_semantics():
    text = render()
    for rule in ("exact, case-sensitive string equality", "**search** semantics", "**case-sensitive**",
                 "numeric value", "**no coercion**", "**booleans are not numbers**", "never an error",
                 '{"all": [P, ...]}', '{"any": [P, ...]}', '{"not": P}', "must not be empty",
                 "a primitive of another server than the task's", "unknown primitive"):
        assert rule in text, rule


def test_check_exits_1_on_a_stale_document_and_0_once_the_documents_are_written(tmp_path):
    (tmp_path / "predicates.md").write_text("# stale\n", encoding="utf-8")
    (tmp_path / "frames.md").write_text(frames_doc.render(), encoding="utf-8")
    stale = CliRunner().invoke(main, ["author", "docs", "--check", "--docs-dir", str(tmp_path)])
    assert stale.exit_code == 1 and "predicates.md is out of date" in stale.output
    assert "frames.md is out of date" not in stale.output
    assert (tmp_path / "predicates.md").read_text(encoding="utf-8") == "# stale\n"  # --check writes nothing
    written = CliRunner().invoke(main, ["author", "docs", "--docs-dir", str(tmp_path)])
    assert written.exit_code == 0, written.output
    assert (tmp_path / "predicates.md").read_text(encoding="utf-8") == render()
    fresh = CliRunner().invoke(main, ["author", "docs", "--check", "--docs-dir", str(tmp_path)])
    assert fresh.exit_code == 0 and "up to date" in fresh.output
