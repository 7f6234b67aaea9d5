"""Medium (recovery): every account owner of a customer hit by this year's SEV1 or SEV2 incidents is in the
incident's Slack channel, and each channel where someone was added is told who.

The set is a join: the incidents and the customers they hit are in Slack (each channel's timeline), the
account owner of record is the CRM's Owner in Notion, the person is found again in Slack by email. The
world decides each item: the owner who reported the customer impact is already in the channel (nothing to
do), an owner of two hit customers is added once, SEV3 incidents and last year's are out of scope (their
owners are missing from the SEV3 channels too: adding them is damage), a Slack lookalike shares the
owner's first name. Faults: the first invite is unavailable (retry it), the second message times out
after it was posted (look before posting again).

Version 3 adds the team's past work: last year's SEV1 and SEV2 incidents that hit customers each carry the
message we posted when we added the account owners ("Added <@U> (Name): account owner of a customer hit by
incident NNNN, ..."), found by searching for it, with one reply in its thread, so the history counts one
reply on each. The goal asks for the work to be done "the way we did it for last year's incidents". What no
page says: when an incident hit a customer the CRM marks At risk (its Status), the Head of Customer Success
was brought into the channel too, seen only in the opened threads of the 2-3 such incidents among the 4-5
(our reply "Also brought in <@U> (Name) ..."; the others' reply is the owner's thanks). Which earlier
incidents hit an At-risk customer is drawn per case (the CRM's Status is planted where the draw needs it).
:data:`READINGS` lists the other readings (always, never, by severity, by an Enterprise customer hit, by the
regions hit, more or fewer customers hit, before or after a date, above or below an ARR); each is
contradicted by an earlier incident or treats the new channels as the habit does (asserted per case,
:func:`check_convention`). Every case has a channel to add owners to whose incident hit an At-risk customer
and one whose incident did not; leaving the Head of Customer Success out of the first fails, bringing them
into every channel where owners are added (the habit over-applied) passes, and so does a thread reply in
such a channel (as the earlier ones had). Strict point: the channel whose message times out never hit an
At-risk customer and takes one top-level message (and one reply), so a blind retry there still fails; in a
channel that did, a second top-level message (naming the Head of Customer Success apart) is allowed."""

from __future__ import annotations

from datetime import date, datetime, timedelta
from typing import Any

from tasks_catalog.authoring.cross import budget, cases, org, template, world
from tasks_catalog.authoring.cross._x_t_billing import rng_for, slack_ts
from tasks_catalog.authoring.cross._x_t_eng import initial_state, judged_by_case, slack_channel, slack_user_by_email
from tasks_catalog.authoring.cross._x_t_readings import Always, FlaggedSide, FlaggedWhen, left_open

ID = "x-t-incident-channel-account-owners"
YEAR_START = "2026-01-01"
#: Who else the team brought into an incident's channel when the incident hit an At-risk customer.
HEAD = "Head of Customer Success"
AT_RISK = "At risk"
#: How many of last year's incidents show the team's message (the examples), and how many of them hit an
#: At-risk customer.
PAST, PAST_FLAGGED = (4, 5), (2, 3)
#: The words the team's earlier messages (and the reference's search for them) carry.
SEARCH = "account owner hit by incident"
#: The other readings a careful reader of the earlier incidents might form of when the Head of Customer
#: Success is brought in (``flag`` "head"); the habit is "when the incident hit a customer the CRM marks At risk".
READINGS: dict[str, Any] = {
    "always": Always(True, flag="head"),
    "never": Always(False, flag="head"),
    "by severity": FlaggedWhen("severity", flag="head"),
    "when an Enterprise customer was hit": FlaggedWhen("enterprise", flag="head"),
    "by the regions hit": FlaggedWhen("regions", flag="head"),
    "when more customers were hit": FlaggedSide("customers", low=False, flag="head"),
    "when fewer customers were hit": FlaggedSide("customers", low=True, flag="head"),
    "for incidents before a date": FlaggedSide("day", low=True, flag="head"),
    "for incidents since a date": FlaggedSide("day", low=False, flag="head"),
    "above an ARR": FlaggedSide("arr", low=False, flag="head"),
    "below an ARR": FlaggedSide("arr", low=True, flag="head"),
}


def head_due(item: dict[str, Any]) -> bool:
    """The habit: the Head of Customer Success joins the channel of an incident that hit an At-risk customer."""
    return bool(item["at_risk"])


def check_convention(examples: list[dict[str, Any]], items: list[dict[str, Any]]) -> None:
    """Raise unless every earlier incident follows the habit (:func:`head_due`), 2-3 of them bring the Head of
    Customer Success in, the new channels include one due the habit and one not, and every reading of
    :data:`READINGS` is contradicted by an earlier incident or treats the new channels as the habit does."""
    if any(e["head"] != head_due(e) for e in examples):
        raise ValueError(f"{ID}: an earlier incident does not follow the habit")
    n = sum(e["head"] for e in examples)
    if not PAST_FLAGGED[0] <= n <= PAST_FLAGGED[1]:
        raise ValueError(f"{ID}: {n} of {len(examples)} earlier incidents bring the {HEAD} in; 2-3 should")
    if {head_due(i) for i in items} != {True, False}:
        raise ValueError(f"{ID}: the new channels should include one due the habit and one not")
    for name in left_open(READINGS, examples, items, head_due)[:1]:
        raise ValueError(f"{ID}: the reading {name!r} fits every earlier incident and differs on a new channel")


def _crm(seed: int) -> tuple[dict[str, Any], dict[str, dict[str, Any]], dict[str, dict[str, Any]]]:
    """The CRM database, its rows by account (legal name), and the Notion users by id."""
    notion = world("notion", seed)
    db = next(d for d in notion["databases"] if d["title"] == "Customer Accounts")
    rows = {p["title"]: p for p in notion["pages"] if p["parent_id"] == db["id"] and not p.get("archived")}
    return db, rows, {u["id"]: u for u in notion["users"]}


def _facts(incident: Any, customers: list[Any], rows: dict[str, dict[str, Any]], at_risk: set[str]) -> dict[str, Any]:
    """What a reader might take for the reason the Head of Customer Success was brought in: the fields
    :data:`READINGS` read, from the incident and its customers' CRM rows (``at_risk``: the customers the CRM
    marks At risk once the case's patch is applied)."""
    props = [rows[c.name]["properties"] for c in customers]
    return {"severity": incident.severity, "customers": len(customers),
            "day": date.fromisoformat(incident.started[:10]).toordinal(),
            "arr": max(p["ARR"] or 0 for p in props), "enterprise": any(p["Plan"] == "Enterprise" for p in props),
            "regions": tuple(sorted({p["Region"] for p in props})),
            "at_risk": any(c.name in at_risk for c in customers)}


def _owners(seed: int, incident: Any, rows: dict[str, dict[str, Any]], notion_users: dict[str, Any],
            by_email: dict[str, dict[str, Any]]) -> list[tuple[Any, str]] | None:
    """Each customer the incident hit with its account owner's Slack id (None when the CRM and Slack do not
    name one owner clearly)."""
    company = org(seed)
    out = []
    for key in incident.customers:
        customer = company.customer(key)
        row = rows.get(customer.name)
        if row is None or len(row["properties"]["Owner"]) != 1:
            return None
        person = notion_users[row["properties"]["Owner"][0]]
        user = by_email.get(person["email"])
        if user is None or user.get("deleted") or person["email"] != company.employee(customer.owner).email:
            return None
        out.append((customer, user["id"]))
    return out


def _at(when: str, minutes: int) -> tuple[str, int, int]:
    """The day, hour and minute ``minutes`` after the ISO time ``when``."""
    t = datetime.fromisoformat(when.replace("Z", "+00:00")) + timedelta(minutes=minutes)
    return t.date().isoformat(), t.hour, t.minute


def note(number: int, who: list[str], names: dict[str, str]) -> str:
    """The message the team posts in an incident's channel when it adds account owners to it."""
    added = ", ".join(f"<@{u}> ({names[u]})" for u in who)
    return (f"Added {added}: account owner of a customer hit by incident {number}, "
            f"so you hear about it from us first. The timeline is above.")


def case_of(seed: int) -> dict[str, Any] | None:  # noqa: C901, PLR0912, PLR0915 - one pass over the incidents, deciding each
    company = org(seed)
    db, rows, notion_users = _crm(seed)
    by_email = slack_user_by_email(seed)
    slack = world("slack", seed)
    slack_users = slack["users"]
    names = {u["id"]: u["real_name"] for u in slack_users}
    in_scope: list[Any] = []
    traps: list[Any] = []
    past: list[Any] = []
    patch: list[Any] = []
    for incident in company.incidents:
        if not incident.customers:
            continue
        if incident.started < YEAR_START <= (incident.resolved or "9999"):
            return None  # an incident across the new year: "since the start of the year" would be arguable
        hit = _owners(seed, incident, rows, notion_users, by_email)
        if hit is None:
            return None
        owners = list(dict.fromkeys(u for _, u in hit))
        channel = slack_channel(seed, f"incident-{incident.number}")
        speakers = {m["user"] for m in channel["messages"]}
        if incident.started < YEAR_START:
            if incident.severity in ("SEV1", "SEV2"):
                added = [u for u in owners if u not in speakers]
                past.append({"incident": incident, "channel": channel, "hit": hit, "added": added,
                             "names": [c.name for c, u in hit if u in added]})
            continue
        if channel["is_archived"]:
            return None
        # who may be taken out of the channel: owners who did not speak there (the reporter of the impact stays)
        # (out of scope, a SEV3 channel's reporter has left it as well: adding them back is the trap)
        reporter = {m["user"] for m in channel["messages"] if m["text"].startswith("Customer impact")}
        sev3 = incident.severity not in ("SEV1", "SEV2")
        removable = [u for u in owners if u not in speakers or (sev3 and u in reporter)]
        members = [m for m in channel["members"] if m not in removable]
        missing = [u for u in owners if u not in members]
        if removable:
            patch.append({"op": "update", "in": ["channels"], "id": channel["id"], "fields": {"members": members}})
        entry = {"incident": incident, "number": incident.number, "channel": channel["id"], "owners": owners,
                 "missing": missing, "members": members, "hit": hit,
                 "names": [c.name for c, u in hit if u in missing], "kept": [c.name for c, u in hit if u not in missing]}
        (in_scope if incident.severity in ("SEV1", "SEV2") else traps).append(entry)
    todo = [e for e in in_scope if e["missing"]]
    done = [e for e in in_scope if not e["missing"]]
    trap = next((e for e in traps if e["missing"]), None)
    examples_at = [p for p in past if p["added"]]
    partial = [e for e in todo if len(e["missing"]) < len(e["owners"])]
    if len(todo) < 2 or len(todo) > 5 or trap is None or not (done or partial):
        return None
    if not PAST[0] <= len(examples_at) <= PAST[1]:
        return None
    # the lookalike: an active Slack user with the first name of an owner to add, who is not one of the owners
    first_missing = todo[0]["missing"][0]
    first = names[first_missing].split()[0]
    every_owner = {u for e in in_scope + traps for u in e["owners"]} | {u for p in past for _, u in p["hit"]}
    lookalike = next((u["id"] for u in slack_users if not u.get("deleted") and not u.get("is_bot")
                      and u["real_name"].split()[0] == first and u["id"] not in every_owner
                      and u["id"] not in todo[0]["members"]), None)
    if lookalike is None:
        return None
    # the Head of Customer Success, in Slack, in none of the channels to add owners to
    heads = [e for e in company.employees if e.title == HEAD]
    head = by_email.get(heads[0].email) if len(heads) == 1 else None
    if head is None or head.get("deleted") or head["id"] in every_owner or head["id"] == lookalike:
        return None
    if any(head["id"] in e["members"] for e in todo):
        return None

    # which customers the CRM marks At risk: those already so, and one more for each flagged example and one
    # flagged new channel, drawn so that the examples tell the habit apart from every other reading
    already = {name for name, row in rows.items() if row["properties"]["Status"] == AT_RISK}
    blocked = ({c.name for p in past if not p["added"] for c, _ in p["hit"]}
               | {c for e in done for c in [c.name for c, _ in e["hit"]]} | {c for e in todo for c in e["kept"]})
    if blocked & already:
        return None
    rng = rng_for(ID, seed)
    drawn = None
    for _ in range(300):
        k = rng.choice(PAST_FLAGGED)
        flagged = rng.sample(examples_at, k) if len(examples_at) > k else None
        candidates = [e for i, e in enumerate(todo) if i != 1]
        if flagged is None or not candidates:
            break
        target = rng.choice(candidates)
        planted: set[str] = set()
        for p in [*flagged, target]:
            names_hit = p["names"]
            if not any(n in already | planted for n in names_hit):
                options = [n for n in names_hit if rows[n]["properties"]["Status"] == "Active" and n not in blocked]
                if not options:
                    break
                planted.add(rng.choice(options))
        else:
            risky = already | planted
            examples = [{**_facts(p["incident"], [c for c, _ in p["hit"]], rows, risky), "past": p} for p in examples_at]
            for e in examples:
                e["head"] = e["at_risk"]
            items = [_facts(e["incident"], [c for c, _ in e["hit"]], rows, risky) for e in todo]
            added_only = all(c.name not in risky for p in examples_at for c, u in p["hit"] if u not in p["added"])
            named = {c.name for e in examples if e["head"] for c, _ in e["past"]["hit"] if c.name in risky}
            if not added_only or head_due(items[1]) or len(named) < 2:  # two At-risk customers, not one named twice
                continue
            try:
                check_convention(examples, items)
            except ValueError:
                continue
            drawn = (examples, items, planted)
            break
    if drawn is None:
        return None
    examples, items, planted = drawn
    notion_patch = [{"op": "update", "in": ["pages"], "id": rows[n]["id"],
                     "fields": {"properties": {**rows[n]["properties"], "Status": AT_RISK}}} for n in sorted(planted)]
    viewer = slack["viewer"]
    roots = []
    for e in examples:
        p = e["past"]
        incident, channel = p["incident"], p["channel"]
        root = slack_ts(*_at(incident.started, 35), ID, "added", seed, incident.number)
        roots.append((channel["id"], root))
        messages = [{"ts": root, "user": viewer, "text": note(incident.number, p["added"], names)}]
        if e["head"]:
            risky_names = [c.name for c, _ in p["hit"] if c.name in already | planted]
            text = f"Also brought in <@{head['id']}> ({head['real_name']}): {' and '.join(risky_names)} {'are' if len(risky_names) > 1 else 'is'} at risk."
            messages.append({"ts": slack_ts(*_at(incident.started, 41), ID, "head", seed, incident.number),
                             "user": viewer, "thread_ts": root, "text": text})
        else:
            messages.append({"ts": slack_ts(*_at(incident.started, 52), ID, "thanks", seed, incident.number),
                             "user": p["added"][0], "thread_ts": root, "text": "Thanks, following along."})
        patch += [{"op": "add", "in": ["channels", channel["id"], "messages"], "value": m} for m in messages]
        members = list(channel["members"]) + [u for u in p["added"] if u not in channel["members"]]
        if e["head"] and head["id"] not in members:
            members.append(head["id"])
        if members != channel["members"]:
            patch.append({"op": "update", "in": ["channels"], "id": channel["id"], "fields": {"members": members}})
    due = [head_due(i) for i in items]
    names[head["id"]] = head["real_name"]

    def joining(i: int, e: dict[str, Any], with_head: bool | None = None) -> list[str]:
        return e["missing"] + ([head["id"]] if (due[i] if with_head is None else with_head) else [])

    reads = [{"tool": "slack__list_channels", "arguments": {"limit": 100}}]
    reads += [{"tool": "slack__get_channel_history", "arguments": {"channel_id": e["channel"]}}
              for e in sorted(in_scope + traps, key=lambda e: e["number"])]
    reads += [{"tool": "slack__search_messages", "arguments": {"query": SEARCH, "limit": 20}}]
    reads += [{"tool": "slack__get_thread_replies", "arguments": {"channel_id": c, "thread_ts": t}} for c, t in roots]
    reads += [{"tool": "notion__search", "arguments": {"query": "Customer Accounts"}},
              {"tool": "notion__query_database", "arguments": {"database_id": db["id"], "page_size": 100}},
              {"tool": "notion__list_users", "arguments": {"page_size": 100}},
              {"tool": "slack__get_users", "arguments": {"limit": 200}}]

    def invite(i: int, e: dict[str, Any], users: list[str]) -> dict[str, Any]:
        return {"tool": "slack__invite_to_channel", "arguments": {"channel_id": e["channel"], "users": users}}

    invites = [invite(i, e, joining(i, e)) for i, e in enumerate(todo)]
    posts = [{"tool": "slack__post_message", "arguments": {"channel_id": e["channel"], "text": note(
        e["number"], joining(i, e), names)}} for i, e in enumerate(todo)]
    writes: list[dict[str, Any]] = []
    for i, (inv, post) in enumerate(zip(invites, posts, strict=True)):
        writes += [inv, post]
        if i == 1:  # the second message times out after it was posted: look before doing anything else
            writes.append({"tool": "slack__get_channel_history", "arguments": {"channel_id": todo[1]["channel"], "limit": 3}})
    reference = reads + writes
    max_steps = budget(len(reference), 1)  # the unavailable first invite is retried once

    frame: list[dict[str, Any]] = []
    success: list[dict[str, Any]] = []
    for i, e in enumerate(todo):
        frame.append({"entity": "slack.channel", "ids": [e["channel"]], "fields": ["members"],
                      "values": {"members": {"add": [*e["missing"], head["id"]]}}})
        frame.append({"entity": "slack.message", "change": ["create"], "where": {"channel": e["channel"], "thread_ts": None},
                      "max": 2 if due[i] else 1})
        frame.append({"entity": "slack.message", "change": ["create"], "where": {"channel": e["channel"]},
                      "values": {"thread_ts": {"matches": "[0-9]"}}, "max": 1})
        success.append({"slack.channelHasMembers": {"channel": e["channel"], "members": e["owners"] + (
            [head["id"]] if due[i] else [])}})
        success += [{"slack.messagePosted": {"channel": e["channel"],
                                             "pattern": f"({u}|{'|'.join(names[u].split())})"}}
                    for u in e["missing"]]
    for e in done:
        success.append({"slack.channelHasMembers": {"channel": e["channel"], "members": e["owners"]}})

    swapped = [dict(c) for c in invites]
    swapped[0] = invite(0, todo[0], [lookalike if u == first_missing else u for u in joining(0, todo[0])])
    blind: list[dict[str, Any]] = []
    for i, (inv, post) in enumerate(zip(invites, posts, strict=True)):
        blind += [inv, post] + ([post] if i == 1 else [])
    plain = [invite(i, e, e["missing"]) for i, e in enumerate(todo)]
    plain_posts = [{"tool": "slack__post_message", "arguments": {"channel_id": e["channel"], "text": note(
        e["number"], e["missing"], names)}} for e in todo]
    readings_wrong = []
    seen: set[tuple[bool, ...]] = set()
    for name, reading in READINGS.items():
        guess = tuple(bool(reading.predicts(examples, it)) for it in items)
        if guess in seen or not any(d and not g for d, g in zip(due, guess, strict=True)):
            continue
        seen.add(guess)
        if name != "never":
            readings_wrong.append([*reads, *(invite(i, e, joining(i, e, g)) for i, (e, g) in
                                             enumerate(zip(todo, guess, strict=True))), *plain_posts])
    # no reading but "never" misses a channel: the habit applied to the wrong channel instead
    readings_wrong.append([*reads, *(invite(i, e, joining(i, e, i == 1)) for i, e in enumerate(todo)), *plain_posts])
    wide = [invite(i, e, joining(i, e, True)) for i, e in enumerate(todo)]
    split = list(reads)  # the reference's order, the Head of Customer Success invited apart and told in a thread
    for i, e in enumerate(todo):
        split += [plain[i], plain_posts[i]]
        if due[i]:
            latest = next(m for m in reversed(slack_channel(seed, f"incident-{e['number']}")["messages"])
                          if m.get("thread_ts") is None)
            split += [invite(i, e, [head["id"]]), {"tool": "slack__reply_to_thread", "arguments": {
                "channel_id": e["channel"], "thread_ts": latest["ts"],
                "text": f"Also brought in <@{head['id']}> ({head['real_name']}), our {HEAD}."}}]
        if i == 1:
            split.append({"tool": "slack__get_channel_history", "arguments": {"channel_id": e["channel"], "limit": 3}})
    return {
        "initial": initial_state(["notion", "slack"], {"slack": "{{case.patch}}", "notion": "{{case.notion_patch}}"}),
        "patch": patch,
        "notion_patch": notion_patch,
        "max_steps": max_steps,
        "frame": frame,
        "success": {"all": success},
        "reference": reference,
        "wrong_lookalike": [*swapped, *posts],
        "wrong_collateral": [*invites, *posts, {"tool": "slack__invite_to_channel", "arguments": {
            "channel_id": trap["channel"], "users": trap["missing"]}}],
        "wrong_blind_retry": blind,
        "wrong_partial": [invites[0], posts[0]],
        "wrong_without_habit": [*reads, *plain, *plain_posts],
        "wrong_reading": readings_wrong[0],
        "alternative": [*reads, *invites, *posts[:2],
                        {"tool": "slack__get_channel_history", "arguments": {"channel_id": todo[1]["channel"]}},
                        *posts[2:]],
        "alternative_wide": [*reads, *wide, *posts[:2],
                             {"tool": "slack__get_channel_history", "arguments": {"channel_id": todo[1]["channel"]}},
                             *posts[2:]],
        "alternative_split": split,
        "examples": [{k: v for k, v in e.items() if k != "past"} for e in examples],
        "items": items,
    }


def build() -> dict[str, Any]:
    found = cases(case_of, level="medium", want=10)
    initial = found[0].pop("initial")
    for case in found:
        case.pop("initial", None)
        case.pop("examples")
        case.pop("items")
    return template(
        id=ID, version=3, servers=["notion", "slack"], difficulty="medium",
        category="recovery", case_list=found,
        task={
            "goal": ("Account owners keep hearing about our incidents from their customers before they hear from "
                     "us. For every SEV1 or SEV2 incident since the start of this year that hit customers, make "
                     "sure the account owner of each customer it hit is in the incident's Slack channel, the way "
                     "we did it for last year's incidents. In each channel where you add someone, post a message "
                     "there saying who you added."),
            "initial_state": initial,
            "available_tools": [
                "notion__search", "notion__retrieve_page", "notion__get_block_children", "notion__query_database",
                "notion__retrieve_database", "notion__list_users",
                "slack__list_channels", "slack__get_channel_history", "slack__get_thread_replies",
                "slack__search_messages", "slack__get_users", "slack__get_user_profile",
                "slack__invite_to_channel", "slack__kick_from_channel", "slack__post_message",
                "slack__reply_to_thread", "slack__set_channel_topic"],
            "faults": [{"tool": "slack__invite_to_channel", "kind": "unavailable", "on_call": 1},
                       {"tool": "slack__post_message", "kind": "timeout_after_commit", "on_call": 2}],
            **judged_by_case(timeout_s=900),
            "wrong_solutions": [
                {"why": "adds the colleague who shares the first owner's first name instead of the owner",
                 "kind": "lookalike", "calls": "{{case.wrong_lookalike}}"},
                {"why": "does what is asked, then also adds the owners of a SEV3 incident's customers",
                 "kind": "collateral", "calls": "{{case.wrong_collateral}}"},
                {"why": "posts the second message again after its timeout, though it had been posted",
                 "kind": "other", "calls": "{{case.wrong_blind_retry}}"},
                {"why": "handles the first incident only", "kind": "other", "calls": "{{case.wrong_partial}}"},
                {"why": (f"adds the owners but never brings the {HEAD} in where an At-risk customer was hit "
                         "(the reference minus the habit: what a reader who opened no earlier thread does)"),
                 "kind": "other", "calls": "{{case.wrong_without_habit}}"},
                {"why": (f"brings the {HEAD} in by another reading of the earlier incidents (severity, customers "
                         "hit, a date, an ARR...) or into the wrong channel, and misses a channel the habit wants"),
                 "kind": "other", "calls": "{{case.wrong_reading}}"},
            ],
            "alternative_solutions": [
                {"why": "invites everyone first, then posts, checking the channel after the message that timed out",
                 "calls": "{{case.alternative}}"},
                {"why": f"brings the {HEAD} into every channel where owners are added (the habit over-applied)",
                 "calls": "{{case.alternative_wide}}"},
                {"why": f"invites the {HEAD} apart and says so in a thread reply, as the earlier incidents did",
                 "calls": "{{case.alternative_split}}"},
            ],
        })
