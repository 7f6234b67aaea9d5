"""Pieces the billing-side templates (``x_t_*`` modules) share: the worlds of a seed as the agent sees
them, the people and customers they name, and the planted messages those templates add.

Private to the ``x_t_`` modules (a leading underscore keeps it out of :func:`modules`); the facts are
read from the generated version-2 worlds, so a template never names what its tools cannot show.
"""

from __future__ import annotations

import hashlib
import random
from datetime import UTC, date, datetime, timedelta
from typing import Any

from tasks_catalog.authoring.cross import org, world, world_version

#: The tool lists a person doing billing work reaches for (read tools of every server included).
GMAIL_TOOLS = ["gmail__search_emails", "gmail__read_email", "gmail__get_thread", "gmail__send_email",
               "gmail__draft_email", "gmail__send_draft"]
STRIPE_READ = ["stripe__search_customers", "stripe__list_customers", "stripe__list_invoices",
               "stripe__search_invoices", "stripe__list_charges", "stripe__search_charges", "stripe__list_refunds"]
NOTION_READ = ["notion__search", "notion__retrieve_page", "notion__get_block_children", "notion__query_database",
               "notion__retrieve_database", "notion__list_users"]
SLACK_TOOLS = ["slack__list_channels", "slack__get_channel_history", "slack__get_thread_replies",
               "slack__search_messages", "slack__get_users", "slack__get_user_profile", "slack__post_message",
               "slack__reply_to_thread"]


def world_ref(server: str) -> dict[str, Any]:
    """A template's reference to the case's world of ``server`` (the patch is added by the caller)."""
    return {"generator": server, "version": world_version(server), "seed": "{{case.seed}}", "size": "default"}


def rng_for(name: str, seed: int) -> random.Random:
    """A generator for the values a template invents for one seed (a PO number, a time), stable across runs."""
    return random.Random(f"{name}:{seed}")


def hex_id(*parts: object, n: int = 16) -> str:
    """A stable hexadecimal id derived from ``parts`` (Gmail message ids, Slack-free ids)."""
    return hashlib.sha256("|".join(map(str, parts)).encode()).hexdigest()[:n]


def uuid_of(*parts: object) -> str:
    """A stable UUID-shaped id derived from ``parts`` (Notion blocks)."""
    h = hex_id(*parts, n=32)
    return f"{h[:8]}-{h[8:12]}-4{h[13:16]}-a{h[17:20]}-{h[20:32]}"


def unix(day_time: str) -> int:
    """Unix seconds of an ISO time in UTC (``2026-03-12T09:14:00``)."""
    return int(datetime.fromisoformat(day_time).replace(tzinfo=UTC).timestamp())


def weekdays(first: str, last: str) -> list[str]:
    """The working days (Monday to Friday) from ``first`` to ``last``, ISO dates, both included."""
    day, end, out = date.fromisoformat(first), date.fromisoformat(last), []
    while day <= end:
        if day.weekday() < 5:
            out.append(day.isoformat())
        day += timedelta(days=1)
    return out


def slack_ts(day: str, hour: int, minute: int, *key: object) -> str:
    """A Slack ts on ``day`` at the UTC time given, with microseconds derived from ``key`` (stable across runs)."""
    return f"{unix(f'{day}T{hour:02d}:{minute:02d}:00')}.{int(hex_id(*key, n=5), 16) % 1_000_000:06d}"


def money(amount: int, currency: str) -> str:
    """An amount in the smallest unit as people write it (``1,075.00 EUR``)."""
    if currency.lower() == "jpy":
        return f"{amount:,} JPY"
    return f"{amount / 100:,.2f} {currency.upper()}"


def stripe_customer(seed: int, customer_id: str) -> dict[str, Any]:
    """The Stripe customer ``customer_id`` of the seed's world."""
    return next(c for c in world("stripe", seed)["customers"] if c["id"] == customer_id)


def gmail_message(*, seed: int, key: str, sender: str, subject: str, body: str, date: str,
                  to: str = "priya.raman@kestrelfreight.com") -> dict[str, Any]:
    """A received message for a Gmail patch: in the inbox, unread, with a stable id of its own."""
    mid = hex_id("x-t-billing", key, seed)
    taken = {m["id"] for m in world("gmail", seed)["messages"]}
    if mid in taken:
        raise ValueError(f"planted message id {mid} already in gmail world {seed}")
    return {"id": mid, "thread_id": mid, "sender": sender, "to": [to], "cc": [], "subject": subject, "body": body,
            "date": date, "label_ids": ["INBOX", "UNREAD", "CATEGORY_PERSONAL"]}


def slack_channel(seed: int, name: str) -> dict[str, Any]:
    """The Slack channel called ``name`` in the seed's world."""
    return next(c for c in world("slack", seed)["channels"] if c["name"] == name)


def slack_user(seed: int, email: str) -> dict[str, Any]:
    """The Slack user with ``email`` in the seed's world."""
    return next(u for u in world("slack", seed)["users"] if u.get("email") == email)


def notion_page(seed: int, title: str) -> dict[str, Any]:
    """The one live Notion page titled ``title`` in the seed's world."""
    found = [p for p in world("notion", seed)["pages"] if p["title"] == title and not p.get("archived")]
    if len(found) != 1:
        raise ValueError(f"{len(found)} live notion pages titled {title!r} in world {seed}")
    return found[0]


def finance_approvers(seed: int) -> list:
    """The finance approvers working here today (employees flagged ``finance-approver``), in org order."""
    return [e for e in org(seed).employees if "finance-approver" in e.flags and e.employed_on("2026-03-16")]


def approvers_paragraph(seed: int, key: str, approvers: list, extra: str = "") -> dict[str, Any]:
    """A Notion patch adding to the refund policy the paragraph that names its finance approvers (the policy
    says "a finance approver" and the world names none), then ``extra``."""
    page = notion_page(seed, "Refund and service credit policy")
    names = " and ".join(f"{e.first} {e.last} ({e.title.lower()})" for e in approvers)
    text = f"Finance approvers: {names}. An approval counts when one of them gives it in writing." + extra
    return {"op": "add", "in": ["pages", page["id"], "content"],
            "value": {"id": uuid_of(key, "approvers", seed), "type": "paragraph", "text": text}}


def case_task(goal: str, servers: list[str], tools: list[str], faults: list[dict], timeout_s: int,
              patched: tuple[str, ...]) -> dict[str, Any]:
    """A task body whose judgement is all per case: ``case.frame``, ``case.success`` (clauses under ``all``),
    ``case.reference``, ``case.wrongs``, ``case.alternatives``, ``case.max_steps``; each server's world
    patched by ``case.<server>_patch`` for the servers in ``patched``, the others as generated."""
    return {
        "goal": goal,
        "initial_state": {s: {"world": world_ref(s), "patch": f"{{{{case.{s}_patch}}}}" if s in patched else []}
                          for s in servers},
        "available_tools": tools,
        "faults": faults,
        "max_steps": "{{case.max_steps}}",
        "timeout_s": timeout_s,
        "frame": "{{case.frame}}",
        "success": {"all": "{{case.success}}"},
        "reference_solution": "{{case.reference}}",
        "wrong_solutions": "{{case.wrongs}}",
        "alternative_solutions": "{{case.alternatives}}",
    }
