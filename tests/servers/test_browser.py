import pytest

from servers.browser import BrowserState
from servers.kit import StateError

BASE = "https://intranet.kestrel-logistics.example"
SITE = {
    "pages": [
        {"url": f"{BASE}/", "title": "Kestrel intranet", "text": "Welcome to the Kestrel Logistics intranet.",
         "links": [{"text": "HR", "href": "/hr"}, {"text": "IT help desk", "href": f"{BASE}/it"},
                   {"text": "Old wiki", "href": "/wiki"}]},
        {"url": f"{BASE}/hr", "title": "HR", "text": "Policies and claims.",
         "links": [{"text": "Expense claims", "href": "expenses"}, {"text": "Home", "href": "/"}]},
        {"url": f"{BASE}/expenses", "title": "Expense claims", "forms": [
            {"id": "expense-claim", "title": "New expense claim", "action": "/expenses/thanks", "submit_label": "Send claim",
             "fields": [
                 {"name": "employee_id", "label": "Employee number", "required": True},
                 {"name": "email", "label": "Work email", "type": "email"},
                 {"name": "amount", "label": "Amount", "type": "number", "required": True},
                 {"name": "spent_on", "label": "Date", "type": "date"},
                 {"name": "cost_centre", "label": "Cost centre", "type": "select",
                  "options": ["CC-410 Sales", "CC-520 Operations"], "value": "CC-410 Sales"},
                 {"name": "receipt_attached", "label": "Receipt attached", "type": "checkbox", "value": "false"},
                 {"name": "pin", "label": "PIN", "type": "password"},
                 {"name": "form_version", "label": "", "type": "hidden", "value": "3"},
             ]},
        ]},
        {"url": f"{BASE}/expenses/thanks", "title": "Claim received", "text": "Thank you, your claim was received."},
        {"url": f"{BASE}/it", "title": "IT help desk", "forms": [
            {"id": "newsletter", "fields": [{"name": "email", "label": "Email", "type": "email", "required": True}]},
        ]},
    ],
    "current_url": f"{BASE}/",
    "visited": [f"{BASE}/"],
}


def test_the_snapshot_shows_text_links_and_refs(live):
    br = live("browser", SITE)
    snap = br.ok("browser_snapshot")
    assert f"- Page URL: {BASE}/" in snap and "Welcome to the Kestrel Logistics intranet." in snap
    assert f'link "HR" [ref=e1] -> {BASE}/hr' in snap
    assert f'link "IT help desk" [ref=e2] -> {BASE}/it' in snap


def test_navigating_records_history_and_the_current_page(live):
    br = live("browser", SITE)
    snap = br.ok("browser_navigate", url=f"{BASE}/hr")
    assert "Page Title: HR" in snap
    state = br.state()
    assert state.current_url == f"{BASE}/hr"
    assert state.back == [f"{BASE}/"] and state.visited == [f"{BASE}/", f"{BASE}/hr"]


def test_a_relative_url_resolves_against_the_current_page(live):
    br = live("browser", SITE)
    br.ok("browser_navigate", url="/it")
    assert br.state().current_url == f"{BASE}/it"


def test_clicking_a_link_follows_its_relative_href(live):
    br = live("browser", SITE)
    br.ok("browser_click", ref="e1", element="HR link")
    br.ok("browser_click", ref="e1")
    assert br.state().current_url == f"{BASE}/expenses"


def test_going_back_returns_to_the_previous_page_and_counts_as_a_visit(live):
    br = live("browser", SITE)
    br.ok("browser_navigate", url=f"{BASE}/hr")
    br.ok("browser_navigate", url=f"{BASE}/it")
    assert "Page Title: HR" in br.ok("browser_navigate_back")
    state = br.state()
    assert state.current_url == f"{BASE}/hr" and state.back == [f"{BASE}/"]
    assert state.visited[-1] == f"{BASE}/hr" and len(state.visited) == 4


def test_filling_and_submitting_a_form_records_every_field(live):
    br = live("browser", SITE)
    br.ok("browser_navigate", url=f"{BASE}/expenses")
    snap = br.ok("browser_snapshot")
    assert 'textbox "Employee number" [ref=e1] (name: employee_id, type: text, required): ""' in snap
    assert 'combobox "Cost centre" [ref=e5]' in snap and 'button "Send claim" [ref=e8]' in snap
    assert "form_version" not in snap
    br.ok("browser_fill_form", fields=[
        {"name": "Employee number", "type": "textbox", "ref": "e1", "value": "KL-4471"},
        {"name": "Amount", "type": "textbox", "ref": "e3", "value": "86.40"},
        {"name": "Receipt attached", "type": "checkbox", "ref": "e6", "value": "true"},
    ])
    br.ok("browser_type", ref="e2", text="lena.okafor@kestrel-logistics.example")
    br.ok("browser_select_option", ref="e5", values=["CC-520 Operations"])
    assert 'checked: true' in br.ok("browser_snapshot")
    assert br.state().drafts["expense-claim"]["employee_id"] == "KL-4471"
    result = br.ok("browser_click", ref="e8")
    assert "Submitted form 'expense-claim'" in result and "Claim received" in result
    state = br.state()
    assert state.current_url == f"{BASE}/expenses/thanks" and state.drafts == {}
    assert state.submissions[0].model_dump() == {
        "form": "expense-claim",
        "page": f"{BASE}/expenses",
        "fields": {"employee_id": "KL-4471", "email": "lena.okafor@kestrel-logistics.example", "amount": "86.40",
                   "spent_on": "", "cost_centre": "CC-520 Operations", "receipt_attached": "true", "pin": "",
                   "form_version": "3"},
    }


def test_typing_with_submit_sends_the_form_and_a_form_without_action_stays(live):
    br = live("browser", SITE)
    br.ok("browser_navigate", url=f"{BASE}/it")
    br.ok("browser_type", ref="e1", text="ops@kestrel-logistics.example", submit=True)
    state = br.state()
    assert state.current_url == f"{BASE}/it"
    assert state.submissions[0].fields == {"email": "ops@kestrel-logistics.example"}


def test_clicking_a_checkbox_toggles_it(live):
    br = live("browser", SITE)
    br.ok("browser_navigate", url=f"{BASE}/expenses")
    assert "checked is now true" in br.ok("browser_click", ref="e6")
    assert "checked is now false" in br.ok("browser_click", ref="e6")


def test_navigating_away_discards_unsent_values(live):
    br = live("browser", SITE)
    br.ok("browser_navigate", url=f"{BASE}/expenses")
    br.ok("browser_type", ref="e1", text="KL-4471")
    br.ok("browser_navigate_back")
    assert br.state().drafts == {} and br.state().submissions == []


def test_a_form_with_a_missing_required_field_is_not_sent(live):
    br = live("browser", SITE)
    br.ok("browser_navigate", url=f"{BASE}/expenses")
    br.ok("browser_type", ref="e1", text="KL-4471")
    assert "required field 'amount'" in br.error("browser_click", ref="e8")
    br.ok("browser_type", ref="e3", text="12")
    br.ok("browser_type", ref="e2", text="not-an-address")
    assert "not an email address" in br.error("browser_click", ref="e8")
    assert br.state().submissions == [] and br.state().current_url == f"{BASE}/expenses"


def test_field_values_are_checked_by_field_type(live):
    br = live("browser", SITE)
    br.ok("browser_navigate", url=f"{BASE}/expenses")
    assert "takes a number" in br.error("browser_type", ref="e3", text="eighty")
    assert "YYYY-MM-DD" in br.error("browser_type", ref="e4", text="14/03/2026")
    assert "not an option" in br.error("browser_select_option", ref="e5", values=["CC-999 Legal"])
    assert "exactly one option" in br.error("browser_select_option", ref="e5", values=["CC-410 Sales", "CC-520 Operations"])
    assert "not a dropdown" in br.error("browser_select_option", ref="e1", values=["x"])
    assert "not a text field" in br.error("browser_type", ref="e5", text="x")
    assert "use browser_type" in br.error("browser_click", ref="e1")


def test_a_refused_fill_changes_nothing(live):
    br = live("browser", SITE)
    br.ok("browser_navigate", url=f"{BASE}/expenses")
    msg = br.error("browser_fill_form", fields=[
        {"name": "Employee number", "type": "textbox", "ref": "e1", "value": "KL-4471"},
        {"name": "Cost centre", "type": "textbox", "ref": "e5", "value": "CC-520 Operations"},
    ])
    assert "is a combobox, not a textbox" in msg
    assert br.state().drafts == {}


def test_errors_name_what_is_wrong(live):
    br = live("browser", SITE)
    assert "404" in br.error("browser_navigate", url=f"{BASE}/payroll")
    assert "404" in br.error("browser_click", ref="e3")
    assert "no element with ref 'e42'" in br.error("browser_click", ref="e42")
    assert "no previous page" in br.error("browser_navigate_back")
    assert "absolute http(s) URL" in br.error("browser_navigate", url="file:///etc/passwd")
    assert br.state().visited == [f"{BASE}/"]


def test_a_browser_with_no_page_open_says_so(live):
    br = live("browser", {"pages": SITE["pages"]})
    assert "no page is open" in br.error("browser_snapshot")
    br.ok("browser_navigate", url=f"{BASE}/hr")
    assert br.state().back == []


def test_dump_and_reload_keep_the_digest(live):
    br = live("browser", SITE)
    br.ok("browser_navigate", url=f"{BASE}/expenses")
    br.ok("browser_type", ref="e1", text="KL-4471 ✓")
    state = br.state()
    again = live("browser", state.dump())
    assert again.state().digest() == state.digest()
    assert "KL-4471 ✓" in again.ok("browser_snapshot")
    assert BrowserState.load(SITE).digest() != state.digest()


def test_a_bad_state_names_the_field():
    with pytest.raises(StateError, match="url"):
        BrowserState.load({"pages": [{"url": "/relative", "title": "x"}]})
    with pytest.raises(StateError, match="same id"):
        form = {"id": "f", "fields": [{"name": "a", "label": "A"}]}
        BrowserState.load({"pages": [{"url": f"{BASE}/a", "title": "a", "forms": [form]},
                                     {"url": f"{BASE}/b", "title": "b", "forms": [form]}]})
    with pytest.raises(StateError, match="not a page of the site"):
        BrowserState.load({"pages": SITE["pages"], "current_url": f"{BASE}/nowhere"})


# -- the intranet world: a search box (a get form) and paged search results ------------------------------
WORLD = {"world": {"generator": "browser", "version": 1, "seed": 1, "size": "default"}}
HOST = "https://intranet.kestrelfreight.com"


def test_a_get_form_navigates_to_its_action_with_a_query_and_records_no_submission(live):
    br = live("browser", WORLD)
    snap = br.ok("browser_snapshot")
    ref = next(line.split("[ref=")[1].split("]")[0] for line in snap.splitlines() if 'textbox "Search"' in line)
    result = br.ok("browser_type", ref=ref, text="holiday policy", submit=True)
    state = br.state()
    assert state.current_url == f"{HOST}/search?q=holiday+policy" and state.submissions == []
    assert state.visited[-1] == state.current_url and state.back == [f"{HOST}/"]
    assert 'Results 1-4 of 4 for "holiday policy"' in result
    assert f"-> {HOST}/hr/policies/holiday-2025" in result and f"-> {HOST}/hr/policies/holiday-2026" in result


def test_search_results_come_ten_a_page_with_next_and_previous_links(live):
    br = live("browser", WORLD)
    first = br.ok("browser_navigate", url="/search?q=room")
    assert 'Results 1-10 of 11 for "room"' in first and 'link "Next page"' in first and "Previous page" not in first
    second = br.ok("browser_navigate", url=f"{HOST}/search?q=room&page=2")
    assert 'Results 11-11 of 11 for "room"' in second and "Next page" not in second
    assert f"-> {HOST}/search?q=room&page=1" in second
    assert "page not found (404)" in br.error("browser_navigate", url="/search?q=room&page=zero")
    assert 'No results for "zzzyx"' in br.ok("browser_navigate", url="/search?q=zzzyx")


def test_a_search_url_is_a_page_for_going_back_and_a_plain_page_with_a_query_is_not(live):
    br = live("browser", WORLD)
    br.ok("browser_navigate", url="/search?q=workshop")
    br.ok("browser_navigate", url="/events")
    assert "Search: workshop" in br.ok("browser_navigate_back")
    assert "page not found (404)" in br.error("browser_navigate", url="/events?q=workshop")


def test_a_state_may_rest_on_a_search_url_but_not_on_an_unknown_query_page():
    from servers import get_spec

    base = get_spec("browser").load_state(WORLD).dump()
    get_spec("browser").load_state({**base, "current_url": f"{HOST}/search?q=x", "back": [f"{HOST}/search?q=y"]})
    with pytest.raises(StateError, match="is not a page of the site"):
        get_spec("browser").load_state({**base, "current_url": f"{HOST}/news?q=x"})


def test_every_link_and_form_action_of_the_world_leads_to_a_page_of_it():
    from servers import get_spec
    from servers.browser.state import resolve

    for size in ("default", "small"):
        state = get_spec("browser").load_state({"world": {**WORLD["world"], "size": size}})
        urls = {p.url for p in state.pages}
        broken = [(p.url, link.href) for p in state.pages for link in p.links if resolve(p.url, link.href) not in urls]
        assert broken == []
        assert sum(len(p.forms) for p in state.pages) >= 20


def test_a_form_id_of_the_world_counts_as_named_but_an_unknown_one_does_not():
    import json
    from pathlib import Path

    from servers import get_spec
    from tasks_catalog.gate import literal_problems
    from tasks_catalog.schema import Task

    doc = json.loads((Path(__file__).parents[2] / "tasks_catalog/dev/browser/browser-open-holiday-policy-2026.json")
                     .read_text(encoding="utf-8"))
    initial = get_spec("browser").load_state(doc["initial_state"]).dump()
    for form, named in (("book-lisbon-belem", True), ("book-lisbon-nowhere", False)):
        doc["success"] = {"browser.formSubmitted": {"form": form, "fields": {}}}
        problems = literal_problems(Task.model_validate(doc), initial)
        assert (problems == []) is named, problems
