"""x-t-followups-from-pull-requests' habit that only opening the earlier closed follow-ups shows: our closing
comment on a SEV1 or SEV2 incident's follow-up also names the incident's own fix pull request. The module
refuses earlier follow-ups that leave another reading open, and every committed case shows the habit on two of
the four earlier follow-ups, exactly those of a SEV1 or SEV2 incident, in comments and descriptions
``list_issues`` does not carry, and requires it on the follow-ups closed now that are due it (the reference
without it fails the predicate)."""

from __future__ import annotations

import json
import re
from datetime import date

import pytest

from servers.kit.world import resolve
from servers.linear.state import LinearState
from servers.linear.tools import LinearTools
from tasks_catalog.authoring.cross import OUT_DIR
from tasks_catalog.authoring.cross import x_t_followups_from_pull_requests as followups

SEVERITY = re.compile(r"\(([^,()]+), (SEV\d)\)")


def _up(severity: str, service: str, day: int, *, repo: str = "platform-services", team: str = "ENG",
        priority: int = 2) -> dict:
    return {"id": f"{team}-{day}", "service": service, "severity": severity, "team": team, "priority": priority,
            "assignee": "u1", "repo": repo, "day": date(2026, 2, day).toordinal(), "commented": severity != "SEV3"}


def _earlier() -> list[dict]:
    """Two SEV2 follow-ups named with their fix, two SEV3 ones not; a service, repository, team and priority of
    a named one each also has an unnamed one, and the dates interleave."""
    return [_up("SEV2", "notifier", 2), _up("SEV3", "notifier", 9),
            _up("SEV2", "rate-engine", 16, repo="route-planner"), _up("SEV3", "rate-engine", 23, repo="route-planner")]


def _closed() -> list[dict]:
    return [{**_up("SEV2", "billing-api", 27), "day": date(2026, 3, 9).toordinal()},
            {**_up("SEV3", "billing-api", 28), "day": date(2026, 3, 9).toordinal()}]


def test_earlier_follow_ups_that_only_the_severity_explains_are_accepted():
    followups.check_habit(_earlier(), _closed())


def test_earlier_follow_ups_that_the_service_explains_as_well_are_refused_naming_the_reading():
    earlier = _earlier()
    earlier[1]["service"] = earlier[3]["service"] = "search-indexer"  # no unnamed one shares a named one's service
    closed = [{**c, "service": "notifier"} if c["commented"] else c for c in _closed()]
    followups.check_habit(earlier, closed)  # the closed ones' services agree with the severity: nothing left open
    with pytest.raises(ValueError, match="by the incident's service"):
        followups.check_habit(earlier, _closed())


def test_a_sev1_follow_up_closed_now_with_no_sev1_among_the_named_ones_is_refused():
    closed = _closed()
    closed[0]["severity"] = "SEV1"
    with pytest.raises(ValueError, match="only the severities seen"):
        followups.check_habit(_earlier(), closed)


def test_named_ones_all_later_than_the_others_are_refused_as_a_new_practice():
    earlier = _earlier()
    for up, day in zip(earlier, (16, 2, 23, 9)):  # the named ones (SEV2) on 16 and 23 February, the others before
        up["day"] = date(2026, 2, day).toordinal()
    with pytest.raises(ValueError, match="since some day"):
        followups.check_habit(earlier, _closed())


def test_follow_ups_closed_now_all_due_the_fix_are_refused():
    with pytest.raises(ValueError, match="some due"):
        followups.check_habit(_earlier(), [c for c in _closed() if c["commented"]])


def _cases() -> list[dict]:
    doc = json.loads((OUT_DIR / f"{followups.ID}.json").read_text(encoding="utf-8"))
    assert doc["version"] == 3 and "the way we did on the ones we closed before" in doc["task"]["goal"]
    return doc["params"]["case"]["choice"]


def _linear(case: dict) -> dict:
    return resolve({"world": {"generator": "linear", "version": 2, "seed": case["seed"], "size": "default"},
                    "patch": case["patch"]["linear"]})[1]


def _fix_of(case: dict, incident: str) -> str:
    """The incident's own fix pull request in the case's GitHub world ("... (incident NNNN)")."""
    github = resolve({"world": {"generator": "github", "version": 2, "seed": case["seed"], "size": "default"},
                      "patch": case["patch"]["github"]})[1]
    (pr,) = [f"{followups.OWNER}/{r['name']}#{p['number']}" for r in github["repos"] for p in r["pull_requests"]
             if p["title"].endswith(f"(incident {incident})")]
    return pr


def test_every_case_names_the_incidents_fix_on_exactly_the_earlier_sev1_and_sev2_follow_ups():
    cases = _cases()
    assert len(cases) >= 8
    latest = 0
    for case in cases:
        issues = {i["id"]: i for i in _linear(case)["issues"]}
        earlier = [issues[op["id"]] for op in case["patch"]["linear"]]
        assert len(earlier) == followups.EXAMPLES and all(i["state"] == "Done" for i in earlier), case["seed"]
        named = 0
        for issue in earlier:
            ours = [c for c in issue["comments"] if c["id"].endswith("-merged")]
            assert len(ours) == 1, (case["seed"], issue["id"])
            incident, severity = re.search(r"incident (\d{4})", issue["description"]), SEVERITY.search(issue["description"])
            assert incident and severity, (case["seed"], issue["id"])
            due = severity.group(2) in followups.DUE
            fix = _fix_of(case, incident.group(1))
            assert (fix in ours[0]["body"]) == due, (case["seed"], issue["id"])
            named += due
        assert named == 2, case["seed"]
        latest += bool(re.search(r"'s fix: ", max(
            (c for i in earlier for c in i["comments"] if c["id"].endswith("-merged")),
            key=lambda c: c["created_at"])["body"]))
        # the reference opens every earlier follow-up
        opened = {c["arguments"]["id"] for c in case["reference"] if c["tool"] == "linear__get_issue"}
        assert {i["id"] for i in earlier} <= opened, case["seed"]
    assert 0.3 * len(cases) <= latest <= 0.7 * len(cases), (latest, len(cases))


def test_every_case_requires_the_fix_where_due_and_the_reference_without_it_fails():
    for case in _cases():
        comments = {c["arguments"]["issueId"]: c["arguments"]["body"] for c in case["reference"]
                    if c["tool"] == "linear__create_comment"}
        bare = {c["arguments"]["issueId"]: c["arguments"]["body"] for c in case["wrong_no_habit"]
                if c["tool"] == "linear__create_comment"}
        closed = [i for i, body in comments.items() if "is merged" in body]
        due = [i for i in closed if "'s fix: " in comments[i]]
        assert 0 < len(due) < len(closed), case["seed"]
        for issue in closed:
            wanted = [c["linear.issueHasComment"]["pattern"] for c in case["success"]["all"]
                      if c.get("linear.issueHasComment", {}).get("issue") == issue]
            assert len(wanted) == (2 if issue in due else 1), (case["seed"], issue)  # the link, and the fix if due
            assert all(re.search(p, comments[issue]) for p in wanted), (case["seed"], issue)
            assert all(re.search(p, bare[issue]) for p in wanted) == (issue not in due), (case["seed"], issue)


def test_list_issues_carries_neither_the_comment_nor_the_severity_and_get_issue_does():
    case = _cases()[0]
    tools = LinearTools(LinearState.model_validate(_linear(case)))
    earlier = [op["id"] for op in case["patch"]["linear"]]
    seen = [i for team in ("ENG", "PLT", "MOB") for i in tools.list_issues(team=team, state="Done", limit=100)["issues"]
            if i["id"] in earlier]
    assert seen and "'s fix: " not in json.dumps(seen) and "SEV" not in json.dumps(seen)
    opened = [tools.get_issue(i) for i in earlier]
    assert sum("'s fix: " in json.dumps(i["comments"]) for i in opened) == 2
    assert all(SEVERITY.search(i["description"]) for i in opened)
