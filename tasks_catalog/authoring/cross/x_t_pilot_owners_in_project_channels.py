"""The account owner of each project's pilot customer joins that project's Slack channel.

Notion and Slack, medium, standard. Which customer pilots which project is in Notion's Projects
database (the workstream rows carry an Account, a CRM row); the account's owner is the CRM row's
Owner (a Notion user, found by id); the project's channel is the one whose topic is the project's
name (Tidewater's is #proj-billing-v2, Harbor's #proj-harbor-migration). The owner, found in Slack by
email, is invited to that channel and to no other; a lookalike customer (Harbor Foods Inc is not
Harbour Foods Ltd, Cedar Pharma SA is not Cedar Pharma Inc), an owner's namesake (Nina Kovac is not
Nina Kovacs) or the account's previous owner is the wrong person.
"""

from __future__ import annotations

from typing import Any

from servers.kit.pages import make_cursor
from tasks_catalog.authoring.cross import budget, cases, org, template, world
from tasks_catalog.authoring.cross._x_t_accounts import LOOKALIKE_PEOPLE as NAMESAKES
from tasks_catalog.authoring.cross._x_t_accounts import case_task, crm_rows

ID = "x-t-pilot-owners-in-project-channels"
GOAL = (
    "The account owners of our pilot customers should be able to follow their pilots. Add each of them to the "
    "Slack channel of the project their customer is piloting."
)
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
    "slack__search_messages",
    "slack__get_users",
    "slack__get_user_profile",
    "slack__invite_to_channel",
    "slack__post_message",
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
    ]
    invites: list[dict[str, Any]] = [
        {"tool": "slack__invite_to_channel", "arguments": {"channel_id": ch["id"], "users": [u["id"]]}}
        for _, ch, _, u in items
    ]
    reference += invites
    if not 5 <= len(reference) <= 10:
        return None
    frame: list[dict[str, Any]] = []
    per_channel: dict[str, list[str]] = {}
    for _, ch, _, u in items:
        per_channel.setdefault(ch["id"], []).append(u["id"])
    for cid, adds in per_channel.items():
        frame.append(
            {"entity": "slack.channel", "ids": [cid], "fields": ["members"], "values": {"members": {"add": adds}}}
        )
        frame.append({"entity": "slack.message", "change": ["create"], "where": {"channel": cid}, "max": 1})
    success = {
        "all": [{"slack.channelHasMembers": {"channel": ch["name"], "members": [u["id"]]}} for _, ch, _, u in items]
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
                for _, ch, cust, u in items
                for c in (
                    {"tool": "slack__invite_to_channel", "arguments": {"channel_id": ch["id"], "users": [u["id"]]}},
                    {
                        "tool": "slack__post_message",
                        "arguments": {
                            "channel_id": ch["id"],
                            "text": f"Welcome <@{u['id']}>, account owner of {cust.name}, our pilot customer.",
                        },
                    },
                )
            ],
        }
    ]
    return {
        "pilots": [(p, c.name, u["real_name"]) for p, _, c, u in items],
        "max_steps": budget(len(reference)),
        "frame": frame,
        "success": success,
        "reference": reference,
        "wrong": wrong,
        "alternatives": alternatives,
    }


def build() -> dict[str, Any]:
    return template(
        id=ID,
        version=1,
        servers=["notion", "slack"],
        difficulty="medium",
        category="standard",
        case_list=cases(case_of),
        task=case_task(GOAL, ["notion", "slack"], TOOLS, faults=[], timeout_s=300),
    )
