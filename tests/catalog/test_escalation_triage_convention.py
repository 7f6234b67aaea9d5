"""x-t-escalation-triage v4: the renewal ping that only opening shows, and that no longer names its reason. Every
earlier escalation's post in #cs-escalations has one reply (the triager's acknowledgement), so the channel
history counts one reply on every thread alike and never prints a tag; the replies of a minority (2-4) tag the
account owner ("<@U...> flagging this one to you.", naming no renewal), drawn per case so that the most recent
escalation (the thread a reader opens first) carries the tag in some cases only. Why they tag is read from the
CRM: one customer's earlier escalation is untagged and its later one tagged, as its renewal came within 90 days,
and every other reading of :data:`READINGS` is contradicted by an earlier escalation or tags the same new ones.
The reference replies in every new escalation's thread, and the reference without the tags is a wrong solution."""

from __future__ import annotations

import copy
import json
import re

import pytest

from servers.kit.world import load_world
from servers.slack.state import SlackState
from servers.slack.tools import SlackTools
from tasks_catalog.authoring.cross import OUT_DIR
from tasks_catalog.authoring.cross import x_t_escalation_triage as esc
from tasks_catalog.authoring.cross._x_t_readings import left_open

TAG = re.compile(r"<@U[A-Z0-9]+>")


def _cases() -> list[dict]:
    doc = json.loads((OUT_DIR / f"{esc.ID}.json").read_text(encoding="utf-8"))
    assert doc["version"] == 4
    return doc["params"]["case"]["choice"]


def _slack(case: dict) -> SlackTools:
    state = load_world(SlackState, {"world": {"generator": "slack", "version": 2, "seed": case["seed"],
                                              "size": "default"}, "patch": case["slack_patch"]})
    return SlackTools(state)


def _posts(case: dict) -> tuple[list[dict], list[dict], str]:
    """The earlier escalations' posts, the new ones' (each oldest first) and the channel's id."""
    new = {op["value"]["id"] for op in case["linear_patch"]
           if op["in"] == ["issues"] and op["value"]["state"] == "Triage"}
    tops = [op["value"] for op in case["slack_patch"] if "thread_ts" not in op["value"]]
    channel = case["slack_patch"][0]["in"][1]
    earlier, later = tops[:len(tops) - len(new)], tops[len(tops) - len(new):]
    assert all(p["text"].startswith("Escalating KFS-") for p in tops)
    return earlier, later, channel


def test_the_history_counts_one_reply_on_every_earlier_thread_and_shows_no_tag():
    for case in _cases()[:4]:
        tools = _slack(case)
        earlier, later, channel = _posts(case)
        history = tools.get_channel_history(channel_id=channel, limit=200)["messages"]
        counts = {m["ts"]: m.get("reply_count", 0) for m in history}
        assert {counts[p["ts"]] for p in earlier} == {1}, case["seed"]
        assert {counts[p["ts"]] for p in later} == {0}, case["seed"]
        assert not any(TAG.search(m["text"]) for m in history if m["ts"] in {p["ts"] for p in earlier}), case["seed"]
        opened = [tools.get_thread_replies(channel_id=channel, thread_ts=p["ts"])["messages"] for p in earlier]
        assert all(len(t) == 2 for t in opened), case["seed"]
        tagged = [t[1]["text"] for t in opened if TAG.search(t[1]["text"])]
        assert 2 <= len(tagged) <= 4, case["seed"]
        # the tag names no reason: no renewal, no date, no plan (version 3 wrote "Acme renews on 12 April 2026")
        words = re.compile(r"renew|20\d\d|January|February|March|April|May|June|July|August|September|October|"
                           r"November|December|Enterprise|Scale|Growth|Starter", re.I)
        assert not any(words.search(t[1]["text"]) for t in opened), case["seed"]


def test_the_most_recent_earlier_escalation_carries_the_tag_in_some_cases_only():
    latest = []
    for case in _cases():
        earlier, _, _ = _posts(case)
        last = max(earlier, key=lambda p: float(p["ts"]))
        reply = next(op["value"] for op in case["slack_patch"] if op["value"].get("thread_ts") == last["ts"])
        latest.append(bool(TAG.search(reply["text"])))
    assert any(latest) and not all(latest), latest


def test_the_reference_replies_in_every_new_thread_and_without_its_tags_is_a_wrong_solution():
    for case in _cases():
        _, later, _ = _posts(case)
        replies = [c for c in case["reference"] if c["tool"] == "slack__reply_to_thread"]
        assert sorted(c["arguments"]["thread_ts"] for c in replies) == sorted(p["ts"] for p in later), case["seed"]
        tags = {t for c in replies for t in TAG.findall(c["arguments"]["text"])}
        required = {s["slack.messagePosted"]["pattern"] for s in case["success"] if "slack.messagePosted" in s}
        assert {f"<@{p}>" for p in required} == tags and 2 <= len(tags) <= 3, case["seed"]
        # no tag the reference writes was in the channel before (the earlier replies tag other owners)
        before = " ".join(op["value"]["text"] for op in case["slack_patch"])
        assert not any(t in before for t in tags), case["seed"]
        untagged = next(w for w in case["wrongs"] if w["why"].startswith("the reference without the ping"))
        said = [c for c in untagged["calls"] if c["tool"] == "slack__reply_to_thread"]
        assert len(said) == len(replies) and not any(TAG.search(c["arguments"]["text"]) for c in said), case["seed"]
        # the frame allows one reply per new thread with the tags, and the ping as a reply of its own too
        said_frame = next(f for f in case["frame"] if f["entity"] == "slack.message")
        assert said_frame["max"] >= len(later) + len(tags), case["seed"]


def test_the_committed_case_is_what_the_module_draws():
    case = _cases()[0]
    drawn = esc._case(case["seed"])
    assert drawn is not None and drawn["reference"] == case["reference"] and drawn["slack_patch"] == case["slack_patch"]


def test_without_the_ping_the_queue_is_drawn_as_version_2_drew_it():
    """x-t-escalation-queue-march draws with ``pings=False``: no thread replies, every issue opened, 11-13 new."""
    doc = json.loads((OUT_DIR / "x-t-escalation-queue-march.json").read_text(encoding="utf-8"))
    seed = doc["params"]["case"]["choice"][0]["seed"]
    stream = "x-t-escalation-queue-march"
    case = next(c for d in range(4) if (c := esc.case_of(seed, stream=stream if d == 0 else f"{stream}#{d}",
                                                          pings=False)) is not None)
    assert not any("thread_ts" in op["value"] for op in case["slack_patch"])
    assert 11 <= case["facts"]["new"] <= 13
    opened = [c for c in case["reference"] if c["tool"] == "linear__get_issue"]
    assert len(opened) == case["facts"]["examples"] + case["facts"]["new"]


def _drawn(case: dict) -> dict:
    """The module's draw of ``case`` (its facts: the earlier and the new escalations as drawn)."""
    for draw in range(esc.DRAWS):
        drawn = esc.case_of(case["seed"], stream=esc.ID if draw == 0 else f"{esc.ID}#{draw}")
        if drawn is not None:
            return drawn
    raise AssertionError(f"seed {case['seed']} gives no case")


def test_one_customer_escalated_before_and_within_the_window_and_only_the_later_is_tagged():
    """What the customer is (plan, region, ARR, owner) does not decide the tag: one customer's earlier
    escalation, reported more than 90 days before its renewal, is untagged, its later one tagged."""
    for case in _cases()[:3]:
        facts = _drawn(case)["facts"]
        first, second = (e for e in facts["examples_drawn"] if e["id"] in facts["twin"])
        assert first["customer"] == second["customer"] and first["created_at"] < second["created_at"]
        assert not first["ping"] and second["ping"], case["seed"]
        assert first["gap"] > esc.SOON >= second["gap"] >= 0, case["seed"]
        assert left_open(esc.READINGS, facts["examples_drawn"], facts["new_drawn"], lambda i: i["ping"]) == []


def test_the_readings_check_fails_when_an_earlier_escalation_leaves_a_reading_open():
    """Changed so that no untagged escalation is of a tagged customer, the examples no longer rule out "the
    customers tagged before", which tags none of the new escalations: the check names it."""
    facts = _drawn(_cases()[0])["facts"]
    examples, new = facts["examples_drawn"], facts["new_drawn"]
    esc.check_pings(examples, new)  # as drawn, every reading is closed
    changed = copy.deepcopy(examples)
    first = next(e for e in changed if e["id"] in facts["twin"] and not e["ping"])
    first["customer"] = "Nobody Tagged Ltd"
    with pytest.raises(ValueError, match="the customers tagged before"):
        esc.check_pings(changed, new)


def test_every_reading_that_tags_other_people_is_a_wrong_solution():
    for case in _cases():
        whys = [w["why"] for w in case["wrongs"]]
        assert any(w.startswith("tags the account owner as if the tag followed") for w in whys), case["seed"]
        for w in case["wrongs"]:
            if w["why"].startswith("tags the account owner as if the tag followed"):
                tags = {t for c in w["calls"] if c["tool"] == "slack__reply_to_thread"
                        for t in TAG.findall(c["arguments"]["text"])}
                required = {f"<@{s['slack.messagePosted']['pattern']}>" for s in case["success"]
                            if "slack.messagePosted" in s}
                assert tags != required, (case["seed"], w["why"])
