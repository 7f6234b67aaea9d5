"""x-t-incident-channel-account-owners' habit that only opening last year's threads shows: when an incident
hit a customer the CRM marks At risk, the Head of Customer Success was brought into its channel too. The
module refuses a draw of earlier incidents that leaves another reading open; every committed case shows the
habit in a minority of the earlier threads, exactly those of incidents that hit an At-risk customer, in a
reply the channel history and the reference's search do not print; and the reference minus the habit fails."""

from __future__ import annotations

import json

import pytest

from servers.kit.world import load_world
from servers.slack.state import SlackState
from servers.slack.tools import SlackTools
from tasks_catalog.authoring.cross import OUT_DIR
from tasks_catalog.authoring.cross import x_t_incident_channel_account_owners as owners
from tasks_catalog.authoring.cross._x_t_readings import left_open

HEAD = "U0HEAD"


def _incident(day: int, severity: str, customers: int, arr: int, *, head: bool, enterprise: bool = True,
              regions: tuple[str, ...] = ("EMEA",)) -> dict:
    return {"severity": severity, "customers": customers, "day": day, "arr": arr, "enterprise": enterprise,
            "regions": regions, "at_risk": head, "head": head}


def _earlier() -> list[dict]:
    """Two incidents that hit an At-risk customer, two that did not; severity, customers hit, dates and ARR
    each appear on both sides."""
    return [_incident(1, "SEV1", 2, 40_000, head=True),
            _incident(5, "SEV2", 1, 12_000, head=True, regions=("APAC",)),
            _incident(3, "SEV1", 1, 30_000, head=False, regions=("APAC",)),
            _incident(7, "SEV2", 2, 20_000, head=False)]


def _new(*due: bool) -> list[dict]:
    return [_incident(10 + n, "SEV2", 1, 25_000, head=d) for n, d in enumerate(due)]


def test_earlier_incidents_that_only_an_at_risk_customer_explains_are_accepted():
    owners.check_convention(_earlier(), _new(True, False))


def test_earlier_incidents_that_severity_explains_as_well_are_refused_naming_the_reading():
    earlier = _earlier()
    earlier[1]["severity"] = "SEV1"
    earlier[2]["severity"] = "SEV2"  # now every SEV1 brought the Head in and no SEV2 did
    with pytest.raises(ValueError, match="by severity"):
        owners.check_convention(earlier, [{**_new(True)[0], "severity": "SEV2"}, _new(False)[0]])


def test_new_channels_all_due_the_habit_or_all_not_are_refused():
    with pytest.raises(ValueError, match="one due the habit and one not"):
        owners.check_convention(_earlier(), _new(True, True))
    with pytest.raises(ValueError, match="one due the habit and one not"):
        owners.check_convention(_earlier(), _new(False, False))


def test_an_earlier_incident_against_the_habit_is_refused():
    earlier = _earlier()
    earlier[3]["head"] = True
    with pytest.raises(ValueError, match="does not follow the habit"):
        owners.check_convention(earlier, _new(True, False))


def _cases() -> list[dict]:
    doc = json.loads((OUT_DIR / f"{owners.ID}.json").read_text(encoding="utf-8"))
    return doc["params"]["case"]["choice"]


def test_every_case_leaves_no_reading_open_and_has_a_minority_of_earlier_incidents_with_the_habit():
    for case in _cases():
        drawn = owners.case_of(case["seed"])
        assert drawn is not None and drawn["reference"] == case["reference"], case["seed"]
        examples, items = drawn["examples"], drawn["items"]
        owners.check_convention(examples, items)
        assert left_open(owners.READINGS, examples, items, owners.head_due) == [], case["seed"]
        assert len(examples) in (4, 5) and 2 <= sum(e["head"] for e in examples) <= 3, case["seed"]
        assert not owners.head_due(items[1]), case["seed"]  # the channel whose message times out


def _slack(case: dict) -> SlackTools:
    state = load_world(SlackState, {"world": {"generator": "slack", "version": 2, "seed": case["seed"],
                                              "size": "default"}, "patch": case["patch"]})
    return SlackTools(state)


def test_only_the_opened_threads_of_at_risk_incidents_name_the_head_of_customer_success():
    for case in _cases()[:3]:
        tools = _slack(case)
        head = next(u for u in tools.state.users if u.title == owners.HEAD).id
        found = tools.search_messages(query=owners.SEARCH, limit=20)["matches"]
        threads = [c["arguments"] for c in case["reference"] if c["tool"] == "slack__get_thread_replies"]
        assert {(m["channel"]["id"], m["ts"]) for m in found} == {(t["channel_id"], t["thread_ts"]) for t in threads}
        assert all(m.get("reply_count") == 1 for m in found) and head not in json.dumps(found), case["seed"]
        histories = [tools.get_channel_history(channel_id=t["channel_id"], limit=50) for t in threads]
        assert head not in json.dumps(histories), case["seed"]
        opened = [tools.get_thread_replies(**t)["messages"][1]["text"] for t in threads]
        assert 2 <= sum(head in text for text in opened) <= 3, case["seed"]


def test_the_earlier_threads_name_at_least_two_at_risk_customers_so_no_one_customer_explains_them():
    for case in _cases():
        named = [op["value"]["text"].split("): ")[1] for op in case["patch"] if op["op"] == "add"
                 and op["value"].get("thread_ts") and "brought in" in op["value"]["text"]]
        assert len(set(named)) >= 2 and all(n.endswith((" is at risk.", " are at risk.")) for n in named), case["seed"]


def test_the_reference_minus_the_habit_is_a_wrong_solution_in_every_case():
    doc = json.loads((OUT_DIR / f"{owners.ID}.json").read_text(encoding="utf-8"))
    assert "{{case.wrong_without_habit}}" in [w["calls"] for w in doc["task"]["wrong_solutions"]]
    for case in _cases():
        invited = {u for c in case["wrong_without_habit"] if c["tool"] == "slack__invite_to_channel"
                   for u in c["arguments"]["users"]}
        required = {u for s in case["success"]["all"] for u in s.get("slack.channelHasMembers", {}).get("members", [])}
        reference = {u for c in case["reference"] if c["tool"] == "slack__invite_to_channel" for u in c["arguments"]["users"]}
        assert (reference - invited) and (reference - invited) <= required, case["seed"]
