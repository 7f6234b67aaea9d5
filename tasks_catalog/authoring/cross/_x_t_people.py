"""What the people and operations templates (``x_t_*`` modules: leave cover, leaver issues, one-on-one,
trip, hotel offers) share: the calendar's tools on a seed's world, a call, a case's layout (``solved``) and
the task body every case fills in (``people_template``). Private to those modules."""

from __future__ import annotations

from datetime import date
from typing import Any

from servers.calendar import CalendarState, CalendarTools
from tasks_catalog.authoring.cross import budget, cases, template, world, world_state

PRIMARY = "priya.raman@kestrelfreight.com"


def calendar_tools(seed: int) -> CalendarTools:
    """The calendar server's tools on a fresh copy of the seed's world (to read what an agent would see)."""
    return CalendarTools(CalendarState.model_validate(world("calendar", seed)))



def call(tool: str, **arguments: Any) -> dict[str, Any]:
    return {"tool": tool, "arguments": arguments}



def local(moment: dict[str, Any]) -> str:
    """A listed event's start or end as the calendar stores it (``2026-03-30T11:30`` or ``2026-03-30``)."""
    return moment["dateTime"][:16] if "dateTime" in moment else moment["date"]



def slack_channel(seed: int, name: str) -> str:
    return next(c["id"] for c in world("slack", seed)["channels"] if c["name"] == name)



def notion_page(seed: int, title: str) -> dict[str, Any]:
    return next(p for p in world("notion", seed)["pages"] if p["title"] == title)



def long_date(day: str) -> str:
    d = date.fromisoformat(day)
    return f"{d.strftime('%A')} {d.day} {d.strftime('%B')}"



def stored_exception(series: Any, item: dict[str, Any]) -> dict[str, Any]:
    """An occurrence of ``series`` (a stored event) as an exception that changes nothing, as the calendar
    stores one when an occurrence is edited."""
    fields = series.model_dump(exclude={"recurrence"}, exclude_none=True)
    start = local(item["start"])
    return fields | {"id": item["id"], "start": start, "end": local(item["end"]), "recurring_event_id": series.id,
                     "original_start": local(item["originalStartTime"])}






def solved(*, patch: dict[str, list], frame: list, success: dict, reference: list, wrong: list, alternatives: list,
           faults: list | None = None, retried: int = 0, **facts: Any) -> dict[str, Any]:
    """A case: the world's ``facts`` the goal names, then each server's patch, the faults (when the case
    decides them), the frame, the predicate, the solutions and the budget the gate allows (``retried``: the
    failed attempts the faults force on the reference)."""
    return {**facts, "patch": patch, **({"faults": faults} if faults is not None else {}), "frame": frame,
            "success": success, "reference": reference, "wrong": wrong, "alternatives": alternatives,
            "max_steps": budget(len(reference), retried)}



def people_template(*, id: str, servers: list[str], difficulty: str, category: str, case_of, goal: str,
                    tools: list[str], timeout_s: int) -> dict[str, Any]:
    """A template of the people and operations side: version 1, its cases found by ``case_of`` over the
    organisation's seeds, its task written by :func:`body` (a recovery template's faults are its case's)."""
    faults = "{{case.faults}}" if category == "recovery" else ()
    return template(id=id, version=1, servers=servers, difficulty=difficulty, category=category,
                    case_list=cases(case_of, level=difficulty),
                    task=body(goal, servers, tools, timeout_s=timeout_s, faults=faults))



def body(goal: str, servers: list[str], tools: list[str], *, timeout_s: int, faults: Any = ()) -> dict[str, Any]:
    """A template's task: ``goal``, each server's world of the case's seed with its patch, ``tools``, and
    the case's budget, frame, predicate and solutions; ``faults`` fixed, or ``"{{case.faults}}"``."""
    return {"goal": goal, "initial_state": {server: world_state(server, f"{{{{case.patch.{server}}}}}") for server in servers},
            "faults": faults if isinstance(faults, str) else list(faults), "available_tools": tools,
            "max_steps": "{{case.max_steps}}", "timeout_s": timeout_s, "frame": "{{case.frame}}",
            "success": "{{case.success}}", "reference_solution": "{{case.reference}}",
            "wrong_solutions": "{{case.wrong}}", "alternative_solutions": "{{case.alternatives}}"}
