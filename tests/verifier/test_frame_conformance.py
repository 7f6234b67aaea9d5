"""The frame conformance run: the Python and the TypeScript verifier judge every frame case of the
shared corpus (tasks_catalog/fixtures/frames), and both report exactly the violations the case states."""

from __future__ import annotations

import pytest

from servers import SERVER_NAMES
from tasks_catalog import ts_verifier
from tasks_catalog.fixtures import apply_edits, load_frame_cases
from tasks_catalog.frames import frame_violations

CASES = load_frame_cases()


def _python(case) -> list[dict]:
    return [v.to_json() for v in frame_violations(case.server, case.frame, case.initial, case.final)]


@pytest.mark.parametrize("case", CASES, ids=[c.id for c in CASES])
def test_the_python_verifier_reports_the_violations_the_case_states(case):
    got = [v.describe() for v in frame_violations(case.server, case.frame, case.initial, case.final)]
    assert got == case.expected


def test_every_server_has_frame_cases_for_each_kind_of_change():
    for server in SERVER_NAMES:
        mine = [c for c in CASES if c.server == server]
        texts = " ".join(t for c in mine for t in c.expected)
        assert any(not c.expected for c in mine if c.frame), f"{server}: no allowed change"
        assert any(c.expected for c in mine), f"{server}: no disallowed change"
        assert "created" in texts or any(a.get("change") == ["create"] for c in mine for a in c.frame), server
        assert "deleted" in texts, f"{server}: no delete"
        assert any("renam" in c.name or "retitl" in c.name for c in mine), f"{server}: no rename"


def test_both_verifiers_report_the_same_violations_case_by_case(ts_cli):
    typescript = ts_verifier.frame_violations_many([(c.server, c.initial, c.final, c.frame) for c in CASES])
    differ = [f"{c.id}:\n  python     {_python(c)}\n  typescript {ts}" for c, ts in zip(CASES, typescript)
              if ts != _python(c)]
    assert not differ, "\n".join(differ)


def test_a_typescript_verifier_blind_to_a_kind_makes_the_frame_conformance_fail(ts_cli):
    typescript = ts_verifier.frame_violations_many([(c.server, c.initial, c.final, c.frame) for c in CASES],
                                                   break_kind="slack.message")
    differ = [c for c, ts in zip(CASES, typescript) if ts != _python(c)]
    assert differ and all("slack" in ((c.server,) if isinstance(c.server, str) else c.server)
                          and "slack.message" in " ".join(c.expected) for c in differ)


def test_the_frame_corpus_has_cross_server_cases_that_allow_and_that_violate():
    cross = [c for c in CASES if not isinstance(c.server, str)]
    assert {len(c.server) for c in cross} >= {2, 3, 4}
    assert any(not c.expected for c in cross) and any(c.expected for c in cross)
    servers_violating = [{t.split(".")[0] for t in c.expected} for c in cross]
    assert any(len(found) >= 2 for found in servers_violating), "a case with violations on two servers"


def test_a_cross_server_frame_reports_each_servers_violations_as_that_server_alone_would():
    """Judged together, a cross-server run's violations are the union of each server's, in the order of
    its servers: what the single-server judge reports on each."""
    for case in (c for c in CASES if not isinstance(c.server, str)):
        together = frame_violations(case.server, case.frame, case.initial, case.final)
        apart = [v for s in case.server for v in frame_violations(s, [a for a in case.frame if a["entity"].startswith(s + ".")],
                                                                  case.initial[s], case.final[s])]
        if not any("allows at most" in t for t in case.expected):
            assert [v.describe() for v in together] == [v.describe() for v in apart], case.id


def test_a_typescript_verifier_blind_to_a_kind_fails_the_cross_server_frame_cases_too(ts_cli):
    cross = [c for c in CASES if not isinstance(c.server, str)]
    typescript = ts_verifier.frame_violations_many([(c.server, c.initial, c.final, c.frame) for c in cross],
                                                   break_kind="github.issue")
    differ = [c for c, ts in zip(cross, typescript) if ts != _python(c)]
    assert differ and all("github.issue" in " ".join(c.expected) for c in differ)


def test_a_selector_that_matches_nothing_is_an_error_naming_the_edit():
    with pytest.raises(ValueError, match=r"edits\[0\]: selector \{'id': 'C9'\} matches 0 items"):
        apply_edits({"channels": []}, [{"set": ["channels", {"id": "C9"}, "name"], "value": "x"}])


@pytest.mark.parametrize("server", ["postgres", "slack"])
def test_both_verifiers_agree_on_random_damage_to_a_world_whatever_each_skips(ts_cli, server):
    """Both verifiers skip what a run did not touch (equal top-level fields, equal tables and channels);
    on random edits, additions, removals, renames, clones and reorders of a world they still report the
    same violations as each other, under an empty frame (every change is one)."""
    import random

    from servers import get_spec
    from servers.kit.world import get_generator
    from tests.verifier.test_frames import _mutate

    initial = get_spec(server).state_model.load(
        {"world": {"generator": server, "version": get_generator(server).version, "seed": 3, "size": "small"}}).dump()
    rng = random.Random(f"frame-conformance-{server}")
    ops = ["edit", "add", "remove", "rename", "clone", "swap", "slash", "drop"]
    finals = [_mutate(server, initial, [(rng.choice(ops), rng.randrange(50)) for _ in range(rng.randint(1, 4))])
              for _ in range(40)] + [initial]
    typescript = ts_verifier.frame_violations_many([(server, initial, final, []) for final in finals])
    python = [[v.to_json() for v in frame_violations(server, [], initial, final)] for final in finals]
    assert typescript == python
    assert sum(bool(p) for p in python) >= 30 and python[-1] == []


@pytest.mark.parametrize("server", ["stripe", "github", "filesystem"])
def test_both_verifiers_agree_on_random_damage_to_collections_whose_items_are_skipped_when_equal(ts_cli, server):
    """Both verifiers skip the top-level items equal at their place (a charge, a file, a repository told
    apart by owner/name); on random edits, repeated ids, renames, clones and reorders they report the same
    violations, under an empty frame."""
    import random

    from servers import get_spec
    from servers.kit.world import get_generator
    from tests.verifier.test_frames import _mutate_items, _mutate_repos

    initial = get_spec(server).state_model.load(
        {"world": {"generator": server, "version": get_generator(server).version, "seed": 3, "size": "small"}}).dump()
    rng = random.Random(f"frame-conformance-items-{server}")
    ops = ["edit", "add", "rename", "clone", "swap", "slash", "drop"]

    def mutate(steps):
        if server == "github":
            return _mutate_repos(initial, steps)
        top, key = ("charges", "id") if server == "stripe" else ("files", None)
        return _mutate_items(initial, top, key, steps)

    finals = [mutate([(rng.choice(ops), rng.randrange(50)) for _ in range(rng.randint(1, 4))]) for _ in range(30)]
    typescript = ts_verifier.frame_violations_many([(server, initial, final, []) for final in finals + [initial]])
    python = [[v.to_json() for v in frame_violations(server, [], initial, final)] for final in finals + [initial]]
    assert typescript == python
    assert sum(bool(p) for p in python) >= 20 and python[-1] == []
