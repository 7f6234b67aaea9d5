"""x-t-payables-march-bills (medium, recovery): some of the bills vendors emailed in March are missing
from the Q1 payables file on the drive; add them as the file records the others. The edit answers a
timeout although it applied, so a blind retry records a bill twice."""

from __future__ import annotations

import random
from typing import Any

from tasks_catalog.authoring.cross import budget, cases, org, template, world
from tasks_catalog.authoring.cross import world_state as state
from tasks_catalog.authoring.cross._x_t_data import rx

ID = "x-t-payables-march-bills"
PATH = "finance/payables/bills_2026-Q1.csv"


def _row(b, vendor: str) -> str:
    """A bill's line as the payables file writes it."""
    return f'{b.number},"{vendor}",{b.amount / 100:.2f},{b.issued},{b.due},{b.status},{b.paid_on or ""}'


def _row_pattern(b, vendor: str) -> str:
    """What a line recording open bill ``b`` must say: its number, vendor, amount, some issue date, its due date,
    open and no payment date (quotes around the vendor optional)."""
    amount = f"{b.amount // 100}(\\.{b.amount % 100:02d})?" if b.amount % 100 else f"{b.amount // 100}(\\.00)?"
    return (f"(^|\\n){rx(b.number)},\"?{rx(vendor)}\"?,{amount},[0-9]{{4}}-[0-9]{{2}}-[0-9]{{2}},"
            f"{rx(b.due)},(open),?\\r?(\\n|$)")


def case_of(seed: int) -> dict[str, Any] | None:
    """The case of ``seed``: two or three open March bills, not yet due, taken out of the payables file."""
    o = org(seed)
    text = world("filesystem", seed)["files"].get(PATH)
    if text is None:
        return None
    today = o.now[:10]
    lines = text.rstrip("\n").split("\n")
    name = {v.key: v.name for v in o.vendors}
    march = [b for b in o.bills if b.issued >= "2026-03-01" and b.status == "open" and b.due > today]
    if len(march) < 3 or any(_row(b, name[b.vendor]) not in lines for b in o.bills):
        return None
    # Every bill's email must be in the mailbox, or the bill cannot be found there.
    subjects = {m["subject"] for m in world("gmail", seed)["messages"]}
    if any(f"Invoice {b.number} from {name[b.vendor]}" not in subjects for b in march):
        return None
    rng = random.Random(f"{ID}:{seed}")
    missing = sorted(rng.sample(march, 3 if len(march) >= 5 else 2), key=lambda b: b.number)
    missing_lines = {_row(b, name[b.vendor]) for b in missing}
    kept = [line for line in lines if line not in missing_lines]
    patched = "\n".join(kept) + "\n"
    last = kept[-1]
    added = "\n".join(_row(b, name[b.vendor]) for b in missing)
    full = "\n".join(lines) + "\n"
    # The lookalike: the same vendor's bill of February, already in the file, recorded again instead.
    first = missing[0]
    feb = [b for b in o.bills if b.vendor == first.vendor and b.issued[:7] == "2026-02"]
    if not feb:
        return None
    look = [feb[0] if b is first else b for b in missing]
    # The damage: an existing open bill marked paid beside the additions.
    other = next((b for b in o.bills if b.status in ("open", "overdue") and b not in missing), None)
    if other is None:
        return None
    damaged = full.replace(_row(other, name[other.vendor]),
                           _row(other, name[other.vendor]).replace(f",{other.status},", ",paid,") + today)
    edit = {"path": PATH, "edits": [{"oldText": last, "newText": last + "\n" + added}]}
    search = {"query": "subject:invoice after:2026/03/01 before:2026/03/17", "maxResults": 50}
    mails = {m["subject"]: m["id"] for m in world("gmail", seed)["messages"]}
    reads = [{"tool": "gmail__read_email",
              "arguments": {"messageId": mails[f"Invoice {b.number} from {name[b.vendor]}"]}} for b in missing]
    clauses: list[dict[str, Any]] = [{"filesystem.fileContentMatches": {"path": PATH, "pattern": _row_pattern(b, name[b.vendor])}}
               for b in missing]
    clauses += [{"not": {"filesystem.fileContentMatches": {
        "path": PATH, "pattern": f"{rx(b.number)},(.|\\n)*{rx(b.number)},"}}} for b in missing]
    # No line already in the file may be lost or altered.
    clauses.append({"not": {"any": [
        {"not": {"filesystem.fileContentMatches": {"path": PATH, "pattern": f"(^|\\n){rx(line)}\\r?(\\n|$)"}}}
        for line in kept]}})
    reference = [
        {"tool": "filesystem__search_files", "arguments": {"path": "finance", "pattern": "bills*"}},
        {"tool": "filesystem__read_text_file", "arguments": {"path": PATH}},
        {"tool": "gmail__search_emails", "arguments": search},
        *reads,
        {"tool": "filesystem__edit_file", "arguments": edit},
        {"tool": "filesystem__read_text_file", "arguments": {"path": PATH}},
    ]
    return {
        "bills": ", ".join(b.number for b in missing),
        "patch": [{"op": "replace", "in": ["files"], "id": PATH, "value": patched}],
        "reference": reference,
        "max_steps": budget(len(reference)),
        "success": {"all": clauses},
        "edit": edit,
        "full": full,
        "look": {"path": PATH, "edits": [{"oldText": last, "newText": last + "\n" + "\n".join(
            _row(b, name[b.vendor]) for b in look)}]},
        "look_why": f"records {name[first.vendor]}'s February bill {feb[0].number}, already in the file, "
                    f"instead of its March bill {first.number}",
        "damaged": damaged,
        "damage_why": f"adds the bills and also marks {other.number} paid, which no source says",
    }


def build() -> dict[str, Any]:
    """The template document."""
    return template(
        id=ID, version=1, servers=["filesystem", "gmail"], difficulty="medium", category="recovery",
        case_list=cases(case_of),
        task={
            "goal": ("Vendors emailed us their March bills, but our Q1 payables file on the drive is missing some "
                     "of them. Add the missing bills to it as open bills, recorded the way the file records the others."),
            "initial_state": {"filesystem": state("filesystem", "{{case.patch}}"), "gmail": state("gmail")},
            "available_tools": ["filesystem__list_directory", "filesystem__directory_tree", "filesystem__search_files",
                                "filesystem__read_text_file", "filesystem__read_multiple_files",
                                "filesystem__get_file_info", "filesystem__write_file", "filesystem__edit_file",
                                "gmail__search_emails", "gmail__get_thread", "gmail__read_email",
                                "gmail__list_email_labels", "gmail__send_email"],
            "faults": [{"tool": "filesystem__edit_file", "on_call": 1, "kind": "timeout_after_commit"}],
            "max_steps": "{{case.max_steps}}",
            "timeout_s": 300,
            "frame": [{"entity": "filesystem.file", "ids": [PATH], "fields": ["content"]}],
            "success": "{{case.success}}",
            "reference_solution": "{{case.reference}}",
            "wrong_solutions": [
                {"why": "{{case.look_why}}", "kind": "lookalike",
                 "calls": [{"tool": "filesystem__edit_file", "arguments": "{{case.look}}"}]},
                {"why": "adds the bills and also notes them in March's close report, which nobody asked to change",
                 "kind": "collateral",
                 "calls": [{"tool": "filesystem__edit_file", "arguments": "{{case.edit}}"},
                           {"tool": "filesystem__edit_file", "arguments": {
                               "path": "finance/reports/close_2026-03.md",
                               "edits": [{"oldText": "# Month-end close March 2026",
                                          "newText": "# Month-end close March 2026\n\nPayables: bills {{case.bills}} added."}]}}]},
                {"why": "{{case.damage_why}}", "kind": "other",
                 "calls": [{"tool": "filesystem__write_file", "arguments": {"path": PATH, "content": "{{case.damaged}}"}}]},
                {"why": "retries the edit blindly after its timeout: the bills {{case.bills}} are recorded twice",
                 "kind": "other",
                 "calls": [{"tool": "filesystem__edit_file", "arguments": "{{case.edit}}"},
                           {"tool": "filesystem__edit_file", "arguments": "{{case.edit}}"}]},
            ],
            "alternative_solutions": [
                {"why": "rewrites the whole file with every bill in its place",
                 "calls": [{"tool": "filesystem__write_file", "arguments": {"path": PATH, "content": "{{case.full}}"}}]},
            ],
        })

