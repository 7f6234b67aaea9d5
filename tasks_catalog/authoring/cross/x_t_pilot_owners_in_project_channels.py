"""The account owner of each project's pilot customer joins that project's Slack channel.

Notion and Slack, medium, standard. Which customer pilots which project is in Notion's Projects
database (the workstream rows carry an Account, a CRM row); the account's owner is the CRM row's
Owner (a Notion user, found by id); the project's channel is the one whose topic is the project's
name (Tidewater's is #proj-billing-v2, Harbor's #proj-harbor-migration). The owner, found in Slack by
email, is invited to that channel and to no other; a lookalike customer (Harbor Foods Inc is not
Harbour Foods Ltd, Cedar Pharma SA is not Cedar Pharma Inc), an owner's namesake (Nina Kovac is not
Nina Kovacs) or the account's previous owner is the wrong person.

Version 2 adds the team's past work: seven earlier pilots' kickoffs, each logged by us (the workspace's ops
assistant) in #product ("Kicked off <customer>'s pilot of <project>: invited <owner>, their account owner, to
#proj-...") with one reply in its thread, so the history counts one reply on each. The goal asks for the owners
to be added "the way we did for the earlier pilots". What no page says: for a customer on the Enterprise plan
(the CRM's Plan), the Head of Customer Success was brought into the project channel too, seen only in the opened
threads of the 2-3 Enterprise kickoffs (the others' reply is the owner's thanks). :data:`READINGS` lists the
other readings (always, never, by region, owner, project, above or below an ARR, a renewal date or a kickoff
date); each is contradicted by an earlier kickoff or treats the new pilots as the habit does (asserted per case,
:func:`check_convention`). Every case has an Enterprise pilot and one on another plan: leaving the Head of Customer Success out of an Enterprise
pilot's channel fails; bringing them into every pilot channel (the habit over-applied) passes, as does logging the
kickoffs in #product as the earlier ones were.
"""

from __future__ import annotations

from datetime import date
from typing import Any

from servers.kit.pages import make_cursor
from tasks_catalog.authoring.cross import budget, cases, org, template, world, world_state
from tasks_catalog.authoring.cross._x_t_accounts import LOOKALIKE_PEOPLE as NAMESAKES
from tasks_catalog.authoring.cross._x_t_accounts import case_task, crm_database_id, crm_rows
from tasks_catalog.authoring.cross._x_t_billing import rng_for, slack_ts, weekdays
from tasks_catalog.authoring.cross._x_t_readings import Always, FlaggedSide, FlaggedWhen, left_open

ID = "x-t-pilot-owners-in-project-channels"
GOAL = (
    "The account owners of our pilot customers should be able to follow their pilots. Add each of them to the "
    "Slack channel of the project their customer is piloting, the way we did for the earlier pilots."
)
#: How many earlier pilot kickoffs sit in #product, and how many of them were of Enterprise customers.
PAST, PAST_FLAGGED = 7, (2, 3)
#: The plan whose pilots also bring in the Head of Customer Success.
PLAN = "Enterprise"
HEAD = "Head of Customer Success"
#: The day the new pilots are kicked off (the worlds' last messages are of mid-March 2026).
TODAY = date(2026, 3, 16)
#: The other readings a careful reader of the earlier kickoffs might form of when the Head of Customer Success
#: is brought in (``flag`` "head"); the habit is "when the customer's plan is Enterprise".
READINGS: dict[str, Any] = {
    "always": Always(True, flag="head"),
    "never": Always(False, flag="head"),
    "by the customer's region": FlaggedWhen("region", flag="head"),
    "by the account owner": FlaggedWhen("owner", flag="head"),
    "by the project": FlaggedWhen("project", flag="head"),
    "above an ARR": FlaggedSide("arr", low=False, flag="head"),
    "below an ARR": FlaggedSide("arr", low=True, flag="head"),
    "renewing before a date": FlaggedSide("renewal", low=True, flag="head"),
    "renewing after a date": FlaggedSide("renewal", low=False, flag="head"),
    "for kickoffs before a date": FlaggedSide("day", low=True, flag="head"),
    "for kickoffs since a date": FlaggedSide("day", low=False, flag="head"),
}


def head_due(item: dict[str, Any]) -> bool:
    """The habit: the Head of Customer Success joins the channel of an Enterprise customer's pilot."""
    return bool(item["plan"] == PLAN)


def check_convention(examples: list[dict[str, Any]], items: list[dict[str, Any]]) -> None:
    """Raise unless every earlier kickoff follows the habit (:func:`head_due`), 2-3 of them bring the Head of
    Customer Success in, the new pilots include one due the habit and one not, and every reading of
    :data:`READINGS` is contradicted by an earlier kickoff or treats the new pilots as the habit does."""
    if any(e["head"] != head_due(e) for e in examples):
        raise ValueError(f"{ID}: an earlier kickoff does not follow the habit")
    n = sum(e["head"] for e in examples)
    if not PAST_FLAGGED[0] <= n <= PAST_FLAGGED[1]:
        raise ValueError(f"{ID}: {n} of {len(examples)} earlier kickoffs bring the {HEAD} in; 2-3 should")
    if {head_due(i) for i in items} != {True, False}:
        raise ValueError(f"{ID}: the new pilots should include one due the habit and one not")
    for name in left_open(READINGS, examples, items, head_due)[:1]:
        raise ValueError(f"{ID}: the reading {name!r} fits every earlier kickoff and differs on a new pilot")


#: Short names of companies that differ by a letter from another's.
LOOKALIKE_SHORTS = {
    "Harbour Foods": "Harbor Foods",
    "Harbor Foods": "Harbour Foods",
    "Nordkapp Marine": "Nordkap Marine",
    "Nordkap Marine": "Nordkapp Marine",
    "Hanbit Electronics": "Hanbit Electronic",
    "Hanbit Electronic": "Hanbit Electronics",
}

TOOLS = [
    "notion__search",
    "notion__query_database",
    "notion__retrieve_database",
    "notion__retrieve_page",
    "notion__get_block_children",
    "notion__list_users",
    "slack__list_channels",
    "slack__get_channel_history",
    "slack__get_thread_replies",
    "slack__search_messages",
    "slack__get_users",
    "slack__get_user_profile",
    "slack__invite_to_channel",
    "slack__post_message",
    "slack__reply_to_thread",
]


def _facts(row: dict[str, Any], project: str, owner: str) -> dict[str, Any]:
    """What a reader might take for the reason the Head of Customer Success was brought in: the fields
    :data:`READINGS` read, from the customer's CRM row (``owner``: the owner's Slack id)."""
    return {
        "plan": row["properties"]["Plan"],
        "region": row["properties"]["Region"],
        "owner": owner,
        "project": project,
        "arr": row["properties"]["ARR"],
        "name": row["title"],
        "renewal": date.fromisoformat(row["properties"]["Renewal date"]).toordinal(),
        "day": TODAY.toordinal(),
    }


def _past_work(  # noqa: PLR0913 - the world's parts the earlier kickoffs are drawn from
    seed: int,
    o: Any,
    rows: Any,
    channels: dict[str, dict[str, Any]],
    notion_users: dict[str, dict[str, Any]],
    slack_by_email: dict[str | None, dict[str, Any]],
    items: list[Any],
    new: list[dict[str, Any]],
    head: dict[str, Any],
    product: dict[str, Any],
    viewer: str,
) -> tuple[list[dict[str, Any]], list[dict[str, Any]]] | None:
    """Seven earlier pilot kickoffs on the projects no customer pilots now (2-3 of Enterprise customers), drawn
    so that every reading of :data:`READINGS` is told apart from the habit, and the Slack patch that plants
    them: a kickoff in #product with one reply each, the owners (and for Enterprise, the Head of Customer
    Success) in the project's channel. None when the world has no such draw."""
    taken = {c.name for _, _, c, _ in items}
    shorts = {c.short for _, _, c, _ in items} | {LOOKALIKE_SHORTS.get(c.short) for _, _, c, _ in items}
    short_of = {c.name: c.short for c in o.customers}
    busy = {ch["id"] for _, ch, _, _ in items}
    projects = [p for p, ch in channels.items() if ch["id"] not in busy and not ch["is_archived"]]
    pool = []
    for row in rows:
        props = row["properties"]
        if row["title"] in taken or short_of.get(row["title"]) in shorts or props.get("Status") != "Active":
            continue
        if len(props.get("Owner") or []) != 1 or props["Owner"][0] not in notion_users:
            continue
        user = slack_by_email.get(notion_users[props["Owner"][0]].get("email"))
        if user is None or user.get("deleted") or user["id"] == head["id"]:
            continue
        pool.append((row, user))
    flagged = [x for x in pool if x[0]["properties"]["Plan"] == PLAN]
    others = [x for x in pool if x[0]["properties"]["Plan"] != PLAN]
    if len(projects) < 2 or len(flagged) < PAST_FLAGGED[1] or len(others) < PAST - PAST_FLAGGED[0]:
        return None
    rng = rng_for(ID, seed)
    for _ in range(200):
        k = rng.choice(PAST_FLAGGED)
        chosen = rng.sample(flagged, k) + rng.sample(others, PAST - k)
        rng.shuffle(chosen)
        days = sorted(rng.sample(weekdays("2025-11-03", "2026-02-27"), PAST))
        examples = [
            {
                **_facts(row, rng.choice(projects), user["id"]),
                "head": row["properties"]["Plan"] == PLAN,
                "user": user,
                "day": date.fromisoformat(day).toordinal(),
            }
            for (row, user), day in zip(chosen, days, strict=True)
        ]
        try:
            check_convention(examples, new)
        except ValueError:
            continue
        break
    else:
        return None
    messages: list[dict[str, Any]] = []
    members: dict[str, list[str]] = {}
    for n, e in enumerate(examples):
        day = date.fromordinal(e["day"]).isoformat()
        ch = channels[e["project"]]
        e["root"] = slack_ts(day, 10, 5 + n, ID, f"kickoff:{n}:{seed}")
        messages.append(
            {
                "ts": e["root"],
                "user": viewer,
                "text": (
                    f"Kicked off {e['name']}'s pilot of {e['project']}: invited {e['user']['real_name']}, their account "
                    f"owner, to #{ch['name']}."
                ),
            }
        )
        if e["head"]:
            reply = {
                "ts": slack_ts(day, 10, 20 + n, ID, f"head:{n}:{seed}"),
                "user": viewer,
                "thread_ts": e["root"],
                "text": f"Brought {head['real_name']} into #{ch['name']} as well.",
            }
        else:
            reply = {
                "ts": slack_ts(day, 11, 30 + n, ID, f"thanks:{n}:{seed}"),
                "user": e["user"]["id"],
                "thread_ts": e["root"],
                "text": "Thanks, joined.",
            }
        messages.append(reply)
        now = members.setdefault(ch["id"], list(ch["members"]))
        for who in (e["user"]["id"], head["id"] if e["head"] else None):
            if who and who not in now:
                now.append(who)
    for e in examples:
        del e["user"]
    return examples, [
        *({"op": "update", "in": ["channels"], "id": cid, "fields": {"members": m}} for cid, m in members.items()),
        *({"op": "add", "in": ["channels", product["id"], "messages"], "value": m} for m in messages),
    ]


def case_of(seed: int) -> dict[str, Any] | None:  # noqa: C901, PLR0912, PLR0915 - one world's whole case, read in order
    o = org(seed)
    n = world("notion", seed)
    s = world("slack", seed)
    projects_db = next(d for d in n["databases"] if d["title"] == "Projects")
    crm = {r["id"]: r for r in crm_rows(seed)}
    notion_users = {u["id"]: u for u in n["users"]}
    slack_by_email = {u.get("email"): u for u in s["users"] if u.get("email")}
    slack_by_name = {u.get("real_name"): u for u in s["users"]}
    channels = {c["topic"]: c for c in s["channels"] if c["name"].startswith("proj-")}
    by_name = {c.name: c for c in o.customers}
    pilots: dict[str, str] = {}  # project (Linear project name) -> CRM row id
    for row in (p for p in n["pages"] if p["parent_id"] == projects_db["id"] and not p["archived"]):
        for account in row["properties"].get("Account") or []:
            project = row["properties"].get("Linear project")
            if pilots.get(project, account) != account:
                return None  # two pilot customers on one project: not this task
            pilots[project] = account
    if not pilots:
        return None
    items: list[Any] = []  # (project, channel, customer, owner slack user)
    for project, account in pilots.items():
        row = crm.get(account)
        if row is None or project not in channels or len(row["properties"].get("Owner") or []) != 1:
            return None
        owner = notion_users[row["properties"]["Owner"][0]]
        user = slack_by_email.get(owner.get("email"))
        if user is None or user.get("deleted") or user["id"] in channels[project]["members"]:
            return None
        items.append((project, channels[project], by_name[row["title"]], user))
    # The wrong person: a lookalike customer's owner, the owner's namesake, or the account's previous owner.
    emp = {e.key: e for e in o.employees}
    decoy = None
    for _, channel, c, user in items:
        twin_short = LOOKALIKE_SHORTS.get(c.short)
        twins = [x for x in o.customers if x.key != c.key and (x.short == c.short or x.short == twin_short)]
        for x in twins:
            who = slack_by_email.get(emp[x.owner].email)
            if who and who["id"] != user["id"] and not who.get("deleted"):
                decoy = (
                    channel,
                    who,
                    f"invites {who['real_name']}, who owns {x.name}, not {c.name}'s owner, to #{channel['name']}",
                )
                break
        if decoy is None and user["real_name"] in NAMESAKES and NAMESAKES[user["real_name"]] in slack_by_name:
            who = slack_by_name[NAMESAKES[user["real_name"]]]
            decoy = (channel, who, f"invites {who['real_name']} instead of {user['real_name']} to #{channel['name']}")
        if decoy is None and c.previous_owner:
            who = slack_by_email.get(emp[c.previous_owner].email)
            if who and not who.get("deleted"):
                decoy = (channel, who, f"invites {who['real_name']}, {c.name}'s previous owner, to #{channel['name']}")
        if decoy:
            break
    if decoy is None:
        return None
    # The team's past work: earlier kickoffs in #product, and the Head of Customer Success for Enterprise pilots.
    crm_by_title = {r["title"]: r for r in crm.values()}
    head_emp = [e for e in o.employees if e.title == HEAD]
    head = slack_by_email.get(head_emp[0].email) if len(head_emp) == 1 else None
    product = next((c for c in s["channels"] if c["name"] == "product" and not c["is_archived"]), None)
    if head is None or head.get("deleted") or product is None:
        return None
    if any(head["id"] in ch["members"] or head["id"] == u["id"] for _, ch, _, u in items):
        return None
    new = [_facts(crm_by_title[c.name], p, u["id"]) for p, _, c, u in items]
    past = _past_work(
        seed, o, crm.values(), channels, notion_users, slack_by_email, items, new, head, product, s["viewer"]
    )
    if past is None:
        return None
    examples, slack_patch = past
    check_convention(examples, new)
    reference: list[dict[str, Any]] = [
        {"tool": "notion__query_database", "arguments": {"database_id": projects_db["id"], "page_size": 100}}
    ]
    accounts = list(dict.fromkeys(pilots.values()))
    reference += [{"tool": "notion__retrieve_page", "arguments": {"page_id": a}} for a in accounts]
    reference.append({"tool": "notion__list_users", "arguments": {"page_size": 100}})
    user_ids = [u["id"] for u in n["users"]]
    if any(user_ids.index(crm[a]["properties"]["Owner"][0]) >= 100 for a in accounts):
        reference.append(
            {"tool": "notion__list_users", "arguments": {"page_size": 100, "start_cursor": make_cursor("users", 100)}}
        )
    reference += [
        {"tool": "slack__list_channels", "arguments": {"limit": 200}},
        {"tool": "slack__get_users", "arguments": {"limit": 200}},
        {"tool": "slack__get_channel_history", "arguments": {"channel_id": product["id"], "limit": 200}},
        *(
            {"tool": "slack__get_thread_replies", "arguments": {"channel_id": product["id"], "thread_ts": e["root"]}}
            for e in examples
        ),
        {"tool": "notion__query_database", "arguments": {"database_id": crm_database_id(seed), "page_size": 100}},
    ]

    def joining(u: dict[str, Any], with_head: bool) -> list[str]:
        return [u["id"], head["id"]] if with_head else [u["id"]]

    invites: list[dict[str, Any]] = [
        {
            "tool": "slack__invite_to_channel",
            "arguments": {"channel_id": ch["id"], "users": joining(u, head_due(new[i]))},
        }
        for i, (_, ch, _, u) in enumerate(items)
    ]
    bare = [
        {"tool": "slack__invite_to_channel", "arguments": {"channel_id": ch["id"], "users": [u["id"]]}}
        for _, ch, _, u in items
    ]
    reference += invites
    if not 5 <= len(reference) <= 24:
        return None
    frame: list[dict[str, Any]] = []
    per_channel: dict[str, list[str]] = {}
    for _, ch, _, u in items:
        per_channel.setdefault(ch["id"], []).append(u["id"])
    for cid, adds in per_channel.items():
        frame.append(
            {
                "entity": "slack.channel",
                "ids": [cid],
                "fields": ["members"],
                "values": {"members": {"add": [*adds, head["id"]]}},
            }
        )
        frame.append({"entity": "slack.message", "change": ["create"], "where": {"channel": cid}, "max": 1})
    # Logging the kickoffs in #product as the earlier ones were (a message and a reply each) is the team's way too.
    frame.append(
        {"entity": "slack.message", "change": ["create"], "where": {"channel": product["id"]}, "max": 2 * len(items)}
    )
    success = {
        "all": [
            {"slack.channelHasMembers": {"channel": ch["name"], "members": joining(u, head_due(new[i]))}}
            for i, (_, ch, _, u) in enumerate(items)
        ]
    }
    channel, who, why = decoy
    others = [
        ch
        for ch in s["channels"]
        if ch["name"] in ("finance", "support", "marketing", "product")
        and not ch["is_archived"]
        and items[0][3]["id"] not in ch["members"]
    ]
    wrong = [
        {
            "why": why,
            "kind": "lookalike",
            "calls": [
                *[i for i in invites if i["arguments"]["channel_id"] != channel["id"]],
                {"tool": "slack__invite_to_channel", "arguments": {"channel_id": channel["id"], "users": [who["id"]]}},
            ],
        },
        {
            "why": f"invites the owners and also adds {items[0][3]['real_name']} to #{others[0]['name']}",
            "kind": "collateral",
            "calls": [
                *invites,
                {
                    "tool": "slack__invite_to_channel",
                    "arguments": {"channel_id": others[0]["id"], "users": [items[0][3]["id"]]},
                },
            ],
        },
        {"why": f"invites every owner but {items[-1][3]['real_name']}", "kind": "other", "calls": invites[:-1]},
        {
            "why": f"invites the owners alone, as the earlier kickoffs' history reads, leaving the {HEAD} out of the "
            "Enterprise pilots' channels (the opened threads show them brought in)",
            "kind": "other",
            "calls": bare,
        },
        {
            "why": f"brings the {HEAD} into the channels of the pilots not on the Enterprise plan instead",
            "kind": "other",
            "calls": [
                {
                    "tool": "slack__invite_to_channel",
                    "arguments": {"channel_id": ch["id"], "users": joining(u, not head_due(new[i]))},
                }
                for i, (_, ch, _, u) in enumerate(items)
            ],
        },
    ]
    if len(items) > 1:
        a, b = items[0], items[1]
        if a[3]["id"] != b[3]["id"] and a[1]["id"] != b[1]["id"]:
            wrong.append(
                {
                    "why": f"swaps the channels: {a[3]['real_name']} to #{b[1]['name']} and "
                    f"{b[3]['real_name']} to #{a[1]['name']}",
                    "kind": "other",
                    "calls": [
                        {
                            "tool": "slack__invite_to_channel",
                            "arguments": {"channel_id": b[1]["id"], "users": [a[3]["id"]]},
                        },
                        {
                            "tool": "slack__invite_to_channel",
                            "arguments": {"channel_id": a[1]["id"], "users": [b[3]["id"]]},
                        },
                        *invites[2:],
                    ],
                }
            )
    alternatives = [
        {
            "why": "also tells each channel who joined and why",
            "calls": [
                c
                for i, (_, ch, cust, u) in enumerate(items)
                for c in (
                    {
                        "tool": "slack__invite_to_channel",
                        "arguments": {"channel_id": ch["id"], "users": joining(u, head_due(new[i]))},
                    },
                    {
                        "tool": "slack__post_message",
                        "arguments": {
                            "channel_id": ch["id"],
                            "text": f"Welcome <@{u['id']}>, account owner of {cust.name}, our pilot customer.",
                        },
                    },
                )
            ],
        },
        {
            "why": f"brings the {HEAD} into every pilot's channel, Enterprise or not",
            "calls": [
                {
                    "tool": "slack__invite_to_channel",
                    "arguments": {"channel_id": ch["id"], "users": [u["id"], head["id"]]},
                }
                for _, ch, _, u in items
            ],
        },
        {
            "why": "logs each kickoff in #product as the earlier ones were, the invites told in its thread",
            "calls": [
                c
                for i, (p, ch, cust, u) in enumerate(items)
                for c in (
                    invites[i],
                    {
                        "tool": "slack__post_message",
                        "arguments": {
                            "channel_id": product["id"],
                            "text": f"Kicked off {cust.name}'s pilot of {p}: invited {u['real_name']}, their "
                            f"account owner, to #{ch['name']}.",
                        },
                    },
                )
            ],
        },
    ]
    return {
        "slack_patch": slack_patch,
        "pilots": [(p, c.name, u["real_name"]) for p, _, c, u in items],
        "max_steps": budget(len(reference)),
        "frame": frame,
        "success": success,
        "reference": reference,
        "wrong": wrong,
        "alternatives": alternatives,
    }


def build() -> dict[str, Any]:
    task = case_task(GOAL, ["notion", "slack"], TOOLS, faults=[], timeout_s=300)
    task["initial_state"]["slack"] = world_state("slack", "{{case.slack_patch}}")
    return template(
        id=ID,
        version=2,
        servers=["notion", "slack"],
        difficulty="medium",
        category="standard",
        case_list=cases(case_of, want=10, level="medium"),
        task=task,
    )
