"""What both versions of the Notion world are built with: ids drawn from the world's generator, random
dates, and a builder that stores pages, databases and rows with their content blocks."""

from __future__ import annotations

import random
from typing import Any

from servers.kit.worldtext import POOLS, Words, fill

#: The months of the close checklists and invoices; the pages of the customer success space.
MONTHS = ("October 2025", "November 2025", "December 2025", "January 2026", "February 2026", "March 2026")
SUCCESS_PAGES = ("Escalation process", "Renewal playbook", "QBR template", "Churn review checklist", "Support macros",
                 "Customer health score")


BLOCK_TEXT = (
    "Owner: {person}. Review due {day}.", "Context: {customer} asked about {service} twice this quarter.",
    "Decision: we keep {service} in {region} until the migration is done.", "Open question: who owns the {project} budget?",
    "Risk: {pct}% of shipments depend on {service}.", "Next step: {person} drafts the plan by {day}.",
    "Numbers: {n} customers affected, {amount} EUR at stake.", "Link to the Slack thread in the project channel.",
)


#: What ``uuid.UUID(int=..., version=4)`` clears and sets: the variant (RFC 4122) and the version (4).
_UUID4_CLEAR = ~((0xC000 << 48) | (0xF000 << 64))
_UUID4_SET = (0x8000 << 48) | (4 << 76)


def uuid4_text(bits: int) -> str:
    """``str(uuid.UUID(int=bits, version=4))``, without building the object (a workspace draws thousands)."""
    h = f"{(bits & _UUID4_CLEAR) | _UUID4_SET:032x}"
    return f"{h[:8]}-{h[8:12]}-{h[12:16]}-{h[16:20]}-{h[20:]}"


def _ids(rng: random.Random) -> Any:
    def new() -> str:
        return uuid4_text(rng.getrandbits(128))
    return new


_MONTHS_BETWEEN: dict[tuple[tuple[int, int], tuple[int, int]], list[tuple[int, int]]] = {}


def random_date(rng: random.Random, start: tuple[int, int], end: tuple[int, int]) -> str:
    """A random day from (year, month) ``start`` to the 28th of ``end``."""
    months = _MONTHS_BETWEEN.get((start, end))
    if months is None:
        months = _MONTHS_BETWEEN[start, end] = [(y, m) for y in range(start[0], end[0] + 1) for m in range(1, 13)
                                                if start <= (y, m) <= end]
    year, month = rng.choice(months)
    return f"{year}-{month:02d}-{rng.randint(1, 28):02d}"


class Builder:
    """The pages, databases and rows of a workspace being built; content blocks are filled from
    ``words`` and name people of ``names``."""

    def __init__(self, rng: random.Random, words: Words = POOLS) -> None:
        self.rng = rng
        self.words = words
        self.new_id = _ids(rng)
        self.pages: list[dict[str, Any]] = []
        self.databases: list[dict[str, Any]] = []
        self.names: list[str] = []

    def blocks(self, texts: list[tuple[str, str]] | None = None, n: int = 0) -> list[dict[str, Any]]:
        rng = self.rng
        out = []
        for kind, text in texts or []:
            out.append({"id": self.new_id(), "type": kind, "text": text, **({"checked": False} if kind == "to_do" else {})})
        for _ in range(n):
            kind = rng.choice(("paragraph", "paragraph", "bulleted_list_item", "to_do", "heading_2"))
            text = fill(rng, rng.choice(BLOCK_TEXT), self.words, person=rng.choice(self.names))
            block = {"id": self.new_id(), "type": kind, "text": text}
            if kind == "to_do":
                block["checked"] = rng.random() < 0.6
            out.append(block)
        return out

    def page(self, title: str, parent: str | None, *, n: int = 3, texts: list[tuple[str, str]] | None = None,
             archived: bool = False, when: str | None = None) -> str:
        pid = self.new_id()
        self.pages.append({"id": pid, "title": title, "parent_id": parent, "properties": {},
                           "content": self.blocks(texts, n), "archived": archived,
                           "created_time": when or f"{random_date(self.rng, (2025, 1), (2026, 2))}T{self.rng.randint(7, 18):02d}:"
                                                   f"{self.rng.randint(0, 59):02d}:00Z"})
        return pid

    def back_office(self, sales: str, depth: int) -> tuple[str, str]:
        """The sales playbook, the customer success space and finance with its close checklists, each page
        with about ``depth`` blocks; returns the finance and procurement pages."""
        self.page("Sales Playbook", sales, n=depth + 1)
        success = self.page("Customer Success", None, n=2)
        for title in SUCCESS_PAGES:
            self.page(title, success, n=depth)
        finance = self.page("Finance", None, n=2)
        close = self.page("Month-end Close", finance, n=1)
        for month in MONTHS:
            self.page(f"Close checklist: {month}", close, n=depth + 1)
        return finance, self.page("Procurement", finance, n=2)

    def database(self, title: str, parent: str, properties: dict[str, Any]) -> str:
        did = self.new_id()
        self.databases.append({"id": did, "title": title, "parent_id": parent, "properties": properties,
                               "archived": False})
        return did

    def row(self, database: str, title: str, values: dict[str, Any], *, archived: bool = False, n: int = 0,
            when: str | None = None, texts: list[tuple[str, str]] | None = None) -> str:
        pid = self.new_id()
        self.pages.append({"id": pid, "title": title, "parent_id": database, "properties": values,
                           "content": self.blocks(texts, n), "archived": archived,
                           "created_time": when or f"{random_date(self.rng, (2025, 6), (2026, 3))}T{self.rng.randint(7, 18):02d}:00:00Z"})
        return pid


def options(*names: str) -> dict[str, Any]:
    return {"options": list(names)}


def account_properties(**more: Any) -> dict[str, Any]:
    """The Customer Accounts database's columns (the CRM), and ``more`` after them."""
    return {
        "Account": {"type": "title"},
        "Status": {"type": "status", **options("Prospect", "Onboarding", "Active", "At risk", "Churned")},
        "Plan": {"type": "select", **options("Starter", "Growth", "Scale", "Enterprise")},
        "Owner": {"type": "people"}, "Renewal date": {"type": "date"}, "ARR": {"type": "number"},
        "Region": {"type": "select", **options("EMEA", "North America", "APAC")},
        "Billing email": {"type": "email"}, **more,
    }


def task_properties(projects: str) -> dict[str, Any]:
    """The Engineering Tasks database's columns; ``projects`` is the Projects database it relates to."""
    return {
        "Task": {"type": "title"},
        "Status": {"type": "status", **options("Backlog", "Todo", "In progress", "In review", "Done")},
        "Assignee": {"type": "people"}, "Priority": {"type": "select", **options("P0", "P1", "P2", "P3")},
        "Due": {"type": "date"}, "Project": {"type": "relation", "database_id": projects},
        "Tags": {"type": "multi_select", **options("backend", "frontend", "infra", "data", "security", "bug")},
    }


__all__ = ["BLOCK_TEXT", "Builder", "MONTHS", "SUCCESS_PAGES", "account_properties", "options", "random_date",
           "task_properties"]
