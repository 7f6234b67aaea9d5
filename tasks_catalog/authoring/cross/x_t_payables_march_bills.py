"""x-t-payables-march-bills (medium, recovery): some of the bills vendors emailed in March are missing
from the Q1 payables file on the drive; add them as the file records the others, and take care of them as
the other March bills were. The edit answers a timeout although it applied, so a blind retry records a bill
twice.

Version 2 adds the team's past work and a habit only opening it shows. Every other March bill (7 or 8, each
in the file) was acknowledged by Priya the day it came: a reply in its thread to the vendor naming the
invoice and its due date (:func:`_ack`). The replies to bills of :data:`THRESHOLD` or more (2 or 3 of them)
copy the Financial controller; the others copy nobody. The copy shows only in the ``cc`` of an opened reply
(``search_emails`` returns no cc; ``read_email`` and ``get_thread`` do), and the replies' first 100
characters, the snippet a search shows, read alike. So the missing bills are handled so too: each gets a
reply to its vendor, and the one(s) of the threshold or more copy the controller; of the missing bills at
least one is at or over the threshold and one under it (:func:`_draw`).

:data:`READINGS` lists the other readings of when a reply copies the controller (always, never, by the bill's
status in the file, by the vendor's payment terms or on longer or shorter ones, below an amount, before or after
a day of issue or of due date, above an amount with a new bill between the examples); :func:`_draw` keeps a draw of missing
bills only when each is contradicted by an example or copies exactly the new bills the habit copies
(``left_open``). "Copy for the vendors copied before" is not among them: every vendor sends one bill a
month, so no missing bill is from a vendor with an example (asserted) and for them it is "never", which
the copied replies contradict. Copying the controller on every reply is allowed (doing the habit where
the examples do not harms nothing), and so is a word to the controller; a reply without the copy where it is
due fails, as does no reply.
"""

from __future__ import annotations

import random
from datetime import date, datetime, timedelta
from typing import Any

from tasks_catalog.authoring.cross import budget, cases, org, template, world
from tasks_catalog.authoring.cross import world_state as state
from tasks_catalog.authoring.cross._x_t_billing import hex_id
from tasks_catalog.authoring.cross._x_t_data import rx
from tasks_catalog.authoring.cross._x_t_readings import Always, FlaggedSide, FlaggedWhen, left_open

ID = "x-t-payables-march-bills"
PATH = "finance/payables/bills_2026-Q1.csv"
#: The amount (cents) from which the reply acknowledging a bill copies the Financial controller.
THRESHOLD = 750_000
#: How many draws of the missing bills are tried for a seed before it gives no case.
DRAWS = 40
#: The readings of when a reply copies the controller, other than the habit (a bill of THRESHOLD or more);
#: an example's and a new bill's fields: ``amount`` (cents), ``status`` (in the file), ``terms`` (days from
#: issue to due), ``issued`` and ``due`` (day numbers), ``cc`` (does its reply copy the controller).
READINGS: dict[str, Any] = {
    "always": Always(True, flag="cc"),
    "never": Always(False, flag="cc"),
    "by the bill's status in the file (paid, open)": FlaggedWhen("status", flag="cc"),
    "by the vendor's payment terms": FlaggedWhen("terms", flag="cc"),
    "on longer payment terms": FlaggedSide("terms", low=False, flag="cc"),
    "on shorter payment terms": FlaggedSide("terms", low=True, flag="cc"),
    "above an amount (where between the examples)": FlaggedSide("amount", low=False, flag="cc"),
    "below an amount": FlaggedSide("amount", low=True, flag="cc"),
    "issued before a day": FlaggedSide("issued", low=True, flag="cc"),
    "issued after a day": FlaggedSide("issued", low=False, flag="cc"),
    "due before a day": FlaggedSide("due", low=True, flag="cc"),
    "due after a day": FlaggedSide("due", low=False, flag="cc"),
}


def _row(b, vendor: str) -> str:
    """A bill's line as the payables file writes it."""
    return f'{b.number},"{vendor}",{b.amount / 100:.2f},{b.issued},{b.due},{b.status},{b.paid_on or ""}'


def _row_pattern(b, vendor: str) -> str:
    """What a line recording open bill ``b`` must say: its number, vendor, amount, some issue date, its due date,
    open and no payment date (quotes around the vendor optional)."""
    amount = f"{b.amount // 100}(\\.{b.amount % 100:02d})?" if b.amount % 100 else f"{b.amount // 100}(\\.00)?"
    return (f"(^|\\n){rx(b.number)},\"?{rx(vendor)}\"?,{amount},[0-9]{{4}}-[0-9]{{2}}-[0-9]{{2}},"
            f"{rx(b.due)},(open),?\\r?(\\n|$)")


def _facts(b, status: str) -> dict[str, Any]:
    """A bill as :data:`READINGS` read it; ``cc``: does its reply copy the controller (the habit)."""
    issued, due = date.fromisoformat(b.issued), date.fromisoformat(b.due)
    return {"vendor": b.vendor, "amount": b.amount, "status": status, "terms": (due - issued).days,
            "issued": issued.toordinal(), "due": due.toordinal(), "cc": b.amount >= THRESHOLD}


def _ack_body(b, contact: str, signature: str) -> str:
    """Priya's acknowledgement of bill ``b`` to its vendor's ``contact``: the same words for every bill."""
    return (f"Hello {contact.split()[0]},\n\nthank you for invoice {b.number}: we have recorded it in our payables and "
            f"will pay it by {b.due}.\n\nBest regards,\n{signature}")


def _draw(seed: int, march: list, candidates: list, status: dict[str, str]) -> list | None:
    """Missing bills for ``seed`` (two or three of ``candidates``, sorted by number) such that 2-3 of the other
    March bills (the examples) are of :data:`THRESHOLD` or more, at least one missing bill is and one is not,
    and every reading of :data:`READINGS` is contradicted by an example or copies as the habit does; ``None``
    when no draw of :data:`DRAWS` is."""
    rng = random.Random(f"{ID}:{seed}")
    for _ in range(DRAWS):
        missing = sorted(rng.sample(candidates, 3 if len(candidates) >= 5 else 2), key=lambda b: b.number)
        examples = [_facts(b, status[b.number]) for b in march if b not in missing]
        items = [_facts(b, "open") for b in missing]
        if not 2 <= sum(e["cc"] for e in examples) <= 3 or {i["cc"] for i in items} != {True, False}:
            continue
        if {i["vendor"] for i in items} & {e["vendor"] for e in examples}:
            raise ValueError(f"{ID}: seed {seed}: a missing bill's vendor has another March bill")
        if not open_readings(examples, items):
            return missing
    return None


def open_readings(examples: list[dict[str, Any]], items: list[dict[str, Any]]) -> list[str]:
    """The readings of :data:`READINGS` that fit every example (``_facts`` of the acknowledged March bills)
    and copy some new bill otherwise than the habit (or leave it undecided); ``ValueError`` when an example
    does not follow the habit itself."""
    for e in examples:
        if e["cc"] != (e["amount"] >= THRESHOLD):
            raise ValueError(f"{ID}: an example of {e['amount'] / 100:.2f} EUR does not follow the habit "
                             f"(copied: {e['cc']})")
    return left_open(READINGS, examples, items, lambda i: i["amount"] >= THRESHOLD)


def case_of(seed: int) -> dict[str, Any] | None:
    """The case of ``seed``: two or three open March bills, not yet due, taken out of the payables file; the
    other March bills' emails answered as the team does (:func:`_draw` says which bills)."""
    o = org(seed)
    text = world("filesystem", seed)["files"].get(PATH)
    if text is None:
        return None
    today = o.now[:10]
    lines = text.rstrip("\n").split("\n")
    name = {v.key: v.name for v in o.vendors}
    march = [b for b in o.bills if b.issued >= "2026-03-01"]
    candidates = [b for b in march if b.status == "open" and b.due > today]
    if len(candidates) < 3 or any(_row(b, name[b.vendor]) not in lines for b in o.bills):
        return None
    # Every March bill's email must be in the mailbox, or the bill (or its example) cannot be found there.
    mailbox = world("gmail", seed)
    mail = {m["subject"]: m for m in mailbox["messages"]}
    subject = {b.number: f"Invoice {b.number} from {name[b.vendor]}" for b in march}
    controllers = [e for e in o.employees if e.title == "Financial controller"]
    owner = [e for e in o.employees if e.email == mailbox["address"]]
    if any(subject[b.number] not in mail for b in march) or len(controllers) != 1 or len(owner) != 1:
        return None
    controller, signature = controllers[0].email, f"{owner[0].name}\n{owner[0].title}"
    missing = _draw(seed, march, candidates, {b.number: b.status for b in march})
    if missing is None:
        return None
    examples = [b for b in march if b not in missing]

    def ack(b) -> dict[str, Any]:
        """The reply that acknowledges ``b``: its vendor's address, thread, subject, body and whom it copies."""
        first = mail[subject[b.number]]
        return {"to": [first["sender"]], "cc": [controller] if b.amount >= THRESHOLD else [],
                "subject": f"Re: {subject[b.number]}", "threadId": first["thread_id"],
                "body": _ack_body(b, o.vendor(b.vendor).contact, signature)}

    def sent(b) -> dict[str, Any]:
        """The example ``b``'s acknowledgement as the mailbox holds it, three hours after the bill came."""
        a, first = ack(b), mail[subject[b.number]]
        when = datetime.strptime(first["date"], "%Y-%m-%dT%H:%M:%SZ") + timedelta(hours=3)
        return {"id": hex_id(ID, seed, b.number), "thread_id": a["threadId"], "sender": mailbox["address"],
                "to": a["to"], "cc": a["cc"], "subject": a["subject"], "body": a["body"],
                "date": when.strftime("%Y-%m-%dT%H:%M:%SZ"), "label_ids": ["SENT"]}

    def reply(b, cc: list[str] | None = None) -> dict[str, Any]:
        a = ack(b)
        return {"tool": "gmail__send_email", "arguments": {**a, "cc": a["cc"] if cc is None else cc}}

    acked = [sent(b) for b in examples]
    taken = {m["id"] for m in mailbox["messages"]}
    if taken & {m["id"] for m in acked} or any(m["date"] >= o.now for m in acked):
        return None
    missing_lines = {_row(b, name[b.vendor]) for b in missing}
    kept = [line for line in lines if line not in missing_lines]
    patched = "\n".join(kept) + "\n"
    last = kept[-1]
    added = "\n".join(_row(b, name[b.vendor]) for b in missing)
    full = "\n".join(lines) + "\n"
    # The lookalike: the same vendor's bill of February, already in the file, recorded again instead.
    first = next((b for b in missing if any(f.vendor == b.vendor and f.issued[:7] == "2026-02" for f in o.bills)), None)
    if first is None:
        return None
    feb = next(f for f in o.bills if f.vendor == first.vendor and f.issued[:7] == "2026-02")
    look = [feb if b is first else b for b in missing]
    # The damage: an existing open bill marked paid beside the additions.
    other = next((b for b in o.bills if b.status in ("open", "overdue") and b not in missing), None)
    if other is None:
        return None
    damaged = full.replace(_row(other, name[other.vendor]),
                           _row(other, name[other.vendor]).replace(f",{other.status},", ",paid,") + today)
    edit = {"path": PATH, "edits": [{"oldText": last, "newText": last + "\n" + added}]}
    search = {"query": "subject:invoice after:2026/03/01 before:2026/03/17", "maxResults": 50}
    reads = [{"tool": "gmail__read_email", "arguments": {"messageId": mail[subject[b.number]]["id"]}} for b in missing]
    threads = [{"tool": "gmail__get_thread", "arguments": {"threadId": m["thread_id"]}} for m in acked]
    replies = [reply(b) for b in missing]
    big = [b for b in missing if b.amount >= THRESHOLD]
    clauses: list[dict[str, Any]] = [{"filesystem.fileContentMatches": {"path": PATH, "pattern": _row_pattern(b, name[b.vendor])}}
               for b in missing]
    clauses += [{"not": {"filesystem.fileContentMatches": {
        "path": PATH, "pattern": f"{rx(b.number)},(.|\\n)*{rx(b.number)},"}}} for b in missing]
    # No line already in the file may be lost or altered.
    clauses.append({"not": {"any": [
        {"not": {"filesystem.fileContentMatches": {"path": PATH, "pattern": f"(^|\\n){rx(line)}\\r?(\\n|$)"}}}
        for line in kept]}})
    # Every missing bill is acknowledged to its vendor (each vendor has one missing bill; its words are free).
    clauses += [{"gmail.draftSent": {"to": ack(b)["to"][0]}} for b in missing]
    # Whom a reply may copy: the controller where the habit does; nobody or the controller (harmless) elsewhere.
    allowed = [{"entity": "gmail.message", "change": ["create"], "where": {"to": ack(b)["to"], "cc": cc}, "max": 2}
               for b in missing for cc in ([[controller]] if b.amount >= THRESHOLD else [[], [controller]])]
    reference = [
        {"tool": "filesystem__search_files", "arguments": {"path": "finance", "pattern": "bills*"}},
        {"tool": "filesystem__read_text_file", "arguments": {"path": PATH}},
        {"tool": "gmail__search_emails", "arguments": search},
        *reads,
        *threads,
        {"tool": "filesystem__edit_file", "arguments": edit},
        {"tool": "filesystem__read_text_file", "arguments": {"path": PATH}},
        *replies,
    ]
    edit_call = {"tool": "filesystem__edit_file", "arguments": edit}
    return {
        "bills": ", ".join(b.number for b in missing),
        "big": ", ".join(b.number for b in big),
        "controller": controller,
        "patch": [{"op": "replace", "in": ["files"], "id": PATH, "value": patched}],
        "gmail_patch": [{"op": "add", "in": ["messages"], "value": m} for m in acked],
        "reference": reference,
        "max_steps": budget(len(reference)),
        "success": {"all": clauses},
        "frame": [{"entity": "filesystem.file", "ids": [PATH], "fields": ["content"]},
                  {"entity": "gmail.message", "fields": ["label_ids"]},
                  {"entity": "gmail.draft", "change": ["create", "delete"]},
                  *allowed,
                  # A word to the controller about the bills is a harmless follow-up.
                  {"entity": "gmail.message", "change": ["create"], "where": {"to": [controller]}, "max": 2}],
        "look": [{"tool": "filesystem__edit_file", "arguments": {"path": PATH, "edits": [
            {"oldText": last, "newText": last + "\n" + "\n".join(_row(b, name[b.vendor]) for b in look)}]}},
            *replies],
        "look_why": f"records {name[first.vendor]}'s February bill {feb.number}, already in the file, "
                    f"instead of its March bill {first.number}",
        "damage_why": f"adds the bills and also marks {other.number} paid, which no source says",
        "collateral": [edit_call, {"tool": "filesystem__edit_file", "arguments": {
            "path": "finance/reports/close_2026-03.md", "edits": [{
                "oldText": "# Month-end close March 2026",
                "newText": f"# Month-end close March 2026\n\nPayables: bills {', '.join(b.number for b in missing)} added."}]}},
            *replies],
        "damage": [{"tool": "filesystem__write_file", "arguments": {"path": PATH, "content": damaged}}, *replies],
        "retry": [edit_call, edit_call, *replies],
        "rewrite": [{"tool": "filesystem__write_file", "arguments": {"path": PATH, "content": full}}, *replies],
        "plain": [edit_call, *(reply(b, []) for b in missing)],
        "inverse": [edit_call, *(reply(b, [] if b.amount >= THRESHOLD else [controller]) for b in missing)],
        "everyone": [edit_call, *(reply(b, [controller]) for b in missing)],
        "silent": [edit_call],
        "facts": {"examples": [(b.number, b.amount, status) for b, status in
                               ((b, "copied" if b.amount >= THRESHOLD else "-") for b in examples)],
                  "missing": [(b.number, b.amount) for b in missing]},
    }


def build() -> dict[str, Any]:
    """The template document."""
    return template(
        id=ID, version=2, servers=["filesystem", "gmail"], difficulty="medium", category="recovery",
        case_list=cases(case_of, want=10, level="medium"),
        task={
            "goal": ("Vendors emailed us their March bills, but our Q1 payables file on the drive is missing some "
                     "of them. Add the missing bills to it as open bills, recorded the way the file records the others, "
                     "and take care of them the way we did the other bills that came in this month."),
            "initial_state": {"filesystem": state("filesystem", "{{case.patch}}"),
                              "gmail": state("gmail", "{{case.gmail_patch}}")},
            "available_tools": ["filesystem__list_directory", "filesystem__directory_tree", "filesystem__search_files",
                                "filesystem__read_text_file", "filesystem__read_multiple_files",
                                "filesystem__get_file_info", "filesystem__write_file", "filesystem__edit_file",
                                "gmail__search_emails", "gmail__get_thread", "gmail__read_email",
                                "gmail__list_email_labels", "gmail__send_email"],
            "faults": [{"tool": "filesystem__edit_file", "on_call": 1, "kind": "timeout_after_commit"}],
            "max_steps": "{{case.max_steps}}",
            "timeout_s": 300,
            "frame": "{{case.frame}}",
            "success": "{{case.success}}",
            "reference_solution": "{{case.reference}}",
            "wrong_solutions": [
                {"why": "{{case.look_why}}", "kind": "lookalike", "calls": "{{case.look}}"},
                {"why": "adds and acknowledges the bills and also notes them in March's close report, which nobody "
                        "asked to change", "kind": "collateral", "calls": "{{case.collateral}}"},
                {"why": "{{case.damage_why}}", "kind": "other", "calls": "{{case.damage}}"},
                {"why": "retries the edit blindly after its timeout: the bills {{case.bills}} are recorded twice",
                 "kind": "other", "calls": "{{case.retry}}"},
                {"why": "acknowledges every bill as the snippets show, copying nobody: the reply to {{case.big}} "
                        "does not copy the Financial controller as the replies to this month's large bills did",
                 "kind": "other", "calls": "{{case.plain}}"},
                {"why": "copies the Financial controller on the replies to the smaller bills instead of on {{case.big}}",
                 "kind": "other", "calls": "{{case.inverse}}"},
                {"why": "adds the bills but acknowledges none of them, as every other bill this month was",
                 "kind": "other", "calls": "{{case.silent}}"},
            ],
            "alternative_solutions": [
                {"why": "rewrites the whole file with every bill in its place, then acknowledges the bills",
                 "calls": "{{case.rewrite}}"},
                {"why": "copies the Financial controller on every reply, the smaller bills' too (harmless)",
                 "calls": "{{case.everyone}}"},
            ],
        })
