"""Medium: invite the presenters to Thursday's reliability review, as the meeting's description says:
the commander of each SEV1 and SEV2 incident of the quarter.

The patch plants the review (Thursday 19 March 2026, with the head of Platform and one of the commanders
already invited) and last quarter's review, held in December (the lookalike: same title, its own
presenters). Who commanded each incident is in its Slack channel (the declaration); its severity in the
channel's purpose; SEV3 incidents and last quarter's are out. The calendar's attendee list is replaced
whole by an update: dropping a guest is damage."""

from __future__ import annotations

import hashlib
from typing import Any

from tasks_catalog.authoring.cross import budget, cases, org, template, world
from tasks_catalog.authoring.cross._x_t_eng import initial_state, judged_by_case, slack_world_channel

Q1 = ("2026-01-01", "2026-04-01")
Q4 = ("2025-10-01", "2026-01-01")
DESCRIPTION = ("Quarterly reliability review. Each SEV1 and SEV2 incident that started in the quarter, resolved or "
               "not, is presented by its incident commander; the head of Platform chairs.")


def _event_id(seed: int, what: str) -> str:
    """A Google-style event id (base32hex letters), fixed per seed."""
    digest = hashlib.sha256(f"x-t-reliability-review:{seed}:{what}".encode()).digest()
    alphabet = "0123456789abcdefghijklmnopqrstuv"
    return "".join(alphabet[b % 32] for b in digest[:26])


def case_of(seed: int) -> dict[str, Any] | None:
    company = org(seed)
    if any(i.started < Q1[0] <= (i.resolved or "9999") for i in company.incidents):
        return None  # an incident across the quarter's start: which quarter it belongs to would be arguable
    major = [i for i in company.incidents if i.severity in ("SEV1", "SEV2")]
    now = [i for i in major if Q1[0] <= i.started < Q1[1]]
    last = [i for i in major if Q4[0] <= i.started < Q4[1]]
    if not 2 <= len(now) <= 6 or not last:
        return None
    directory = {p["email"] for p in world("calendar", seed)["people"]}
    chair = company.employee(company.policy("on-call").owner)
    commanders: list[str] = []
    channels = []
    for incident in now:
        channel = slack_world_channel(seed, f"incident-{incident.number}")
        if channel is None:
            return None
        commander = company.employee(incident.commander)
        declared = next(m for m in channel["messages"] if m["text"].startswith("Declaring incident"))
        if declared["user"] != commander.slack_id or commander.email not in directory:
            return None  # a commander who left is not in the directory: nobody to invite
        channels.append(channel["id"])
        if commander.email not in commanders:
            commanders.append(commander.email)
    if chair.email in commanders or len(commanders) < 3:
        return None
    earlier = list(dict.fromkeys(company.employee(i.commander).email for i in last))
    invited = [chair.email, commanders[0]]
    missing = commanders[1:]
    review, december = _event_id(seed, "q1"), _event_id(seed, "q4")
    owner = company.owner.email
    patch = [
        {"op": "add", "in": ["events"], "value": {
            "id": december, "calendar_id": owner, "title": "Reliability review", "start": "2025-12-18T11:00",
            "end": "2025-12-18T12:00", "description": DESCRIPTION, "location": "",
            "attendees": [{"email": e, "response_status": "accepted"} for e in [chair.email, *earlier]],
            "status": "confirmed", "organizer": owner}},
        {"op": "add", "in": ["events"], "value": {
            "id": review, "calendar_id": owner, "title": "Reliability review", "start": "2026-03-19T11:00",
            "end": "2026-03-19T12:00", "description": DESCRIPTION, "location": "",
            "attendees": [{"email": e, "response_status": "accepted"} for e in invited],
            "status": "confirmed", "organizer": owner}},
    ]
    everyone = [*invited, *missing]
    update = {"tool": "calendar__update_event", "arguments": {"calendarId": owner, "eventId": review,
                                                             "attendees": everyone}}
    reference = [{"tool": "calendar__search_events", "arguments": {"query": "Reliability review"}},
                 {"tool": "slack__list_channels", "arguments": {"limit": 100}},
                 *[{"tool": "slack__get_channel_history", "arguments": {"channel_id": c}} for c in channels],
                 {"tool": "slack__get_users", "arguments": {"limit": 200}},
                 update]
    calls = len(reference)
    if not 5 <= calls <= 10:
        return None
    sev3 = next((company.employee(i.commander).email for i in company.incidents
                 if i.severity == "SEV3" and Q1[0] <= i.started < Q1[1]
                 and company.employee(i.commander).email not in everyone
                 and company.employee(i.commander).email in directory), None)
    if sev3 is None:
        return None
    return {
        "patch": patch,
        "max_steps": budget(calls),
        "frame": [{"entity": "calendar.event", "ids": [review], "fields": ["attendees"],
                   "values": {"attendees": {"add": missing, "key": "email"}}}],
        "success": {"all": [{"calendar.eventHasAttendee": {"event": review, "attendee": e}} for e in everyone]},
        "reference": reference,
        "wrong_lookalike": [{"tool": "calendar__update_event", "arguments": {
            "calendarId": owner, "eventId": december, "attendees": list(dict.fromkeys([chair.email, *earlier, *missing]))}}],
        "wrong_collateral": [update, {"tool": "calendar__update_event", "arguments": {
            "calendarId": owner, "eventId": review, "location": "Lisbon HQ"}}],
        "wrong_dropped": [{"tool": "calendar__update_event", "arguments": {
            "calendarId": owner, "eventId": review, "attendees": commanders}}],
        "wrong_sev3": [{"tool": "calendar__update_event", "arguments": {
            "calendarId": owner, "eventId": review, "attendees": [*everyone, sev3]}}],
        "alternative": [{"tool": "calendar__search_events", "arguments": {"query": "Reliability review",
                                                                          "timeMin": "2026-03-16T00:00"}},
                        {"tool": "calendar__get_event", "arguments": {"calendarId": owner, "eventId": review}},
                        {"tool": "slack__list_channels", "arguments": {"limit": 100}},
                        *[{"tool": "slack__get_channel_history", "arguments": {"channel_id": c, "limit": 3}}
                          for c in channels],
                        {"tool": "calendar__search_people", "arguments": {"query": missing[0].split("@")[0].split(".")[-1]}},
                        {"tool": "calendar__update_event", "arguments": {
                            "calendarId": owner, "eventId": review, "attendees": everyone[:3]}},
                        {"tool": "calendar__update_event", "arguments": {
                            "calendarId": owner, "eventId": review, "attendees": everyone}}],
    }


def build() -> dict[str, Any]:
    return template(
        id="x-t-reliability-review-presenters", version=1, servers=["calendar", "slack"], difficulty="medium",
        category="standard", case_list=cases(case_of),
        task={
            "goal": ("Thursday's reliability review still lacks most of its presenters. Invite the people its "
                     "description asks for, keeping everyone already invited."),
            "initial_state": initial_state(["calendar", "slack"], {"calendar": "{{case.patch}}"}),
            "available_tools": [
                "calendar__list_calendars", "calendar__list_events", "calendar__search_events", "calendar__get_event",
                "calendar__search_people", "calendar__get_freebusy", "calendar__update_event",
                "slack__list_channels", "slack__get_channel_history", "slack__search_messages", "slack__get_users",
                "slack__get_user_profile", "slack__post_message"],
            **judged_by_case(timeout_s=600),
            "wrong_solutions": [
                {"why": "invites the presenters to December's review of the same title", "kind": "lookalike",
                 "calls": "{{case.wrong_lookalike}}"},
                {"why": "invites the presenters, then also changes the meeting's location", "kind": "collateral",
                 "calls": "{{case.wrong_collateral}}"},
                {"why": "sets the attendee list to the commanders alone, dropping the chair", "kind": "other",
                 "calls": "{{case.wrong_dropped}}"},
                {"why": "also invites the commander of a SEV3 incident", "kind": "other", "calls": "{{case.wrong_sev3}}"},
            ],
            "alternative_solutions": [
                {"why": "opens the event, reads only the top of each channel, looks a presenter up in the calendar's "
                        "directory and adds them in two updates", "calls": "{{case.alternative}}"},
            ],
        })
