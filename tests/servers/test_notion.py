import pytest

from servers.kit import StateError
from servers.notion import NotionState
from servers.notion.tools import INTEGRATION

STATE = {
    "pages": [
        {"id": "pg-ops", "title": "Operations"},
        {"id": "pg-launch", "title": "Launch plan: Lisbon store", "parent_id": "pg-ops",
         "content": [
             {"id": "bl-intro", "type": "paragraph", "text": "Opening on 12 September."},
             {"id": "bl-todo", "type": "to_do", "text": "Sign the lease", "checked": False},
         ]},
        {"id": "row-pos", "title": "Install POS terminals", "parent_id": "db-tasks",
         "properties": {"Status": "Todo", "Owner": "Beatriz Lopes", "Cost": 1850, "Tags": ["hardware"],
                        "Urgent": False, "Due": "2026-08-30"}},
        {"id": "row-sign", "title": "Order shop signage", "parent_id": "db-tasks",
         "properties": {"Status": "Done", "Owner": "Rui Carvalho", "Cost": 640, "Tags": ["branding"],
                        "Urgent": True, "Due": "2026-07-18"}},
    ],
    "databases": [
        {"id": "db-tasks", "title": "Store Launch Tasks", "parent_id": "pg-launch",
         "properties": {"Task": {"type": "title"},
                        "Status": {"type": "status", "options": ["Todo", "Doing", "Done"]},
                        "Owner": {"type": "rich_text"},
                        "Cost": {"type": "number"},
                        "Tags": {"type": "multi_select", "options": ["hardware", "branding"]},
                        "Urgent": {"type": "checkbox"},
                        "Due": {"type": "date"}}},
    ],
    "comments": [{"id": "cm-1", "page_id": "pg-launch", "author": "Rui Carvalho", "text": "Lease draft is in the drive"}],
}


def test_search_finds_pages_and_databases_by_title_case_insensitively(live):
    notion = live("notion", STATE)
    hits = notion.ok_json("search", query="LAUNCH")["results"]
    assert [(h["object"], h["id"]) for h in hits] == [("database", "db-tasks"), ("page", "pg-launch")]
    assert [h["id"] for h in notion.ok_json("search", query="launch", filter="page")["results"]] == ["pg-launch"]
    everything = notion.ok_json("search")
    assert len(everything["results"]) == 5 and everything["has_more"] is False and everything["next_cursor"] is None


def test_search_leaves_archived_pages_out(live):
    notion = live("notion", STATE)
    notion.ok("update_page", page_id="row-sign", archived=True)
    assert notion.ok_json("search", query="signage")["results"] == []
    found = notion.ok_json("search", query="signage", include_archived=True)["results"]
    assert [(h["id"], h["archived"]) for h in found] == [("row-sign", True)]


def test_retrieving_a_row_shows_its_title_column_and_values(live):
    notion = live("notion", STATE)
    page = notion.ok_json("retrieve_page", page_id="row-pos")
    assert page["parent"] == {"type": "database_id", "database_id": "db-tasks"}
    assert page["properties"]["Task"]["title"][0]["plain_text"] == "Install POS terminals"
    assert page["properties"]["Cost"] == {"type": "number", "number": 1850}
    assert page["properties"]["Status"] == {"type": "status", "status": {"name": "Todo"}}
    assert page["properties"]["Tags"] == {"type": "multi_select", "multi_select": [{"name": "hardware"}]}
    assert page["properties"]["Due"] == {"type": "date", "date": {"start": "2026-08-30", "end": None}}
    assert notion.ok_json("retrieve_page", page_id="pg-ops")["parent"] == {"type": "workspace"}


def test_creating_a_row_fills_unset_columns_with_empty_values(live):
    notion = live("notion", STATE)
    row = notion.ok_json("create_page", parent_id="db-tasks", title="Hire two sales associates",
                         properties={"Status": "Doing", "Cost": 0})
    state = notion.state()
    page = state.page(row["id"])
    assert page.title == "Hire two sales associates"
    assert page.properties == {"Status": "Doing", "Owner": None, "Cost": 0, "Tags": [], "Urgent": False, "Due": None}


def test_creating_a_page_under_a_page_with_content(live):
    notion = live("notion", STATE)
    made = notion.ok_json("create_page", parent_id="pg-ops", title="Porto store retro",
                          children=[{"type": "heading_2", "text": "What went well"}, {"type": "to_do", "text": "Book venue"}])
    page = notion.state().page(made["id"])
    assert page.parent_id == "pg-ops"
    assert [(b.type, b.checked) for b in page.content] == [("heading_2", None), ("to_do", False)]
    assert len({b.id for b in page.content} | {page.id}) == 3


def test_new_ids_are_deterministic(live):
    first = live("notion", STATE).ok_json("create_page", parent_id="pg-ops", title="A")["id"]
    second = live("notion", STATE).ok_json("create_page", parent_id="pg-ops", title="B")["id"]
    assert first == second


def test_a_new_select_option_is_added_but_a_status_must_exist(live):
    notion = live("notion", STATE)
    notion.ok("update_page", page_id="row-pos", properties={"Tags": ["hardware", "payments"]})
    assert notion.state().database("db-tasks").properties["Tags"].options == ["hardware", "branding", "payments"]
    msg = notion.error("update_page", page_id="row-pos", properties={"Status": "Blocked"})
    assert "'Blocked' is not a status of 'Status'" in msg and "Todo, Doing, Done" in msg


def test_updating_a_page_changes_only_the_named_properties(live):
    notion = live("notion", STATE)
    notion.ok("update_page", page_id="row-pos", properties={"Status": "Done", "Due": None}, title="Install 3 POS terminals")
    page = notion.state().page("row-pos")
    assert page.title == "Install 3 POS terminals"
    assert page.properties["Status"] == "Done" and page.properties["Due"] is None
    assert page.properties["Owner"] == "Beatriz Lopes"


def test_a_bad_property_update_changes_nothing(live):
    notion = live("notion", STATE)
    msg = notion.error("update_page", page_id="row-pos", properties={"Tags": ["payments"], "Cost": "a lot"})
    assert "'Cost' is number" in msg
    state = notion.state()
    assert state.page("row-pos").properties["Tags"] == ["hardware"]
    assert "payments" not in state.database("db-tasks").properties["Tags"].options


@pytest.mark.parametrize(
    ("properties", "message"),
    [
        ({"Priority": "High"}, "has no property 'Priority'"),
        ({"Task": ""}, "is the title; give it a non-empty text"),
        ({"Status": {"select": {"name": "Done"}}}, "is status; give its value or {'status': ...}"),
        ({"Due": {"date": "2026-08-30"}}, "date takes {'start': '2026-05-14'}"),
        ({"Urgent": "yes"}, "takes true or false"),
        ({"Due": "next Friday"}, "ISO date"),
        ({"Due": "2026-02-30"}, "real calendar date"),
        ({"Tags": "hardware"}, "list of option names"),
    ],
)
def test_property_values_must_fit_the_schema(live, properties, message):
    notion = live("notion", STATE)
    assert message in notion.error("update_page", page_id="row-pos", properties=properties)


def test_archiving_and_restoring_a_page(live):
    notion = live("notion", STATE)
    notion.ok("update_page", page_id="pg-launch", archived=True)
    assert notion.state().page("pg-launch").archived
    assert "is archived" in notion.error("update_page", page_id="pg-launch", title="Launch plan v2")
    assert "is archived" in notion.error("append_block_children", block_id="pg-launch", children=[{"text": "x"}])
    notion.ok("update_page", page_id="pg-launch", archived=False, title="Launch plan v2")
    assert notion.state().page("pg-launch").title == "Launch plan v2"


def test_query_filters_and_sorts_rows(live):
    notion = live("notion", STATE)
    def query(**kw):
        return notion.ok_json("query_database", database_id="db-tasks", **kw)["results"]

    rows = query(sorts=[{"property": "Cost", "direction": "descending"}])
    assert [r["id"] for r in rows] == ["row-pos", "row-sign"]
    done = query(filter=[{"property": "Status", "equals": "Done"}])
    assert [r["title"] for r in done] == ["Order shop signage"]
    assert [r["id"] for r in query(filter=[{"property": "Tags", "contains": "hardware"}])] == ["row-pos"]
    assert [r["id"] for r in query(filter=[{"property": "Owner", "contains": "rui"}])] == ["row-sign"]
    assert query(filter=[{"property": "Urgent", "equals": 1}]) == []


def test_query_errors_name_the_problem(live):
    notion = live("notion", STATE)
    assert "no property 'Budget'" in notion.error("query_database", database_id="db-tasks", filter=[{"property": "Budget", "equals": 1}])
    assert "give 'equals' or 'contains'" in notion.error("query_database", database_id="db-tasks", filter=[{"property": "Cost"}])
    assert "contains' works on text" in notion.error("query_database", database_id="db-tasks", filter=[{"property": "Cost", "contains": "1"}])
    assert "that is a page id" in notion.error("query_database", database_id="pg-ops")


def test_creating_and_retrieving_a_database(live):
    notion = live("notion", STATE)
    db = notion.ok_json("create_database", parent_page_id="pg-ops", title="Suppliers",
                        properties={"Supplier": {"type": "title"}, "Tier": {"type": "select", "options": ["Gold", "Silver"]}})
    got = notion.ok_json("retrieve_database", database_id=db["id"])
    assert got["title_property"] == "Supplier"
    assert got["properties"]["Tier"] == {"type": "select", "options": ["Gold", "Silver"]}
    row = notion.ok_json("create_page", parent_id=db["id"], title="Cortiça & Filhos", properties={"Tier": "Gold"})
    assert notion.state().page(row["id"]).properties == {"Tier": "Gold"}


def test_a_database_needs_exactly_one_title_column(live):
    notion = live("notion", STATE)
    assert "exactly one title property" in notion.error(
        "create_database", parent_page_id="pg-ops", title="Suppliers", properties={"Tier": {"type": "select"}})
    assert "has no options" in notion.error(
        "create_database", parent_page_id="pg-ops", title="Suppliers",
        properties={"Name": {"type": "title"}, "Cost": {"type": "number", "options": ["x"]}})
    assert notion.state().databases[-1].id == "db-tasks"


def test_updating_a_database_adds_extends_and_removes_columns(live):
    notion = live("notion", STATE)
    notion.ok("update_database", database_id="db-tasks", title="Lisbon Launch Tasks",
              properties={"Budget line": {"type": "rich_text"}, "Owner": None,
                          "Status": {"type": "status", "options": ["Blocked"]}})
    state = notion.state()
    db = state.database("db-tasks")
    assert db.title == "Lisbon Launch Tasks"
    assert "Owner" not in db.properties and db.properties["Status"].options == ["Todo", "Doing", "Done", "Blocked"]
    assert state.page("row-pos").properties["Budget line"] is None
    assert "Owner" not in state.page("row-sign").properties


def test_database_updates_that_would_break_the_schema_are_refused(live):
    notion = live("notion", STATE)
    assert "changing its type" in notion.error("update_database", database_id="db-tasks", properties={"Cost": {"type": "rich_text"}})
    assert "cannot be removed" in notion.error("update_database", database_id="db-tasks", properties={"Task": None})
    assert "cannot get another" in notion.error("update_database", database_id="db-tasks", properties={"Name": {"type": "title"}})
    assert "nothing to update" in notion.error("update_database", database_id="db-tasks")


def test_archiving_a_database_hides_it_from_queries(live):
    notion = live("notion", STATE)
    notion.ok("update_database", database_id="db-tasks", archived=True)
    assert notion.state().database("db-tasks").archived
    assert "is archived" in notion.error("query_database", database_id="db-tasks")
    assert "is archived" in notion.error("create_page", parent_id="db-tasks", title="Late row")
    notion.ok("update_database", database_id="db-tasks", archived=False)
    assert len(notion.ok_json("query_database", database_id="db-tasks")["results"]) == 2


def test_blocks_are_read_appended_updated_and_deleted(live):
    notion = live("notion", STATE)
    assert [b["id"] for b in notion.ok_json("get_block_children", block_id="pg-launch")["results"]] == ["bl-intro", "bl-todo"]
    new = notion.ok_json("append_block_children", block_id="pg-launch", children=[{"type": "quote", "text": "Obrigado!"}])
    notion.ok("update_block", block_id="bl-todo", checked=True)
    notion.ok("update_block", block_id="bl-intro", text="Opening on 19 September.")
    notion.ok("delete_block", block_id=new[0]["id"])
    content = notion.state().page("pg-launch").content
    assert [(b.text, b.checked) for b in content] == [("Opening on 19 September.", None), ("Sign the lease", True)]


def test_block_errors_name_the_problem(live):
    notion = live("notion", STATE)
    assert "no block with id 'bl-x'" in notion.error("update_block", block_id="bl-x", text="x")
    assert "not a to_do" in notion.error("update_block", block_id="bl-intro", checked=True)
    assert "only to_do blocks" in notion.error("append_block_children", block_id="pg-launch",
                                               children=[{"type": "paragraph", "text": "x", "checked": True}])
    assert "no page with id 'nope'" in notion.error("get_block_children", block_id="nope")


def test_comments_are_added_and_listed(live):
    notion = live("notion", STATE)
    notion.ok("create_comment", page_id="pg-launch", text="Lease signed on 3 August")
    comments = notion.ok_json("get_comments", page_id="pg-launch")["results"]
    assert [(c["author"], c["text"]) for c in comments] == [
        ("Rui Carvalho", "Lease draft is in the drive"), (INTEGRATION, "Lease signed on 3 August")]
    assert len(notion.state().comments) == 2


def test_unknown_ids_and_bad_arguments_are_tool_errors(live):
    notion = live("notion", STATE)
    assert "no page with id 'pg-x'" in notion.error("retrieve_page", page_id="pg-x")
    assert "that is a database id" in notion.error("retrieve_page", page_id="db-tasks")
    assert "no database with id 'db-x'" in notion.error("retrieve_database", database_id="db-x")
    assert "no page or database" in notion.error("create_page", parent_id="nowhere", title="Lost")
    assert "only database rows have properties" in notion.error("create_page", parent_id="pg-ops", title="X", properties={"a": 1})
    assert "nothing to update" in notion.error("update_page", page_id="row-pos")
    assert notion.error("search", filter="block")
    assert len(notion.state().pages) == 4


def test_an_oversized_argument_is_refused(live):
    notion = live("notion", STATE)
    assert "limit" in notion.error("create_comment", page_id="pg-ops", text="x" * 300_000)
    assert notion.state().comments[-1].id == "cm-1"


def test_dump_and_reload_keep_the_digest(live):
    notion = live("notion", STATE)
    notion.ok("create_page", parent_id="db-tasks", title="Train staff on the till", properties={"Tags": ["training"]})
    notion.ok("create_comment", page_id="row-pos", text="Terminals arrive Tuesday")
    state = notion.state()
    again = NotionState.load(state.dump())
    assert again.digest() == state.digest()
    assert NotionState.load(STATE).digest() != state.digest()


@pytest.mark.parametrize(
    ("bad", "field"),
    [
        ({"pages": [{"id": "a", "title": "A", "parent_id": "missing"}]}, "neither a page nor a database"),
        ({"pages": [{"id": "a", "title": "A"}, {"id": "a", "title": "B"}]}, "used twice"),
        ({"databases": [{"id": "d", "title": "D", "properties": {"N": {"type": "number"}}}]}, "exactly one title"),
        ({"pages": [{"id": "a", "title": "A", "properties": {"x": 1}}]}, "has no properties"),
        ({"pagez": []}, "pagez"),
    ],
)
def test_a_bad_state_is_refused_with_the_reason(bad, field):
    with pytest.raises(StateError, match=field):
        NotionState.load(bad)


def test_a_row_value_that_does_not_fit_its_column_is_refused():
    bad = {**STATE, "pages": STATE["pages"][:2] + [{**STATE["pages"][2], "properties": {"Cost": "1850"}}]}
    with pytest.raises(StateError, match="'Cost' is number"):
        NotionState.load(bad)


WORLD = {"world": {"generator": "notion", "version": 1, "seed": 1, "size": "default"}}


def _db(state, title):
    return next(d for d in state.databases if d.title == title)


def test_querying_a_world_database_takes_pages_joined_by_next_cursor(live):
    notion = live("notion", WORLD)
    tasks = _db(notion.state(), "Engineering Tasks")
    seen, cursor = [], None
    while True:
        out = notion.ok_json("query_database", database_id=tasks.id, page_size=50, **({"start_cursor": cursor} if cursor else {}))
        seen += [r["id"] for r in out["results"]]
        cursor = out["next_cursor"]
        assert out["has_more"] == bool(cursor)
        if not cursor:
            break
    live_rows = [p.id for p in notion.state().pages if p.parent_id == tasks.id and not p.archived]
    assert len(seen) > 100 and seen == live_rows
    other = notion.ok_json("search", query="Runbook")["next_cursor"] or notion.ok_json("search")["next_cursor"]
    assert "invalid_cursor" in notion.error("query_database", database_id=tasks.id, start_cursor=other)


def test_search_pages_through_the_world_and_finds_lookalike_pages(live):
    notion = live("notion", WORLD)
    first = notion.ok_json("search", query="onboarding", filter="page")
    onboarding = [h for h in first["results"] if h["title"] == "Onboarding"]
    parents = {notion.state().page(h["parent"]["page_id"]).title for h in onboarding}
    assert parents == {"Engineering", "People"}
    everything, cursor = [], None
    while True:
        out = notion.ok_json("search", **({"start_cursor": cursor} if cursor else {}))
        everything += out["results"]
        cursor = out["next_cursor"]
        if not cursor:
            break
    live_objects = [p for p in notion.state().pages if not p.archived] + notion.state().databases
    assert len(everything) == len(live_objects) > 600
    trashed = notion.ok_json("search", query="Holiday Policy", include_archived=True)["results"]
    assert {(h["title"], h.get("archived", False)) for h in trashed} == {("Holiday Policy 2026", False), ("Holiday Policy 2025", True)}


def test_people_and_relations_render_as_notion_objects_and_take_either_form(live):
    notion = live("notion", WORLD)
    state = notion.state()
    tasks, projects = _db(state, "Engineering Tasks"), _db(state, "Projects")
    row = next(p for p in state.pages if p.parent_id == tasks.id and len(p.properties["Assignee"]) == 1)
    shown = notion.ok_json("retrieve_page", page_id=row.id)["properties"]
    user = state.user(row.properties["Assignee"][0])
    assert shown["Assignee"] == {"type": "people", "people": [{"object": "user", "id": user.id, "name": user.name}]}
    assert shown["Project"]["relation"] == [{"id": row.properties["Project"][0]}]
    users = notion.ok_json("list_users", page_size=100)["results"]
    maria = next(u for u in users if u["name"] == "Maria Santana")
    other_project = next(p.id for p in state.pages if p.parent_id == projects.id and p.id != row.properties["Project"][0])
    notion.ok("update_page", page_id=row.id, properties={"Assignee": {"people": [{"object": "user", "id": maria["id"]}]},
                                                         "Project": [other_project], "Status": {"status": {"name": "Done"}},
                                                         "Due": {"date": {"start": "2026-04-30"}}})
    after = notion.state().page(row.id).properties
    assert (after["Assignee"], after["Project"], after["Status"], after["Due"]) == ([maria["id"]], [other_project], "Done", "2026-04-30")
    assert "list_users shows the ids" in notion.error("update_page", page_id=row.id, properties={"Assignee": ["Maria Santana"]})
    assert "is not one of them" in notion.error("update_page", page_id=row.id, properties={"Project": [row.id]})
    by_person = notion.ok_json("query_database", database_id=tasks.id, page_size=100,
                               filter=[{"property": "Assignee", "contains": maria["id"]}])["results"]
    assert row.id in [r["id"] for r in by_person]


def test_a_new_row_can_carry_its_title_among_the_properties_and_gets_the_clock(live):
    notion = live("notion", WORLD)
    vendors = _db(notion.state(), "Vendors")
    new = notion.ok_json("create_page", parent_id=vendors.id, properties={
        "Vendor": {"title": [{"text": {"content": "Harbour Freight Audit"}}]}, "Status": {"select": {"name": "Active"}}})
    page = notion.state().page(new["id"])
    assert (page.title, page.properties["Status"], page.created_time) == ("Harbour Freight Audit", "Active", "2026-03-16T09:00:00Z")
    assert "title is given twice" in notion.error("create_page", parent_id=vendors.id, title="A",
                                                 properties={"Vendor": "B"})


@pytest.mark.parametrize(("patch", "problem"), [
    ({"properties": {"Lead": ["nobody"]}}, "names unknown users"),
    ({"properties": {"Account": ["not-a-row"]}}, "links pages that are not rows"),
])
def test_a_world_patch_with_an_unknown_person_or_relation_is_refused(patch, problem):
    from servers.kit.world import get_generator

    data = get_generator("notion", 1).generate(1)
    projects = next(d["id"] for d in data["databases"] if d["title"] == "Projects")
    row = next(p for p in data["pages"] if p["parent_id"] == projects)
    fields = {"properties": {**row["properties"], **patch["properties"]}}
    with pytest.raises(StateError, match=problem):
        NotionState.load({**WORLD, "patch": [{"op": "update", "in": ["pages"], "id": row["id"], "fields": fields}]})


def test_a_world_query_pages_ten_rows_by_default_and_filters_on_the_title_column(live):
    notion = live("notion", WORLD)
    vendors = _db(notion.state(), "Vendors")
    first = notion.ok_json("query_database", database_id=vendors.id)
    assert len(first["results"]) == 10 and first["has_more"] and "url" not in first["results"][0]
    harbour = notion.ok_json("query_database", database_id=vendors.id,
                             filter=[{"property": "Vendor", "contains": "harbour print"}])["results"]
    assert [r["title"] for r in harbour] == ["Harbour Print Co", "Harbour Printing Ltd"]
    exact = notion.ok_json("query_database", database_id=vendors.id,
                           filter=[{"property": "Vendor", "equals": "Harbour Print Co"}])["results"]
    assert [r["title"] for r in exact] == ["Harbour Print Co"]


def test_world_ids_are_the_text_of_uuid_version_4():
    """The world builder's ids skip building ``uuid.UUID`` objects; the text is the same for any 128 bits."""
    import random
    import uuid

    from servers.notion._pages import uuid4_text

    rng = random.Random(9)
    edges = [0, 2**128 - 1, 0xC000 << 48, 0xF000 << 64, (0xC000 << 48) | (0xF000 << 64)]
    for bits in edges + [rng.getrandbits(128) for _ in range(20_000)]:
        assert uuid4_text(bits) == str(uuid.UUID(int=bits, version=4)), hex(bits)
