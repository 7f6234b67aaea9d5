"""x-t-eng-cycle-close: the Engineering team's current Linear cycle ends next Monday; close it out the way the
cycle close-out policy (Notion, planted beside its superseded 2025 version) says.

Hard; GitHub, Linear, Notion and Slack. Scale with per-item judgement: every issue still open in the cycle
(17 of them: the world's own, the rest of which were finished since, and nine planted) is settled by
the first rule that applies, each decided from facts on several servers:

- **Done** when a pull request naming its identifier was merged (GitHub: planted, in two repositories; a
  closed-unmerged one does not count; merged ones naming ``MOB-n`` or ``PLT-n`` beside an ``ENG-n`` of the
  cycle are other teams' issues), with a comment linking the pull request;
- **Duplicate** when it reports the same problem for the same customer as an earlier issue (planted: a
  later report of a customer's problem, reworded; other customers' look-alike titles and the same
  customer's other request are not duplicates), with a comment naming the original;
- **Backlog**, unassigned and out of the cycle, when never started, untouched for 21 days (neither filed
  nor commented since), with no open pull request and not customer-reported;
- otherwise **carried** into the next cycle; a carried issue reported by a key account (the CRM, Notion's
  Customer Accounts: not Churned) is raised to Urgent (Enterprise, Scale) or High (others), never lowered;
  a carried issue whose assignee has left (deactivated in Linear and Slack) goes to the team lead the
  policy names.

Customer-reported means the description names the reporting customer, or a customer's escalation naming the
issue is in #cs-escalations (Slack, planted: a key account and a non-key look-alike of one; another
escalation names an issue outside the cycle). The second comment answers ``timeout_after_commit`` (it was
written: a blind retry duplicates), the fifth update ``unavailable`` (not applied: retry).

Version 2 adds the team's last two close-outs and a habit of theirs that no page states ("as we did at the
last two close-outs"): the lead's summary of each in #eng-backend names the 6 issues it carried (Done since:
12 examples), and the 3 of them whose pull request was still open at the close-out got a comment linking it
(in both repositories and both close-outs; the others, customer-reported ones of key accounts among them,
visibly have none when opened, and ``list_issues`` shows no comments). So a carried item whose pull request
is still open (3 per case, one never started) gets a comment linking it. :data:`ALTERNATIVES` holds the
other readings and :func:`_check_convention` asserts per case that an example contradicts each; the written
policy still decides every state, cycle, priority and assignee. The 13 reads the examples add keep the
reference within the hard band's 60 calls only with fewer items than version 1's 25 to 28.

Judged: each item's state, cycle, assignee and priority as its rule decides (predicate) and nothing else on
it (frame, field level); each required comment's substance (the close-out comment: the open pull request's
link); at most one comment per item; nothing outside the cycle changes.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Sequence
from datetime import date, timedelta
from typing import Any

from tasks_catalog.authoring.cross import budget, cases, org, template, world
from tasks_catalog.authoring.cross._x_t_billing import (
    NOTION_READ,
    SLACK_TOOLS,
    case_task,
    hex_id,
    notion_page,
    rng_for,
    unix,
    uuid_of,
)
from tasks_catalog.authoring.cross._x_t_eng import OWNER, pr_pattern, slack_world_channel
from tasks_catalog.authoring.cross._x_t_people import call

ID = "x-t-eng-cycle-close"
TODAY = "2026-03-16"
#: Activity on or after this day is within the 21 days before the close-out (16 March).
CUTOFF = "2026-02-23"
POLICY = "Cycle close-out policy"
CRM = "Customer Accounts"
CLOSED = ("Done", "Canceled", "Duplicate")
NOT_STARTED = ("Todo", "Backlog")
#: Linear's priorities from highest to lowest (0, No priority, is the lowest).
RANK = {1: 4, 2: 3, 3: 2, 4: 1, 0: 0}
#: How many open issues the cycle has as generated, how many items the case settles, and how long its
#: reference is (the hard band's top, 60, bounds it: opening the past examples costs 13 to 14 reads).
EXISTING = range(9, 25)
ITEMS = range(16, 18)
CALLS = range(45, 61)
#: How many started issues a merged pull request settles (besides one never started).
MERGED = 3
PR_REPOS = ("platform-services", "route-planner")
TOOLS = [
    "github__search_repositories", "github__list_pull_requests", "github__search_issues", "github__list_commits",
    "linear__list_teams", "linear__list_users", "linear__list_cycles", "linear__list_issues", "linear__get_issue",
    "linear__list_comments", "linear__list_issue_statuses", "linear__list_issue_labels", "linear__update_issue",
    "linear__create_comment",
    *NOTION_READ,
    *SLACK_TOOLS,
]
GENERIC = (
    "Part of the Q2 plan. Acceptance: covered by tests, documented, behind a flag.",
    "We agreed in the planning meeting to take this on before the freeze.",
    "Small, but it comes up in every review of this service ({pct} mentions this quarter).",
    "Follow-up from the 4.{v} release retro.",
)
CHORES = (
    "Flaky integration test in {svc} on CI", "Rotate the {svc} service account keys",
    "{svc}: structured logs for the retry path", "Remove the unused feature flags in {svc}",
    "{svc}: cap the batch size of the nightly export", "Tidy the {svc} Helm values",
    "{svc}: p95 latency dashboard per endpoint", "Bump the base image of {svc}",
    "{svc}: alert when the error budget burns twice as fast", "Move {svc} secrets to the vault",
    "{svc}: drop the legacy v1 endpoints", "Speed up the {svc} test suite",
)
SERVICES = ("rate-engine", "billing-api", "notifier", "search-indexer", "warehouse-sync", "tracking-gateway",
            "customs-docs", "auth-service")
#: Titles of the issues the last two close-outs carried (the past examples): none names a customer or
#: repeats an open issue's problem.
EXAMPLE_TITLES = (
    "{svc}: retry webhooks with backoff", "Paginate the {svc} admin list", "{svc}: timeouts on the health check",
    "Cache the {svc} rate tables", "{svc}: make the nightly job idempotent", "Split the {svc} config per region",
    "{svc}: move to the new queue client", "{svc}: archive records older than two years",
    "Add request ids to the {svc} responses", "{svc}: daylight-saving shift in the weekly report",
    "Deduplicate the {svc} alerts", "{svc}: validate postcodes on input", "Trim the {svc} container image",
    "{svc}: expose the queue depth metric", "Upgrade the {svc} ORM",
)
#: The channel where the team lead posts each close-out's summary (the past close-outs).
CLOSE_OUT_CHANNEL = "eng-backend"


def _carried_comment(cycle: int, repo: str, number: int) -> str:
    """The team's close-out comment on a carried issue whose pull request is still open."""
    return f"Carried into cycle {cycle}: {OWNER}/{repo}#{number} is still open, the review continues there."


#: When the team comments on an issue it carries (the convention the past close-outs show, written nowhere):
#: exactly when a pull request naming the issue is still open, and then the comment links it. Each plausible
#: other reading of the examples, as what it predicts for one example (its facts: ``open_pr``, ``repo``,
#: ``customer``, ``key``, ``priority``); :func:`_check_convention` raises unless an example contradicts each.
CONVENTION = ("a carried issue whose pull request is still open gets a comment linking it",
              lambda ex: ex["open_pr"])
ALTERNATIVES: dict[str, Any] = {
    "no comment on carried issues (the written policy asks for none)": lambda ex: False,
    "a comment on every carried issue": lambda ex: True,
    "a comment on every customer-reported carried issue": lambda ex: ex["customer"],
    "only customer-reported carried issues with an open pull request": lambda ex: ex["open_pr"] and ex["customer"],
    "only key accounts' carried issues with an open pull request": lambda ex: ex["open_pr"] and ex["key"],
    "only Urgent or High carried issues with an open pull request":
        lambda ex: ex["open_pr"] and ex["priority"] in (1, 2),
    **{f"only pull requests in {repo}": (lambda r: lambda ex: ex["open_pr"] and ex["repo"] == r)(repo)
       for repo in ("platform-services", "route-planner")},
}


def _check_convention(examples: list[dict[str, Any]]) -> None:
    """Raise ``ValueError`` unless every example follows :data:`CONVENTION` (it carries the comment exactly
    when the rule says) and every reading in :data:`ALTERNATIVES` is contradicted by at least one example."""
    rule = CONVENTION[1]
    wrong = [ex["id"] for ex in examples if rule(ex) != ex["commented"]]
    if wrong:
        raise ValueError(f"{ID}: examples {wrong} do not follow the convention: {CONVENTION[0]}")
    standing = [why for why, alt in ALTERNATIVES.items() if all(alt(ex) == ex["commented"] for ex in examples)]
    if standing:
        raise ValueError(f"{ID}: no past example rules out: {'; '.join(standing)}")


_REPORTED = re.compile(r"^Reported by .+? \(.+?\) of (.+?) on \d")
_TRIAL = re.compile(r"^Raised in the (.+?) trial by ")
_SHORT = re.compile(r"^Reported by (.+?) on (Monday|Tuesday|Wednesday|Thursday|Friday|Saturday|Sunday)\b")


def _day(stamp: str) -> str:
    return stamp[:10]


def _last_activity(issue: dict[str, Any]) -> str:
    return max([_day(issue["created_at"])] + [_day(c.get("created_at") or issue["created_at"])
                                              for c in issue.get("comments", [])])


def _duplicates(o: Any, issues: list[dict[str, Any]], customer_of: Any, items: list[dict[str, Any]]) -> dict[str, str]:
    """The items that report the same problem for the same customer as an issue filed earlier (any team, any
    state): item id -> the earlier issue's id. A problem is the title with the customer's name taken out and
    a leading service name dropped, so a manifest failing in two services counts as one problem (the case
    then has to avoid it)."""
    def key(issue: dict[str, Any]) -> tuple[str, str] | None:
        try:
            named = customer_of(issue)
        except LookupError:
            named = None
        customer = named[1] if named else max((c for c in o.customers if c.short in issue["title"]),
                                             key=lambda c: len(c.short), default=None)
        if customer is None:
            return None
        title = issue["title"].replace(customer.short, "{c}")
        title = re.sub(r"^[a-z-]+: ", "", title)
        return customer.name, title.casefold()

    planted_keys = {"late-shipments view wrong for {c}: yesterday's deliveries flagged late":
                    "{c} dashboard shows yesterday's shipments as late"}
    seen: dict[tuple[str, str], list[dict[str, Any]]] = {}
    for issue in issues:
        k = key(issue)
        if k is not None:
            if k[1].startswith("manifest upload fails with a server error for {c}"):
                k = (k[0], "500s when {c} uploads a manifest over 10 mb")
            k = (k[0], planted_keys.get(k[1], k[1]))
            seen.setdefault(k, []).append(issue)
    out = {}
    for i in items:
        k = key(i)
        if k is None:
            continue
        if k[1].startswith("manifest upload fails with a server error for {c}"):
            k = (k[0], "500s when {c} uploads a manifest over 10 mb")
        k = (k[0], planted_keys.get(k[1], k[1]))
        earlier = [x for x in seen.get(k, []) if x["created_at"] < i["created_at"] and x["id"] != i["id"]]
        if earlier:
            out[i["id"]] = min(earlier, key=lambda x: x["created_at"])["id"]
    return out


def _past_examples(rng: Any, crm: dict[str, Any], cycles: list[dict[str, Any]], staff: tuple[list[str], str],
                   pools: tuple[list[Any], list[Any], tuple[Any, ...]], svcs: Sequence[str],
                   counter: Any) -> list[dict[str, Any]]:
    """The issues the last two close-outs carried (``cycles``: the one before last, the last, the current),
    all Done since: 12 or 13, three of them with a pull request still open at their close-out (merged
    since), in both repositories and both close-outs, which got the team's comment linking it; three
    customer-reported ones (a key account on Enterprise or Scale, another key account, a customer outside
    the CRM), carried at the last close-out (under the current policy: their priorities are its), without a
    pull request and so without the comment; the others plain chores. Each is a dict of ``issue`` (its
    Linear record, the close-out comment added once its pull request has a number), ``repo``, ``pr_day``,
    ``into`` and ``close_at`` (the close-out comment's cycle and time) and ``facts`` (for the convention's
    check). ``staff`` is the Linear ids of the workers and of the lead; ``pools`` the key accounts, the
    customers outside the CRM, and the customers the case already gives a part."""
    (workers, lead), (key_rows, non_key, avoid) = staff, pools
    sizes = (6, 6)
    first = ["pr"] + ["plain"] * (sizes[0] - 1)
    second = ["pr", "key_top", "key_other", "non_key"] + ["plain"] * (sizes[1] - 4)
    first[rng.randrange(1, sizes[0])] = "pr"  # the third: in the first close-out
    rng.shuffle(first)
    rng.shuffle(second)
    repos = [*rng.sample(PR_REPOS, 2), rng.choice(PR_REPOS)]
    pr_priorities = [3, 4, 2]
    rng.shuffle(pr_priorities)
    tops = [c for c in key_rows if c not in avoid and crm[c.name].get("Plan") in ("Enterprise", "Scale")]
    others = [c for c in key_rows if c not in avoid and c not in tops]
    outside = [c for c in non_key if c not in avoid]
    if not (tops and others and outside):
        raise LookupError("no customers for the past examples")
    customers = {"key_top": rng.choice(tops), "key_other": rng.choice(others), "non_key": rng.choice(outside)}
    titles = rng.sample(EXAMPLE_TITLES, len(EXAMPLE_TITLES))
    chatter = ("Picked this up.", "Branch pushed, tests next.", "Blocked on the staging database, back on it "
               "tomorrow.", "Spec agreed with the on-call team.")
    out = []
    for k, role in enumerate(first + second):
        src, into = (cycles[0], cycles[1]) if k < sizes[0] else (cycles[1], cycles[2])
        start, close = date.fromisoformat(src["starts_at"][:10]), date.fromisoformat(src["ends_at"][:10])
        filed = start - timedelta(days=rng.randint(0, 6))
        iid = f"ENG-{next(counter)}"
        title = titles.pop().format(svc=rng.choice(svcs))
        customer = customers.get(role)
        description = rng.choice(GENERIC).format(pct=rng.randint(3, 40), v=rng.randint(18, 23))
        if customer is not None:
            contact = customer.contacts[0]
            description = (f"Reported by {contact.name} ({contact.email}) of {customer.name} on {filed.day} "
                           f"{filed.strftime('%B')} 2026: it happens to them every week.")
        if role == "pr":
            priority = pr_priorities.pop()
        elif role == "non_key" or customer is None:
            priority = 3 if customer else rng.choice((2, 3, 4))
        else:
            priority = 1 if crm[customer.name].get("Plan") in ("Enterprise", "Scale") else 2
        assignee = rng.choice(workers)
        comments = []
        if rng.random() < 0.6:
            said = filed + timedelta(days=rng.randint(1, 5))
            comments.append({"id": f"{iid}-c1", "author": assignee, "body": rng.choice(chatter),
                             "created_at": f"{said.isoformat()}T{rng.randint(9, 17):02d}:{rng.randint(0, 59):02d}:00Z"})
        issue = {"id": iid, "title": title, "description": description, "state": "Done", "assignee": assignee,
                 "priority": priority, "labels": ["Bug" if customer else rng.choice(("Tech debt", "Improvement"))],
                 "cycle": into["id"], "creator": rng.choice(workers),
                 "created_at": f"{filed.isoformat()}T{rng.randint(8, 17):02d}:{rng.randint(0, 59):02d}:00Z",
                 "comments": comments}
        repo = repos.pop() if role == "pr" else None
        pr_day = close - timedelta(days=rng.randint(1, 4))
        out.append({"issue": issue, "repo": repo, "pr_day": f"{pr_day.isoformat()}T{rng.randint(9, 17):02d}:00:00Z",
                    "into": into["number"], "close_at": f"{close.isoformat()}T16:{rng.randint(10, 50):02d}:00Z",
                    "author": lead,
                    "facts": {"id": iid, "open_pr": role == "pr", "repo": repo, "customer": customer is not None,
                              "key": role in ("key_top", "key_other"), "priority": priority,
                              "commented": role == "pr"}})
    return out


def case_of(seed: int) -> dict[str, Any] | None:  # noqa: C901, PLR0912, PLR0915 - one case is one story, told in order
    esc = slack_world_channel(seed, "cs-escalations")
    close_channel = slack_world_channel(seed, CLOSE_OUT_CHANNEL)
    if esc is None:
        return None
    o = org(seed)
    rng = rng_for(ID, seed)
    linear_w, github_w, notion_w, slack_w = (world(s, seed) for s in ("linear", "github", "notion", "slack"))
    if any(p["title"].startswith(POLICY) for p in notion_w["pages"]):
        return None
    if any("ENG-" in m["text"] for c in slack_w["channels"] for m in c["messages"]):
        return None
    cycles = sorted((c for c in linear_w["cycles"] if c["team"] == "ENG"), key=lambda c: c["number"])
    cur = next((c for c in cycles if c["starts_at"] <= TODAY < c["ends_at"]), None)
    nxt = next((c for c in cycles if cur and c["number"] == cur["number"] + 1), None)
    if cur is None or nxt is None:
        return None
    users = {u["id"]: u for u in linear_w["users"]}
    slack_by_email = {u["email"]: u for u in slack_w["users"] if u.get("email")}
    by_linear = {e.linear_id: e for e in o.employees if e.linear_id}

    # -- the CRM and the customers ------------------------------------------------------------------------
    crm_db = next(d for d in notion_w["databases"] if d["title"] == CRM)
    crm = {p["title"]: p["properties"] for p in notion_w["pages"] if p["parent_id"] == crm_db["id"] and not p.get("archived")}
    shorts = Counter(c.short for c in o.customers)

    def customer_of(issue: dict[str, Any]) -> tuple[str, Any] | None:
        """The customer an issue's description says reported it: (what the description calls it, the org
        customer), ``None`` when it names none; raises ``LookupError`` when the name is not one customer."""
        for rx, field in ((_REPORTED, "name"), (_TRIAL, "name"), (_SHORT, "short")):
            m = rx.match(issue["description"])
            if m:
                found = [c for c in o.customers if getattr(c, field) == m.group(1)]
                if len(found) != 1:
                    raise LookupError(m.group(1))
                return m.group(1), found[0]
        return None

    def target_priority(customer: Any) -> int | None:
        row = crm.get(customer.name)
        if row is None or row.get("Status") == "Churned":
            return None
        return 1 if row.get("Plan") in ("Enterprise", "Scale") else 2

    # -- the cycle as generated -----------------------------------------------------------------------------
    existing = [i for i in linear_w["issues"] if i["cycle"] == cur["id"] and i["state"] not in CLOSED]
    if len(existing) not in EXISTING:
        return None
    try:
        reported = {i["id"]: customer_of(i) for i in existing}
    except LookupError:
        return None
    for i in existing:
        if i["state"] in NOT_STARTED and _last_activity(i) in ("2026-02-22", CUTOFF):
            return None  # too close to the 21-day line to be a fair reading
        if i["state"] not in ("Todo", "In Progress", "In Review"):
            return None

    # -- people ---------------------------------------------------------------------------------------------
    active_eng = sorted({i["assignee"] for i in linear_w["issues"] if i["id"].startswith("ENG-") and i["assignee"]
                         and users[i["assignee"]]["active"] and i["assignee"] in by_linear})
    names = Counter(e.name for e in o.employees)
    leads = [by_linear[u] for u in active_eng if by_linear[u].title == "Engineering manager"
             and names[by_linear[u].name] == 1]
    if not leads:
        leads = [e for e in o.employees if e.title == "Engineering manager" and e.linear_id in users
                 and users[e.linear_id]["active"] and names[e.name] == 1]
    if not leads:
        return None
    lead = rng.choice(leads)
    leavers = [e for e in o.employees if e.linear_id in users and not users[e.linear_id]["active"]
               and e.department in ("Engineering", "Platform") and e.leave and e.leave < TODAY
               and e.email in slack_by_email and slack_by_email[e.email].get("deleted")]
    if not leavers:
        return None
    workers = [u for u in active_eng if u != lead.linear_id]

    # -- planted issues -------------------------------------------------------------------------------------
    eng_max = max(int(i["id"].split("-")[1]) for i in linear_w["issues"] if i["id"].startswith("ENG-"))
    counter = iter(range(eng_max + 1, eng_max + 40))
    planted: list[dict[str, Any]] = []
    chores = rng.sample(CHORES, len(CHORES))
    svcs = rng.sample(SERVICES, len(SERVICES))

    def plant(title: str, description: str, state: str, assignee: str | None, created: str, priority: int,
              labels: list[str], comments: tuple[tuple[str, str], ...] = ()) -> dict[str, Any]:
        iid = f"ENG-{next(counter)}"
        issue = {"id": iid, "title": title, "description": description, "state": state, "assignee": assignee,
                 "priority": priority, "labels": labels, "cycle": cur["id"], "creator": rng.choice(workers),
                 "created_at": created, "comments": [
                     {"id": f"{iid}-c{k + 1}", "author": rng.choice(workers), "body": body, "created_at": when}
                     for k, (body, when) in enumerate(comments)]}
        planted.append(issue)
        return issue

    def generic() -> str:
        return rng.choice(GENERIC).format(pct=rng.randint(3, 40), v=rng.randint(18, 23))

    def chore() -> str:
        return chores.pop().format(svc=svcs[len(chores) % len(svcs)])

    def old_day() -> str:
        return f"2026-0{rng.choice((1, 2))}-{rng.randint(2, 14):02d}T{rng.randint(8, 17):02d}:{rng.randint(0, 59):02d}:00Z"

    def recent_day() -> str:
        return f"2026-03-{rng.randint(2, 13):02d}T{rng.randint(8, 17):02d}:{rng.randint(0, 59):02d}:00Z"

    # a later report of an open customer issue's problem (the duplicate), and the same customer's other request
    originals = [i for i in existing if reported[i["id"]] and _REPORTED.match(i["description"])
                 and ("dashboard shows yesterday" in i["title"] or "500s when" in i["title"])
                 and i["created_at"] < "2026-03-10"]
    if not originals:
        return None
    original = rng.choice(originals)
    first_report = reported[original["id"]]
    assert first_report is not None  # the originals are reported ones
    o_cust = first_report[1]
    contact = next(c for c in o_cust.contacts if c.email in original["description"])
    dup_day = f"2026-03-{rng.randint(max(int(original['created_at'][8:10]) + 1, 10) if original['created_at'] >= '2026-03' else 10, 13):02d}"
    if "dashboard" in original["title"]:
        dup_title = f"Late-shipments view wrong for {o_cust.short}: yesterday's deliveries flagged late"
        problem = "their dashboard still marks shipments delivered yesterday as late"
    else:
        svc = original["title"].split(":")[0]
        dup_title = f"Manifest upload fails with a server error for {o_cust.short} ({svc})"
        problem = "uploading a manifest larger than 10 MB still fails with a server error"
    dup = plant(dup_title,
                f"Reported by {contact.name} ({contact.email}) of {o_cust.name} on "
                f"{int(dup_day[8:10])} March 2026: {problem}. Support ticket KFS-{rng.randint(4800, 5200)}.",
                "Todo", rng.choice(workers), f"{dup_day}T{rng.randint(9, 16):02d}:12:00Z", 3, ["Bug"])
    other_req = plant(f"Export shipments as CSV for {o_cust.short}",
                      f"Reported by {contact.name} ({contact.email}) of {o_cust.name} on "
                      f"{int(dup_day[8:10])} March 2026. They want a weekly CSV of delivered shipments.",
                      "Todo", rng.choice(workers), f"{dup_day}T{rng.randint(9, 16):02d}:40:00Z", 4, ["Feature"])

    # an assignee who left: one carried (started), one untouched (back to the backlog)
    leaver = rng.choice(leavers)
    leaver_started = plant(chore(), generic(), "In Progress", leaver.linear_id, old_day(), 3, ["Tech debt"],
                           ((rng.choice(("Halfway there, branch pushed.", "Picked this up.")),
                             f"2026-02-{rng.randint(16, 20):02d}T10:05:00Z"),))
    leaver_idle = plant(chore(), generic(), "Todo", leaver.linear_id, old_day(), 4, ["Tech debt"])

    # escalated in #cs-escalations: a key account (Growth or Starter where there is one) and a non-key look-alike
    key_rows = [c for c in o.customers if c.name in crm and crm[c.name].get("Status") != "Churned"
                and shorts[c.short] == 1 and c.name != o_cust.name]
    lesser = [c for c in key_rows if crm[c.name].get("Plan") in ("Growth", "Starter")]
    esc_key = rng.choice(lesser or key_rows)
    non_key = [c for c in o.customers if c.name not in crm and c.status in ("Active", "At risk") and shorts[c.short] == 1
               and not any(c.short in i["title"] for i in existing)]
    lookalike_non_key = [c for c in non_key if c.group or any(c.short.split()[0] == k.short.split()[0] for k in key_rows)]
    esc_other = rng.choice(lookalike_non_key or non_key)
    esc_key_issue = plant(chore(), generic(), "Todo", rng.choice(workers), old_day(), 4, ["Bug"])
    esc_other_issue = plant(chore(), generic(), "Todo", rng.choice(workers), old_day(), 3, ["Bug"])

    # never started and old, but: an open pull request; a recent comment; a closed-unmerged pull request; nothing
    pr_open_idle = plant(chore(), generic(), "Todo", rng.choice(workers), old_day(), 3, ["Tech debt"])
    commented = plant(chore(), generic(), "Todo", rng.choice(workers), old_day(), 3, ["Improvement"],
                      (("Still needed after the last incident, I'll take it next.", recent_day()),))
    pr_closed_idle = plant(chore(), generic(), "Todo", rng.choice(workers), old_day(), 4, ["Tech debt"])
    optional = [lambda: plant(chore(), generic(), "Todo", rng.choice(workers), old_day(), 4, ["Improvement"]),
                lambda: plant(chore(), generic(), "In Progress", rng.choice(workers), old_day(), 3, ["Improvement"])]
    target = ITEMS.start
    k = 0
    while len(existing) + len(planted) < target and k < len(optional):
        optional[k]()
        k += 1
    items = sorted(existing + planted, key=lambda i: int(i["id"].split("-")[1]))

    # -- the past close-outs: the issues the last two carried, each Done since ------------------------------
    by_number = {c["number"]: c for c in cycles}
    before_last, last = by_number.get(cur["number"] - 2), by_number.get(cur["number"] - 1)
    if before_last is None or last is None:
        return None
    past = [before_last, last]
    try:
        examples = _past_examples(rng, crm, [before_last, last, cur], (workers, lead.linear_id),
                                  (key_rows, non_key, (o_cust, esc_key, esc_other)), svcs, counter)
    except LookupError:
        return None
    _check_convention([ex["facts"] for ex in examples])
    if _duplicates(o, linear_w["issues"] + planted + [ex["issue"] for ex in examples], customer_of,
                   items) != {dup["id"]: original["id"]}:
        return None  # the planted pair must be the only report of one problem by one customer twice
    for i in planted:
        reported[i["id"]] = customer_of(i)
    reported[esc_key_issue["id"]] = (esc_key.short, esc_key)
    reported[esc_other_issue["id"]] = (esc_other.short, esc_other)

    # -- GitHub: the pull requests ----------------------------------------------------------------------------
    repos = {r["name"]: r for r in github_w["repos"]}
    next_no = {name: max([i["number"] for i in r["issues"]] + [p["number"] for p in r["pull_requests"]]) + 1
               for name, r in repos.items()}
    roles = {dup["id"], other_req["id"], leaver_started["id"], leaver_idle["id"], esc_key_issue["id"],
             esc_other_issue["id"], pr_open_idle["id"], commented["id"], pr_closed_idle["id"],
             original["id"]}
    started = [i for i in existing if i["state"] in ("In Progress", "In Review") and i["id"] not in roles]
    todo_free = [i for i in existing if i["state"] == "Todo" and i["id"] not in roles]
    if len(started) < 6:
        return None
    rng.shuffle(started)
    merged_items = started[:MERGED] + todo_free[:1]
    open_items = started[len(merged_items) - len(todo_free[:1]):][:2] + [pr_open_idle]
    # the world's other open issues beyond what the case settles were finished since (the reference, with the
    # past examples opened, stays within the hard band's 60 calls)
    busy = roles | {i["id"] for i in merged_items + open_items}
    spare = [i for i in existing if i["id"] not in busy]
    rng.shuffle(spare)
    spare.sort(key=lambda i: i["state"] in NOT_STARTED)  # started ones first: the stale ones are the backlog's
    finished = spare[:max(0, len(items) - (ITEMS.stop - 1))]
    items = [i for i in items if i not in finished]
    github_patch: list[dict[str, Any]] = []
    prs: dict[str, tuple[str, int]] = {}
    main_commits: dict[str, list[dict[str, Any]]] = {n: [] for n in repos}

    def login_of(issue: dict[str, Any]) -> str:
        e = by_linear.get(issue["assignee"] or "")
        return e.github_login if e and e.github_login else "kestrel-ops-bot"

    def add_pr(repo: str, title: str, body: str, head: str, author: str, day: str, *, merged: bool,
               closed: bool = False) -> int:
        number = next_no[repo]
        next_no[repo] += 1
        pr: dict[str, Any] = {"number": number, "title": title, "body": body, "head": head, "base": "main",
                              "author": author, "labels": [], "created_at": day}
        if merged:
            sha = hex_id(ID, seed, repo, number, n=40)
            main_commits[repo].append({"sha": sha, "message": f"{title} (#{number})", "author": author})
            pr |= {"state": "closed", "merged": True, "merge_commit_sha": sha}
        elif closed:
            pr |= {"state": "closed"}
        github_patch.append({"op": "add", "in": ["repos", f"{OWNER}/{repo}", "pull_requests"], "value": pr})
        return number

    def slug(title: str) -> str:
        return re.sub(r"[^a-z0-9]+", "-", title.lower()).strip("-")[:40]

    # the past examples' pull requests (merged since), and the comment linking each at its close-out
    for ex in examples:
        if ex["repo"]:
            i = ex["issue"]
            n = i["id"].split("-")[1]
            number = add_pr(ex["repo"], f"ENG-{n}: {i['title'][0].upper()}{i['title'][1:]}", f"Fixes ENG-{n}.",
                            f"eng-{n}-{slug(i['title'])}", login_of(i), ex["pr_day"], merged=True)
            i["comments"].append({"id": f"{i['id']}-c{len(i['comments']) + 1}", "author": ex["author"],
                                  "body": _carried_comment(ex["into"], ex["repo"], number),
                                  "created_at": ex["close_at"]})
    open_repos = [*rng.sample(PR_REPOS, 2), *(rng.choice(PR_REPOS) for _ in open_items[2:])]
    for kind, group in (("merged", merged_items), ("open", open_items)):
        for k, i in enumerate(group):
            repo = open_repos[k] if kind == "open" else rng.choice(PR_REPOS)
            n = i["id"].split("-")[1]
            day = f"2026-03-{rng.randint(9, 14):02d}T{rng.randint(9, 17):02d}:{rng.randint(0, 59):02d}:00Z"
            title = i["title"][0].upper() + i["title"][1:]
            prs[i["id"]] = (repo, add_pr(repo, f"ENG-{n}: {title}", f"Fixes ENG-{n}.", f"eng-{n}-{slug(i['title'])}",
                                         login_of(i), day, merged=kind == "merged"))
    closed_repo = rng.choice(PR_REPOS)
    closed_no = add_pr(closed_repo, f"ENG-{pr_closed_idle['id'].split('-')[1]}: {pr_closed_idle['title']}",
                       f"Fixes {pr_closed_idle['id']}. Closing: superseded by the platform rewrite.",
                       f"eng-{pr_closed_idle['id'].split('-')[1]}-{slug(pr_closed_idle['title'])}",
                       login_of(pr_closed_idle), "2026-02-03T11:00:00Z", merged=False, closed=True)
    # other teams' identifiers with the numbers of two ENG issues that no merged pull request names
    decoys = [i for i in items if i["id"] not in prs and i["id"] not in (dup["id"], pr_closed_idle["id"])]
    decoy_items = rng.sample(decoys, 2)
    for team, repo, i in (("MOB", "driver-app", decoy_items[0]), ("PLT", "infra", decoy_items[1])):
        n = i["id"].split("-")[1]
        add_pr(repo, f"{team}-{n}: {rng.choice(('Retry uploads on flaky networks', 'Pin the node pool version'))}",
               f"Fixes {team}-{n}.", f"{team.lower()}-{n}-fix", "kestrel-ops-bot",
               f"2026-03-{rng.randint(9, 13):02d}T15:00:00Z", merged=True)
    for repo, commits in main_commits.items():
        if commits:
            main = next(b for b in repos[repo]["branches"] if b["name"] == "main")
            github_patch.append({"op": "update", "in": ["repos", f"{OWNER}/{repo}", "branches"], "id": "main",
                                 "fields": {"commits": [*reversed(commits), *main["commits"]]}})

    # -- Slack: the escalations -------------------------------------------------------------------------------
    taken = {m["ts"] for c in slack_w["channels"] for m in c["messages"]}
    members = set(esc["members"])

    def poster(customer: Any) -> str:
        owner = o.employee(customer.owner)
        u = slack_by_email.get(owner.email)
        if u and u["id"] in members and not u.get("deleted"):
            return u["id"]
        return next(s["id"] for s in slack_w["users"] if s["id"] in members and not s.get("deleted")
                    and not s.get("is_bot"))

    def ts(day_time: str) -> str:
        stamp = f"{unix(day_time)}.{rng.randint(100000, 999999)}"
        assert stamp not in taken
        taken.add(stamp)
        return stamp

    outside = [i for i in linear_w["issues"] if i["id"].startswith("ENG-") and i["cycle"] is None
               and i["state"] in ("Backlog", "Todo") and i["priority"] in (3, 4)]
    if not outside:
        return None
    outside_issue = rng.choice(outside)
    out_cust = rng.choice([c for c in key_rows if c is not esc_key])
    escalations = [
        (esc_key, esc_key_issue, f"2026-03-{rng.randint(10, 12):02d}T09:{rng.randint(10, 50):02d}:00",
         f"{esc_key.short} chased {esc_key_issue['id']} ({esc_key_issue['title']}) again this morning: their "
         f"dispatch team runs into it every day. Can we keep it on the radar?"),
        (esc_other, esc_other_issue, f"2026-03-{rng.randint(10, 13):02d}T14:{rng.randint(10, 50):02d}:00",
         f"Call with {esc_other.short} today: {esc_other_issue['id']} is what blocks their rollout. They asked "
         f"twice when it lands."),
        (out_cust, outside_issue, f"2026-03-{rng.randint(9, 13):02d}T11:{rng.randint(10, 50):02d}:00",
         f"FYI {out_cust.short} asked about {outside_issue['id']} ({outside_issue['title']}), no rush on their "
         f"side, next quarter is fine."),
    ]
    slack_patch = [{"op": "add", "in": ["channels", esc["id"], "messages"],
                    "value": {"ts": ts(when), "user": poster(c), "text": text}}
                   for c, _, when, text in sorted(escalations, key=lambda e: e[2])]
    # the lead's summary of each past close-out, naming the issues it carried
    lead_slack = slack_by_email.get(lead.email)
    if close_channel is None or lead_slack is None or lead_slack.get("deleted"):
        return None
    for src in past:
        carried = [ex["issue"]["id"] for ex in examples if ex["into"] == src["number"] + 1]
        done = sum(1 for i in linear_w["issues"] if i["cycle"] == src["id"] and i["state"] == "Done") + sum(
            1 for ex in examples if ex["into"] == src["number"])  # the ones carried into it, Done there since
        slack_patch.append({"op": "add", "in": ["channels", close_channel["id"], "messages"], "value": {
            "ts": ts(f"{src['ends_at'][:10]}T17:{rng.randint(10, 50):02d}:00"), "user": lead_slack["id"],
            "text": f"ENG cycle {src['number']} is closed out: {done} issues done in it. Carried into cycle "
                    f"{src['number'] + 1}: {', '.join(carried)}."}})

    # -- Notion: the policy and its superseded version ---------------------------------------------------------
    policies, superseded = notion_page(seed, "Policies"), notion_page(seed, "Superseded")

    def pid(*parts: object) -> str:
        return uuid_of(ID, seed, *parts)

    current = [
        ("heading_2", "Effective 2026-03-02 (replaces the 2025 version)"),
        ("paragraph", "When an Engineering (ENG) cycle ends, every issue still in it that is not Done, Canceled or "
                      "Duplicate is settled before the cycle closes, by the first of these rules that applies."),
        ("paragraph", "1. Shipped: a pull request in one of our GitHub repositories whose title or body names the "
                      "issue's identifier (ENG-123) has been merged. Set the issue to Done and comment on it with a "
                      "link to that pull request (owner/repo#number). A pull request closed without merging does "
                      "not count, and another team's identifier (PLT-123, MOB-123) is another issue."),
        ("paragraph", "2. Duplicate: the issue reports the same problem for the same customer as an issue filed "
                      "earlier. Set it to Duplicate and comment on it with the identifier of the original."),
        ("paragraph", "3. Back to the backlog: the issue was never started (Todo or Backlog), nothing has happened "
                      "on it for 21 days (it was neither filed nor commented on in the 21 days before the "
                      "close-out), no open pull request names it, and it is not customer-reported. Take it out of "
                      "the cycle, set it to Backlog and unassign it."),
        ("paragraph", "4. Everything else is carried into the next cycle, in the state it is in."),
        ("paragraph", "Customer-reported: the issue's description says which customer reported it (or raised it in "
                      "their trial), or the customer's escalation naming the issue is in #cs-escalations. An issue "
                      "that only names a customer in its title (an integration for them, say) is not "
                      "customer-reported."),
        ("paragraph", f"Priority of carried issues: one reported by a key account (a customer listed in {CRM}, not "
                      "Churned) gets Urgent if the account's plan is Enterprise or Scale, and High otherwise, unless "
                      "it already has a higher priority (Urgent, High, Medium, Low, then No priority, highest "
                      "first). Never lower a priority."),
        ("paragraph", f"A carried issue whose assignee has left the company (their account is deactivated) is "
                      f"assigned to the Engineering team lead, {lead.name}."),
        ("paragraph", "Nothing else changes at close-out: no new issues, no other fields."),
        ("paragraph", f"Owner: {lead.name}"),
    ]
    old = [
        ("heading_2", "Effective 2025-01-01"),
        ("paragraph", "At the end of a cycle, issues that nobody touched for 30 days go back to the backlog, "
                      "unassigned, whoever reported them. Duplicates are Canceled. Everything else moves to the "
                      "next cycle."),
        ("paragraph", "Issues from key accounts get priority High."),
        ("paragraph", f"Owner: {lead.name}"),
    ]
    notion_patch = [
        {"op": "add", "in": ["pages"], "value": {
            "id": pid("policy"), "title": POLICY, "parent_id": policies["id"], "properties": {}, "archived": False,
            "created_time": "2026-03-02T08:00:00Z",
            "content": [{"id": pid("policy", k), "type": t, "text": x} for k, (t, x) in enumerate(current)]}},
        {"op": "add", "in": ["pages"], "value": {
            "id": pid("policy-2025"), "title": f"{POLICY} 2025 (superseded)", "parent_id": superseded["id"],
            "properties": {}, "archived": False, "created_time": "2025-01-01T08:00:00Z",
            "content": [{"id": pid("policy-2025", k), "type": t, "text": x} for k, (t, x) in enumerate(old)]}},
    ]
    linear_patch = [*({"op": "update", "in": ["issues"], "id": i["id"], "fields": {"state": "Done"}} for i in finished),
                    *({"op": "add", "in": ["issues"], "value": i} for i in planted + [ex["issue"] for ex in examples])]

    # -- what the policy decides, per item ----------------------------------------------------------------------
    decisions: list[dict[str, Any]] = []
    still_open = {i["id"] for i in open_items}
    for i in items:
        iid = i["id"]
        cust = reported.get(iid)
        d: dict[str, Any] = {"id": iid, "issue": i}
        if iid in prs and iid in {m["id"] for m in merged_items}:
            d |= {"rule": "done", "pr": prs[iid]}
        elif iid == dup["id"]:
            d |= {"rule": "duplicate", "original": original["id"]}
        elif (i["state"] in NOT_STARTED and _last_activity(i) < CUTOFF and iid not in prs and cust is None):
            d |= {"rule": "backlog"}
        else:
            d |= {"rule": "carry"}
            want = target_priority(cust[1]) if cust else None
            if want is not None and RANK[want] > RANK[i["priority"]]:
                d["priority"] = want
            if i["assignee"] and not users[i["assignee"]]["active"]:
                d["assignee"] = lead.linear_id
            if iid in still_open:
                d["open_pr"] = prs[iid]
        decisions.append(d)
    if len(items) not in ITEMS:
        return None
    rules = Counter(d["rule"] for d in decisions)
    if rules["backlog"] < 3 or rules["carry"] < 8:
        return None

    # -- the writes ------------------------------------------------------------------------------------------
    def write(d: dict[str, Any], **over: Any) -> list[dict[str, Any]]:
        iid, rule = d["id"], over.get("rule", d["rule"])
        if rule == "done":
            repo, number = d["pr"]
            return [call("linear__update_issue", id=iid, state="Done"),
                    call("linear__create_comment", issueId=iid,
                         body=f"Shipped in {OWNER}/{repo}#{number} (merged), closing at the cycle close-out.")]
        if rule == "duplicate":
            return [call("linear__update_issue", id=iid, state=over.get("state", "Duplicate")),
                    call("linear__create_comment", issueId=iid, body=f"Duplicate of {d['original']}.")]
        if rule == "backlog":
            return [call("linear__update_issue", id=iid, state="Backlog", assignee="", cycle="")]
        args: dict[str, Any] = {"cycle": nxt["id"]}
        if "priority" in over or "priority" in d:
            pr = over.get("priority", d.get("priority"))
            if pr is not None:
                args["priority"] = pr
        if "assignee" in d and over.get("keep_assignee") is not True:
            args["assignee"] = lead.email
        out = [call("linear__update_issue", id=iid, **args)]
        comment = over.get("comment", "open_pr" in d)
        if comment:
            out.append(call("linear__create_comment", issueId=iid, body=_carried_comment(nxt["number"], *d["open_pr"])
                            if "open_pr" in d else f"Carried into cycle {nxt['number']}."))
        return out

    writes = [w for d in decisions for w in write(d)]
    comment_calls = [k for k, w in enumerate(writes) if w["tool"] == "linear__create_comment"]
    faulted = writes[comment_calls[1]]
    check = call("linear__list_comments", issueId=faulted["arguments"]["issueId"])
    writes.insert(comment_calls[1] + 1, check)

    shipped = {m["id"] for m in merged_items}

    def needs_reading(i: dict[str, Any]) -> bool:
        """Whether the decision on ``i`` needs what only the issue itself shows (its description and comments):
        not for one a merged pull request settles, nor for the priority of one already Urgent."""
        if i["id"] in shipped:
            return False
        stale_question = i["state"] in NOT_STARTED and _day(i["created_at"]) < CUTOFF and i["id"] not in prs
        return stale_question or (customer_of(i) is not None and i["priority"] != 1) or i["id"] == dup["id"]

    reads = [
        call("notion__search", query="cycle close-out"),
        call("notion__get_block_children", block_id=pid("policy")),
        call("linear__list_cycles", team="ENG"),
        call("linear__list_issues", team="ENG", cycle=str(cur["number"]), limit=50),
        call("linear__list_issues", team="ENG", cycle=str(cur["number"]), query="Reported by", limit=50),
        *(call("linear__get_issue", id=i["id"]) for i in items if needs_reading(i)),
        call("linear__list_users"),
        call("github__search_issues", query="ENG is:pr is:merged", perPage=100),
        call("github__search_issues", query="ENG is:pr is:open", perPage=100),
        call("slack__get_channel_history", channel_id=esc["id"], limit=30),
        call("notion__query_database", database_id=crm_db["id"], page_size=100),
        call("slack__search_messages", query="closed out"),
        *(call("linear__get_issue", id=ex["issue"]["id"]) for ex in examples),
    ]
    reference = [*reads, *writes]
    if len(reference) not in CALLS:
        return None

    # -- frame and predicate ----------------------------------------------------------------------------------
    frame: list[dict[str, Any]] = []
    success: list[dict[str, Any]] = []
    for d in decisions:
        iid, rule = d["id"], d["rule"]
        if rule == "done":
            repo, number = d["pr"]
            frame.append({"entity": "linear.issue", "ids": [iid], "fields": ["state"],
                          "values": {"state": {"eq": "Done"}}})
            success += [{"linear.issueState": {"issue": iid, "state": "Done"}},
                        {"linear.issueHasComment": {"issue": iid, "pattern": pr_pattern(repo, number)}}]
        elif rule == "duplicate":
            frame.append({"entity": "linear.issue", "ids": [iid], "fields": ["state"],
                          "values": {"state": {"eq": "Duplicate"}}})
            success += [{"linear.issueState": {"issue": iid, "state": "Duplicate"}},
                        {"linear.issueHasComment": {"issue": iid, "pattern": f"{d['original']}([^0-9]|$)"}}]
        elif rule == "backlog":
            frame.append({"entity": "linear.issue", "ids": [iid], "fields": ["state", "assignee", "cycle"],
                          "values": {"state": {"eq": "Backlog"}, "assignee": {"eq": None}, "cycle": {"eq": None}}})
            success += [{"linear.issueState": {"issue": iid, "state": "Backlog"}},
                        {"linear.issueAssignee": {"issue": iid, "assignee": None}},
                        {"linear.issueInCycle": {"issue": iid, "cycle": None}}]
        else:
            fields, values = ["cycle"], {"cycle": {"eq": nxt["id"]}}
            success.append({"linear.issueInCycle": {"issue": iid, "cycle": nxt["id"]}})
            if "priority" in d:
                fields.append("priority")
                values["priority"] = {"eq": d["priority"]}
                # the predicate asks that the priority changed, the frame that it changed to exactly this one (the
                # goal names no priority, so the predicate cannot name it: docs/predicates.md, "Goal literals")
                success.append({"not": {"linear.issuePriority": {"issue": iid, "priority": d["issue"]["priority"]}}})
            if "open_pr" in d:
                success.append({"linear.issueHasComment": {"issue": iid, "pattern": pr_pattern(*d["open_pr"])}})
            if "assignee" in d:
                fields.append("assignee")
                values["assignee"] = {"eq": d["assignee"]}
                success.append({"linear.issueAssignee": {"issue": iid, "assignee": d["assignee"]}})
            frame.append({"entity": "linear.issue", "ids": [iid], "fields": fields, "values": values})
        frame.append({"entity": "linear.comment", "change": ["create"], "where": {"issue": iid}, "max": 1})
    # the lead summed up each past close-out in the channel: a summary of this one, as they did, is no damage
    frame.append({"entity": "slack.message", "change": ["create"], "where": {"channel": close_channel["id"]}, "max": 1})

    # -- wrong solutions (their writes only) ---------------------------------------------------------------------
    by_id = {d["id"]: d for d in decisions}

    def writes_with(changed: dict[str, list[dict[str, Any]]],
                    extra: Sequence[dict[str, Any]] = ()) -> list[dict[str, Any]]:
        out = []
        for d in decisions:
            out += changed.get(d["id"], write(d))
        return out + list(extra)

    decoy_writes = {i["id"]: [call("linear__update_issue", id=i["id"], state="Done"),
                              call("linear__create_comment", issueId=i["id"], body=f"Shipped ({team}-{i['id'][4:]}).")]
                    for team, i in (("MOB", decoy_items[0]), ("PLT", decoy_items[1]))}
    carry_all = {d["id"]: [call("linear__update_issue", id=d["id"], cycle=nxt["id"])] for d in decisions}
    old_policy = {}
    for d in decisions:
        i = d["issue"]
        if d["rule"] == "duplicate":
            old_policy[d["id"]] = write(d, state="Canceled")
        elif i["state"] in NOT_STARTED and _last_activity(i) < "2026-02-14" and d["id"] not in prs:
            old_policy[d["id"]] = write(d, rule="backlog")
    no_slack = {x["id"]: write(by_id[x["id"]], rule="backlog") for x in (esc_key_issue, esc_other_issue)}
    closed_as_merged = {pr_closed_idle["id"]: [
        call("linear__update_issue", id=pr_closed_idle["id"], state="Done"),
        call("linear__create_comment", issueId=pr_closed_idle["id"],
             body=f"Shipped in {OWNER}/{closed_repo}#{closed_no}, closing.")]}
    leaver_kept = {leaver_started["id"]: write(by_id[leaver_started["id"]], keep_assignee=True)}
    other_key = {esc_other_issue["id"]: write(by_id[esc_other_issue["id"]], priority=1)}
    dup_missed = {dup["id"]: write(by_id[dup["id"]], rule="carry")}
    lowered = [d for d in decisions if d["rule"] == "carry" and d["issue"]["priority"] == 1
               and (report := reported.get(d["id"])) and target_priority(report[1]) == 2]
    wrongs = [
        {"why": "takes merged pull requests of other teams (MOB-n, PLT-n) for the ENG issues with those numbers",
         "kind": "lookalike", "calls": writes_with(decoy_writes)},
        {"why": f"does everything right and also raises {outside_issue['id']}, escalated but not in the cycle",
         "kind": "collateral",
         "calls": writes_with({}, [call("linear__update_issue", id=outside_issue["id"], priority=1)])},
        {"why": "carries every open issue into the next cycle as it is", "kind": "other",
         "calls": [w for d in decisions for w in carry_all[d["id"]]]},
        {"why": "writes the second comment again after its timeout without looking (a duplicate)", "kind": "other",
         "calls": [*writes[:comment_calls[1] + 1], writes[comment_calls[1]], *writes[comment_calls[1] + 2:]]},
        {"why": "follows the superseded 2025 policy: 30 days, customer issues too, duplicates Canceled",
         "kind": "other", "calls": writes_with(old_policy)},
        {"why": "ignores the escalations in #cs-escalations: both escalated issues go to the backlog", "kind": "other",
         "calls": writes_with(no_slack)},
        {"why": "counts the pull request closed without merging as shipped", "kind": "other",
         "calls": writes_with(closed_as_merged)},
        {"why": f"leaves the carried issue of {leaver.name}, who has left, with them", "kind": "other",
         "calls": writes_with(leaver_kept)},
        {"why": f"raises {esc_other.short}'s issue though they are not a key account", "kind": "other",
         "calls": writes_with(other_key)},
        {"why": "misses the duplicate and carries it", "kind": "other", "calls": writes_with(dup_missed)},
    ]
    if lowered:
        d = lowered[0]
        wrongs.append({"why": f"lowers {d['id']} from Urgent to High", "kind": "other",
                       "calls": writes_with({d["id"]: write(d, priority=2)})})
    courtesy = [call("linear__create_comment", issueId=d["id"], body=f"Carried over to cycle {nxt['number']}.")
                for d in decisions if d["rule"] == "carry" and "open_pr" not in d][:3]
    # the other readings of the past close-outs' comments, on the carried items: those that leave out a comment
    # the convention asks for must fail (those that only add one, a courtesy, pass as follow-ups do)
    carried_facts = {d["id"]: {"open_pr": "open_pr" in d, "repo": d.get("open_pr", (None,))[0],
                               "customer": reported.get(d["id"]) is not None,
                               "key": (report := reported.get(d["id"])) is not None
                               and target_priority(report[1]) is not None,
                               "priority": d.get("priority", d["issue"]["priority"])}
                     for d in decisions if d["rule"] == "carry"}
    for why, alt in ALTERNATIVES.items():
        if all(alt(f) or not f["open_pr"] for f in carried_facts.values()):
            continue  # this reading writes every comment the convention asks for on this case's items
        wrongs.append({"why": f"reads the past close-outs as: {why}", "kind": "other",
                       "calls": writes_with({iid: write(by_id[iid], comment=alt(f)) for iid, f in carried_facts.items()})})
    carried_ids = [d["id"] for d in decisions if d["rule"] == "carry"]
    alternatives = [
        {"why": "the items in reverse order, by names and numbers, with a note on a few carried issues",
         "calls": [*(w for d in reversed(decisions) for w in write(d)), *courtesy]},
        {"why": "sums the close-out up in the channel, as the lead did at the last two",
         "calls": [*writes, call("slack__post_message", channel_id=close_channel["id"],
                                 text=f"ENG cycle {cur['number']} is closed out. Carried into cycle "
                                      f"{cur['number'] + 1}: {', '.join(carried_ids)}.")]},
    ]
    return {
        "cycle": cur["number"],
        "github_patch": github_patch, "linear_patch": linear_patch, "notion_patch": notion_patch,
        "slack_patch": slack_patch,
        "frame": frame, "success": success, "reference": reference, "wrongs": wrongs, "alternatives": alternatives,
        "max_steps": budget(len(reference), forced=1),
        "facts": {"items": len(items), "rules": dict(rules), "calls": len(reference),
                  "decisions": [f"{d['id']} {d['rule']} {d.get('priority', '')} {d.get('assignee', '')}"
                                for d in decisions]},
    }


def build() -> dict[str, Any]:
    task = case_task(
        goal=("ENG's current cycle ({{case.cycle}}) ends next Monday and I want it closed out today: go through "
              "everything still open in it and settle each issue the way our cycle close-out policy says, as we did at the last two close-outs."),
        servers=["github", "linear", "notion", "slack"], tools=TOOLS,
        faults=[{"tool": "linear__create_comment", "on_call": 2, "kind": "timeout_after_commit"},
                {"tool": "linear__update_issue", "on_call": 5, "kind": "unavailable"}],
        timeout_s=1500, patched=("github", "linear", "notion", "slack"))
    return template(id=ID, version=3, servers=["github", "linear", "notion", "slack"], difficulty="hard",
                    category="recovery", case_list=cases(case_of, want=10), task=task)
