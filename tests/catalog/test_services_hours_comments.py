"""x-t-services-hours-february's comment convention, checked against the served worlds of its committed
template: the comments show only when an entry is opened, and sit exactly where the convention says."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from servers.kit.world import load_world
from servers.notion.state import NotionState
from servers.notion.tools import NotionTools
from tasks_catalog.authoring.cross import world

TEMPLATE = Path(__file__).parents[2] / "tasks_catalog/templates/cross-server/x-t-services-hours-february.json"
LOWEST_LIMIT = 5000


def _cases() -> list[dict]:
    return json.loads(TEMPLATE.read_text())["params"]["case"]["choice"]


def _notion(case: dict) -> NotionTools:
    ref = {"generator": "notion", "version": 2, "seed": case["seed"], "size": "default"}
    return NotionTools(load_world(NotionState, {"world": ref, "patch": case["notion_patch"]}))


def _credit_limits(seed: int) -> dict[str, float]:
    table = next(t for t in world("postgres", seed)["tables"] if t["name"] == "customers")
    cols = [c["name"] for c in table["columns"]]
    return {row[cols.index("name")]: row[cols.index("credit_limit")] for row in table["rows"]}


@pytest.mark.parametrize("index", [0, 4])
def test_the_billed_on_comments_show_only_when_an_entry_is_opened_and_only_on_the_lowest_credit_limit(index):
    case = _cases()[index]
    tools = _notion(case)
    rows = tools.query_database(database_id=case["database_id"], page_size=100)
    listed = json.dumps([rows, tools.search(query="professional services")])
    assert "Billed on" not in listed  # no list or search result carries a comment

    assert len(rows["results"]) == sum(p.parent_id == case["database_id"] for p in tools.state.pages)
    limits = _credit_limits(case["seed"])
    # the rows' plain values (the listing renders them as Notion's API does)
    entries = [{"id": p.id, **p.properties} for p in tools.state.pages if p.parent_id == case["database_id"]]
    past = [r for r in entries if not r["Date"].startswith("2026-02")]
    commented = {r["id"] for r in past if tools.get_comments(page_id=r["id"])["results"]}
    expected = {r["id"] for r in past if limits[r["Customer"]] == LOWEST_LIMIT and r["Type"] != "Warranty fix"}
    assert commented == expected
    assert 0 < len(commented) < len(past) / 2  # a minority of the examples shows it

    # the reference opens every past entry and comments exactly on February's billed entries of such customers
    opened = {c["arguments"]["page_id"] for c in case["reference"] if c["tool"] == "notion__get_comments"}
    assert opened == {r["id"] for r in past}
    written = [c["arguments"]["page_id"] for c in case["reference"] if c["tool"] == "notion__create_comment"]
    february = [r for r in entries if r["Date"].startswith("2026-02")]
    assert sorted(written) == sorted(r["id"] for r in february
                                     if limits[r["Customer"]] == LOWEST_LIMIT and r["Type"] != "Warranty fix")
    assert 2 <= len(written) < sum(r["Type"] != "Warranty fix" for r in february)


def test_no_february_customer_has_an_open_invoice_before_the_run_so_each_invoice_clause_needs_the_new_invoice():
    from servers.stripe import StripeState
    from tasks_catalog.predicates.stripe import InvoiceExists, invoice_exists

    for case in _cases():
        ref = {"generator": "stripe", "version": 2, "seed": case["seed"], "size": "default"}
        state = load_world(StripeState, {"world": ref, "patch": case["stripe_patch"]})
        asked = [c["stripe.invoiceExists"] for c in case["success"] if "stripe.invoiceExists" in c]
        assert len(asked) >= 4, case["seed"]
        met = [a["customer"] for a in asked if invoice_exists(state, InvoiceExists(**a))]
        assert not met, f"seed {case['seed']}: met before the run by {met}"
