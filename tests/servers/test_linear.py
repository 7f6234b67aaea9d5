import pytest

from servers.kit import StateError
from servers.linear import LinearState

STATE = {
    "teams": [
        {"key": "ENG", "name": "Engineering", "states": [
            {"name": "Backlog", "type": "backlog"},
            {"name": "Todo", "type": "unstarted"},
            {"name": "In Progress", "type": "started"},
            {"name": "In Review", "type": "started"},
            {"name": "Done", "type": "completed"},
            {"name": "Canceled", "type": "canceled"},
        ]},
        {"key": "OPS", "name": "Platform Ops", "states": [
            {"name": "Triage", "type": "triage"},
            {"name": "Resolved", "type": "completed"},
        ]},
    ],
    "users": [
        {"id": "u-priya", "name": "Priya Raman", "email": "priya@northwind.io"},
        {"id": "u-tomas", "name": "Tomás Ferreira", "email": "tomas@northwind.io"},
        {"id": "u-tomas2", "name": "Tomás Ferreira", "email": "tomas.f@contractors.io"},
        {"id": "u-ines", "name": "Inês Duarte", "email": "ines@northwind.io", "active": False},
    ],
    "labels": [{"name": "Bug", "color": "#eb5757"}, {"name": "Feature", "color": "#bb87fc"}],
    "issues": [
        {"id": "ENG-142", "title": "Checkout button unresponsive on Safari 17", "state": "In Progress",
         "assignee": "u-priya", "priority": 1, "labels": ["Bug"],
         "comments": [{"id": "ENG-142-c1", "author": "u-tomas", "body": "Reproduced on iPad too."}]},
        {"id": "ENG-143", "title": "Export invoices as CSV", "description": "Finance wants monthly exports.",
         "state": "Todo", "priority": 3, "labels": ["Feature"]},
        {"id": "OPS-9", "title": "Disk alert on db-replica-2", "state": "Triage", "priority": 2},
    ],
}


def ids(listing):
    return [i["identifier"] for i in listing["issues"]]


def test_reading_tools_show_teams_users_statuses_and_labels(live):
    ln = live("linear", STATE)
    assert ln.ok_json("list_teams") == [{"key": "ENG", "name": "Engineering"}, {"key": "OPS", "name": "Platform Ops"}]
    assert [u["id"] for u in ln.ok_json("list_users", query="northwind")] == ["u-priya", "u-tomas", "u-ines"]
    statuses = ln.ok_json("list_issue_statuses", team="Platform Ops")
    assert statuses == [{"name": "Triage", "type": "triage"}, {"name": "Resolved", "type": "completed"}]
    assert [lb["name"] for lb in ln.ok_json("list_issue_labels")] == ["Bug", "Feature"]


def test_listing_issues_filters_by_team_assignee_state_label_priority_and_text(live):
    ln = live("linear", STATE)
    assert ids(ln.ok_json("list_issues")) == ["ENG-142", "ENG-143", "OPS-9"]
    assert ids(ln.ok_json("list_issues", team="ops")) == ["OPS-9"]
    assert ids(ln.ok_json("list_issues", assignee="priya@northwind.io")) == ["ENG-142"]
    assert ids(ln.ok_json("list_issues", state="started")) == ["ENG-142"]
    assert ids(ln.ok_json("list_issues", state="todo")) == ["ENG-143"]
    assert ids(ln.ok_json("list_issues", label="feature")) == ["ENG-143"]
    assert ids(ln.ok_json("list_issues", priority=2)) == ["OPS-9"]
    assert ids(ln.ok_json("list_issues", query="monthly")) == ["ENG-143"]
    assert ids(ln.ok_json("list_issues", team="ENG", query="nothing like this")) == []


def test_list_issues_pages_with_an_end_cursor(live):
    ln = live("linear", STATE)
    first = ln.ok_json("list_issues", limit=2)
    assert ids(first) == ["ENG-142", "ENG-143"] and first["pageInfo"]["hasNextPage"]
    rest = ln.ok_json("list_issues", limit=2, cursor=first["pageInfo"]["endCursor"])
    assert ids(rest) == ["OPS-9"] and rest["pageInfo"] == {"hasNextPage": False, "endCursor": None}
    assert "invalid_cursor" in ln.error("list_issues", team="ENG", cursor=first["pageInfo"]["endCursor"])
    summary = first["issues"][0]
    assert summary["identifier"] == "ENG-142" and summary["state"] == {"name": "In Progress", "type": "started"}
    assert summary["assignee"] == {"id": "u-priya", "name": "Priya Raman"}


def test_getting_an_issue_shows_every_field_and_its_comments(live):
    ln = live("linear", STATE)
    issue = ln.ok_json("get_issue", id="eng-142")
    assert issue["id"] == "ENG-142"
    assert issue["assignee"] == {"id": "u-priya", "name": "Priya Raman", "email": "priya@northwind.io"}
    assert issue["priority"] == {"value": 1, "name": "Urgent"}
    assert issue["team"] == {"key": "ENG", "name": "Engineering"}
    assert issue["state"] == {"name": "In Progress", "type": "started"}
    assert issue["comments"] == [{"id": "ENG-142-c1", "author": "Tomás Ferreira", "body": "Reproduced on iPad too.",
                                  "createdAt": None}]
    assert ln.ok_json("list_comments", issueId="ENG-142") == issue["comments"]


def test_updating_an_issue_changes_state_assignee_priority_and_labels(live):
    ln = live("linear", STATE)
    ln.ok("update_issue", id="ENG-143", state="in review", assignee="Priya Raman", priority=2, labels=["Feature", "bug"])
    issue = ln.state().issue("ENG-143")
    assert (issue.state, issue.assignee, issue.priority, issue.labels) == ("In Review", "u-priya", 2, ["Feature", "Bug"])
    ln.ok("update_issue", id="ENG-143", state="completed", title="Export invoices as CSV and XLSX", description="")
    issue = ln.state().issue("ENG-143")
    assert (issue.state, issue.title, issue.description) == ("Done", "Export invoices as CSV and XLSX", "")


def test_an_empty_assignee_unassigns_and_empty_labels_clear(live):
    ln = live("linear", STATE)
    ln.ok("update_issue", id="ENG-142", assignee="", labels=[])
    issue = ln.state().issue("ENG-142")
    assert issue.assignee is None and issue.labels == []
    assert issue.state == "In Progress" and issue.priority == 1


def test_creating_an_issue_numbers_it_after_the_team_s_last_issue(live):
    ln = live("linear", STATE)
    created = ln.ok_json("create_issue", title="Flaky payment webhook test", team="Engineering",
                         description="Fails 1 in 20 runs on CI.", assignee="u-priya", priority=3, labels=["Bug"])
    assert created["id"] == "ENG-144"
    again = ln.ok_json("create_issue", title="Renew status page domain", team="OPS")
    assert again["id"] == "OPS-10" and again["state"]["name"] == "Triage" and again["assignee"] is None
    issue = ln.state().issue("ENG-144")
    assert (issue.state, issue.assignee, issue.priority, issue.labels) == ("Backlog", "u-priya", 3, ["Bug"])


def test_comments_and_labels_are_created(live):
    ln = live("linear", STATE)
    c = ln.ok_json("create_comment", issueId="OPS-9", body="Cleared 40 GB of old WAL files.", author="tomas@northwind.io")
    assert c == {"id": "OPS-9-c1", "author": "Tomás Ferreira", "body": "Cleared 40 GB of old WAL files.", "createdAt": None}
    ln.ok("create_comment", issueId="OPS-9", body="Thanks!")
    assert [x.author for x in ln.state().issue("OPS-9").comments] == ["u-tomas", "u-priya"]
    ln.ok("create_issue_label", name="customer-reported", color="#F2C94C")
    assert ln.state().labels[-1].model_dump() == {"name": "customer-reported", "color": "#f2c94c"}
    ln.ok("update_issue", id="OPS-9", labels=["customer-reported"])
    assert ln.state().issue("OPS-9").labels == ["customer-reported"]


def test_unknown_references_are_errors_that_say_what_exists(live):
    ln = live("linear", STATE)
    assert "unknown issue 'ENG-999'" in ln.error("get_issue", id="ENG-999")
    assert "unknown team 'Marketing'" in ln.error("create_issue", title="Launch post", team="Marketing")
    assert "ENG (Engineering)" in ln.error("list_issues", team="Marketing")
    msg = ln.error("update_issue", id="ENG-143", state="Shipped")
    assert "unknown workflow state 'Shipped'" in msg and "'In Review'" in msg
    assert "ambiguous" in ln.error("update_issue", id="ENG-143", state="started")
    assert "unknown user 'Zoe'" in ln.error("update_issue", id="ENG-143", assignee="Zoe")
    assert "unknown label 'Urgent'" in ln.error("update_issue", id="ENG-143", labels=["Urgent"])
    assert "ambiguous" in ln.error("update_issue", id="ENG-143", assignee="Tomás Ferreira")
    assert "deactivated" in ln.error("update_issue", id="ENG-143", assignee="ines@northwind.io")
    assert ln.state().digest() == LinearState.load(STATE).digest()


def test_bad_arguments_are_refused_without_changing_anything(live):
    ln = live("linear", STATE)
    assert "nothing to update" in ln.error("update_issue", id="ENG-143")
    ln.error("update_issue", id="ENG-143", priority=7)
    assert "blank" in ln.error("update_issue", id="ENG-143", title="   ")
    assert "blank" in ln.error("create_issue", title="  ", team="ENG")
    assert "blank" in ln.error("create_comment", issueId="ENG-143", body="   ")
    assert "already exists" in ln.error("create_issue_label", name="bug")
    ln.error("create_issue_label", name="Docs", color="blue")
    assert ln.state().digest() == LinearState.load(STATE).digest()


def test_dump_and_reload_keep_the_digest(live):
    ln = live("linear", STATE)
    ln.ok("update_issue", id="ENG-142", state="Done")
    ln.ok("create_issue", title="Écran de connexion lent", team="ENG")
    state = ln.state()
    assert LinearState.load(state.dump()).digest() == state.digest()
    assert LinearState.load(STATE).digest() != state.digest()


@pytest.mark.parametrize(
    ("patch", "field"),
    [
        ({"issues": [{"id": "ENG-1", "title": "x", "state": "Shipped"}]}, "not a workflow state"),
        ({"issues": [{"id": "MKT-1", "title": "x", "state": "Todo"}]}, "no team"),
        ({"issues": [{"id": "ENG-1", "title": "x", "state": "Todo", "assignee": "u-ghost"}]}, "not a user"),
        ({"issues": [{"id": "ENG-1", "title": "x", "state": "Todo", "labels": ["P0"]}]}, "does not exist"),
        ({"issues": [{"id": "eng1", "title": "x", "state": "Todo"}]}, "must look like"),
        ({"issues": [{"id": "ENG-1", "title": "x", "state": "Todo", "priority": 5}]}, "priority"),
        ({"agenda": []}, "agenda"),
        ({"issues": [{"id": "ENG-1", "title": "x", "state": "Todo", "cycle": "cyc-9"}]}, "not a cycle of team ENG"),
        ({"viewer": "u-ghost"}, "viewer"),
    ],
)
def test_a_bad_state_names_the_problem(patch, field):
    with pytest.raises(StateError, match=field):
        LinearState.load({**STATE, **patch})


def test_issues_of_a_deactivated_user_can_still_be_listed(live):
    ln = live("linear", {**STATE, "issues": [*STATE["issues"], {"id": "ENG-150", "title": "Old spike", "state": "Done", "assignee": "u-ines"}]})
    assert ids(ln.ok_json("list_issues", assignee="Inês Duarte")) == ["ENG-150"]


def test_every_tool_has_a_description_and_the_right_annotations(live):
    tools = live("linear", STATE).listed_tools()
    assert len(tools) == 14 and all(t.description for t in tools.values())
    read_only = {n for n, t in tools.items() if t.annotations.read_only_hint}
    assert read_only == {"list_teams", "list_users", "list_issue_statuses", "list_issue_labels", "list_issues",
                         "get_issue", "list_comments", "list_cycles", "list_projects", "get_project"}
    assert {n for n, t in tools.items() if t.annotations.destructive_hint} == {"update_issue"}


WORLD = {"world": {"generator": "linear", "version": 1, "seed": 1, "size": "default"}}


def test_the_linear_world_has_cycles_projects_and_a_current_cycle(live):
    ln = live("linear", WORLD)
    cycles = ln.ok_json("list_cycles", team="Platform")
    assert len(cycles) == 8 and sum(c["isActive"] for c in cycles) == 1
    current = next(c for c in cycles if c["isActive"])
    assert current["startsAt"] <= "2026-03-16" < current["endsAt"]
    listed = ln.ok_json("list_issues", team="PLT", cycle="current", limit=100)
    assert listed["issues"] and all(i["cycle"] == current["number"] for i in listed["issues"])
    everything, cursor, pages = [], None, 0
    while True:
        page = ln.ok_json("list_issues", **({"cursor": cursor} if cursor else {}))
        everything += ids(page)
        pages += 1
        if not page["pageInfo"]["hasNextPage"]:
            break
        cursor = page["pageInfo"]["endCursor"]
    assert len(everything) == len(set(everything)) >= 300 and pages >= 12
    harbor = ln.ok_json("get_project", project="Harbor: Postgres 16 migration")
    assert harbor["issues"] and all(i.startswith("PLT-") for i in harbor["issues"])
    assert {"Maria Santos", "Maria Santana"} <= {u["name"] for u in ln.ok_json("list_users", query="maria")}


def test_issues_move_between_cycles_and_projects_and_comments_are_the_viewer_s(live):
    ln = live("linear", WORLD)
    state = ln.state()
    issue = next(i for i in state.issues if i.team == "PLT" and i.cycle is None and i.project is None)
    ln.ok("update_issue", id=issue.id, cycle="next", project="harbor")
    moved = ln.ok_json("get_issue", id=issue.id)
    assert moved["project"]["name"] == "Harbor: Postgres 16 migration" and moved["cycle"]["number"] == 24
    ln.ok("update_issue", id=issue.id, cycle="", project="")
    assert (ln.state().issue(issue.id).cycle, ln.state().issue(issue.id).project) == (None, None)
    assert "ambiguous" not in ln.error("update_issue", id=issue.id, cycle="99")
    comment = ln.ok_json("create_comment", issueId=issue.id, body="Looking into it")
    assert comment["author"] == "Priya Raman" and comment["createdAt"] == "2026-03-16T09:00:00Z"
