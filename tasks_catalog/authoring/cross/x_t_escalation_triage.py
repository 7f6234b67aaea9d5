"""x-t-escalation-triage: triage the new escalations in Linear's Escalations queue the way the earlier ones were
triaged. No page states the rules: they are learnt from the team's own past work.

Hard; Linear, Notion and Slack. Support files each customer escalation as an issue of the Escalations team
(``ESC``, planted: a team with a Triage state) titled ``<component>: <problem>``, whose description names the
reporting customer (legal name, contact, account owner of the day, support ticket), and posts the ticket in
#cs-escalations saying whether the customer is blocked (no workaround) or has a workaround. 14 to 16 earlier
escalations were triaged (they sit in Todo or Backlog with an assignee and a priority); 8 to 10 new ones wait
in Triage, unassigned, with no priority (11 to 13 drawn without the ping, as x-t-escalation-queue-march draws).
The conventions the earlier ones show, every one of them consistent:

- **assignee**: the owner of the component, as its Notion runbook's header says (``Owner: <name> (<team>)``),
  not the account owner the description names, not the reporter, not the runbook's other "Owner:" lines;
- **priority**: by the customer's plan in the CRM (Notion's Customer Accounts) and whether the Slack escalation
  says it blocks: Enterprise Urgent if blocked else High, Scale High / Medium, Growth and Starter Medium / Low;
- **state**: Todo when blocked, Backlog otherwise; a report whose title an earlier escalation of another
  customer already has is triaged on its own like any other (two earlier escalations of two customers share a
  title, neither closed as a Duplicate, and a new one repeats an earlier title for another customer);
- **a renewal ping that only opening shows** (version 2; version 3 hides it among replies alike): the triager
  acknowledged every earlier escalation in its #cs-escalations thread, one reply each, in the team's words
  (:data:`ACKS`: "Triaged: Jane Doe has it, High."), so the channel history counts one reply on every thread
  alike; when the customer's CRM row gives a Renewal date at most :data:`SOON` days after the report, that reply
  also tags the account owner and hands it over, naming no reason (version 4, :data:`TAGS`: "... <@U…>
  flagging this one to you.", in five wordings; version 3 wrote "Acme renews on 12 April 2026, so flagging this
  one to you." and every solver copied the reason it read, 3 of 3). 2 to 4 of the earlier escalations carry the
  tag, of two customers and two account owners at least, drawn per case (the most recent one carries it in
  some cases, not in others); one customer escalated twice, first more than SOON days before its renewal (no
  tag) and then within SOON days (tagged), so nothing the customer is (plan, region, ARR, owner) decides it,
  and one other earlier escalation without it renews :data:`LATER` to LATER+40 days after its report where
  the world has one (the window's end is seen). Only ``get_thread_replies`` on an escalation's post shows which
  replies tag, and only the CRM's Renewal date, compared between the tagged and the untagged escalations'
  customers, shows why; 2 or 3 new escalations are of other customers renewing that soon. Version 2 replied
  only where it tagged, so the history's reply counts pointed at exactly the threads to open (3 of 3 solvers
  passed).

``CONVENTIONS`` lists each rule's plausible alternatives; ``check_conventions`` raises unless each alternative
that would treat a new item otherwise is contradicted by an earlier escalation, every plan/blocking pair a new
item has was seen in the examples, and reading the priority by the account's ARR instead of its plan either is
contradicted or gives the same answer for every new item. ``PING_READINGS`` lists the readings of when to ping;
``check_pings`` raises unless each of them, every threshold of days to the renewal (from the report or the
triage day), every cut-off date of the renewal, every ARR threshold and "the account owners pinged before" is
contradicted by an earlier escalation or pings the same new items, and so is each reading of :data:`READINGS`
(version 4: the tag following any other attribute the servers show of the tagged escalations or their customers,
by :mod:`._x_t_readings`: the customers themselves, plan, CRM status, region, account owner, domain's country,
renewal month, reporter, the reporting contact, component, assignee, the assignee's team and the service's
tier (the runbook's header), blocking, priority, report month and weekday, a repeated title, a customer's second
escalation, ARR, the older or more recent ones, a renewal date cut-off, days to the renewal from the report, from
the triage or, for the earlier ones too, from today). A world whose draw leaves a reading open gives no case,
so a careful reader who opens the examples, and compares the tagged escalations' customers in the CRM with the
others, reaches one outcome in every case kept. Linear's update answers ``unavailable`` once (not applied:
retry) and ``timeout_after_commit`` once (applied).

Judged: each new item's assignee, priority and state exactly (frame, field level; the predicate names the
assignee and state and that the priority was set), at most one comment per item, nothing else changes (the
earlier escalations, the Platform team's own triage queue); for each new escalation of a customer renewing
soon a #cs-escalations message tags its account owner (holds the owner's Slack id, which no message held
before, the earlier replies included; each such escalation has another owner), and no message there tags the
account owner of another new escalation only. The channel takes up to one message per new escalation and per
ping, and one more: an acknowledgement in each new escalation's thread as the team wrote them, the tag in it or
in a reply of its own, passes. The reference reads the new issues (the list shows the earlier ones' triage,
their posts their customers and blocking), opens every earlier thread and replies in every new escalation's
thread as the team did, tagging where the rule says; the reference without the tags is a wrong solution, and so is tagging by each reading of :data:`READINGS` that tags other people
(tagging more widely is harmless only where it tags no new escalation's account owner: an earlier owner, the
component owner; the frame forbids tagging the account owner of a new escalation not renewing soon).
``case_of(..., pings=False)`` draws the queue without the ping or the replies, and the reference of version 2
(every issue opened, no thread replies), as x-t-escalation-queue-march does.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from datetime import date
from typing import Any

from tasks_catalog.authoring.cross import budget, cases, org, template, world
from tasks_catalog.authoring.cross._x_t_billing import NOTION_READ, SLACK_TOOLS, case_task, rng_for, unix
from tasks_catalog.authoring.cross._x_t_people import call
from tasks_catalog.authoring.cross._x_t_readings import Always, FlaggedSide, FlaggedWhen, left_open

ID = "x-t-escalation-triage"
TEAM, TEAM_NAME = "ESC", "Escalations"
CRM = "Customer Accounts"
CHANNEL = "cs-escalations"
LABELS = ["Bug", "Customer-reported"]
PLANS = ("Enterprise", "Scale", "Growth", "Starter")
#: The priority each plan gets, (blocked, not blocked); Linear's numbers (1 Urgent ... 4 Low).
PRIORITY = {"Enterprise": (1, 2), "Scale": (2, 3), "Growth": (3, 4), "Starter": (3, 4)}
BLOCKED = "They are blocked: no workaround."
WORKAROUND = "They have a workaround for now."
#: Problems a customer reports, by component (the services with a runbook).
PROBLEMS = {
    "billing-api": ("invoice PDF shows the wrong VAT rate", "credit note not issued after a refund",
                    "invoice totals round differently from the portal", "duplicate invoice e-mail sent"),
    "tracking-gateway": ("tracking page stuck on 'in transit'", "webhook deliveries arrive out of order",
                         "ETA missing for cross-border shipments", "tracking links expire after a day"),
    "customs-docs": ("commercial invoice missing HS codes", "export declaration PDF cut off at page two",
                     "EORI number not printed on customs forms", "certificate of origin in the wrong language"),
    "notifier": ("delivery SMS sent twice", "no e-mail when a delivery fails", "notifications in the wrong time zone",
                 "opt-out not respected for SMS"),
    "warehouse-sync": ("stock levels lag by a day", "cancelled orders still picked", "bin locations overwritten",
                       "sync stops after 500 SKUs"),
    "auth-service": ("SSO login loops back to the sign-in page", "password reset link rejected",
                     "new users cannot accept the invite", "session expires after five minutes"),
    "search-indexer": ("search misses shipments from last week", "consignee search ignores accents",
                       "search results show another depot's orders", "CSV export of search results empty"),
    "route-planner": ("route plan skips a stop", "multi-stop routes ordered backwards", "planned routes ignore "
                      "driver breaks", "route optimisation times out for large days"),
    "rate-engine": ("fuel surcharge applied twice", "quote differs from the invoiced rate",
                    "rate card upload rejects valid rows", "zone rates missing for islands"),
}
TOOLS = [
    "linear__list_teams", "linear__list_users", "linear__list_issue_statuses", "linear__list_issue_labels",
    "linear__list_issues", "linear__get_issue", "linear__list_comments", "linear__update_issue",
    "linear__create_comment",
    *NOTION_READ,
    *[t for t in SLACK_TOOLS if t not in ("slack__post_message", "slack__reply_to_thread")],
    "slack__post_message", "slack__reply_to_thread",
]


#: How far ahead a renewal is "coming up" (days from the report): the earlier escalations of customers renewing
#: this soon (2-4 of them) got a reply in their #cs-escalations thread tagging the account owner; the others a
#: reply alike without the tag (version 3; version 2 replied only where it tagged).
SOON = 90
#: How far ahead a renewal of an earlier escalation without that reply lies at least (days from the report).
LATER = 120
#: The day the new escalations are triaged (the worlds' ``now``).
TRIAGE_DAY = "2026-03-16"
MONTHS = ("January", "February", "March", "April", "May", "June", "July", "August", "September", "October",
          "November", "December")


def _literal(text: str) -> str:
    """``text`` as a pattern that finds exactly it (regex metacharacters escaped, portable to ECMAScript)."""
    return "".join("\\" + ch if ch in ".^$*+?()[]{}|\\/" else ch for ch in text)


def _day(day: str) -> str:
    """``2026-04-12`` as people write it: ``12 April 2026``."""
    return f"{int(day[8:])} {MONTHS[int(day[5:7]) - 1]} {day[:4]}"


def _ping(item: dict[str, Any]) -> str:
    """The reply in an escalation's #cs-escalations thread tagging the account owner of a customer renewing soon."""
    return (f"<@{item['acct_slack']}> {item['short']} renews on {_day(item['renews'])}, "
            f"and {item['owner_name']} has this escalation.")


#: How the triager acknowledged an escalation in its #cs-escalations thread (version 3: every earlier escalation
#: got one such reply, so the channel history counts one reply on every thread alike): who has it and its
#: priority, in a few wordings, naming nothing of the customer's plan, blocking or renewal.
ACKS = ("Triaged: {owner} has it, {priority}.", "Triaged, {owner} has it ({priority}).",
        "{owner} has this one, {priority}.", "Picked up: {owner} owns {component}, {priority}.",
        "Assigned to {owner}, {priority}.", "Triaged: {priority}, with {owner}.")
PRIORITY_NAMES = {1: "Urgent", 2: "High", 3: "Medium", 4: "Low"}


def _ack(item: dict[str, Any], form: int = 0) -> str:
    """The triager's acknowledgement of ``item`` in its thread, in wording ``form`` of :data:`ACKS`."""
    return ACKS[form % len(ACKS)].format(owner=item["owner_name"], component=item["component"],
                                         priority=PRIORITY_NAMES[_priority(item["plan"], item["blocked"])])


#: What the acknowledgement of an escalation of a customer renewing soon adds (version 4): the account owner
#: tagged and handed the escalation, in a few wordings, naming nothing of the renewal, the plan or the customer
#: (version 3 said "Acme renews on 12 April 2026, so flagging this one to you.": the reason was copied unread).
TAGS = ("<@{user}> flagging this one to you.", "<@{user}> flagging this one for you.",
        "<@{user}> looping you in on this one.", "<@{user}> FYI, flagging this to you.",
        "<@{user}> for your radar.")


def _tag(item: dict[str, Any], form: int = 0) -> str:
    """What the acknowledgement of an escalation of a customer renewing soon adds: the account owner tagged, in
    wording ``form`` of :data:`TAGS`."""
    return TAGS[form % len(TAGS)].format(user=item["acct_slack"])


def _reply(item: dict[str, Any], tag: bool, form: int = 0) -> str:
    """The reply in ``item``'s thread: the acknowledgement, with the account owner tagged when ``tag``."""
    return f"{_ack(item, form)} {_tag(item, form)}" if tag else _ack(item, form)


def _pinged(item: dict[str, Any]) -> str:
    """What a ping for ``item`` holds: its account owner's Slack id (the tag; the one stable id a pattern can
    be named by, and each new item pinged has another owner)."""
    return _literal(item["acct_slack"])


def _priority(plan: str, blocked: bool) -> int:
    return PRIORITY[plan][0 if blocked else 1]


def _state(item: dict[str, Any]) -> str:
    return "Todo" if item["blocked"] else "Backlog"


#: Each convention: (name, the rule, its plausible alternatives as (reading, rule)). A rule maps an item
#: (component owner, account owner, other runbook owner, plan, blocked) to the value the convention sets.
Rule = Callable[[dict[str, Any]], Any]
CONVENTIONS: list[tuple[str, Rule, list[tuple[str, Rule]]]] = [
    ("assignee", lambda i: i["owner"], [
        ("the account owner the description names", lambda i: i["account_owner"]),
        ("the reporter (whoever filed the issue)", lambda i: i["creator"]),
        ("another 'Owner:' line of the runbook", lambda i: i["other_owner"] or i["owner"]),
    ]),
    ("priority", lambda i: _priority(i["plan"], i["blocked"]), [
        ("by the plan alone", lambda i: PRIORITY[i["plan"]][1]),
        ("by the plan alone, a step higher", lambda i: PRIORITY[i["plan"]][0]),
        ("by blocking alone (Urgent / Medium)", lambda i: 1 if i["blocked"] else 3),
        ("by blocking alone (High / Low)", lambda i: 2 if i["blocked"] else 4),
        ("Enterprise and Scale alike", lambda i: _priority("Enterprise" if i["plan"] == "Scale" else i["plan"],
                                                            i["blocked"])),
        ("Starter a step below Growth", lambda i: (4 if i["blocked"] else 0) if i["plan"] == "Starter"
         else _priority(i["plan"], i["blocked"])),
        ("Urgent whenever blocked", lambda i: 1 if i["blocked"] else PRIORITY[i["plan"]][1]),
        ("a step higher for an account at risk", lambda i: max(1, _priority(i["plan"], i["blocked"]) - 1)
         if i["status"] == "At risk" else _priority(i["plan"], i["blocked"])),
    ]),
    ("state", _state, [
        ("everything to Todo", lambda i: "Todo"),
        ("everything to Backlog", lambda i: "Backlog"),
        ("Todo when Medium or higher", lambda i: "Todo" if _priority(i["plan"], i["blocked"]) <= 3 else "Backlog"),
        ("Todo when Urgent or High", lambda i: "Todo" if _priority(i["plan"], i["blocked"]) <= 2 else "Backlog"),
        ("Todo for Enterprise customers", lambda i: "Todo" if i["plan"] == "Enterprise" else "Backlog"),
        ("a same-title report from another customer closed as a Duplicate of the earlier one",
         lambda i: "Duplicate" if i["dup_title"] else _state(i)),
    ]),
]

#: Readings of when the triager replies in the escalation's #cs-escalations thread tagging the account owner,
#: each a rule on an item (its CRM row, plan, blocking, priority, the days to its renewal); the convention is
#: "the renewal is at most :data:`SOON` days after the report". Thresholds of days (from the report or from the
#: triage day) are read by :func:`check_pings` itself.
Trigger = Callable[[dict[str, Any]], bool]
PING_READINGS: list[tuple[str, Trigger]] = [
    ("on every escalation", lambda i: True),
    ("for Enterprise customers", lambda i: i["plan"] == "Enterprise"),
    ("for Enterprise and Scale customers", lambda i: i["plan"] in ("Enterprise", "Scale")),
    ("when the customer is blocked", lambda i: i["blocked"]),
    ("when the priority is Urgent", lambda i: _priority(i["plan"], i["blocked"]) == 1),
    ("when the priority is Urgent or High", lambda i: _priority(i["plan"], i["blocked"]) <= 2),
    ("for accounts At risk", lambda i: i["status"] == "At risk"),
    ("for any account not Active", lambda i: i["status"] != "Active"),
    ("for EMEA customers", lambda i: i["region"] == "EMEA"),
    ("for North America customers", lambda i: i["region"] == "North America"),
    ("for APAC customers", lambda i: i["region"] == "APAC"),
    ("when the renewal falls in the report's month or the next",
     lambda i: (int(i["renews"][:4]) * 12 + int(i["renews"][5:7])) - (int(i["day"][:4]) * 12 + int(i["day"][5:7])) <= 1),
    ("when the renewal falls within the next two calendar months",
     lambda i: (int(i["renews"][:4]) * 12 + int(i["renews"][5:7])) - (int(i["day"][:4]) * 12 + int(i["day"][5:7])) <= 2),
    ("when the renewal falls before the end of the next quarter", lambda i: i["renews"] <= "2026-06-30"),
    ("when the renewal falls before the end of this quarter", lambda i: i["renews"] <= "2026-03-31"),
]


def _among(key: str, values: set[str]) -> Trigger:
    """The reading "the item's ``key`` is one of ``values``"."""
    return lambda i: i[key] in values


def _between(key: str, low: Any, high: Any) -> Trigger:
    """The reading "the item's ``key`` is ``low`` to ``high``" (both included)."""
    return lambda i: low <= i[key] <= high


def _earlier(day: str) -> Trigger:
    """The reading "the renewal is before ``day``"."""
    return lambda i: i["renews"] < day


#: Version 4: the readings a careful reader could form of which escalations get the tag, once the tag no longer
#: names its reason; each an attribute of the item or its customer that this template's servers show (the CRM's
#: plan, status, region, ARR, owner, domain and renewal; the issue's reporter, component, assignee, blocking,
#: priority, report day and title), as :mod:`._x_t_readings` reads them: "the tagged ones are those with the
#: values the tagged examples have" (:class:`FlaggedWhen`) or "those on the tagged examples' side of an amount"
#: (:class:`FlaggedSide`). The habit is ``the renewal within SOON days of the report``, the reading "days to the
#: renewal, from the report". Currency, invoices and the account's age are not among them: the template's servers
#: (Linear, Notion, Slack) show none of them. :func:`check_pings` asserts each is contradicted by an example or
#: tags exactly the new escalations the habit tags.
READINGS: dict[str, Any] = {
    "always": Always(True, "ping"), "never": Always(False, "ping"),
    "the customers tagged before": FlaggedWhen("customer", "ping"),
    "the customers' plans": FlaggedWhen("plan", "ping"),
    "the customers' CRM status (health)": FlaggedWhen("status", "ping"),
    "the customers' regions": FlaggedWhen("region", "ping"),
    "the account owners tagged before": FlaggedWhen("account_owner_name", "ping"),
    "the customers' domains' country": FlaggedWhen("tld", "ping"),
    "the month the customer renews in": FlaggedWhen("renews_month", "ping"),
    "the reporters (who filed the issue)": FlaggedWhen("creator", "ping"),
    "the components": FlaggedWhen("component", "ping"),
    "the component owners (the assignee)": FlaggedWhen("owner", "ping"),
    "the component owners' teams (the runbook's header)": FlaggedWhen("team", "ping"),
    "the services' tiers (the runbook's header)": FlaggedWhen("tier", "ping"),
    "the reporting contacts": FlaggedWhen("contact_email", "ping"),
    "blocked or not": FlaggedWhen("blocked", "ping"),
    "the priorities": FlaggedWhen("prio", "ping"),
    "the month of the report": FlaggedWhen("month", "ping"),
    "the weekday of the report": FlaggedWhen("weekday", "ping"),
    "a title another customer reported before": FlaggedWhen("dup_title", "ping"),
    "a customer's second escalation": FlaggedWhen("repeat", "ping"),
    "the smaller accounts (ARR)": FlaggedSide("arr", True, "ping"),
    "the larger accounts (ARR)": FlaggedSide("arr", False, "ping"),
    "the older escalations": FlaggedSide("order", True, "ping"),
    "the more recent escalations": FlaggedSide("order", False, "ping"),
    "a renewal before some date": FlaggedSide("renews_ord", True, "ping"),
    "a renewal after some date": FlaggedSide("renews_ord", False, "ping"),
    "the renewal within some days of the report (the habit)": FlaggedSide("gap", True, "ping"),
    "the renewal within some days of the triage": FlaggedSide("gap_seen", True, "ping"),
    "the renewal within some days of today (the earlier ones counted from today too)":
        FlaggedSide("gap_now", True, "ping"),
}


def check_pings(examples: list[dict[str, Any]], items: list[dict[str, Any]]) -> None:
    """Raise unless the renewal ping is told apart from every other reading by the examples: a minority (2-4)
    of the examples, of two customers and two account owners at least, carry it; each reading of
    :data:`PING_READINGS` and of :data:`READINGS`, each threshold of days to the renewal (counted from the
    report, or for a new item from the triage day), and "the account owners pinged before" is contradicted by
    an example or agrees with the convention on every new item."""
    pinged = [e for e in examples if e["ping"]]
    if not 2 <= len(pinged) <= 4:
        raise ValueError(f"{ID}: {len(pinged)} of {len(examples)} examples show the renewal ping; 2-4 should")
    if len({e["customer"] for e in pinged}) < 2 or len({e["account_owner_name"] for e in pinged}) < 2:
        raise ValueError(f"{ID}: the pinged examples are one customer's or one account owner's")
    for e in examples:
        if e["ping"] != (0 <= e["gap"] <= SOON):
            raise ValueError(f"{ID}: example {e['id']} does not follow the renewal ping convention")
    owners = {e["account_owner_name"] for e in pinged}
    readings: list[tuple[str, Trigger, Trigger]] = [(r, t, t) for r, t in PING_READINGS]
    by_owner = _among("account_owner_name", owners)
    readings.append(("the account owners pinged before", by_owner, by_owner))
    for arr in sorted({e["arr"] for e in examples} | {i["arr"] for i in items}):
        readings.append((f"ARR at least {arr}", _between("arr", arr, 10**9), _between("arr", arr, 10**9)))
        readings.append((f"ARR at most {arr}", _between("arr", -1, arr), _between("arr", -1, arr)))
    for day in sorted({e["renews"] for e in examples} | {i["renews"] for i in items}):
        readings.append((f"renewal on or before {day}", _between("renews", "", day), _between("renews", "", day)))
        readings.append((f"renewal before {day}", _earlier(day), _earlier(day)))
    for days in range(0, 400):
        readings.append((f"renewal within {days} days of the report", _between("gap", 0, days),
                         _between("gap", 0, days)))
        readings.append((f"renewal within {days} days of the triage", _between("gap", 0, days),
                         _between("gap_triage", 0, days)))
    for reading, on_example, on_new in readings:
        contradicted = any(on_example(e) != e["ping"] for e in examples)
        same = all(on_new(i) == i["ping"] for i in items)
        if not contradicted and not same:
            raise ValueError(f"{ID}: the ping reading {reading!r} fits every example and differs on a new item")
    left = left_open(READINGS, examples, items, lambda i: bool(i["ping"]))
    if left:
        raise ValueError(f"{ID}: the ping readings {left} fit every example and differ on a new item")


def check_conventions(examples: list[dict[str, Any]], items: list[dict[str, Any]]) -> None:
    """Raise unless every example follows every convention, every alternative reading is contradicted by at
    least one example, and every new item's plan and blocking were seen together in an example."""
    for name, rule, alternatives in CONVENTIONS:
        for e in examples:
            if e[name] != rule(e):
                raise ValueError(f"{ID}: example {e['id']} does not follow the {name} convention")
        for reading, alt in alternatives:
            if any(alt(i) != rule(i) for i in items) and all(alt(e) == e[name] for e in examples):
                raise ValueError(f"{ID}: no example rules out the {name} reading {reading!r}, which a new item "
                                 f"would follow otherwise")
    # The reading "by the account's size (ARR bands), not its plan": ruled out when a smaller account got a
    # higher plan's priority than a larger one; else every new account must sit within the ARR range the
    # examples of its own plan tier show, so that any band the examples allow gives the same tier.
    tier = {"Enterprise": 2, "Scale": 1, "Growth": 0, "Starter": 0}
    inverted = any(a["arr"] < b["arr"] and tier[a["plan"]] > tier[b["plan"]] for a in examples for b in examples)
    if not inverted:
        for i in items:
            own = [e["arr"] for e in examples if tier[e["plan"]] == tier[i["plan"]]]
            if not own or not min(own) <= i["arr"] <= max(own):
                raise ValueError(f"{ID}: new item {i['id']} (ARR {i['arr']}) could be read by ARR bands or by plan")
    seen = {(e["plan"], e["blocked"]) for e in examples}
    for i in items:
        if (i["plan"], i["blocked"]) not in seen:
            raise ValueError(f"{ID}: new item {i['id']} is a {i['plan']} customer, blocked={i['blocked']}, "
                             f"a pair no example shows")


def _runbooks(seed: int) -> dict[str, dict[str, Any]]:
    """Each service's runbook: its header's owner (a name) and the names other 'Owner:' lines give."""
    out: dict[str, dict[str, Any]] = {}
    for p in world("notion", seed)["pages"]:
        if not p["title"].startswith("Runbook: ") or p.get("archived"):
            continue
        texts = [b.get("text", "") for b in p["content"]]
        if not texts or not texts[0].startswith("Owner: "):
            continue
        head = texts[0][len("Owner: "):].split(" (")[0]
        others = [t[len("Owner: "):].split(".")[0] for t in texts[1:] if t.startswith("Owner: ")]
        team = re.search(r"\(([^)]*)\)", texts[0])
        tier = re.search(r"Tier \d", texts[0])
        out[p["title"][len("Runbook: "):]] = {"owner": head, "others": others, "page": p["id"],
                                              "team": team.group(1) if team else "",
                                              "tier": tier.group(0) if tier else ""}
    return out


def case_of(seed: int, stream: str = ID, pings: bool = True) -> dict[str, Any] | None:  # noqa: C901, PLR0912, PLR0915 - one world's whole case, in order
    """The case of ``seed``, its escalations drawn from the random stream named ``stream`` (this template's
    own by default; x-t-escalation-queue-march draws the same situation with its own)."""
    o = org(seed)
    rng = rng_for(stream, seed)
    lin = world("linear", seed)
    try:
        slack = world("slack", seed)
    except IndexError:
        return None
    channel = next((c for c in slack["channels"] if c["name"] == CHANNEL), None)
    if channel is None:
        return None
    users = {u["name"]: u for u in lin["users"] if u["active"]}
    if len(users) != len({u["name"] for u in lin["users"] if u["active"]}):
        return None
    by_email = {u["email"]: u for u in lin["users"]}
    runbooks = _runbooks(seed)
    components = sorted(c for c, r in runbooks.items() if c in PROBLEMS and r["owner"] in users)
    if len(components) < 6:
        return None
    # The CRM's rows: live key accounts by plan.
    notion = world("notion", seed)
    crm = next((d for d in notion["databases"] if d["title"] == CRM), None)
    if crm is None:
        return None
    rows = [p for p in notion["pages"] if p.get("parent_id") == crm["id"] and not p.get("archived")]
    if len(rows) > 100:
        return None  # the CRM is read in one page
    plan_of = {p["title"]: p["properties"].get("Plan") for p in rows
               if p["properties"].get("Status") in ("Active", "At risk", "Onboarding")}
    status_of = {p["title"]: p["properties"].get("Status") for p in rows}
    arr_of = {p["title"]: p["properties"].get("ARR") or 0 for p in rows}
    twice = {c.duplicate_of for c in o.customers if c.duplicate_of}
    customers = [c for c in o.customers if c.name in plan_of and plan_of[c.name] in PLANS
                 and not c.duplicate_of and c.key not in twice]
    by_plan = {pl: [c for c in customers if plan_of[c.name] == pl] for pl in PLANS}
    if any(len(by_plan[pl]) < 2 for pl in ("Enterprise", "Scale", "Growth")):
        return None
    plans = [pl for pl in PLANS if len(by_plan[pl]) >= 2]
    support = [e for e in o.active if e.email in by_email and e.department in ("Customer Success", "Support")
               and e.slack_id in channel["members"]]
    if not support:
        return None
    owner_names = {runbooks[c]["owner"] for c in components}
    support = [e for e in support if e.name not in owner_names]
    if not support:
        return None

    # -- the earlier escalations (examples) and the new ones ----------------------------------------------------
    combos = [(pl, b) for pl in plans for b in (True, False)]
    n_examples, n_new = rng.randint(14, 16), rng.randint(11, 13)
    if pings:
        n_new -= 3  # 8-10: the reference opens every earlier thread and replies in every new one (within 60 calls)
    ex_combos = combos * 2
    ex_combos = ex_combos[:n_examples] if len(ex_combos) >= n_examples else ex_combos + rng.sample(
        combos, n_examples - len(ex_combos))
    rng.shuffle(ex_combos)
    new_combos = [rng.choice(combos) for _ in range(n_new)]
    seen_components = rng.sample(components, min(len(components) - 1, 6))
    ex_components = [seen_components[k % len(seen_components)] for k in range(n_examples)]
    rng.shuffle(ex_components)
    new_components = [rng.choice(components) for _ in range(n_new)]
    mentioned = " ".join([*(m["text"] for c in slack["channels"] for m in c["messages"]),
                          *(i["title"] + " " + i["description"] for i in lin["issues"])])
    tickets = rng.sample([n for n in range(5100, 5999) if f"KFS-{n}" not in mentioned], n_examples + n_new)
    taken_ts: set[str] = {m["ts"] for m in channel["messages"]}
    titles_used: set[str] = set()
    reporters: dict[str, set[str]] = {}
    pinged_customers: set[str] = set()
    renew_of = {p["title"]: p["properties"].get("Renewal date") or "" for p in rows}
    region_of = {p["title"]: p["properties"].get("Region") or "" for p in rows}
    domain_of = {p["title"]: p["properties"].get("Domain") or "" for p in rows}
    slack_ids = {u["id"] for u in slack["users"]}

    def gap(name: str, day: str) -> int:
        """Days from ``day`` to the customer's renewal (far ahead when the CRM gives none)."""
        return (date.fromisoformat(renew_of[name]) - date.fromisoformat(day)).days if renew_of.get(name) else 10**4

    def hour(k: int) -> str:
        return f"{9 + k % 8:02d}:{(17 * k) % 60:02d}:00"

    Fits = Callable[[Any], bool]

    def make(k: int, combo: tuple[str, bool], component: str, day: str, new: bool,
             fits: Fits = lambda c: True, title: str | None = None, ping: bool = False) -> dict[str, Any] | None:
        plan, blocked = combo
        if title is None:
            problem = rng.choice([p for p in PROBLEMS[component] if f"{component}: {p}" not in titles_used]
                                 or list(PROBLEMS[component]))
            title = f"{component}: {problem}"
        # one customer reporting one problem twice would be a true duplicate: another customer reports it
        pool = [c for c in by_plan[plan] if fits(c) and c.name not in reporters.get(title, set())]
        if not pool:
            return None
        cust = rng.choice(pool)
        contact = cust.contact("operations", day)
        titles_used.add(title)
        reporters.setdefault(title, set()).add(cust.name)
        if ping:
            pinged_customers.add(cust.name)
        creator = rng.choice(support)
        acct = o.employee(cust.owner) if cust.owner in {e.key for e in o.employees} else None
        acct_name = acct.name if acct else cust.owner
        ticket = f"KFS-{tickets[k]}"
        rb = runbooks[component]
        other = next((n for n in rb["others"] if n in users and n != rb["owner"]), None)
        return {"id": f"{TEAM}-{k + 1}", "title": title, "customer": cust.name, "short": cust.short,
                "contact": contact, "day": day, "plan": plan, "status": status_of[cust.name],
                "arr": arr_of[cust.name], "blocked": blocked, "component": component,
                "owner": users[rb["owner"]]["id"], "owner_name": rb["owner"],
                "account_owner": users[acct_name]["id"] if acct_name in users else acct_name,
                "account_owner_name": acct_name, "creator": by_email[creator.email]["id"],
                "creator_slack": creator.slack_id, "other_owner": users[other]["id"] if other else None,
                "ticket": ticket, "new": new, "created_at": f"{day}T{hour(k)}Z",
                "region": region_of[cust.name], "renews": renew_of[cust.name], "gap": gap(cust.name, day),
                "gap_triage": gap(cust.name, TRIAGE_DAY),
                "gap_seen": gap(cust.name, TRIAGE_DAY if new else day), "gap_now": gap(cust.name, TRIAGE_DAY),
                "prio": _priority(plan, blocked), "contact_email": contact.email, "team": rb["team"],
                "tier": rb["tier"],
                "tld": domain_of.get(cust.name, "").rstrip("/").rsplit(".", 1)[-1], "month": day[:7],
                "weekday": date.fromisoformat(day).weekday(), "renews_month": renew_of[cust.name][:7],
                "renews_ord": date.fromisoformat(renew_of[cust.name]).toordinal() if renew_of[cust.name] else 10**7,
                "acct_slack": acct.slack_id if acct and acct.slack_id in slack_ids else None, "ping": ping}

    ex_days = sorted(f"2026-{m:02d}-{d:02d}" for m, d in rng.sample(
        [(2, d) for d in range(2, 28) if d not in (7, 8, 14, 15, 21, 22)]
        + [(3, d) for d in range(2, 7) if d not in (1,)], n_examples))
    new_days = sorted(rng.choice(["2026-03-09", "2026-03-10", "2026-03-11", "2026-03-12", "2026-03-13"])
                      for _ in range(n_new))

    def renewing(day: str, low: int, high: int) -> Fits:
        """Customers whose renewal (in the CRM) is ``low`` to ``high`` days after ``day``, and after triage day."""
        return lambda c: bool(renew_of.get(c.name)) and low <= gap(c.name, day) <= high and gap(c.name, TRIAGE_DAY) >= 0

    owner_of = {c.name: c.owner for c in customers}

    def named(name: str) -> Fits:
        """Only the customer ``name``."""
        return lambda c: c.name == name

    def without(fits: Fits, names: set[str]) -> Fits:
        """``fits`` for a customer not among ``names``."""
        return lambda c: fits(c) and c.name not in names

    def pick(slots: list[int], n: int, candidates: Callable[[int], list[str]]) -> dict[int, str] | None:
        """``n`` of ``slots`` drawn at random, each with a customer of its ``candidates`` whose account owner no
        other slot's has (each ping tags another owner); ``None`` when fewer than ``n`` can be."""
        chosen: dict[int, str] = {}
        for slot in rng.sample(slots, len(slots)):
            free = [name for name in candidates(slot) if owner_of[name] not in {owner_of[c] for c in chosen.values()}]
            if free:
                chosen[slot] = rng.choice(free)
                if len(chosen) == n:
                    return chosen
        return None

    # The pinged examples (2-4, when this template's renewal ping is drawn): escalations of customers renewing
    # within SOON days; every other example's customer renews LATER days or more after its report.
    pinged: set[int] = set()
    ping_of: dict[int, str] = {}
    flag_of: dict[int, str] = {}
    pinned = None
    twin: dict[int, str] = {}
    if pings:
        # Version 4: one customer escalated twice, first more than SOON days before its renewal (no tag), then
        # within SOON days (tagged): what a customer is (plan, region, ARR, owner...) does not decide the tag,
        # the time to its renewal does.
        twins = [(k1, k2, c.name) for c in customers if renew_of.get(c.name)
                 for k2 in range(1, n_examples)
                 if ex_combos[k2][0] == plan_of[c.name] and renewing(ex_days[k2], 0, SOON)(c)
                 for k1 in range(k2) if ex_combos[k1][0] == plan_of[c.name]
                 and renewing(ex_days[k1], SOON + 1, LATER + 40)(c)]
        if not twins:
            return None
        k1, k2, name = rng.choice(twins)
        twin = {k1: name}
        drawn = pick([k for k in range(n_examples) if k not in (k1, k2)], rng.randint(1, 3),
                     lambda k: [c.name for c in by_plan[ex_combos[k][0]] if renewing(ex_days[k], 0, SOON)(c)
                                and c.name != name and owner_of[c.name] != owner_of[name]])
        if drawn is None:
            return None
        ping_of = {k2: name, **drawn}
        pinged = set(ping_of)
        # one example without the ping renews soon after the window, so that the window's end is seen
        near = [k for k in range(n_examples) if k not in pinged and k != k1
                and any(renewing(ex_days[k], LATER, LATER + 40)(c) for c in by_plan[ex_combos[k][0]])]
        pinned = rng.choice(near) if near else None
    # The same title reported by two customers, each escalation triaged on its own (never closed as a duplicate).
    second = rng.randrange(1, n_examples)
    first = rng.randrange(0, second)
    ex_components[second] = ex_components[first]
    examples: list[dict[str, Any]] = []
    for k in range(n_examples):
        fits: Fits = (named(ping_of[k]) if k in pinged else named(twin[k]) if k in twin
                      else renewing(ex_days[k], LATER, LATER + 40) if k == pinned
                      else renewing(ex_days[k], LATER, 10**5)) if pings else (lambda c: True)
        title = None
        if k == second:
            earlier = examples[first]
            fits = without(fits, {earlier["customer"]})
            title = earlier["title"]
        made = make(k, ex_combos[k], ex_components[k], ex_days[k], False, fits, title, ping=k in pinged)
        if made is None:
            return None
        examples.append(made)
    ex = examples
    for e in ex:
        e["assignee"], e["priority"], e["state"] = e["owner"], _priority(e["plan"], e["blocked"]), _state(e)
    # A new escalation repeats an earlier one's title for another customer (the world's trackers do).
    again = rng.randrange(n_new)
    source = rng.choice(ex)
    new_components[again] = source["component"]
    flagged: set[int] = set()
    if pings:
        most = max(e["gap"] for e in ex if e["ping"])
        least = min(e["gap"] for e in ex if not e["ping"])
        drawn = pick(list(range(n_new)), rng.randint(2, 3),
                     lambda m: [c.name for c in by_plan[new_combos[m][0]] if renewing(new_days[m], 0, most)(c)
                                and owner_of[c.name] not in {owner_of[n] for n in pinged_customers}])
        if drawn is None:
            return None
        flag_of = drawn
        flagged = set(flag_of)
    new: list[dict[str, Any]] = []
    for m in range(n_new):
        fits = (named(flag_of[m]) if m in flagged
                else lambda c: bool(renew_of.get(c.name)) and gap(c.name, TRIAGE_DAY) >= least) \
            if pings else (lambda c: True)
        title = None
        if m == again:
            fits = without(fits, {x["customer"] for x in ex if x["title"] == source["title"]})
            title = source["title"]
        made = make(n_examples + m, new_combos[m], new_components[m], new_days[m], True, fits, title, ping=m in flagged)
        if made is None:
            return None
        new.append(made)
    all_items = ex + new
    if len({(i["title"], i["customer"]) for i in all_items}) < len(all_items):
        return None  # one customer reporting one problem twice would be a true duplicate
    for n, i in enumerate(sorted(all_items, key=lambda x: x["created_at"])):
        i["order"] = n
        i["repeat"] = any(j["customer"] == i["customer"] and j["created_at"] < i["created_at"] for j in all_items)
    for i in all_items:
        i["dup_title"] = any(j["title"] == i["title"] and j["customer"] != i["customer"]
                             and j["created_at"] < i["created_at"] for j in all_items)
    if len({i["component"] for i in new} - set(seen_components)) < 1:
        return None
    try:
        check_conventions(ex, new)
        if pings:
            check_pings(ex, new)
    except ValueError:
        return None
    to_ping = [i for i in new if i["ping"]]
    if any(i["acct_slack"] is None for i in all_items if i["ping"]):
        return None

    # -- the patches -------------------------------------------------------------------------------------------
    def describe(i: dict[str, Any]) -> str:
        c = i["contact"]
        when = f"{int(i['day'][8:]):02d} {('February', 'March')[int(i['day'][5:7]) - 2]} 2026"
        return (f"Reported by {c.name} ({c.email}) of {i['customer']} on {when}. Account owner: "
                f"{i['account_owner_name']}. Support ticket {i['ticket']}, escalated in #{CHANNEL}.")

    issues = []
    for i in all_items:
        issues.append({
            "id": i["id"], "title": i["title"], "description": describe(i),
            "state": "Triage" if i["new"] else i["state"], "assignee": None if i["new"] else i["assignee"],
            "priority": 0 if i["new"] else i["priority"], "labels": list(LABELS), "comments": [], "cycle": None,
            "project": None, "estimate": None, "creator": i["creator"], "created_at": i["created_at"]})
    states = [{"name": "Triage", "type": "triage"}, {"name": "Backlog", "type": "backlog"},
              {"name": "Todo", "type": "unstarted"}, {"name": "In Progress", "type": "started"},
              {"name": "In Review", "type": "started"}, {"name": "Done", "type": "completed"},
              {"name": "Canceled", "type": "canceled"}, {"name": "Duplicate", "type": "canceled"}]
    linear_patch: list[dict[str, Any]] = [{"op": "add", "in": ["teams"],
                                           "value": {"key": TEAM, "name": TEAM_NAME, "states": states}}]
    linear_patch += [{"op": "add", "in": ["issues"], "value": x} for x in issues]

    def ts(day_time: str) -> str:
        while True:
            stamp = f"{unix(day_time)}.{rng.randint(100000, 999999)}"
            if stamp not in taken_ts:
                taken_ts.add(stamp)
                return stamp

    slack_patch = []
    for k, i in enumerate(all_items):
        problem = i["title"].split(": ", 1)[1]
        text = (f"Escalating {i['ticket']} for {i['short']}: {problem}. "
                f"{BLOCKED if i['blocked'] else WORKAROUND}")
        minute = (17 * k) % 60
        i["post_ts"] = ts(f"{i['day']}T{8 + k % 8:02d}:{minute:02d}:00")
        slack_patch.append({"op": "add", "in": ["channels", channel["id"], "messages"],
                            "value": {"ts": i["post_ts"], "user": i["creator_slack"], "text": text}})
    # the triager's reply in every earlier escalation's thread (one each: the history counts them alike), the
    # account owner tagged in it where the customer renews soon
    forms = {e["id"]: rng.randrange(len(ACKS)) for e in ex} if pings else {}
    for k, i in enumerate(all_items):
        if pings and not i["new"]:
            minute = (17 * k) % 60
            slack_patch.append({"op": "add", "in": ["channels", channel["id"], "messages"],
                                "value": {"ts": ts(f"{i['day']}T{9 + k % 8:02d}:{minute:02d}:30"),
                                          "user": slack["viewer"], "text": _reply(i, i["ping"], forms[i["id"]]),
                                          "thread_ts": i["post_ts"]}})

    # -- the reference --------------------------------------------------------------------------------------------
    # With the renewal ping the reference opens the new issues (the list shows the earlier ones' triage, their
    # posts their customers and blocking) and every earlier escalation's thread, as only they show the tag.
    reference = [call("linear__list_teams"),
                 call("linear__list_issues", team=TEAM, limit=50)]
    reference += [call("linear__get_issue", id=i["id"]) for i in (new if pings else all_items)]
    if len(channel["messages"]) + len(slack_patch) > 200:
        return None  # the channel is read in one page
    reference += [call("slack__get_channel_history", channel_id=channel["id"], limit=200)]
    reference += [call("slack__get_thread_replies", channel_id=channel["id"], thread_ts=e["post_ts"])
                  for e in ex if e["ping"] or pings]
    reference += [call("notion__search", query=CRM),
                  call("notion__query_database", database_id=crm["id"], page_size=100)]
    used = sorted({i["component"] for i in all_items})
    reference += [call("notion__search", query="Runbook")]
    reference += [call("notion__get_block_children", block_id=runbooks[c]["page"]) for c in used]
    faults_at = (3, 8)

    def write(i: dict[str, Any], **over: Any) -> dict[str, Any]:
        args = {"id": i["id"], "assignee": over.get("assignee", i["owner"]),
                "priority": over.get("priority", _priority(i["plan"], i["blocked"])),
                "state": over.get("state", _state(i))}
        return call("linear__update_issue", **args)

    writes = [write(i) for i in new]

    def replies(who: list[dict[str, Any]]) -> list[dict[str, Any]]:
        """The team's reply in every new escalation's thread, tagging the account owner for those of ``who``."""
        return [call("slack__reply_to_thread", channel_id=channel["id"], thread_ts=i["post_ts"],
                     text=_reply(i, i in who, n)) for n, i in enumerate(new)]

    pings_due = replies(to_ping) if pings else []
    reference += [*writes, *pings_due]
    if not 25 <= len(reference) <= 60:
        return None

    # -- the frame and the predicate ------------------------------------------------------------------------------
    frame: list[dict[str, Any]] = []
    success: list[dict[str, Any]] = []
    for i in new:
        frame.append({"entity": "linear.issue", "ids": [i["id"]], "fields": ["assignee", "priority", "state"],
                      "values": {"assignee": {"eq": i["owner"]},
                                 "priority": {"eq": _priority(i["plan"], i["blocked"])},
                                 "state": {"eq": _state(i)}}})
        frame.append({"entity": "linear.comment", "change": ["create"], "where": {"issue": i["id"]}, "max": 1})
        success += [{"linear.issueAssignee": {"issue": i["id"], "assignee": i["owner"]}},
                    {"linear.issueState": {"issue": i["id"], "state": _state(i)}},
                    {"not": {"linear.issuePriority": {"issue": i["id"], "priority": 0}}}]

    # telling support in the channel (a reply per escalation, or one summary) is a natural follow-up; the
    # renewal pings tag their account owners, and no message tags an account owner none of them is for
    said: dict[str, Any] = {"entity": "slack.message", "change": ["create"], "where": {"channel": channel["id"]},
                            "max": len(new) + len(to_ping) + 1}
    spared = sorted({(i["acct_slack"] or "", i["account_owner_name"]) for i in new if not i["ping"]}
                    - {(i["acct_slack"] or "", i["account_owner_name"]) for i in to_ping})
    if spared and to_ping:
        said["values"] = {"text": {"matches": "^(?!(?:.|\\n)*(" + "|".join(
            f"<@{u}>|@{_literal(n)}" if u else f"@{_literal(n)}" for u, n in spared) + "))"}}
    frame.append(said)
    for i in to_ping:
        pattern = _pinged(i)
        if any(re.search(pattern, m["text"]) for m in [*channel["messages"], *(p["value"] for p in slack_patch)]):
            return None  # the world already says it: the check would hold without the ping
        success.append({"slack.messagePosted": {"channel": channel["id"], "pattern": pattern}})

    # -- wrong solutions (their writes only) ------------------------------------------------------------------------
    def with_rule(name: str, alt: Rule) -> list[dict[str, Any]]:
        return [write(i, **{name: alt(i)}) for i in new]

    wrongs: list[dict[str, Any]] = [
        {"why": "assigns each escalation to the customer's account owner the description names, not the "
                "component's owner", "kind": "lookalike", "calls": with_rule("assignee", lambda i: i["account_owner"])},
        {"why": "triages the new escalations right and also the Platform team's own triage queue",
         "kind": "collateral",
         "calls": [*writes, *[call("linear__update_issue", id=x["id"], state="Todo")
                              for x in lin["issues"] if x["id"].startswith("PLT-") and x["state"] == "Triage"][:2]]},
        {"why": "triages every new escalation but one", "kind": "other", "calls": writes[:-1]},
        {"why": "re-triages an earlier escalation too (moves it to Todo and raises it)", "kind": "collateral",
         "calls": [*writes, call("linear__update_issue", id=next(e["id"] for e in ex if not e["blocked"]),
                                 state="Todo", priority=1)]},
    ]
    for name, rule, readings in CONVENTIONS:
        for reading, alt in readings:
            if any(alt(i) != rule(i) for i in new) and all(
                    not isinstance(alt(i), str) or alt(i) for i in new):
                if name == "assignee" and any(not str(alt(i)).startswith("usr_") for i in new):
                    continue
                wrongs.append({"why": f"{name} {reading}", "kind": "other", "calls": with_rule(name, alt)})
    # each wrong triage still pings as it should, so that it fails for its own error
    wrongs = [{**w, "calls": [*w["calls"], *pings_due]} for w in wrongs]
    if to_ping:
        wrongs.insert(0, {"why": "triages every new escalation right but tags no account owner of a customer renewing "
                                 "soon (the reply only opening the earlier escalations' threads shows)",
                          "kind": "other", "calls": list(writes)})
        wrongs.insert(1, {"why": "the reference without the ping: acknowledges every new escalation in its thread as "
                                 "the team did but tags no account owner (the untagged earlier threads generalised)",
                          "kind": "other", "calls": [*writes, *replies([])]})
        for reading, trigger in PING_READINGS:
            who = [i for i in new if trigger(i)]
            if who == to_ping:
                continue
            tagged = {(i["acct_slack"] or "", i["account_owner_name"]) for i in who}
            if {(i["acct_slack"] or "", i["account_owner_name"]) for i in to_ping} <= tagged and not tagged & set(spared):
                # pinging by this reading tags the same people (another escalation of one owner stands in for a
                # due one): the judge, which asks for people, does not tell it apart
                return None
            wrongs.append({"why": f"tags the account owner {reading}, not for the customers renewing soon",
                           "kind": "other", "calls": [*writes, *replies(who)]})
        # version 4: a reader who takes the tag to follow another attribute of the tagged examples (each reading
        # of READINGS that tags other people than the habit: the judge asks for people)
        tried = {tuple(sorted({(i["acct_slack"] or "") for i in to_ping})), ()}  # the reference; no tag at all
        for reading, rule in READINGS.items():
            if isinstance(rule, Always):
                continue  # "always" and "never" are the wrong solutions above
            who = [i for i in new if rule.predicts(ex, i)]
            people = tuple(sorted({(i["acct_slack"] or "") for i in who}))
            if people in tried:
                continue
            tried.add(people)
            wrongs.append({"why": f"tags the account owner as if the tag followed {reading} of the tagged earlier "
                                  "escalations (which the earlier escalations contradict), not the customers renewing "
                                  "soon", "kind": "other", "calls": [*writes, *replies(who)]})
    alts = [
        {"why": "the items in reverse order, each with a short triage note",
         "calls": [c for i in reversed(new) for c in (
             write(i), call("linear__create_comment", issueId=i["id"],
                            body=f"Triaged: {i['owner_name']} owns {i['component']}."))]},
        {"why": "assignee, priority and state written in separate updates",
         "calls": [c for i in new for c in (
             call("linear__update_issue", id=i["id"], assignee=i["owner_name"]),
             call("linear__update_issue", id=i["id"], priority=_priority(i["plan"], i["blocked"])),
             call("linear__update_issue", id=i["id"], state=_state(i)))]},
    ]
    alts.append(
        {"why": "triages them and tells support in the channel",
         "calls": [*writes, call("slack__post_message", channel_id=channel["id"],
                                 text="Triaged today's escalations: " + ", ".join(
                                     f"{i['ticket']} -> {i['owner_name']}" for i in new))]})
    alts = [{**a, "calls": [*a["calls"], *pings_due]} for a in alts]
    if to_ping:
        alts += [
            {"why": "the renewal pings first, then the triage", "calls": [*pings_due, *writes]},
            {"why": "a triage note in every new escalation's thread, and the renewal pings as second replies",
             "calls": [*writes, *[call("slack__reply_to_thread", channel_id=channel["id"], thread_ts=i["post_ts"],
                                       text=f"Triaged: {i['owner_name']} has this one.") for i in new],
                       *[call("slack__reply_to_thread", channel_id=channel["id"], thread_ts=i["post_ts"],
                              text=_ping(i)) for i in to_ping]]},
            {"why": "a reply in every new escalation's thread in its own words, the account owner tagged in it where "
                    "the customer renews soon",
             "calls": [*writes, *[call("slack__reply_to_thread", channel_id=channel["id"], thread_ts=i["post_ts"],
                                       text=f"Thanks, this is with {i['owner_name']} now."
                                       + (f" <@{i['acct_slack']}> FYI, {i['short']}'s renewal is coming up on "
                                          f"{i['renews']}." if i in to_ping else "")) for i in new]]},
            {"why": "version 2's way: the renewal pings alone, in their threads, no other reply",
             "calls": [*writes, *[call("slack__reply_to_thread", channel_id=channel["id"], thread_ts=i["post_ts"],
                                       text=_ping(i)) for i in to_ping]]},
            {"why": "the renewal pings as messages of their own in the channel, not in the threads",
             "calls": [*writes, *[call("slack__post_message", channel_id=channel["id"], text=_ping(i)) for i in to_ping]]},
        ]
    return {
        "linear_patch": linear_patch, "slack_patch": slack_patch,
        "frame": frame, "success": success, "reference": reference, "wrongs": wrongs,
        "alternatives": alts, "max_steps": budget(len(reference), forced=1),
        "facts": {"examples": len(ex), "new": len(new), "calls": len(reference), "faults_at": faults_at,
                  "decisions": [f"{i['id']} {i['component']} {i['plan']} {'blocked' if i['blocked'] else 'ok'} -> "
                                f"{i['owner_name']} P{_priority(i['plan'], i['blocked'])} {_state(i)}"
                                f"{' ping' if i['ping'] else ''}{' same-title' if i['dup_title'] else ''}" for i in new],
                  "pinged_examples": [e["id"] for e in ex if e["ping"]],
                  "latest_example_pinged": max(ex, key=lambda e: e["created_at"])["ping"],
                  "same_title_examples": [e["id"] for e in ex if e["title"] == ex[second]["title"]],
                  "twin": [e["id"] for e in ex if e["customer"] in twin.values()],
                  "examples_drawn": ex, "new_drawn": new},
    }


#: How many draws of a world's escalations are tried for a case (a seed gives at most one case).
DRAWS = 4


def _case(seed: int) -> dict[str, Any] | None:
    """The first of :data:`DRAWS` draws of ``seed`` that makes a case, as the template keeps it (``facts``, a
    reader's summary, left out)."""
    for draw in range(DRAWS):
        case = case_of(seed, stream=ID if draw == 0 else f"{ID}#{draw}")
        if case is not None:
            return {k: v for k, v in case.items() if k != "facts"}
    return None


def build() -> dict[str, Any]:
    task = case_task(
        goal=("Support has filed a batch of new escalations in the Escalations team's Triage queue in Linear. Please "
              "triage them the way we have been handling the earlier escalations."),
        servers=["linear", "notion", "slack"], tools=TOOLS,
        faults=[{"tool": "linear__update_issue", "on_call": 3, "kind": "unavailable"},
                {"tool": "linear__update_issue", "on_call": 8, "kind": "timeout_after_commit"}],
        timeout_s=1500, patched=("linear", "slack"))
    return template(id=ID, version=4, servers=["linear", "notion", "slack"], difficulty="hard",
                    category="recovery", case_list=cases(_case, want=10), task=task)
