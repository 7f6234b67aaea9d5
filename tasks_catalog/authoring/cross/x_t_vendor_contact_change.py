"""x-t-vendor-contact-change (medium): one of the three printers with nearly the same name (Harbour Print
Co, Harbour Printing Ltd, Harbor Print Co) wrote twice about our accounts contact there: first naming one
person, then, weeks later, correcting it to another. The vendor register in Notion must name the later
one, on that printer's row only, and the change is confirmed the way the team has confirmed the earlier
ones.

The team's past work: seven earlier suppliers (none a printer) wrote this winter naming a new accounts
contact; each got a reply from Priya to the new contact, and each one's row in the register already names
that contact. The replies to the suppliers of the largest Annual cost in the register (three of the seven)
copy the financial controller, a copy only the opened reply's ``cc`` shows (``search_emails`` lists
``to``, never ``cc``); the other four copy no one. Every printer the case draws costs at least as much as
the least of the copied three, so its confirmation copies the controller too.

:data:`READINGS` lists the other readings of when a reply copies the controller (always, never, by
category, status, owner, country, the address's ending, subject, whether the new contact was in copy of the
notice, the month it came, below an amount, by renewal date or by the notice's date); :func:`check_convention`
raises unless each is contradicted by an earlier reply or copies the printer's reply as the habit does. A draw that
leaves one open is drawn again (:data:`DRAWS` times), then the seed gives no case. Whom the copy goes to
is fixed as well: the three copied replies are of three suppliers with three owners, none of them the
controller, so "copy the supplier's owner" (what the world's customer billing-contact threads do) fits
none of them.
"""

from __future__ import annotations

import hashlib
import random
from datetime import date, timedelta
from typing import Any

from tasks_catalog.authoring.cross import budget, cases, org, template, world
from tasks_catalog.authoring.cross import world_state as state
from tasks_catalog.authoring.cross._x_t_readings import Always, FlaggedSide, FlaggedWhen, left_open

ID = "x-t-vendor-contact-change"
PRINTERS = ("Harbour Print Co", "Harbour Printing Ltd", "Harbor Print Co")
FIRST = ("Ines", "Tomas", "Lena", "Mateo", "Sofia", "Viktor", "Amara", "Kofi", "Yuki", "Elif")
LAST = ("Moreau", "Novak", "Duarte", "Keller", "Brandt", "Okoro", "Varga", "Lindgren", "Costa", "Hale")
MAILBOX = "priya.raman@kestrelfreight.com"
CONTROLLER = "Financial controller"
#: How many earlier contact changes the world holds, how many of them (those of the largest Annual cost)
#: copy the controller, the least gap between the copied and the others' Annual cost, the least Annual
#: cost of a copied one, and how many draws a seed gets before it gives no case.
EXAMPLES, COPIED, GAP, FLOOR, DRAWS = 7, 3, 5000, 20000, 400
#: The subjects of the earlier notices (each supplier words its own).
SUBJECTS = ("Your accounts contact at {name}", "New contact for invoices at {name}",
            "Change of accounts contact: {name}")
#: Where a reply's copy could be read to depend on: the habit is "the Annual cost is among the largest"
#: (``FlaggedSide("cost", low=False)``); every other reading must be contradicted by an earlier reply or
#: copy the printer's reply as the habit does.
READINGS: dict[str, Any] = {
    "always": Always(True, flag="cc"),
    "never": Always(False, flag="cc"),
    "by the supplier's category": FlaggedWhen("category", flag="cc"),
    "by the supplier's status": FlaggedWhen("status", flag="cc"),
    "by the supplier's owner": FlaggedWhen("owner", flag="cc"),
    "by the supplier's country": FlaggedWhen("country", flag="cc"),
    "by the ending of the supplier's address": FlaggedWhen("tld", flag="cc"),
    "by the notice's subject": FlaggedWhen("subject", flag="cc"),
    "when the new contact was in copy of the notice": FlaggedWhen("in_copy", flag="cc"),
    "by the month the notice came": FlaggedWhen("month", flag="cc"),
    "below an Annual cost": FlaggedSide("cost", low=True, flag="cc"),
    "renewing soonest": FlaggedSide("renewal", low=True, flag="cc"),
    "renewing latest": FlaggedSide("renewal", low=False, flag="cc"),
    "the earliest notices": FlaggedSide("day", low=True, flag="cc"),
    "the latest notices": FlaggedSide("day", low=False, flag="cc"),
}
HABIT = FlaggedSide("cost", low=False, flag="cc")


def check_convention(examples: list[dict[str, Any]], item: dict[str, Any]) -> None:
    """Raise unless the earlier replies tell the habit (the controller is copied for the suppliers of the
    largest Annual cost) apart from every reading of :data:`READINGS` for the printer ``item``: a minority of
    copied replies, each to a supplier of another owner, none the controller; every copied one dearer by
    :data:`GAP` than every other; the printer at least as dear as the cheapest copied one; and no reading
    that fits every reply yet treats the printer's otherwise."""
    copied = [e for e in examples if e["cc"]]
    if len(copied) != COPIED or 2 * len(copied) >= len(examples):
        raise ValueError(f"{ID}: {len(copied)} of {len(examples)} earlier replies copy the controller")
    if len({e["owner"] for e in copied}) != len(copied) or any(e["owner"] == item["controller"] for e in examples):
        raise ValueError(f"{ID}: the copied replies do not tell the controller from the suppliers' owners")
    if min(e["cost"] for e in copied) - max(e["cost"] for e in examples if not e["cc"]) < GAP:
        raise ValueError(f"{ID}: the copied suppliers' Annual cost is not clearly above the others'")
    if not HABIT(examples) or HABIT.predicts(examples, item) is not True:
        raise ValueError(f"{ID}: the earlier replies do not show that the printer's reply copies the controller")
    for name in left_open(READINGS, examples, [item], lambda _: True)[:1]:
        raise ValueError(f"{ID}: the reading {name!r} fits every earlier reply and differs on the printer's")


def _features(row: dict[str, Any], vendor: Any) -> dict[str, Any]:
    """What the register and the org show of a supplier that a reading could key on."""
    p = row["properties"]
    return {"name": vendor.name, "row": row, "vendor": vendor, "category": p["Category"], "status": p["Status"],
            "owner": p["Owner"][0], "country": vendor.country,
            "tld": vendor.email.split("@")[1].split(".", 1)[1], "cost": p["Annual cost"],
            "renewal": int(p["Renewal"].replace("-", ""))}


def _draw(rng: random.Random, pool: list[dict[str, Any]], item: dict[str, Any]) -> list[dict[str, Any]] | None:
    """Seven earlier contact changes whose replies tell the habit apart from every reading, or None."""
    for _ in range(DRAWS):
        low = [v for v in pool if FLOOR <= v["cost"] <= item["cost"]]
        if not low:
            return None
        least = rng.choice(low)
        dear = [v for v in pool if v["cost"] > least["cost"] and v is not least]
        cheap = [v for v in pool if v["cost"] <= least["cost"] - GAP]
        if len(dear) < COPIED - 1 or len(cheap) < EXAMPLES - COPIED:
            continue
        chosen = [{**v, "cc": True} for v in [least, *rng.sample(dear, COPIED - 1)]] + \
                 [{**v, "cc": False} for v in rng.sample(cheap, EXAMPLES - COPIED)]
        rng.shuffle(chosen)
        days = sorted(rng.sample(WORKDAYS, EXAMPLES))
        for e, day in zip(chosen, days, strict=True):
            date = _date(day)
            e.update(day=day, month=date[:7], subject=rng.randrange(len(SUBJECTS)), in_copy=rng.random() < 0.5,
                     date=f"{date}T{rng.randint(8, 16):02d}:{rng.randint(0, 59):02d}:00Z")
        try:
            check_convention(chosen, item)
        except ValueError:
            continue
        return chosen
    return None


def _date(day: int) -> str:
    """The day ``day`` days after 17 November 2025, as YYYY-MM-DD."""
    return (date(2025, 11, 17) + timedelta(days=day)).isoformat()


#: The days (after 17 November 2025) an earlier notice may come and be answered: working days up to
#: 4 February 2026, the office closed from 24 December to 1 January.
WORKDAYS = [d for d in range(80) if (date(2025, 11, 17) + timedelta(days=d)).weekday() < 5
            and not "2025-12-24" <= _date(d) <= "2026-01-01"]


def _later(stamp: str, rng: random.Random) -> str:
    """A reply's time, one or two working hours after ``stamp`` on the same day."""
    hour = int(stamp[11:13]) + rng.randint(1, 2)
    return f"{stamp[:11]}{hour:02d}:{rng.randint(0, 59):02d}:00Z"


def _example_mail(e: dict[str, Any], seed: int, k: int, contact: tuple[str, str, str], controller: str,
                  rng: random.Random) -> list[dict[str, Any]]:
    """The notice of the earlier change ``e`` and Priya's reply to its new contact (copying ``controller``
    when the habit does)."""
    first, last, email = contact
    vendor = e["vendor"]
    notice, reply = (hashlib.sha256(f"{ID}:{seed}:past:{k}:{i}".encode()).hexdigest()[:16] for i in range(2))
    subject = SUBJECTS[e["subject"]].format(name=vendor.name)
    month = {"11": "December", "12": "January", "01": "February", "02": "March"}[e["date"][5:7]]
    body = (f"Hello,\n\nfrom 1 {month} your contact for bills, statements and remittances at {vendor.name} is "
            f"{first} {last} ({email}). Please update your supplier records.\n\nBest regards,\n{vendor.contact}\n"
            f"Accounts receivable, {vendor.name}")
    answer = (f"Hello {first},\n\nthank you: our supplier register now names you as our contact for bills, "
              f"statements and remittances at {vendor.name}.\n\nBest regards,\nPriya Raman\n"
              "Operations manager, Kestrel Freight Systems")
    return [
        {"id": notice, "thread_id": notice, "sender": vendor.email, "to": [MAILBOX],
         "cc": [email] if e["in_copy"] else [], "subject": subject, "date": e["date"], "label_ids": ["INBOX"],
         "body": body},
        {"id": reply, "thread_id": notice, "sender": MAILBOX, "to": [email], "cc": [controller] if e["cc"] else [],
         "subject": f"Re: {subject}", "date": _later(e["date"], rng), "label_ids": ["SENT"], "body": answer},
    ]


def case_of(seed: int) -> dict[str, Any] | None:
    """The case of ``seed``: the printer that writes, its row in the register, the two contacts it named,
    the seven earlier contact changes and whom their replies copied."""
    o = org(seed)
    vendors = {v.name: v for v in o.vendors}
    if any(p not in vendors for p in PRINTERS):
        return None
    notion = world("notion", seed)
    db = next(d for d in notion["databases"] if d["title"] == "Vendors")
    rows = {p["title"]: p for p in notion["pages"] if p.get("parent_id") == db["id"]}
    if any(rows.get(p, {}).get("properties", {}).get("Contact") != vendors[p].email for p in PRINTERS):
        return None
    chief = [e for e in o.employees if e.title == CONTROLLER]
    if len(chief) != 1:
        return None
    controller, controller_id = chief[0].email, chief[0].notion_id
    rng = random.Random(f"{ID}:{seed}")
    name = rng.choice(PRINTERS)
    vendor, row = vendors[name], rows[name]
    look = rows[next(p for p in PRINTERS if p != name and p.split()[0] == name.split()[0])
                if name != "Harbor Print Co" else "Harbour Print Co"]
    item = {**_features(row, vendor), "controller": controller_id, "subject": 0, "in_copy": True,
            "month": "2026-03", "day": 999}
    if len(row["properties"]["Owner"]) != 1 or row["properties"]["Owner"][0] == controller_id:
        return None
    pool = [_features(rows[v.name], v) for v in o.vendors
            if v.name in rows and rows[v.name]["properties"]["Category"] != "Printing"
            and rows[v.name]["properties"]["Status"] != "Terminated"
            and rows[v.name]["properties"]["Contact"] == v.email and len(rows[v.name]["properties"]["Owner"]) == 1
            and rows[v.name]["properties"]["Owner"][0] != controller_id]
    examples = _draw(rng, pool, item)
    if examples is None:
        return None
    check_convention(examples, item)
    people = [(f, last) for f in FIRST for last in LAST]
    picked = rng.sample(people, 2 + EXAMPLES)
    (f1, l1), (f2, l2) = picked[:2]
    domain = vendor.email.split("@")[1]
    first, second = f"{f1.lower()}.{l1.lower()}@{domain}", f"{f2.lower()}.{l2.lower()}@{domain}"
    sign = f"\n\nBest regards,\n{vendor.contact}\nAccounts receivable, {vendor.name}"
    ids = [hashlib.sha256(f"{ID}:{seed}:{k}".encode()).hexdigest()[:16] for k in range(2)]
    day1, day2 = f"2026-02-{rng.randint(16, 26):02d}T{rng.randint(8, 16):02d}:{rng.randint(0, 59):02d}:00Z", \
        f"2026-03-{rng.randint(9, 13):02d}T{rng.randint(8, 16):02d}:{rng.randint(0, 59):02d}:00Z"
    subject = f"Your accounts contact at {vendor.name}"
    gmail_patch: list[dict[str, Any]] = []
    notion_patch: list[dict[str, Any]] = []
    past: list[str] = []
    for k, (e, (f, last)) in enumerate(zip(examples, picked[2:], strict=True)):
        email = f"{f.lower()}.{last.lower()}@{e['vendor'].email.split('@')[1]}"
        mails = _example_mail(e, seed, k, (f, last, email), controller, rng)
        past.append(mails[0]["thread_id"])
        gmail_patch += [{"op": "add", "in": ["messages"], "value": m} for m in mails]
        notion_patch.append({"op": "update", "in": ["pages"], "id": e["row"]["id"],
                             "fields": {"properties": {**e["row"]["properties"], "Contact": email}}})
    gmail_patch += [
        {"op": "add", "in": ["messages"], "value": {
            "id": ids[0], "thread_id": ids[0], "sender": vendor.email, "to": [MAILBOX],
            "cc": [], "subject": subject, "date": day1, "label_ids": ["INBOX"],
            "body": (f"Hello,\n\nfrom 1 March your contact for bills, statements and remittances at {vendor.name} is "
                     f"{f1} {l1} ({first}). Please update your supplier records." + sign)}},
        {"op": "add", "in": ["messages"], "value": {
            "id": ids[1], "thread_id": ids[0], "sender": vendor.email, "to": [MAILBOX],
            "cc": [second], "subject": f"Re: {subject}", "date": day2, "label_ids": ["INBOX", "UNREAD"],
            "body": (f"Hello again,\n\na correction to my earlier note: {f1} {l1} has moved to another team, so your "
                     f"contact for bills, statements and remittances is {f2} {l2} ({second}, in copy) instead." + sign)}},
    ]
    update = {"page_id": row["id"], "properties": {"Contact": second}}
    reply = {"to": [second], "cc": [controller], "subject": f"Re: {subject}", "threadId": ids[0],
             "body": (f"Hello {f2},\n\nthank you: our supplier register now names you as our contact for bills, "
                      f"statements and remittances at {vendor.name}.\n\nBest regards,\nPriya Raman")}
    reference = [
        {"tool": "gmail__search_emails", "arguments": {"query": "contact", "maxResults": 50}},
        *({"tool": "gmail__get_thread", "arguments": {"threadId": t}} for t in [ids[0], *past]),
        {"tool": "notion__search", "arguments": {"query": "Vendors", "filter": "database"}},
        {"tool": "notion__query_database", "arguments": {"database_id": db["id"], "page_size": 100}},
        {"tool": "notion__update_page", "arguments": update},
        {"tool": "gmail__send_email", "arguments": reply},
    ]
    owner = next(u["email"] for u in notion["users"] if u["id"] == row["properties"]["Owner"][0])
    return {
        "vendor": {"name": vendor.name, "row": row["id"], "first": first, "second": second, "owner": owner},
        "look": {"name": look["title"], "row": look["id"]},
        "controller": controller,
        "patch": {"gmail": gmail_patch, "notion": notion_patch},
        "reference": reference,
        "max_steps": budget(len(reference)),
        "update": update,
        "reply": reply,
        "bare": {k: v for k, v in reply.items() if k != "cc"},
        "summary": {"copied": [e["name"] for e in examples if e["cc"]], "printer_cost": item["cost"],
                    "costs": sorted((e["cost"], e["cc"]) for e in examples)},
    }


def build() -> dict[str, Any]:
    """The template document."""
    frame = [{"entity": "notion.page", "ids": ["{{case.vendor.row}}"], "fields": ["properties.Contact"]},
             {"entity": "gmail.message", "change": ["create"],
              "where": {"to": ["{{case.vendor.second}}"], "cc": ["{{case.controller}}"]}, "max": 1},
             {"entity": "notion.comment", "change": ["create"], "where": {"page_id": "{{case.vendor.row}}"}, "max": 1}]
    reply = {"tool": "gmail__send_email", "arguments": "{{case.reply}}"}
    update = {"tool": "notion__update_page", "arguments": "{{case.update}}"}
    return template(
        id=ID, version=2, servers=["gmail", "notion"], difficulty="medium", category="standard",
        case_list=cases(case_of, level="medium"),
        task={
            "goal": ("One of our printing suppliers has emailed us about who our contact there is now. "
                     "Bring that supplier's Contact in our vendor register up to date, and confirm it the way "
                     "we have handled these before."),
            "initial_state": {"gmail": state("gmail", "{{case.patch.gmail}}"),
                              "notion": state("notion", "{{case.patch.notion}}")},
            "available_tools": ["gmail__search_emails", "gmail__get_thread", "gmail__read_email", "gmail__send_email",
                                "gmail__list_email_labels", "notion__search", "notion__retrieve_page",
                                "notion__retrieve_database", "notion__query_database", "notion__update_page",
                                "notion__get_block_children", "notion__get_comments", "notion__create_comment",
                                "notion__list_users"],
            "max_steps": "{{case.max_steps}}",
            "timeout_s": 300,
            "frame": frame,
            "success": {"all": [
                {"notion.pagePropertyEquals": {"page": "{{case.vendor.row}}", "property": "Contact",
                                               "value": "{{case.vendor.second}}"}},
                {"gmail.draftSent": {"to": "{{case.vendor.second}}"}},
            ]},
            "reference_solution": "{{case.reference}}",
            "wrong_solutions": [
                {"why": "puts the new contact on {{case.look.name}}, the printer with nearly the same name",
                 "kind": "lookalike",
                 "calls": [{"tool": "notion__update_page", "arguments": {
                     "page_id": "{{case.look.row}}", "properties": {"Contact": "{{case.vendor.second}}"}}}, reply]},
                {"why": "records the first contact named, which the later email corrected",
                 "kind": "other",
                 "calls": [{"tool": "notion__update_page", "arguments": {
                     "page_id": "{{case.vendor.row}}", "properties": {"Contact": "{{case.vendor.first}}"}}},
                     {"tool": "gmail__send_email", "arguments": {
                         "to": ["{{case.vendor.first}}"], "cc": ["{{case.controller}}"], "subject": "Your contact",
                         "body": "Thank you: our supplier register now names you as our contact."}}]},
                {"why": "updates the right row and also {{case.look.name}}'s, as if both printers were one",
                 "kind": "collateral",
                 "calls": [update, {"tool": "notion__update_page", "arguments": {
                     "page_id": "{{case.look.row}}", "properties": {"Contact": "{{case.vendor.second}}"}}}, reply]},
                {"why": "confirms to the new contact without copying the controller, as most earlier replies "
                        "(those of cheaper suppliers) do: the sampler's reading",
                 "kind": "other", "calls": [update, {"tool": "gmail__send_email", "arguments": "{{case.bare}}"}]},
                {"why": "copies the printer's owner in the register, as the customer billing-contact threads copy "
                        "the account owner, not the controller the earlier supplier replies copy",
                 "kind": "other",
                 "calls": [update, {"tool": "gmail__send_email", "arguments": {
                     "to": ["{{case.vendor.second}}"], "cc": ["{{case.vendor.owner}}"], "subject": "Re: your contact",
                     "body": "Thank you: our supplier register now names you as our contact."}}]},
                {"why": "updates the register and confirms nothing, though every earlier change was confirmed",
                 "kind": "other", "calls": [update]},
            ],
            "alternative_solutions": [
                {"why": "writes the confirmation first, as a new email rather than a reply, then the register",
                 "calls": [{"tool": "gmail__send_email", "arguments": {
                     "to": ["{{case.vendor.second}}"], "cc": ["{{case.controller}}"],
                     "subject": "Your accounts contact with us",
                     "body": "Thank you: you are now our contact for bills, statements and remittances."}},
                     update]},
                {"why": "also notes the change on the printer's row in the register",
                 "calls": [update, reply, {"tool": "notion__create_comment", "arguments": {
                     "page_id": "{{case.vendor.row}}", "text": "Contact changed after the supplier's correction."}}]},
            ],
        })
