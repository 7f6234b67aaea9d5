"""x-t-escalation-triage: triage the new escalations in Linear's Escalations queue the way the earlier ones were
triaged. No page states the rules: they are learnt from the team's own past work.

Hard; Linear, Notion and Slack. Support files each customer escalation as an issue of the Escalations team
(``ESC``, planted: a team with a Triage state) titled ``<component>: <problem>``, whose description names the
reporting customer (legal name, contact, account owner of the day, support ticket), and posts the ticket in
#cs-escalations saying whether the customer is blocked (no workaround) or has a workaround. 14 to 16 earlier
escalations were triaged (they sit in Todo or Backlog with an assignee and a priority); 11 to 13 new ones wait
in Triage, unassigned, with no priority. The conventions the earlier ones show, every one of them consistent:

- **assignee**: the owner of the component, as its Notion runbook's header says (``Owner: <name> (<team>)``),
  not the account owner the description names, not the reporter, not the runbook's other "Owner:" lines;
- **priority**: by the customer's plan in the CRM (Notion's Customer Accounts) and whether the Slack escalation
  says it blocks: Enterprise Urgent if blocked else High, Scale High / Medium, Growth and Starter Medium / Low;
- **state**: Todo when blocked, Backlog otherwise.

``CONVENTIONS`` lists each rule's plausible alternatives; ``check_conventions`` raises unless each alternative
is contradicted by at least one earlier escalation, every plan/blocking pair a new item has was seen in the
examples, and reading the priority by the account's ARR instead of its plan either is contradicted or gives
the same answer for every new item; a world whose draw leaves a reading open gives no case, so a careful
reader of the examples reaches one outcome in every case kept. Linear's update answers
``unavailable`` once (not applied: retry) and ``timeout_after_commit`` once (applied).

Judged: each new item's assignee, priority and state exactly (frame, field level; the predicate names the
assignee and state and that the priority was set), at most one comment per item, nothing else changes (the
earlier escalations, the Platform team's own triage queue).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from tasks_catalog.authoring.cross import budget, cases, org, template, world
from tasks_catalog.authoring.cross._x_t_billing import NOTION_READ, SLACK_TOOLS, case_task, rng_for, unix
from tasks_catalog.authoring.cross._x_t_people import call

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
    ]),
]


def check_conventions(examples: list[dict[str, Any]], items: list[dict[str, Any]]) -> None:
    """Raise unless every example follows every convention, every alternative reading is contradicted by at
    least one example, and every new item's plan and blocking were seen together in an example."""
    for name, rule, alternatives in CONVENTIONS:
        for e in examples:
            if e[name] != rule(e):
                raise ValueError(f"{ID}: example {e['id']} does not follow the {name} convention")
        for reading, alt in alternatives:
            if all(alt(e) == rule(e) for e in examples):
                raise ValueError(f"{ID}: no example rules out the {name} reading {reading!r}")
            if any(alt(i) != rule(i) for i in items) and all(alt(e) == e[name] for e in examples):
                raise ValueError(f"{ID}: the {name} reading {reading!r} fits every example")
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
        out[p["title"][len("Runbook: "):]] = {"owner": head, "others": others, "page": p["id"]}
    return out


def case_of(seed: int, stream: str = ID) -> dict[str, Any] | None:  # noqa: C901, PLR0912, PLR0915 - one world's whole case, in order
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

    def make(k: int, combo: tuple[str, bool], component: str, day: str, new: bool) -> dict[str, Any] | None:
        plan, blocked = combo
        cust = rng.choice(by_plan[plan])
        contact = cust.contact("operations", day)
        problem = rng.choice([p for p in PROBLEMS[component] if f"{component}: {p}" not in titles_used]
                             or list(PROBLEMS[component]))
        title = f"{component}: {problem}"
        titles_used.add(title)
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
                "ticket": ticket, "new": new}

    ex_days = sorted(f"2026-{m:02d}-{d:02d}" for m, d in rng.sample(
        [(2, d) for d in range(2, 28) if d not in (7, 8, 14, 15, 21, 22)]
        + [(3, d) for d in range(2, 7) if d not in (1,)], n_examples))
    new_days = sorted(rng.choice(["2026-03-09", "2026-03-10", "2026-03-11", "2026-03-12", "2026-03-13"])
                      for _ in range(n_new))
    examples = [make(k, ex_combos[k], ex_components[k], ex_days[k], False) for k in range(n_examples)]
    items = [make(n_examples + k, new_combos[k], new_components[k], new_days[k], True) for k in range(n_new)]
    if any(x is None for x in examples + items):
        return None
    ex: list[dict[str, Any]] = examples  # type: ignore[assignment]
    new: list[dict[str, Any]] = items  # type: ignore[assignment]
    for e in ex:
        e["assignee"], e["priority"], e["state"] = e["owner"], _priority(e["plan"], e["blocked"]), _state(e)
    if len({i["component"] for i in new} - set(seen_components)) < 1:
        return None
    try:
        check_conventions(ex, new)
    except ValueError:
        return None

    # -- the patches -------------------------------------------------------------------------------------------
    def hour(k: int) -> str:
        return f"{9 + k % 8:02d}:{(17 * k) % 60:02d}:00"

    def describe(i: dict[str, Any]) -> str:
        c = i["contact"]
        when = f"{int(i['day'][8:]):02d} {('February', 'March')[int(i['day'][5:7]) - 2]} 2026"
        return (f"Reported by {c.name} ({c.email}) of {i['customer']} on {when}. Account owner: "
                f"{i['account_owner_name']}. Support ticket {i['ticket']}, escalated in #{CHANNEL}.")

    all_items = ex + new
    issues = []
    for k, i in enumerate(all_items):
        issues.append({
            "id": i["id"], "title": i["title"], "description": describe(i),
            "state": "Triage" if i["new"] else i["state"], "assignee": None if i["new"] else i["assignee"],
            "priority": 0 if i["new"] else i["priority"], "labels": list(LABELS), "comments": [], "cycle": None,
            "project": None, "estimate": None, "creator": i["creator"], "created_at": f"{i['day']}T{hour(k)}Z"})
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
        slack_patch.append({"op": "add", "in": ["channels", channel["id"], "messages"],
                            "value": {"ts": ts(f"{i['day']}T{8 + k % 8:02d}:{minute:02d}:00"),
                                      "user": i["creator_slack"], "text": text}})

    # -- the reference --------------------------------------------------------------------------------------------
    reference = [call("linear__list_teams"),
                 call("linear__list_issues", team=TEAM, limit=50)]
    reference += [call("linear__get_issue", id=i["id"]) for i in all_items]
    if len(channel["messages"]) + len(slack_patch) > 200:
        return None  # the channel is read in one page
    reference += [call("slack__get_channel_history", channel_id=channel["id"], limit=200)]
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
    reference += writes
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

    # telling support in the channel (a reply per escalation, or one summary) is a natural follow-up
    frame.append({"entity": "slack.message", "change": ["create"], "where": {"channel": channel["id"]},
                  "max": len(new) + 1})

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
    return {
        "linear_patch": linear_patch, "slack_patch": slack_patch,
        "frame": frame, "success": success, "reference": reference, "wrongs": wrongs,
        "alternatives": alts, "max_steps": budget(len(reference), forced=1),
        "facts": {"examples": len(ex), "new": len(new), "calls": len(reference), "faults_at": faults_at,
                  "decisions": [f"{i['id']} {i['component']} {i['plan']} {'blocked' if i['blocked'] else 'ok'} -> "
                                f"{i['owner_name']} P{_priority(i['plan'], i['blocked'])} {_state(i)}" for i in new]},
    }


def _case(seed: int) -> dict[str, Any] | None:
    """The case of ``seed`` as the template keeps it (``facts``, a reader's summary, left out)."""
    case = case_of(seed)
    return None if case is None else {k: v for k, v in case.items() if k != "facts"}


def build() -> dict[str, Any]:
    task = case_task(
        goal=("Support has filed a batch of new escalations in the Escalations team's Triage queue in Linear. Please "
              "triage them the way we have been triaging the earlier escalations."),
        servers=["linear", "notion", "slack"], tools=TOOLS,
        faults=[{"tool": "linear__update_issue", "on_call": 3, "kind": "unavailable"},
                {"tool": "linear__update_issue", "on_call": 8, "kind": "timeout_after_commit"}],
        timeout_s=1500, patched=("linear", "slack"))
    return template(id=ID, version=1, servers=["linear", "notion", "slack"], difficulty="hard",
                    category="recovery", case_list=cases(_case, want=10), task=task)
