"""x-t-leave-cover v3: the rota handover that only opening shows. Every earlier leave's announcement in #ops
has one reply in its thread (the leaver's), so the channel history counts one reply on every thread alike and
shows no handover; on the leaves of two weeks or more (2 of 5, drawn per case so that the most recent leave
carries it in some cases only) that reply hands the deputy the carrier on-call rota. The rota is a Notion page
of its own (beside engineering's "On-call Rota"), in which the leavers held weeks in their long leaves and Priya
holds one in the new leave. The reference replies so in its own announcement's thread, and the reference without
that reply is a wrong solution."""

from __future__ import annotations

import json
import re
from datetime import UTC, date, datetime, timedelta

from servers.kit.world import load_world
from servers.notion.state import NotionState
from servers.notion.tools import NotionTools
from servers.slack.state import SlackState
from servers.slack.tools import SlackTools
from tasks_catalog.authoring.cross import OUT_DIR
from tasks_catalog.authoring.cross import x_t_leave_cover as leave
from tasks_catalog.authoring.cross._x_t_readings import left_open

ID = "x-t-leave-cover"
ROTA = re.compile(leave.ROTA)
#: The template's Slack world: version 3, whose holiday closures are the organisation's (version 4).
SLACK_VERSION = 3


def _cases() -> list[dict]:
    doc = json.loads((OUT_DIR / f"{ID}.json").read_text(encoding="utf-8"))
    assert doc["version"] == 4 and doc["task"]["initial_state"]["slack"]["world"]["version"] == SLACK_VERSION
    return doc["params"]["case"]["choice"]


def _slack(case: dict) -> SlackTools:
    state = load_world(SlackState, {"world": {"generator": "slack", "version": SLACK_VERSION, "seed": case["seed"],
                                              "size": "default"}, "patch": case["patch"]["slack"]})
    return SlackTools(state)


def _threads(case: dict) -> tuple[str, list[dict], dict[str, str]]:
    channel = case["patch"]["slack"][0]["in"][1]
    posts = [op["value"] for op in case["patch"]["slack"] if "thread_ts" not in op["value"]]
    replies = {op["value"]["thread_ts"]: op["value"]["text"] for op in case["patch"]["slack"]
               if "thread_ts" in op["value"]}
    return channel, posts, replies


def test_the_history_counts_one_reply_on_every_earlier_leave_and_shows_no_handover():
    for case in _cases()[:4]:
        tools = _slack(case)
        channel, posts, _ = _threads(case)
        assert len(posts) == leave.PAST and all(p["text"].startswith("I'm on leave from ") for p in posts)
        history = tools.get_channel_history(channel_id=channel, limit=200)["messages"]
        counts = {m["ts"]: m.get("reply_count", 0) for m in history}
        assert {counts[p["ts"]] for p in posts} == {1}, case["seed"]
        assert not any(ROTA.search(m["text"]) for m in history), case["seed"]
        opened = [tools.get_thread_replies(channel_id=channel, thread_ts=p["ts"])["messages"] for p in posts]
        assert all(len(t) == 2 for t in opened), case["seed"]
        handovers = [t[1]["text"] for t in opened if ROTA.search(t[1]["text"])]
        assert len(handovers) == leave.TAGGED and all(h.startswith("<@U") for h in handovers), case["seed"]


def test_the_handover_is_on_exactly_the_long_leaves_and_the_newest_carries_it_in_some_cases_only():
    newest = []
    for case in _cases():
        _, posts, replies = _threads(case)
        for p in posts:
            year = datetime.fromtimestamp(float(p["ts"]), tz=UTC).year
            first, last = (datetime.strptime(f"{d} {year}", "%d %B %Y").date()
                           for d in re.match(r"I'm on leave from \w+ (\d+ \w+) to \w+ (\d+ \w+)\.", p["text"]).groups())  # type: ignore[union-attr]
            if last < first:
                last = last.replace(year=year + 1)
            working = sum(1 for k in range((last - first).days + 1) if (first + timedelta(days=k)).weekday() < 5)
            assert bool(ROTA.search(replies[p["ts"]])) == (working >= leave.LONG), (case["seed"], p["text"])
        latest = max(posts, key=lambda p: float(p["ts"]))
        newest.append(bool(ROTA.search(replies[latest["ts"]])))
    assert any(newest) and not all(newest), newest


def test_every_other_reading_is_contradicted_or_agrees():
    # each reading fits examples of its kind; a leave set where the shorter ones carry it is told apart
    examples = [{"leaver": "a", "priya": True, "deputy": "x", "month": m, "quarter": 0, "crosses": False, "holiday": False, "order": n,
                 "length": length, "tagged": length >= leave.LONG, "slot": length >= leave.LONG}
                for n, (m, length) in enumerate([(3, 10), (5, 3), (7, 10), (9, 4), (11, 2)])]
    new = {"leaver": "a", "priya": True, "deputy": "x", "month": 4, "quarter": 1, "crosses": False, "holiday": False, "order": 5,
           "length": leave.LONG, "slot": True}
    assert left_open(leave.READINGS, examples, [new], lambda item: True) == ["the months of the leaves that did it"]
    assert leave.READINGS["the shorter leaves"](examples) is False


def test_the_reference_hands_the_rota_over_in_its_announcements_thread_and_without_it_fails():
    for case in _cases():
        tools = _slack(case)
        post = next(c for c in case["reference"] if c["tool"] == "slack__post_message")
        reply = next(c for c in case["reference"] if c["tool"] == "slack__reply_to_thread")
        out = tools.post_message(**post["arguments"])
        assert out["ts"] == reply["arguments"]["thread_ts"], case["seed"]
        tools.reply_to_thread(**reply["arguments"])
        pattern = next(s["slack.messagePosted"]["pattern"] for s in case["success"]["all"]
                       if "slack.messagePosted" in s and ROTA.pattern in s["slack.messagePosted"]["pattern"])
        assert re.search(pattern, reply["arguments"]["text"]) and not re.search(pattern, post["arguments"]["text"])
        assert any(w["why"].startswith("the reference without the rota handover") for w in case["wrong"]), case["seed"]
        assert date.fromisoformat(case["first"]).weekday() == 0


def test_no_message_before_the_agent_writes_meets_the_judges_slack_checks():
    # an earlier leave covered by the new deputy would name them (the announcement check) or hand them the rota
    for case in _cases():
        tools = _slack(case)
        channel, _, _ = _threads(case)
        texts = [m["text"] for m in tools.get_channel_history(channel_id=channel, limit=1000)["messages"]]
        texts += [r["text"] for p in case["patch"]["slack"] if "thread_ts" not in p["value"]
                  for r in tools.get_thread_replies(channel_id=channel, thread_ts=p["value"]["ts"])["messages"]]
        patterns = [s["slack.messagePosted"]["pattern"] for s in case["success"]["all"] if "slack.messagePosted" in s]
        assert len(patterns) == 2, case["seed"]
        assert not any(re.search(p, t) for p in patterns for t in texts), case["seed"]


def _notion(case: dict) -> NotionTools:
    state = load_world(NotionState, {"world": {"generator": "notion", "version": 2, "seed": case["seed"],
                                               "size": "default"}, "patch": case["patch"]["notion"]})
    return NotionTools(state)


def _weeks(text: str, year: int) -> tuple[date, date, str]:
    """A rota line ("30 March to 5 April: Name") of the year under whose heading it stands."""
    m = re.fullmatch(r"(\d+ \w+) to (\d+ \w+): (.+)", text)
    assert m, text
    first = datetime.strptime(f"{m[1]} {year}", "%d %B %Y").date()
    last = first + timedelta(days=6)
    assert last.strftime("%-d %B") == m[2], text
    return first, last, m[3]


def test_the_carrier_rota_is_found_beside_engineerings_and_shows_the_leavers_weeks():
    slot_leaves = 0
    for case in _cases():
        notion, slack = _notion(case), _slack(case)
        hits = {h["title"]: h["id"] for h in notion.search(query="rota", page_size=100)["results"]}
        assert {"On-call Rota", leave.ROTA_PAGE} <= set(hits), (case["seed"], hits)
        year, rota = 0, []
        for block in notion.get_block_children(block_id=hits[leave.ROTA_PAGE])["results"]:
            if block["type"] == "heading_2":
                year = int(block["text"])
            elif block["type"] == "bulleted_list_item":
                rota.append(_weeks(block["text"], year))
        assert all(b[0] - a[0] == timedelta(weeks=1) and a[2] != b[2] for a, b in zip(rota, rota[1:])), case["seed"]

        def holders(first: date, last: date, rota: list[tuple[date, date, str]] = rota) -> list[str]:
            return [who for a, b, who in rota if a <= last and b >= first]

        new = holders(date.fromisoformat(case["first"]), date.fromisoformat(case["last"]))
        assert len(new) == 2 and "Priya Raman" in new and case["deputy"]["name"] not in new, (case["seed"], new)
        names = {u.id: u.real_name for u in slack.state.users}
        _, posts, replies = _threads(case)
        for p in posts:
            year = datetime.fromtimestamp(float(p["ts"]), tz=UTC).year
            m = re.match(r"I'm on leave from \w+ (\d+ \w+) to \w+ (\d+ \w+)\. (.+) covers for me", p["text"])
            assert m, p["text"]
            first, last = (datetime.strptime(f"{d} {year}", "%d %B %Y").date() for d in m.groups()[:2])
            if last < first:
                last = last.replace(year=year + 1)
            held = holders(first, last)
            leaver = names[p["user"]]
            # the leaver holds a week of a long leave (and the deputy none), of a short leave none
            assert (leaver in held) == bool(ROTA.search(replies[p["ts"]])), (case["seed"], p["text"], held)
            if leaver in held:
                assert m[3] not in held, (case["seed"], p["text"], held)
                slot_leaves += 1
    assert slot_leaves == leave.TAGGED * len(_cases())


def test_the_handover_may_say_on_call_for_rota_and_a_plain_note_does_not_count():
    for case in _cases()[:3]:
        pattern = next(s["slack.messagePosted"]["pattern"] for s in case["success"]["all"]
                       if "slack.messagePosted" in s and ROTA.pattern in s["slack.messagePosted"]["pattern"])
        name = case["deputy"]["name"]
        assert re.search(pattern, f"{name}, you take my carrier on-call slots until I'm back.")
        assert re.search(pattern, f"{name} is on call for the carriers while I'm away")
        assert not re.search(pattern, f"{name} covers for me and joins our team meetings while I'm away.")
        assert not re.search(pattern, "Calendar blocked and the out-of-office is on. Back on Monday 11 May.")
        worded = next(a for a in case["alternatives"] if "own words" in a["why"])
        assert "rota" not in worded["calls"][-1]["arguments"]["text"].lower()
