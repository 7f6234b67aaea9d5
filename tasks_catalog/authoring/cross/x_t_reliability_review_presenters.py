"""Medium: invite the presenters to Thursday's reliability review, as the meeting's description says (the
commander of each SEV1 and SEV2 incident of the quarter) and as the team did for December's review.

The patch plants the review (Thursday 19 March 2026, with the head of Platform and one presenter already
invited) and last quarter's review, held on 30 December (the lookalike: same title, its own presenters).
Which incidents count is in Slack: the severity in each incident channel's purpose and declaration; SEV3
incidents and last quarter's are out. The calendar's attendee list is replaced whole by an update: dropping
a guest is damage.

What the description leaves open, the team's past work decides. Every incident's declaration ("Declaring
incident ... I am the incident commander") has one thread reply, which the channel history counts alike on
every declaration: a status note by the declaring commander, or, for some incidents, the declaring
commander handing command to the engineer who then resolved it. December's review invited, for a handed-over
incident, the engineer who took command and not the one who declared it: seen only by opening the
declarations' threads of last quarter's presented incidents (:data:`PRESENTER_READINGS`, asserted per case).
This quarter, one or two of the incidents to present were handed over, so the declaration's author is not
the presenter; reading the declarations alone invites the wrong person."""

from __future__ import annotations

import hashlib
from typing import Any

from tasks_catalog.authoring.cross import budget, cases, org, template, world
from tasks_catalog.authoring.cross._x_t_eng import initial_state, judged_by_case, slack_world_channel
from tasks_catalog.authoring.cross._x_t_readings import Always, FlaggedWhen, left_open

Q1 = ("2026-01-01", "2026-04-01")
Q4 = ("2025-10-01", "2026-01-01")
#: December's review is held after the last incident of the quarter it reviews.
DECEMBER = "2025-12-30"
DESCRIPTION = ("Quarterly reliability review. Each SEV1 and SEV2 incident that started in the quarter, resolved or "
               "not, is presented by its incident commander; the head of Platform chairs.")
#: The declaring commander's reply in the thread of an incident not handed over.
STATUS_NOTE = "Status page updated; I will post updates here every 30 minutes."
#: Up to this many incidents of each quarter are handed over (at least one of each quarter is not).
HANDED_OVER = 2

#: Readings of who presents a past incident (the example's ``declarer_presents``: whether December's review
#: invited the commander who declared it). The habit: the declarer presents unless command was handed over.
PRESENTER_READINGS: dict[str, Any] = {
    "the declaring commander presents, handed over or not": Always(True, flag="declarer_presents"),
    "someone other than the declaring commander presents": Always(False, flag="declarer_presents"),
    "the declaring commander presents incidents of some severities": FlaggedWhen("severity", flag="declarer_presents"),
    "the declaring commander presents resolved incidents": FlaggedWhen("resolved", flag="declarer_presents"),
}

#: The reading that the engineer who diagnosed an incident (who takes command when it is handed over)
#: presents it: ruled out by an example not handed over whose diagnosing engineer was not invited.
DIAGNOSER_READINGS: dict[str, Any] = {
    "the engineer who diagnosed the incident presents": Always(True, flag="diagnoser_presents"),
}


def _event_id(seed: int, what: str) -> str:
    """A Google-style event id (base32hex letters), fixed per seed."""
    digest = hashlib.sha256(f"x-t-reliability-review:{seed}:{what}".encode()).digest()
    alphabet = "0123456789abcdefghijklmnopqrstuv"
    return "".join(alphabet[b % 32] for b in digest[:26])


def _later(ts: str, seconds: int) -> str:
    """A Slack ts ``seconds`` after ``ts`` (same fraction)."""
    whole, _, fraction = ts.partition(".")
    return f"{int(whole) + seconds}.{fraction}"


def _incident(seed: int, incident: Any, company: Any) -> dict[str, Any] | None:
    """An incident's channel as the case reads it: the declaration, the engineer who diagnosed it (who takes
    command when it is handed over) and its last message (resolved or monitoring)."""
    channel = slack_world_channel(seed, f"incident-{incident.number}")
    if channel is None:
        return None
    top = [m for m in channel["messages"] if m.get("thread_ts") is None]
    declared = next((m for m in top if m["text"].startswith("Declaring incident")), None)
    diagnosis = next((m for m in top if m["text"].startswith("Looks like")), None)
    last = top[-1]
    commander = company.employee(incident.commander)
    if declared is None or diagnosis is None or declared["user"] != commander.slack_id or last is declared:
        return None
    if any(m.get("thread_ts") for m in channel["messages"]):
        return None  # the world's own threads would count unlike the planted ones
    return {"number": incident.number, "severity": incident.severity, "channel": channel["id"],
            "declared": declared, "diagnosis": diagnosis, "last": last, "resolved": incident.resolved is not None,
            "declarer": commander.email}


def _handover_candidates(items: list[dict[str, Any]], emails: dict[str, str], chair: str,
                         directory: set[str]) -> list[dict[str, Any]]:
    """The incidents that can be handed over without blurring the evidence: the declarer is not the chair (who
    is invited anyway) and commands no other incident of the list, and the one taking over (the diagnosing
    engineer) commands none, is not the chair, is in the directory and is someone else."""
    out = []
    declarers = [i["declarer"] for i in items]
    for item in items:
        taker = emails.get(item["diagnosis"]["user"])
        if (taker is None or taker in declarers or chair in (taker, item["declarer"]) or taker not in directory
                or declarers.count(item["declarer"]) > 1):
            continue
        out.append({**item, "taker": taker})
    return out


def _patch_channel(item: dict[str, Any], handed: dict[str, Any] | None, slack_ids: dict[str, str]) -> list[dict[str, Any]]:
    """The thread reply under the incident's declaration (a status note, or the handover) and, when handed
    over, the last message posted by the one who took command."""
    declared, where = item["declared"], ["channels", item["channel"], "messages"]
    if handed is None:
        return [{"op": "add", "in": where, "value": {"ts": _later(declared["ts"], 120), "user": declared["user"],
                                                      "text": STATUS_NOTE, "thread_ts": declared["ts"]}}]
    taker = slack_ids[handed["taker"]]
    return [{"op": "add", "in": where, "value": {
                "ts": _later(item["diagnosis"]["ts"], 60), "user": declared["user"], "thread_ts": declared["ts"],
                "text": f"Handing over: <@{taker}> is in command from here, I am off shift."}},
            {"op": "update", "in": where, "id": item["last"]["ts"], "fields": {"user": taker}}]


def case_of(seed: int) -> dict[str, Any] | None:
    company = org(seed)
    if any(i.started < Q1[0] <= (i.resolved or "9999") for i in company.incidents):
        return None  # an incident across the quarter's start: which quarter it belongs to would be arguable
    major = [i for i in company.incidents if i.severity in ("SEV1", "SEV2")]
    now = [i for i in major if Q1[0] <= i.started < Q1[1]]
    last = [i for i in major if Q4[0] <= i.started < Q4[1]]
    if not 2 <= len(now) <= 6 or len(last) < 2 or any(i.started >= DECEMBER for i in last):
        return None
    directory = {p["email"] for p in world("calendar", seed)["people"]}
    users = [u for u in world("slack", seed)["users"] if u.get("email") and not u.get("deleted")]
    emails = {u["id"]: u["email"] for u in users}
    slack_ids = {u["email"]: u["id"] for u in users}
    chair = company.employee(company.policy("on-call").owner).email
    incidents = {}
    for incident in company.incidents:
        read = _incident(seed, incident, company)
        if read is None:
            return None
        incidents[incident.number] = read
    items = [incidents[i.number] for i in now]
    examples = [incidents[i.number] for i in last]
    if any(i["declarer"] not in directory for i in items + examples):
        return None  # a commander who left is not in the directory: nobody to invite
    q1_handed = _handover_candidates(items, emails, chair, directory)[:1 if len(items) <= 3 else HANDED_OVER]
    q4_handed = _handover_candidates(examples, emails, chair, directory)[:HANDED_OVER]
    if not q1_handed or len(q1_handed) == len(items) or len(q4_handed) < HANDED_OVER or len(examples) < 4:
        return None  # two handed-over examples among four or five, and a new item of each kind
    handed = {h["number"]: h for h in [*q1_handed, *q4_handed]}

    def presenter(item: dict[str, Any]) -> str:
        return handed[item["number"]]["taker"] if item["number"] in handed else item["declarer"]

    presenters = list(dict.fromkeys(presenter(i) for i in items))
    earlier = list(dict.fromkeys(presenter(i) for i in examples))
    first = next(i for i in items if i["number"] not in handed)
    if chair in presenters or chair in earlier or len(presenters) < 3:
        return None
    # the habit, its readings and the examples that rule each out
    facts = [{"number": i["number"], "severity": i["severity"], "resolved": i["resolved"],
              "handover": i["number"] in handed, "declarer_presents": i["declarer"] in earlier,
              "diagnoser_presents": emails.get(i["diagnosis"]["user"]) in earlier}
             for i in examples]
    if any(f["declarer_presents"] == f["handover"] for f in facts):
        raise ValueError(f"seed {seed}: December's review does not follow the habit")
    new = [{"severity": i["severity"], "resolved": i["resolved"], "handover": i["number"] in handed,
            "diagnosed_by_declarer": emails.get(i["diagnosis"]["user"]) == i["declarer"]} for i in items]
    if left_open(PRESENTER_READINGS, facts, new, lambda i: not i["handover"]):
        return None
    if left_open(DIAGNOSER_READINGS, facts, new, lambda i: i["handover"] or i["diagnosed_by_declarer"]):
        return None
    invited = [chair, presenter(first)]
    missing = [p for p in presenters if p not in invited]
    review, december = _event_id(seed, "q1"), _event_id(seed, "q4")
    owner = company.owner.email
    patch_calendar = [
        {"op": "add", "in": ["events"], "value": {
            "id": december, "calendar_id": owner, "title": "Reliability review", "start": f"{DECEMBER}T11:00",
            "end": f"{DECEMBER}T12:00", "description": DESCRIPTION, "location": "",
            "attendees": [{"email": e, "response_status": "accepted"} for e in [chair, *earlier]],
            "status": "confirmed", "organizer": owner}},
        {"op": "add", "in": ["events"], "value": {
            "id": review, "calendar_id": owner, "title": "Reliability review", "start": "2026-03-19T11:00",
            "end": "2026-03-19T12:00", "description": DESCRIPTION, "location": "",
            "attendees": [{"email": e, "response_status": "accepted"} for e in invited],
            "status": "confirmed", "organizer": owner}},
    ]
    patch_slack = [op for i in incidents.values() for op in _patch_channel(i, handed.get(i["number"]), slack_ids)]
    everyone = [*invited, *missing]
    update = {"tool": "calendar__update_event", "arguments": {"calendarId": owner, "eventId": review,
                                                             "attendees": everyone}}
    threads = [{"tool": "slack__get_thread_replies", "arguments": {"channel_id": i["channel"],
                                                                   "thread_ts": i["declared"]["ts"]}}
               for i in [*examples, *items]]
    reference = [{"tool": "calendar__search_events", "arguments": {"query": "Reliability review"}},
                 {"tool": "slack__list_channels", "arguments": {"limit": 100}},
                 *[c for i, t in zip([*examples, *items], threads, strict=True) for c in (
                     {"tool": "slack__get_channel_history", "arguments": {"channel_id": i["channel"]}}, t)],
                 {"tool": "slack__get_users", "arguments": {"limit": 200}},
                 update]
    calls = len(reference)
    if not 5 <= calls <= 24:
        return None
    sev3 = next((company.employee(i.commander).email for i in company.incidents
                 if i.severity == "SEV3" and Q1[0] <= i.started < Q1[1]
                 and company.employee(i.commander).email not in everyone
                 and company.employee(i.commander).email in directory), None)
    if sev3 is None:
        return None
    declarers = list(dict.fromkeys(i["declarer"] for i in items))
    as_declared = [*invited, *[d for d in declarers if d not in invited]]
    alternative = [{"tool": "calendar__search_events", "arguments": {"query": "Reliability review",
                                                                     "timeMin": "2025-12-01T00:00"}},
                   {"tool": "calendar__get_event", "arguments": {"calendarId": owner, "eventId": review}},
                   {"tool": "slack__search_messages", "arguments": {"query": "Declaring incident", "limit": 50}},
                   *threads,
                   {"tool": "calendar__search_people", "arguments": {"query": missing[0].split("@")[0].split(".")[-1]}},
                   {"tool": "calendar__update_event", "arguments": {
                       "calendarId": owner, "eventId": review, "attendees": everyone[:3]}},
                   {"tool": "calendar__update_event", "arguments": {
                       "calendarId": owner, "eventId": review, "attendees": everyone}},
                   {"tool": "slack__post_message", "arguments": {
                       "channel_id": items[0]["channel"],
                       "text": "Invited the presenters to Thursday's reliability review (19 March, 11:00)."}}]
    return {
        "patch": {"calendar": patch_calendar, "slack": patch_slack},
        "max_steps": budget(calls),
        "frame": [{"entity": "calendar.event", "ids": [review], "fields": ["attendees"],
                   "values": {"attendees": {"add": missing, "key": "email"}}},
                  {"entity": "slack.message", "change": ["create"], "max": len(items) + 1}],
        "success": {"all": [{"calendar.eventHasAttendee": {"event": review, "attendee": e}} for e in everyone]},
        "reference": reference,
        "alternative": alternative,
        "wrong_lookalike": [{"tool": "calendar__update_event", "arguments": {
            "calendarId": owner, "eventId": december, "attendees": list(dict.fromkeys([chair, *earlier, *missing]))}}],
        "wrong_collateral": [update, {"tool": "calendar__update_event", "arguments": {
            "calendarId": owner, "eventId": review, "location": "Lisbon HQ"}}],
        "wrong_dropped": [{"tool": "calendar__update_event", "arguments": {
            "calendarId": owner, "eventId": review, "attendees": presenters}}],
        "wrong_sev3": [{"tool": "calendar__update_event", "arguments": {
            "calendarId": owner, "eventId": review, "attendees": [*everyone, sev3]}}],
        "wrong_declared": [{"tool": "calendar__update_event", "arguments": {
            "calendarId": owner, "eventId": review, "attendees": as_declared}}],
        "wrong_both": [{"tool": "calendar__update_event", "arguments": {
            "calendarId": owner, "eventId": review, "attendees": list(dict.fromkeys([*everyone, *declarers]))}}],
        "summary": {"presented": len(items), "handed_over": len(q1_handed), "examples": len(examples),
                    "examples_handed_over": len(q4_handed), "calls": calls},
    }


def build() -> dict[str, Any]:
    return template(
        id="x-t-reliability-review-presenters", version=2, servers=["calendar", "slack"], difficulty="medium",
        category="standard", case_list=cases(case_of),
        task={
            "goal": ("Thursday's reliability review still lacks most of its presenters. Invite the people its "
                     "description asks for, as we did for December's review, keeping everyone already invited."),
            "initial_state": initial_state(["calendar", "slack"], {"calendar": "{{case.patch.calendar}}",
                                                                   "slack": "{{case.patch.slack}}"}),
            "available_tools": [
                "calendar__list_calendars", "calendar__list_events", "calendar__search_events", "calendar__get_event",
                "calendar__search_people", "calendar__get_freebusy", "calendar__update_event",
                "slack__list_channels", "slack__get_channel_history", "slack__get_thread_replies",
                "slack__search_messages", "slack__get_users", "slack__get_user_profile", "slack__post_message",
                "slack__reply_to_thread"],
            **judged_by_case(timeout_s=600),
            "wrong_solutions": [
                {"why": "invites the presenters to December's review of the same title", "kind": "lookalike",
                 "calls": "{{case.wrong_lookalike}}"},
                {"why": "invites the presenters, then also changes the meeting's location", "kind": "collateral",
                 "calls": "{{case.wrong_collateral}}"},
                {"why": "sets the attendee list to the presenters alone, dropping the chair", "kind": "other",
                 "calls": "{{case.wrong_dropped}}"},
                {"why": "also invites the commander of a SEV3 incident", "kind": "other", "calls": "{{case.wrong_sev3}}"},
                {"why": "invites whoever declared each incident, missing that a handed-over incident is presented by "
                        "the one who took command (what December's review did)", "kind": "other",
                 "calls": "{{case.wrong_declared}}"},
                {"why": "invites both the declaring commander and the one who took over a handed-over incident",
                 "kind": "other", "calls": "{{case.wrong_both}}"},
            ],
            "alternative_solutions": [
                {"why": "finds the declarations by a search, opens the event and every declaration's thread, looks a "
                        "presenter up in the calendar's directory, adds them in two updates and says so in an incident "
                        "channel",
                 "calls": "{{case.alternative}}"},
            ],
        })
