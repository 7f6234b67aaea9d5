"""The open issues our at-risk key accounts reported go to Urgent, each with a comment naming the owner.

Notion, Linear and Slack, hard, recovery. The set of items is a join: the key accounts the CRM
(Customer Accounts in Notion) marks At risk (up to a dozen, so a default page of ten rows is not all
of them), then, in Linear, the issues each of them reported (the description says "of <legal name>
on") that are still open. Each such issue must be Urgent (those already Urgent keep their priority;
done, cancelled and duplicate ones are left alone) and carry a comment naming the account owner of
record today: the CRM's Owner, a Notion user whose name the agent looks up (Nina Kovac is not Nina
Kovacs, Alexa Chen is not Alex Chen; an older issue's description may name the owner of its day).
The same short-name search finds a lookalike customer's issues where one exists (Hanbit Electronic
and Electronics). Then #cs-escalations hears which issues were escalated for which account. Linear's
first comment times out after it was applied: a blind retry comments twice. Version 2 keeps only the
organisations where this takes a cross-server hard task's 25-60 calls (more at-risk accounts or issues).
Version 3 names the CRM in the goal: "our at-risk key accounts" let a solver read "key" as a filter on the
plan (the world says nowhere that the CRM holds the key accounts; calibration round 5). Version 4 counts
an issue "Raised in the <account> trial by" one of its people as the account's report, as the Linear
world writes reports made before a customer signed up (version 3 failed a solver for escalating one).

Version 5 gives the team's earlier escalations and a habit that only opening them shows. On four Mondays
before today two Customer Success colleagues escalated 12-14 closed issues of customers (Urgent, the same
comment, a summary in #cs-escalations naming the issues: the channel's history lists them). On the issues of an
account whose CRM ARR is 100,000 or more (2-3 of them, of two accounts, by both colleagues) the comment goes on:
"It brings 105,500 in ARR; CRM record: https://www.notion.so/<row id>"; the others, opened, have no such line. Linear's
``list_issues`` carries no comments (``get_issue`` and ``list_comments`` do), so a solver that samples a few
earlier escalations misses it. The goal asks for the work "the way the team has escalated at-risk accounts
before"; what it states (which issues, Urgent, the post) stays the authority. ``LINK_READINGS`` lists the
other readings of when the record is linked and ``check_link_convention`` raises unless each is contradicted
by an example or agrees on every new issue, and unless every ARR line the examples allow decides the new
issues alike; a draw of examples that leaves a reading open is not used. Judged besides: each new issue of
such an account has a comment linking its CRM row (its id or address); linking it on the others is allowed.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from datetime import date
from typing import Any

from servers.kit.pages import make_cursor
from tasks_catalog.authoring.cross import budget, cases, org, template, world, world_state
from tasks_catalog.authoring.cross._x_t_accounts import (
    LOOKALIKE_PEOPLE,
    case_task,
    crm_database_id,
    crm_rows,
    is_open,
    reported_by,
    short_name_shared,
    state_types,
)

ID = "x-t-at-risk-escalations"
GOAL = (
    "The accounts our CRM marks at risk need engineering's attention before they decide on renewal. Every Linear "
    "issue one of them reported that is still open must be Urgent, with a comment saying why, the way the team has "
    "escalated at-risk accounts before. Then post in #cs-escalations "
    "which issues you escalated, tagging each account's owner so they can follow up."
)
#: The fewest calls the work itself takes, the earlier escalations' reads aside (a hard task's, as in version 4).
MIN_CALLS = 25
#: How many worlds a month may draw this template's task from.
CASES = 12


def _comment(account: str, link: tuple[int, str] | None = None) -> str:
    """The escalation comment on an issue of ``account``; ``link`` (its ARR and CRM row id) for an account of
    :data:`ARR_LINE` or more, whose comment the team ends with the ARR and the CRM record's address."""
    text = f"Escalated to Urgent: {account} is an at-risk key account and decides on its renewal soon."
    if link is not None:
        text += f" It brings {link[0]:,} in ARR; CRM record: {_address(link[1])}"
    return text


def _address(page_id: str) -> str:
    """The address Notion gives a page (``notion__retrieve_page``'s ``url``)."""
    return f"https://www.notion.so/{page_id.replace('-', '')}"


def _linked(page_id: str) -> str:
    """A pattern a comment linking page ``page_id`` matches: its id as the tools give it, or its address."""
    return f"{page_id}|{page_id.replace('-', '')}"


#: The ARR (the CRM's) from which the team's escalation comment links the account's CRM record.
ARR_LINE = 100_000
#: Linear's and Slack's present in every version-2 world: the day the new escalations are made.
TODAY = date(2026, 3, 16)
#: The days the team posted its earlier escalations in #cs-escalations (Mondays before today).
POST_DAYS = ("2026-01-19", "2026-02-02", "2026-02-16", "2026-03-02")
#: How many earlier escalated issues a case shows, and how many of them link the CRM record.
EXAMPLES = range(12, 15)
LINKED = range(2, 4)
#: How many draws of the earlier escalations are tried for a seed.
DRAWS = 24

#: Readings of when the team links the CRM record, each a rule on an escalated issue's account (its CRM row
#: then: plan, region, ARR, status today, days from the escalation to the renewal date).
Reading = Callable[[dict[str, Any]], bool]
LINK_READINGS: list[tuple[str, Reading]] = [
    ("on every escalation", lambda i: True),
    ("for Enterprise accounts", lambda i: i["plan"] == "Enterprise"),
    ("for accounts not on Enterprise", lambda i: i["plan"] != "Enterprise"),
    ("for accounts in EMEA", lambda i: i["region"] == "EMEA"),
    ("for accounts in North America", lambda i: i["region"] == "North America"),
    ("for accounts in APAC", lambda i: i["region"] == "APAC"),
    ("for accounts still At risk today", lambda i: i["status"] == "At risk"),
    ("when the renewal is within 90 days", lambda i: i["renews_in"] <= 90),
    ("when the renewal is within 180 days", lambda i: i["renews_in"] <= 180),
    ("for ARR of 50,000 or more", lambda i: i["arr"] >= 50_000),
    ("for ARR of 75,000 or more", lambda i: i["arr"] >= 75_000),
    ("for ARR of 90,000 or more", lambda i: i["arr"] >= 90_000),
    ("for ARR of 110,000 or more", lambda i: i["arr"] >= 110_000),
    ("for ARR of 120,000 or more", lambda i: i["arr"] >= 120_000),
]


def _links(item: dict[str, Any]) -> bool:
    """The convention: the escalation comment links the CRM record when the account's ARR is ARR_LINE or more."""
    return item["arr"] >= ARR_LINE


def check_link_convention(examples: list[dict[str, Any]], items: list[dict[str, Any]]) -> None:
    """Raise unless the earlier escalations tell the CRM-link convention apart from every other reading: a
    minority (2-3) of them link, of two accounts and by two colleagues at least; every reading of :data:`LINK_READINGS` is
    contradicted by an example or agrees with the convention on every new item; and every threshold on the ARR
    the examples allow (above the largest unlinked ARR, up to the smallest linked one) contains ARR_LINE and
    decides every new item alike."""
    linked = [e for e in examples if _links(e)]
    if len(linked) not in LINKED or 2 * len(linked) >= len(examples):
        raise ValueError(f"{len(linked)} of {len(examples)} examples link the CRM record; a minority of 2-3 should")
    if len({e["customer"] for e in linked}) < 2:
        raise ValueError("the linking examples are one account's: 'that account' would fit them as well")
    if len({e["author"] for e in linked}) < 2:
        raise ValueError("the linking examples are one colleague's: 'that colleague's habit' would fit them as well")
    for reading, rule in LINK_READINGS:
        contradicted = any(rule(e) != _links(e) for e in examples)
        same = all(rule(i) == _links(i) for i in items)
        if not contradicted and not same:
            raise ValueError(f"the reading {reading!r} fits every example and differs on a new item")
    low = max(e["arr"] for e in examples if not _links(e))
    high = min(e["arr"] for e in linked)
    if not low < ARR_LINE <= high:
        raise ValueError(f"the examples put the line between {low} and {high}, not at {ARR_LINE}")
    if any(low < i["arr"] < high for i in items):
        raise ValueError(f"a new item's ARR lies between {low} and {high}, where the examples do not decide")


def _facts(row: dict[str, Any], customer: str, issue: str, day: date) -> dict[str, Any]:
    """What the readings of the convention look at for ``issue`` of ``customer`` escalated on ``day``."""
    p = row["properties"]
    return {"id": issue, "customer": customer, "page": row["id"], "plan": p["Plan"], "region": p["Region"],
            "arr": p["ARR"], "status": p["Status"], "renews_in": (date.fromisoformat(p["Renewal date"]) - day).days}


def _escalators(seed: int) -> list[Any]:
    """The Customer Success colleagues who posted the earlier escalations (on Slack and Linear both)."""
    lin = {u["id"] for u in world("linear", seed)["users"] if u["active"]}
    viewers = {world("linear", seed)["viewer"], world("slack", seed)["viewer"]}
    return sorted((e for e in org(seed).employees if e.team == "Customer Success" and e.slack_id and e.linear_id in lin
                   and not {e.linear_id, e.slack_id} & viewers and not e.leave and e.start <= POST_DAYS[0]),
                  key=lambda e: e.key)


def _stamp(day: str, hour: int, minute: int, rng: random.Random, taken: set[str]) -> str:
    """A Slack ts at ``day`` ``hour``:``minute`` UTC that no message of the channel has."""
    base = (date.fromisoformat(day) - date(1970, 1, 1)).days * 86400
    while True:
        ts = f"{base + hour * 3600 + minute * 60}.{rng.randint(100000, 999999)}"
        if ts not in taken:
            taken.add(ts)
            return ts


Candidate = tuple[str, dict[str, Any], list[str]]


def _pool(seed: int, avoid: set[str]) -> list[Candidate]:
    """The closed (completed) issues a customer of the CRM reported that could have been escalated on one of
    :data:`POST_DAYS` (account, issue, the days after it was filed), the account's row whole (one owner, on
    Slack; an ARR and a renewal date) and its short name its own; none of ``avoid``."""
    names = {c.name for c in org(seed).customers}
    types = state_types(seed)
    slack_names = {u.get("real_name") for u in world("slack", seed)["users"]}
    users = {u["id"]: u["name"] for u in world("notion", seed)["users"]}
    pool = []
    for row in crm_rows(seed):
        name, p = row["title"], row["properties"]
        owners = p.get("Owner") or []
        if (name not in names or short_name_shared(seed, name) or len(owners) != 1 or owners[0] not in users
                or users[owners[0]] not in slack_names or not isinstance(p.get("ARR"), int) or not p.get("Renewal date")):
            continue
        for i in reported_by(seed, name):
            if i["id"] in avoid or types[(i["id"].split("-")[0], i["state"])] != "completed":
                continue
            days = [d for d in POST_DAYS if i["created_at"][:10] < d]
            if days:
                pool.append((name, i, days))
    return pool


def _plant(seed: int, picked: list[dict[str, Any]], escalators: list[Any],
           rng: random.Random) -> dict[str, list[dict[str, Any]]]:
    """The Linear and Slack patches of the earlier escalations ``picked``: on each of :data:`POST_DAYS` one of the
    two ``escalators`` raised that day's issues to Urgent, commented on each (linking the CRM record of an account
    of ARR_LINE or more) and posted the summary in #cs-escalations."""
    rows = {r["title"]: r for r in crm_rows(seed)}
    slack = world("slack", seed)
    slack_by_name = {u.get("real_name"): u["id"] for u in slack["users"]}
    users = {u["id"]: u["name"] for u in world("notion", seed)["users"]}
    channel = next(ch for ch in slack["channels"] if ch["name"] == "cs-escalations")
    taken = {m["ts"] for m in channel["messages"]}
    linear_patch, slack_patch = [], []
    for k, day in enumerate(POST_DAYS):
        posted = [e for e in picked if e["day"] == day]
        if not posted:
            continue
        who = escalators[k % 2]
        hour, minute = 9 + k % 3, (13 * k + 7) % 60
        lines = []
        for name in dict.fromkeys(e["customer"] for e in posted):
            ids = [e["id"] for e in posted if e["customer"] == name]
            owner = users[rows[name]["properties"]["Owner"][0]]
            lines.append(f"{name}: {', '.join(ids)} (owner <@{slack_by_name[owner]}>)")
        slack_patch.append({"op": "add", "in": ["channels", channel["id"], "messages"], "value": {
            "ts": _stamp(day, hour, minute + 1, rng, taken), "user": who.slack_id,
            "text": "Escalated to Urgent for our at-risk key accounts:\n" + "\n".join(lines)}})
        for e in posted:
            comment = {"id": f"{e['id']}-esc", "author": who.linear_id,
                       "body": _comment(e["customer"], (e["arr"], e["page"]) if _links(e) else None),
                       "created_at": f"{day}T{hour:02d}:{minute:02d}:00Z"}
            comments = sorted([*e["issue"]["comments"], comment], key=lambda c: c["created_at"])
            linear_patch.append({"op": "update", "in": ["issues"], "id": e["id"],
                                 "fields": {"priority": 1, "comments": comments}})
    return {"linear": linear_patch, "slack": slack_patch}


def earlier_escalations(seed: int, new: list[dict[str, Any]], avoid: set[str],
                        draw: int) -> tuple[list[dict[str, Any]], dict[str, list[dict[str, Any]]]] | None:
    """Draw ``draw`` of the team's earlier escalations in ``seed``'s world: 12-14 closed issues that customers
    reported, escalated on :data:`POST_DAYS` (Urgent, a comment, a summary in #cs-escalations), those of an
    account with ARR_LINE or more linking its CRM record; with the Linear and Slack patches that plant them.
    ``None`` when the draw leaves the convention open (:func:`check_link_convention`) or the world lacks them."""
    rng = random.Random(f"{ID}:{seed}:{draw}")
    rows = {r["title"]: r for r in crm_rows(seed)}
    escalators = _escalators(seed)
    if len(escalators) < 2:
        return None
    pool = _pool(seed, avoid)
    rng.shuffle(pool)
    big = [x for x in pool if rows[x[0]]["properties"]["ARR"] >= ARR_LINE]
    small = [x for x in pool if rows[x[0]]["properties"]["ARR"] < ARR_LINE]
    want_linked, want = rng.choice(list(LINKED)), rng.choice(list(EXAMPLES))
    chosen: list[Candidate] = []

    def take(candidates: list[Candidate], total: int) -> None:
        """Choose from ``candidates`` until ``total`` of the chosen are among them (two issues an account at most)."""
        among = {y[1]["id"] for y in candidates}
        for x in candidates:
            if sum(c[1]["id"] in among for c in chosen) >= total:
                return
            if x[1]["id"] not in {c[1]["id"] for c in chosen} and sum(c[0] == x[0] for c in chosen) < 2:
                chosen.append(x)

    # the nearest ARRs on either side of the line first, so the examples tell the line apart from the new items'
    take(sorted(big, key=lambda x: rows[x[0]]["properties"]["ARR"])[:1], 1)
    take(big, want_linked)
    take(sorted(small, key=lambda x: -rows[x[0]]["properties"]["ARR"])[:1], 1)
    take(small, want - want_linked)
    if len(chosen) != want:
        return None
    picked = []
    for name, i, days in chosen:
        day = rng.choice(days)
        picked.append({**_facts(rows[name], name, i["id"], date.fromisoformat(day)), "day": day, "issue": i,
                       "author": escalators[POST_DAYS.index(day) % 2].key})
    try:
        check_link_convention(picked, new)
    except ValueError:
        return None
    patch = _plant(seed, picked, escalators, rng)
    for e in picked:
        del e["issue"], e["author"]
    return picked, patch


TOOLS = [
    "notion__search",
    "notion__query_database",
    "notion__retrieve_database",
    "notion__retrieve_page",
    "notion__get_block_children",
    "notion__list_users",
    "linear__list_teams",
    "linear__list_users",
    "linear__list_issue_statuses",
    "linear__list_issue_labels",
    "linear__list_issues",
    "linear__get_issue",
    "linear__list_comments",
    "linear__update_issue",
    "linear__create_comment",
    "slack__list_channels",
    "slack__get_channel_history",
    "slack__get_thread_replies",
    "slack__search_messages",
    "slack__get_users",
    "slack__get_user_profile",
    "slack__post_message",
    "slack__reply_to_thread",
]


def case_of(seed: int) -> dict[str, Any] | None:  # noqa: C901, PLR0912, PLR0915 - one world's whole case, read in order
    o = org(seed)
    by_name = {c.name: c for c in o.customers}
    users = {u["id"]: u["name"] for u in world("notion", seed)["users"]}
    rows = [r for r in crm_rows(seed) if r["properties"].get("Status") == "At risk"]
    if not rows:
        return None
    accounts = []  # (customer, owner name, open issues)
    for r in rows:
        c = by_name.get(r["title"])
        owners = r["properties"].get("Owner") or []
        if c is None or len(owners) != 1 or owners[0] not in users:
            return None
        owner = users[owners[0]]
        if short_name_shared(seed, c.name):
            return None
        issues = [i for i in reported_by(seed, c.name) if is_open(i, seed)]
        # A comment that already names the owner would make the check vacuous.
        if any(owner in cm["body"] for i in issues for cm in i["comments"]):
            return None
        accounts.append((c, owner, issues))
    escalated = [(c, owner, i) for c, owner, issues in accounts for i in issues]
    if not escalated:
        return None
    raise_ids = [i["id"] for _, _, i in escalated if i["priority"] != 1]
    if not raise_ids:
        return None
    # The lookalike: another legal entity's open issue found by the same short-name search, else the owner's
    # namesake named in the comments.
    at_risk = {c.key for c, _, _ in accounts}
    decoy_issue = None
    for c, _, _ in accounts:
        for other in o.customers:
            if other.key in at_risk or c.short not in other.name or short_name_shared(seed, other.name):
                continue
            cand = [i for i in reported_by(seed, other.name) if is_open(i, seed) and i["priority"] != 1]
            if cand:
                decoy_issue = (cand[0]["id"], other.name, c.name)
                break
        if decoy_issue:
            break
    namesake = next(((c, owner, i) for c, owner, i in escalated if owner in LOOKALIKE_PEOPLE), None)
    if decoy_issue is None and namesake is None:
        return None
    channel = next(ch["id"] for ch in world("slack", seed)["channels"] if ch["name"] == "cs-escalations")
    slack_by_name = {u.get("real_name"): u["id"] for u in world("slack", seed)["users"]}
    slack_of = {owner: slack_by_name[owner] for _, owner, _ in accounts}

    # The team's earlier escalations, and the habit only opening them shows: the comment links the CRM record of
    # an account of ARR_LINE or more.
    row_of = {r["title"]: r for r in rows}
    if any(not isinstance(row_of[c.name]["properties"].get("ARR"), int) or not row_of[c.name]["properties"].get(
            "Renewal date") for c, _, _ in accounts):
        return None
    new = [_facts(row_of[c.name], c.name, i["id"], TODAY) for c, _, i in escalated]
    avoid = {i["id"] for _, _, i in escalated} | ({decoy_issue[0]} if decoy_issue else set())
    for draw in range(DRAWS):
        earlier = earlier_escalations(seed, new, avoid, draw)
        if earlier is not None:
            break
    else:
        return None
    examples, patch = earlier
    example_ids = {e["id"] for e in examples}
    link_of = {c.key: (row_of[c.name]["properties"]["ARR"], row_of[c.name]["id"])
               for c, _, _ in accounts if row_of[c.name]["properties"]["ARR"] >= ARR_LINE}
    linked_new = [(c, i) for c, _, i in escalated if c.key in link_of]
    if len(linked_new) < 2 or len(linked_new) == len(escalated):
        return None
    facts_of = {f["id"]: f for f in new}

    def writes(owner_of=None, skip_post=False, retry=False, links: Callable[[str], Any] | None = None,
               ) -> list[dict[str, Any]]:
        calls: list[dict[str, Any]] = []
        for n, (c, _, i) in enumerate(escalated):
            if i["priority"] != 1:
                calls.append({"tool": "linear__update_issue", "arguments": {"id": i["id"], "priority": 1}})
            link = link_of.get(c.key) if links is None else links(i["id"])
            calls.append(
                {"tool": "linear__create_comment", "arguments": {"issueId": i["id"], "body": _comment(c.name, link)}}
            )
            if n == 0:
                calls.append(
                    dict(calls[-1]) if retry else {"tool": "linear__list_comments", "arguments": {"issueId": i["id"]}}
                )
        if not skip_post:
            calls.append(
                {"tool": "slack__post_message", "arguments": {"channel_id": channel, "text": summary(owner_of)}}
            )
        return calls

    def lines(owner_of=None) -> list[str]:
        return [
            f"{c.name}: {', '.join(i['id'] for i in issues)} (owner <@{(owner_of or {}).get(c.key, slack_of[owner])}>)"
            for c, owner, issues in accounts
            if issues
        ]

    def summary(owner_of=None) -> str:
        return "Escalated to Urgent for our at-risk key accounts:\n" + "\n".join(lines(owner_of))

    reference: list[dict[str, Any]] = [
        {
            "tool": "notion__query_database",
            "arguments": {
                "database_id": crm_database_id(seed),
                "filter": [{"property": "Status", "equals": "At risk"}],
                "page_size": 50,
            },
        },
        {"tool": "notion__list_users", "arguments": {"page_size": 100}},
    ]
    user_ids = [u["id"] for u in world("notion", seed)["users"]]
    owner_ids = [(r["properties"]["Owner"] or [None])[0] for r in rows]
    if any(user_ids.index(u) >= 100 for u in owner_ids):
        reference.append(
            {"tool": "notion__list_users", "arguments": {"page_size": 100, "start_cursor": make_cursor("users", 100)}}
        )
    reference += [{"tool": "linear__list_issues", "arguments": {"query": c.short, "limit": 50}} for c, _, _ in accounts]
    reference.append({"tool": "slack__list_channels", "arguments": {"limit": 200}})
    reference.append({"tool": "slack__get_users", "arguments": {"limit": 200}})
    if len(reference) + len(writes()) < MIN_CALLS:
        return None
    history = next(ch for ch in world("slack", seed)["channels"] if ch["id"] == channel)["messages"]
    if len(history) + len(patch["slack"]) > 200 or len(crm_rows(seed)) > 100:
        return None  # the channel's history and the whole CRM are each read in one page
    reference.append({"tool": "slack__get_channel_history", "arguments": {"channel_id": channel, "limit": 200}})
    reference += [{"tool": "linear__get_issue", "arguments": {"id": e["id"]}} for e in examples]
    reference.append({"tool": "notion__query_database", "arguments": {"database_id": crm_database_id(seed),
                                                                      "page_size": 100}})
    reference += writes()
    upd = {"tool": "linear__update_issue", "arguments": {}}
    wrong: list[dict[str, Any]] = []
    if decoy_issue is not None:
        wrong.append(
            {
                "why": f"also escalates {decoy_issue[0]}, reported by {decoy_issue[1]}, which is not the at-risk "
                f"{decoy_issue[2]}",
                "kind": "lookalike",
                "calls": [*writes(), {**upd, "arguments": {"id": decoy_issue[0], "priority": 1}}],
            }
        )
    if namesake is not None:
        c, owner, i = namesake
        wrong.append(
            {
                "why": f"tags {LOOKALIKE_PEOPLE[owner]} instead of {owner}, {c.name}'s owner",
                "kind": "lookalike",
                "calls": writes(
                    owner_of={a.key: slack_by_name[LOOKALIKE_PEOPLE[owner]] for a, o, _ in accounts if o == owner}
                ),
            }
        )
    first_closed = next(
        (i for c, _, _ in accounts for i in reported_by(seed, c.name)
         if not is_open(i, seed) and i["priority"] != 1 and i["id"] not in example_ids),
        None,
    )
    if first_closed is not None:
        wrong.append(
            {
                "why": f"also sets {first_closed['id']}, already closed, to Urgent",
                "kind": "collateral",
                "calls": [*writes(), {**upd, "arguments": {"id": first_closed["id"], "priority": 1}}],
            }
        )
    else:
        wrong.append(
            {
                "why": f"escalates and also assigns {raise_ids[0]} to me",
                "kind": "collateral",
                "calls": [
                    *writes(),
                    {**upd, "arguments": {"id": raise_ids[0], "assignee": "priya.raman@kestrelfreight.com"}},
                ],
            }
        )
    wrong.append(
        {
            "why": "comments again on the first issue after the comment timed out, without looking: it is there twice",
            "kind": "other",
            "calls": writes(retry=True),
        }
    )
    wrong.append(
        {
            "why": "escalates every issue but never tells #cs-escalations",
            "kind": "other",
            "calls": writes(skip_post=True),
        }
    )
    stale = [(c, owner, i) for c, owner, i in escalated
             if "Account owner: " in i["description"] and owner not in i["description"]]
    # Tagging the description's owner is caught only where the owner of record is tagged for nothing else.
    stale = [
        (c, owner, i) for c, owner, i in stale if sum(1 for _, o, issues in accounts if o == owner and issues) == 1
    ]
    if stale:
        c, owner, i = stale[0]
        old = i["description"].split("Account owner: ")[1].split(".")[0]
        wrong.append(
            {
                "why": f"tags {old}, the owner in {i['id']}'s description, not {owner}, the CRM's owner today",
                "kind": "other",
                "calls": writes(owner_of={c.key: slack_by_name[old]}),
            }
        )
    if len(escalated) > 1:
        wrong.append(
            {
                "why": f"comments on every issue but leaves {raise_ids[-1]} at its priority",
                "kind": "other",
                "calls": [x for x in writes() if x["arguments"] != {"id": raise_ids[-1], "priority": 1}],
            }
        )
    posts_max = sum(1 for _, _, issues in accounts if issues) + 1
    frame: list[dict[str, Any]] = [{"entity": "linear.issue", "ids": raise_ids, "fields": ["priority"], "values": {"priority": {"eq": 1}}}]
    frame += [
        {"entity": "linear.comment", "change": ["create"], "where": {"issue": i["id"]}, "max": 1}
        for _, _, i in escalated
    ]
    frame.append({"entity": "slack.message", "change": ["create"], "where": {"channel": channel}, "max": posts_max})
    clauses: list[dict[str, Any]] = []
    me = world("slack", seed)["viewer"]  # the earlier summaries tag owners too: only the agent's posts count
    for _, _, i in escalated:
        clauses.append({"linear.issuePriority": {"issue": i["id"], "priority": "Urgent"}})
        clauses.append(
            {
                "linear.issueHasComment": {
                    "issue": i["id"],
                    "pattern": "[Rr]isk|RISK|[Rr]enew|RENEW|[Kk]ey account|KEY ACCOUNT",
                }
            }
        )
        clauses.append({"slack.messagePosted": {"channel": "cs-escalations", "pattern": rf"\b{i['id']}\b", "user": me}})
    for _, owner, issues in accounts:
        if issues and slack_of[owner] not in [
            x["slack.messagePosted"]["pattern"] for x in clauses if "slack.messagePosted" in x
        ]:
            clauses.append({"slack.messagePosted": {"channel": "cs-escalations", "pattern": slack_of[owner], "user": me}})
    for c, i in linked_new:
        clauses.append({"linear.issueHasComment": {"issue": i["id"], "pattern": _linked(link_of[c.key][1])}})
    # Wrongs of the CRM-link habit: leaving it out (what sampling a few earlier escalations gives), linking the
    # database, not the account's row, and each other reading of when the team links that misses a new item.
    unlinked = writes(links=lambda _: None)
    wrong.insert(0, {"why": "escalates and comments on every issue but links no CRM record (the habit only opening "
                            "the earlier escalations shows)", "kind": "other", "calls": unlinked})
    crm_id = crm_database_id(seed)
    wrong.append({"why": "links the Customer Accounts database, not the account's own CRM record", "kind": "lookalike",
                  "calls": writes(links=lambda iid: (facts_of[iid]["arr"], crm_id) if _links(facts_of[iid]) else None)})
    seen_calls = [unlinked]
    for reading, rule in LINK_READINGS:
        if all(rule(facts_of[i["id"]]) for _, i in linked_new):
            continue
        def links(iid: str, rule: Reading = rule) -> tuple[Any, Any] | None:
            return (facts_of[iid]["arr"], facts_of[iid]["page"]) if rule(facts_of[iid]) else None

        calls = writes(links=links)
        if calls not in seen_calls:
            seen_calls.append(calls)
            wrong.append({"why": f"links the CRM record {reading}, not for an ARR of {ARR_LINE:,} or more",
                          "kind": "other", "calls": calls})
    per_account = [
        {"tool": "slack__post_message", "arguments": {"channel_id": channel, "text": f"Escalated to Urgent for {line}"}}
        for line in lines()
    ]
    alternatives = [
        {
            "why": "posts one message per account instead of one summary",
            "calls": [
                *writes(skip_post=True),
                *per_account,
                {
                    "tool": "slack__post_message",
                    "arguments": {
                        "channel_id": channel,
                        "text": "That is every open issue of our at-risk key accounts.",
                    },
                },
            ],
        },
        {
            "why": "links the CRM record on every escalated issue, not only those of an ARR of 100,000 or more",
            "calls": writes(links=lambda iid: (facts_of[iid]["arr"], facts_of[iid]["page"])),
        },
        {
            "why": "comments first, then raises the priorities",
            "calls": [
                *[x for x in writes(skip_post=True) if x["tool"] == "linear__create_comment"],
                *[x for x in writes(skip_post=True) if x["tool"] == "linear__update_issue"],
                {"tool": "slack__post_message", "arguments": {"channel_id": channel, "text": summary()}},
            ],
        },
    ]
    return {
        "accounts": [c.name for c, _, _ in accounts],
        "issues": [i["id"] for _, _, i in escalated],
        "max_steps": budget(len(reference)),
        "frame": frame,
        "success": {"all": clauses},
        "reference": reference,
        "wrong": wrong,
        "alternatives": alternatives,
        "patch": patch,
        "facts": {"calls": len(reference), "examples": len(examples),
                  "linked_examples": [e["id"] for e in examples if _links(e)],
                  "linked_new": [i["id"] for _, i in linked_new]},
    }


def build() -> dict[str, Any]:
    return template(
        id=ID,
        version=5,
        servers=["notion", "linear", "slack"],
        difficulty="hard",
        category="recovery",
        case_list=cases(case_of, level="hard", want=CASES),
        task={**case_task(
            GOAL,
            ["notion", "linear", "slack"],
            TOOLS,
            faults=[{"tool": "linear__create_comment", "kind": "timeout_after_commit", "on_call": 1}],
            timeout_s=900,
        ), "initial_state": {"notion": world_state("notion"), "linear": world_state("linear", "{{case.patch.linear}}"),
                             "slack": world_state("slack", "{{case.patch.slack}}")}},
    )
