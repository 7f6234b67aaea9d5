"""x-t-renewal-terms-request: a key account's billing contact asks Priya for renewal terms and mentions
the account manager they used to deal with; the request goes to the account's owner of record.

Medium; Gmail and Notion. The case is a key account whose owner changed this winter (the first owner
left): the customer's email names the old owner, the CRM (Customer Accounts in Notion) names today's
owner as a Notion user whose email ``list_users`` shows. The customer records policy says the CRM's
Owner is the owner of record; the newer source wins over the customer's memory.

Version 2 adds the team's past work and a habit only opening it shows. :data:`PAST` earlier renewal-terms
requests of other customers (12 January to 6 March) sit in the inbox, each handled by Priya the same way:
a forward "Fwd: Renewal terms for <customer>" to the account's owner in the CRM and a reply on the
customer's thread naming who will be in touch. No policy says whom a forward copies: the habit is that the
forward of a customer the CRM places in **North America** (its Region) copies the Sales director, North
America (:func:`copied`). It shows only in the ``cc`` of the opened forwards (``search_emails`` returns no
cc, and its snippet is the body's start, which never names the director; ``read_email`` and ``get_thread``
show it), in 2 or 3 of the :data:`PAST`; the others, opened, copy nobody, and one of them at least is of an
EMEA account (the other region with a sales director of its own). Every case's customer is a North American
account, so its forward copies the director.

:data:`COPY_READINGS` lists the other readings of when a forward copies the director (always, never, by
plan, owner, CRM status, renewal month, the contact's title or email domain, the month asked, above or below
a seat count or an ARR); :func:`check_copy_convention` raises unless each is contradicted by an earlier forward or
copies the new forward as the habit does. A draw that leaves one open is drawn again (:data:`DRAWS`
times). Copying the director on the reply as well is allowed; the forward without the copy fails, as does
the director copied in place of the owner. Each forward is a thread of its own (as the new one is): the
customer's thread shows the request and the reply, neither copied. The owner may own an earlier request's
account too, so the message to the owner must name the customer or the contact (a case where an earlier
sent message to the owner or the contact already does gives no case).
"""

from __future__ import annotations

import random
import re
from typing import Any

from tasks_catalog.authoring.cross import budget, cases, org, template, world
from tasks_catalog.authoring.cross._x_t_accounts import crm_database_id, crm_rows, notion_user_email
from tasks_catalog.authoring.cross._x_t_billing import (
    GMAIL_TOOLS,
    NOTION_READ,
    gmail_message,
    hex_id,
    rng_for,
    weekdays,
    world_ref,
)
from tasks_catalog.authoring.cross._x_t_readings import Always, FlaggedSide, FlaggedWhen, left_open

ID = "x-t-renewal-terms-request"
#: The CRM Region whose accounts' forwards copy its sales director, and that director's title.
REGION, DIRECTOR = "North America", "Sales director, North America"
#: How many earlier requests sit in the inbox; how many of them (at least, at most) are of North American
#: accounts, whose forwards copy the director.
PAST, COPIED_PAST = 7, (2, 3)
#: How many draws of the earlier requests are tried for a seed before it gives no case.
DRAWS = 6
#: The day the new request came in (its month is the reading "by the month asked"'s value for it).
ASKED = "2026-03-13"
#: The days the earlier requests came in (and were handled) fall between these.
FIRST_ASKED, LAST_ASKED = "2026-01-12", "2026-03-06"


def copied(item: dict[str, Any]) -> bool:
    """The habit: the forward of a customer the CRM places in North America copies the Sales director there."""
    return item["region"] == REGION


#: When a forward copies the Sales director, North America, as a reader of the earlier forwards might guess it
#: (each field is one the tools show: the CRM row's plan, owner, status, ARR and renewal date, the seats the
#: customer asked about, its contact's title and email domain in the request, the month it came in). "Each account's
#: regional sales director" is ruled out apart (:func:`check_copy_convention`): an EMEA account's forward
#: copies nobody.
COPY_READINGS: dict[str, Any] = {
    "always": Always(True, flag="cc"),
    "never": Always(False, flag="cc"),
    "by the account's plan": FlaggedWhen("plan", flag="cc"),
    "by the account's owner": FlaggedWhen("owner", flag="cc"),
    "by the account's CRM status": FlaggedWhen("status", flag="cc"),
    "by the month of the renewal": FlaggedWhen("renewal_month", flag="cc"),
    "by the contact's title": FlaggedWhen("title", flag="cc"),
    "by the ending of the customer's email domain (.com, .ca, .de...)": FlaggedWhen("tld", flag="cc"),
    "by the month the request came in": FlaggedWhen("asked_month", flag="cc"),
    "above a number of seats": FlaggedSide("seats", low=False, flag="cc"),
    "below a number of seats": FlaggedSide("seats", low=True, flag="cc"),
    "above an ARR": FlaggedSide("arr", low=False, flag="cc"),
    "below an ARR": FlaggedSide("arr", low=True, flag="cc"),
}


def check_copy_convention(examples: list[dict[str, Any]], items: list[dict[str, Any]]) -> None:
    """Raise unless the earlier forwards tell the habit (:func:`copied`) apart from every reading of
    :data:`COPY_READINGS`: each earlier forward copies the director exactly when the habit says; 2-3 of them
    do, a minority; an EMEA account's forward copies nobody (not "each region's director"); every reading
    is contradicted by an earlier forward or copies the new forwards as the habit does."""
    if any(bool(e["cc"]) != copied(e) for e in examples):
        raise ValueError(f"{ID}: an earlier forward's copy does not follow the habit")
    n = sum(bool(e["cc"]) for e in examples)
    if not COPIED_PAST[0] <= n <= COPIED_PAST[1] or n * 2 >= len(examples):
        raise ValueError(f"{ID}: {n} of {len(examples)} earlier forwards copy the director; a minority of 2-3 should")
    if not any(e["region"] == "EMEA" and not e["cc"] for e in examples):
        raise ValueError(f"{ID}: no earlier EMEA forward shows that the EMEA director is not copied")
    for name in left_open(COPY_READINGS, examples, items, copied)[:1]:
        raise ValueError(f"{ID}: the reading {name!r} fits every earlier forward and differs on the new request")


def _facts(seed: int, c: Any, row: dict[str, Any], contact: Any) -> dict[str, Any]:
    """What the CRM row and the request show of a customer that a reader might take for the reason of a copy."""
    p = row["properties"]
    return {"short": c.short, "name": c.name, "region": p["Region"], "plan": p["Plan"], "status": p["Status"],
            "arr": p["ARR"] or 0, "owner": notion_user_email(seed, p["Owner"][0]), "renewal": p["Renewal date"],
            "renewal_month": p["Renewal date"][:7], "seats": c.seats, "title": contact.title,
            "first": contact.first, "last": contact.last, "email": contact.email,
            "tld": contact.email.rsplit("@", 1)[1].split(".", 1)[1]}


def _pool(seed: int, case_customer: Any, director: str) -> list[dict[str, Any]]:
    """The customers an earlier request can be from: Active, one CRM row whose one Owner is the owner of
    record (no owner change to read), not the director, one billing address in the organisation and the CRM,
    a renewal still ahead in March, its row's title no other row's, none of a group or entered twice, no first word shared with the case's."""
    o = org(seed)
    rows = {r["properties"].get("CRM ID"): r for r in crm_rows(seed)}
    emails = {e.key: e.email for e in o.employees}
    first = case_customer.short.split()[0]
    titles = [r["title"] for r in rows.values()]
    out = []
    for c in o.customers:
        row = rows.get(c.crm_id)
        if (row is None or c is case_customer or c.status != "Active" or c.group or c.duplicate_of
                or c.previous_owner or c.short.split()[0] == first or any(x.duplicate_of == c.key for x in o.customers)):
            continue
        p = row["properties"]
        contact = c.contact("billing")
        if (p["Status"] != "Active" or titles.count(row["title"]) != 1 or len(p.get("Owner") or []) != 1 or not p.get("Renewal date")
                or not "2026-03-20" <= p["Renewal date"] <= "2026-12-31" or p["Region"] not in (REGION, "EMEA", "APAC")
                or p.get("Billing email") != contact.email):
            continue
        owner = notion_user_email(seed, p["Owner"][0])
        if owner != emails.get(c.owner) or owner == director:
            continue
        out.append(_facts(seed, c, row, contact))
    return out


def _draw(rng: random.Random, pool: list[dict[str, Any]]) -> list[dict[str, Any]] | None:
    """:data:`PAST` earlier requests from ``pool``: 2-3 of North American accounts, the others of EMEA or
    APAC ones (one EMEA at least), no two of one first word; oldest first, each with its day asked."""
    rng.shuffle(pool)
    seen: set[str] = set()
    na: list[dict[str, Any]] = []
    rest: list[dict[str, Any]] = []
    for x in pool:
        word = x["short"].split()[0]
        if word in seen:
            continue
        (na if x["region"] == REGION else rest).append(x)
        seen.add(word)
    k = rng.randint(*COPIED_PAST)
    picked = na[:k] + rest[:PAST - k]
    if len(picked) != PAST or not any(x["region"] == "EMEA" for x in picked[k:]):
        return None
    days = sorted(rng.sample(weekdays(FIRST_ASKED, LAST_ASKED), PAST))
    rng.shuffle(picked)
    return [{**x, "asked": d, "asked_month": d[:7], "cc": x["region"] == REGION} for x, d in zip(picked, days)]


def _past_messages(seed: int, examples: list[dict[str, Any]], director: str, address: str,
                   rng: random.Random) -> list[dict[str, Any]]:
    """Each earlier request (read, in the inbox), Priya's forward of it to the account's owner (copying the
    director where the habit does) and her reply on the customer's thread, the same day."""
    taken = {m["id"] for m in world("gmail", seed)["messages"]}
    messages = []
    for n, e in enumerate(examples):
        subject = f"Renewal terms for {e['short']}"
        request = gmail_message(
            seed=seed, key=f"{ID}:past:{n}", sender=e["email"], subject=subject,
            date=f"{e['asked']}T{rng.randint(7, 11):02d}:{rng.randint(0, 59):02d}:00Z",
            body=f"Hello Priya,\n\nour contract with you comes up for renewal on {e['renewal']}. Could you send us "
                 f"the renewal terms for {e['seats']} seats?\n\nBest regards,\n{e['first']} {e['last']}\n"
                 f"{e['title']}, {e['name']}")
        request["label_ids"] = ["INBOX", "CATEGORY_PERSONAL"]
        hour = rng.randint(13, 16)
        forward_id, reply_id = (hex_id("x-t-billing", ID, part, n, seed) for part in ("forward", "reply"))
        if {request["id"], forward_id, reply_id} & taken:
            raise ValueError(f"{ID}: planted message id already in gmail world {seed}")
        owner = e["owner_name"]
        forward = {"id": forward_id, "thread_id": forward_id, "sender": address, "to": [e["owner"]],
                   "cc": [director] if e["cc"] else [], "subject": f"Fwd: {subject}",
                   "body": f"Hi {owner.split()[0]},\n\n{e['first']} {e['last']} ({e['email']}) at {e['name']}, your "
                           f"account, asks for renewal terms for {e['seats']} seats; their contract renews on "
                           f"{e['renewal']}. Could you send them the terms?\n\nThanks,\nPriya",
                   "date": f"{e['asked']}T{hour:02d}:{rng.randint(0, 29):02d}:00Z", "label_ids": ["SENT"]}
        reply = {"id": reply_id, "thread_id": request["id"], "sender": address, "to": [e["email"]], "cc": [],
                 "subject": f"Re: {subject}",
                 "body": f"Hello {e['first']},\n\nthank you. {owner} looks after your account and will send you "
                         f"the renewal terms.\n\nBest regards,\nPriya",
                 "date": f"{e['asked']}T{hour:02d}:{rng.randint(30, 59):02d}:00Z", "label_ids": ["SENT"]}
        e["forward"] = forward_id
        messages += [request, forward, reply]
    return messages


def _past_for(seed: int, rng: random.Random, pool: list[dict[str, Any]], item: dict[str, Any]) -> list[dict[str, Any]] | None:
    """The earlier requests of a case: up to :data:`DRAWS` draws from ``pool``, the first that
    :func:`check_copy_convention` accepts; ``None`` if none does."""
    for _ in range(DRAWS):
        drawn = _draw(rng, list(pool))
        if drawn is None:
            continue
        try:
            check_copy_convention(drawn, [item])
        except ValueError:
            continue
        return drawn
    return None


def case_of(seed: int) -> dict[str, Any] | None:
    o = org(seed)
    notion = world("notion", seed)
    rng = rng_for(ID, seed)
    db = next(d for d in notion["databases"] if d["title"] == "Customer Accounts")
    rows = {p["properties"].get("CRM ID"): p for p in notion["pages"]
            if p.get("parent_id") == db["id"] and not p.get("archived")}
    users = {u["id"]: u for u in notion["users"]}
    emp = {e.key: e for e in o.employees}
    titles = [p["title"] for p in notion["pages"]]
    directors = [e for e in o.employees if e.title == DIRECTOR and e.employed_on(FIRST_ASKED) and e.employed_on(ASKED)]
    if len(directors) != 1:
        return None
    director = directors[0].email
    fit = []
    for c in o.customers:
        row = rows.get(c.crm_id)
        if (row is None or not c.key_account or not c.previous_owner or c.status != "Active" or c.group
                or c.duplicate_of or not c.renewal or titles.count(row["title"]) != 1
                or row["properties"].get("Region") != REGION):
            continue
        owner_ids = row["properties"].get("Owner") or []
        if len(owner_ids) != 1 or owner_ids[0] not in users:
            continue
        owner = users[owner_ids[0]]
        prev = emp[c.previous_owner]
        if (owner.get("email") != emp[c.owner].email or prev.email == owner["email"]
                or director in (owner["email"], prev.email)):
            continue
        fit.append((c, row, owner, prev))
    if not fit:
        return None
    c, row, owner, prev = rng.choice(fit)
    contact = c.contact("billing")
    item = {**_facts(seed, c, row, contact), "asked_month": ASKED[:7]}
    names = {u.get("email"): u["name"] for u in notion["users"]}
    pool = [{**x, "owner_name": names[x["owner"]]} for x in _pool(seed, c, director) if x["owner"] in names]
    past = _past_for(seed, rng, pool, item)
    if past is None:
        return None
    address = world("gmail", seed)["address"]
    past_messages = _past_messages(seed, past, director, address, rng)
    named = "|".join(re.escape(w).replace("\\ ", " ") for w in (c.short, contact.first, contact.last) if len(w) >= 3)
    sent = [m for m in [*world("gmail", seed)["messages"], *past_messages] if "SENT" in m["label_ids"]]
    if any(to in m["to"] and re.search(named, m["subject"] + "\n" + m["body"])
           for m in sent for to in (owner["email"], contact.email)):
        return None  # the success's sent message must be the new one, not an earlier one that names them alike
    message = gmail_message(
        seed=seed, key=ID, sender=contact.email, date=f"{ASKED}T11:05:00Z",
        subject=f"Renewal terms for {c.short}",
        body=(f"Hello Priya,\n\nour contract with you comes up for renewal on {c.renewal}. Could you send us the "
              f"renewal terms for {c.seats} seats, and an option for {c.seats + 10}? Last year {prev.first} "
              f"{prev.last} handled our renewal; I have not heard from {prev.first} since the winter.\n\n"
              f"Best regards,\n{contact.first} {contact.last}\n{contact.title}, {c.name}"))

    def forward(to: list[str], cc: list[str] | None = None) -> dict[str, Any]:
        args: dict[str, Any] = {
            "to": to, "subject": f"Fwd: Renewal terms for {c.short}",
            "body": f"Hi {owner['name'].split()[0]},\n\n{contact.first} {contact.last} ({contact.email}) at {c.name}, "
                    f"your account, asks for renewal terms for {c.seats} seats and an option for {c.seats + 10}; their "
                    f"contract renews on {c.renewal}. Could you send them the terms?\n\nThanks,\nPriya"}
        if cc:
            args["cc"] = cc
        return {"tool": "gmail__send_email", "arguments": args}

    def reply(cc: list[str] | None = None) -> dict[str, Any]:
        args: dict[str, Any] = {
            "to": [contact.email], "subject": f"Re: Renewal terms for {c.short}", "threadId": message["id"],
            "body": f"Hello {contact.first},\n\nthank you. {owner['name']} now looks after your account and will send "
                    f"you the renewal terms.\n\nBest regards,\nPriya"}
        if cc:
            args["cc"] = cc
        return {"tool": "gmail__send_email", "arguments": args}

    fwd = forward([owner["email"]], [director])
    both = {"tool": "gmail__send_email", "arguments": {
        "to": [contact.email, owner["email"]], "cc": [director], "subject": f"Re: Renewal terms for {c.short}",
        "threadId": message["id"],
        "body": f"Hello {contact.first},\n\n{owner['name']} now looks after your account and will send you the "
                f"renewal terms for {c.seats} and {c.seats + 10} seats.\n\nBest regards,\nPriya"}}
    reference = [
        {"tool": "gmail__search_emails", "arguments": {"query": "renewal terms", "maxResults": 50}},
        {"tool": "gmail__read_email", "arguments": {"messageId": message["id"]}},
        *({"tool": "gmail__read_email", "arguments": {"messageId": e["forward"]}} for e in past),
        {"tool": "notion__search", "arguments": {"query": c.short}},
        {"tool": "notion__retrieve_page", "arguments": {"page_id": row["id"]}},
        {"tool": "notion__list_users", "arguments": {"page_size": 100}},
        {"tool": "notion__search", "arguments": {"query": "Customer Accounts", "filter": "database"}},
        {"tool": "notion__query_database", "arguments": {"database_id": crm_database_id(seed), "page_size": 100}},
        fwd, reply(),
    ]
    return {
        "customer": {"name": c.name, "short": c.short},
        "contact": {"first": contact.first, "last": contact.last, "email": contact.email},
        "owner": {"email": owner["email"], "name": owner["name"]},
        "previous": {"email": prev.email},
        "director": director,
        # the owner's message names the customer or the contact (the owner may own an earlier request's account)
        "named": named,
        "gmail_patch": [{"op": "add", "in": ["messages"], "value": m} for m in [*past_messages, message]],
        "reference": reference,
        "wrongs": [
            {"why": "forwards the request to the account manager the customer remembers, who no longer owns it",
             "kind": "lookalike", "calls": [forward([prev.email], [director]), reply()]},
            {"why": "forwards it to the owner and also to the former owner",
             "kind": "collateral", "calls": [fwd, forward([prev.email]), reply()]},
            {"why": "answers the customer but never passes the request on",
             "kind": "other", "calls": [reply()]},
            {"why": "forwards to the owner without copying the Sales director, North America: misses that the "
                    "forwards of North American accounts copy the director (what sampling a few earlier forwards "
                    "shows)",
             "kind": "other", "calls": [forward([owner["email"]]), reply()]},
            {"why": "copies the director on the reply to the customer but not on the forward to the owner",
             "kind": "other", "calls": [forward([owner["email"]]), reply([director])]},
            {"why": "sends the request to the Sales director, North America, instead of the account's owner",
             "kind": "other", "calls": [forward([director]), reply()]},
        ],
        "alternatives": [
            {"why": "one email to the customer and the owner together, on the customer's thread, the director "
                    "copied", "calls": [both]},
            {"why": "tells the customer first, then forwards", "calls": [reply(), fwd]},
            {"why": "copies the director on the reply to the customer as well", "calls": [fwd, reply([director])]},
            {"why": "sends the forward to the owner and the director both", "calls": [
                forward([owner["email"], director]), reply()]},
        ],
        "facts": {"past": [{k: e[k] for k in ("short", "region", "plan", "owner", "cc")} for e in past],
                  "region": item["region"]},
        "max_steps": budget(len(reference)),
    }


GOAL = ("{{case.contact.first}} {{case.contact.last}} at {{case.customer.short}} asked me for their renewal terms. "
        "Pass the request to whoever owns their account now, the way we handled the earlier renewal requests, and "
        "let {{case.contact.first}} know who will be in touch.")


def build() -> dict[str, Any]:
    owner, contact, director = "{{case.owner.email}}", "{{case.contact.email}}", "{{case.director}}"
    task = {
        "goal": GOAL,
        "initial_state": {
            "gmail": {"world": world_ref("gmail"), "patch": "{{case.gmail_patch}}"},
            "notion": {"world": world_ref("notion"), "patch": []},
        },
        "available_tools": [*GMAIL_TOOLS, *NOTION_READ],
        "faults": [],
        "max_steps": "{{case.max_steps}}",
        "timeout_s": 600,
        "frame": [
            {"entity": "gmail.message", "fields": ["label_ids"]},
            # the forward copies the director (or has them beside the owner); the reply may copy anyone
            {"entity": "gmail.message", "change": ["create"], "where": {"to": [owner], "cc": [director]}, "max": 2},
            {"entity": "gmail.message", "change": ["create"], "where": {"to": [owner, director], "cc": []}, "max": 2},
            {"entity": "gmail.message", "change": ["create"], "where": {"to": [director, owner], "cc": []}, "max": 2},
            {"entity": "gmail.message", "change": ["create"], "where": {"to": [contact]}, "max": 2},
            {"entity": "gmail.message", "change": ["create"], "where": {"to": [owner, contact], "cc": [director]},
             "max": 1},
            {"entity": "gmail.message", "change": ["create"], "where": {"to": [contact, owner], "cc": [director]},
             "max": 1},
            {"entity": "gmail.draft", "change": ["create", "delete"]},
        ],
        "success": {"all": [
            {"any": [{"gmail.draftSent": {"subject_pattern": "{{case.named}}", "to": owner}},
                     {"gmail.draftSent": {"body_pattern": "{{case.named}}", "to": owner}}]},
            {"gmail.draftSent": {"subject_pattern": "enewal|erms|ccount", "to": contact}},
        ]},
        "reference_solution": "{{case.reference}}",
        "wrong_solutions": "{{case.wrongs}}",
        "alternative_solutions": "{{case.alternatives}}",
    }
    return template(id=ID, version=2, servers=["gmail", "notion"], difficulty="medium", category="standard",
                    case_list=cases(case_of, want=10, level="medium"), task=task)
