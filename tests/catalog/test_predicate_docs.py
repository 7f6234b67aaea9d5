"""docs/predicates.md, the one description both verifiers follow, is generated from the registry."""

from __future__ import annotations

import pytest

from tasks_catalog.predicates import primitives
from tasks_catalog.predicates.__main__ import COMMAND, DOC_PATH, main, render_docs


def test_the_committed_predicate_docs_are_up_to_date():
    current = DOC_PATH.read_text(encoding="utf-8") if DOC_PATH.exists() else ""
    if current != render_docs():  # not a bare assert: the full diff of two long documents says less than this
        pytest.fail(f"{DOC_PATH} is stale: run `{COMMAND}` and commit the result", pytrace=False)


def test_the_docs_describe_every_primitive_and_every_argument():
    text = render_docs()
    for key, prim in primitives().items():
        assert f"### {key}\n" in text
        for name in prim.args.model_fields:
            assert f"| `{name}` |" in text
        first_line = prim.args.__doc__.strip().splitlines()[0].strip()
        assert first_line in text


def test_the_docs_state_the_common_semantics():
    text = render_docs()
    for rule in ("exact, case-sensitive string equality", "**search** semantics", "**case-sensitive**",
                 "numeric value", "**no coercion**", "**booleans are not numbers**", "never an error",
                 '{"all": [P, ...]}', '{"any": [P, ...]}', '{"not": P}', "must not be empty",
                 "a primitive of another server than the task's", "unknown primitive"):
        assert rule in text, rule


def test_check_exits_1_on_a_stale_document_and_0_on_a_fresh_one(tmp_path, capsys):
    doc = tmp_path / "predicates.md"
    doc.write_text("# stale\n", encoding="utf-8")
    assert main(["docs", "--check", "--output", str(doc)]) == 1
    assert "out of date" in capsys.readouterr().err
    assert main(["docs", "--output", str(doc)]) == 0
    assert doc.read_text(encoding="utf-8") == render_docs()
    assert main(["docs", "--check", "--output", str(doc)]) == 0
