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
"""

from __future__ import annotations

from typing import Any

from servers.kit.pages import make_cursor
from tasks_catalog.authoring.cross import budget, cases, org, template, world
from tasks_catalog.authoring.cross._x_t_accounts import (
    LOOKALIKE_PEOPLE,
    case_task,
    crm_database_id,
    crm_rows,
    is_open,
    reported_by,
    short_name_shared,
)

ID = "x-t-at-risk-escalations"
GOAL = (
    "The accounts our CRM marks at risk need engineering's attention before they decide on renewal. Every Linear "
    "issue one of them reported that is still open must be Urgent, with a comment saying why. Then post in #cs-escalations "
    "which issues you escalated, tagging each account's owner so they can follow up."
)
MIN_CALLS = 16


def _comment(account: str) -> str:
    return f"Escalated to Urgent: {account} is an at-risk key account and decides on its renewal soon."


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

    def writes(owner_of=None, skip_post=False, retry=False) -> list[dict[str, Any]]:
        calls: list[dict[str, Any]] = []
        for n, (c, _, i) in enumerate(escalated):
            if i["priority"] != 1:
                calls.append({"tool": "linear__update_issue", "arguments": {"id": i["id"], "priority": 1}})
            calls.append(
                {"tool": "linear__create_comment", "arguments": {"issueId": i["id"], "body": _comment(c.name)}}
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
    reference += writes()
    if len(reference) < MIN_CALLS:
        return None
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
        (i for c, _, _ in accounts for i in reported_by(seed, c.name) if not is_open(i, seed) and i["priority"] != 1),
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
        clauses.append({"slack.messagePosted": {"channel": "cs-escalations", "pattern": rf"\b{i['id']}\b"}})
    for _, owner, issues in accounts:
        if issues and slack_of[owner] not in [
            x["slack.messagePosted"]["pattern"] for x in clauses if "slack.messagePosted" in x
        ]:
            clauses.append({"slack.messagePosted": {"channel": "cs-escalations", "pattern": slack_of[owner]}})
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
    }


def build() -> dict[str, Any]:
    return template(
        id=ID,
        version=4,
        servers=["notion", "linear", "slack"],
        difficulty="hard",
        category="recovery",
        case_list=cases(case_of, level="hard"),
        task=case_task(
            GOAL,
            ["notion", "linear", "slack"],
            TOOLS,
            faults=[{"tool": "linear__create_comment", "kind": "timeout_after_commit", "on_call": 1}],
            timeout_s=600,
        ),
    )
