import pytest

from servers.kit import StateError
from servers.stripe import StripeState

STATE = {
    "customers": [
        {"id": "cus_AnnaK", "email": "anna.kowalski@fjordline.no", "name": "Anna Kowalski", "metadata": {"plan": "growth"}},
        {"id": "cus_BenO", "email": "ben.okafor@lumenfoods.com", "name": "Ben Okafor"},
    ],
    "products": [{"id": "prod_Seat", "name": "Team seat"}, {"id": "prod_Old", "name": "Legacy plan", "active": False}],
    "prices": [
        {"id": "price_Seat4900", "product": "prod_Seat", "unit_amount": 4900},
        {"id": "price_SeatEur", "product": "prod_Seat", "unit_amount": 4500, "currency": "eur"},
        {"id": "price_Old", "product": "prod_Old", "unit_amount": 990, "active": False},
    ],
    "invoices": [
        {"id": "in_AnnaOpen", "customer": "cus_AnnaK", "status": "open",
         "lines": [{"id": "il_1", "description": "Onboarding workshop", "amount": 30000}]},
    ],
    "charges": [
        {"id": "ch_Ben1", "amount": 8000, "customer": "cus_BenO", "description": "Catering add-on"},
        {"id": "ch_Ben2", "amount": 2500, "customer": "cus_BenO", "status": "failed"},
    ],
    "refunds": [],
}


def test_customers_are_created_listed_and_filtered_by_email(live):
    st = live("stripe", STATE)
    made = st.ok_json("create_customer", name="Maria Lindqvist", email="maria@nordkapp.se", metadata={"crm_id": "HS-4410"})
    assert made["id"].startswith("cus_") and made["metadata"] == {"crm_id": "HS-4410"}
    page = st.ok_json("list_customers", email="MARIA@nordkapp.se")
    assert [c["id"] for c in page["data"]] == [made["id"]] and page["has_more"] is False
    page = st.ok_json("list_customers", limit=2)
    assert len(page["data"]) == 2 and page["has_more"] is True
    assert st.state().customers[-1].email == "maria@nordkapp.se"


def test_ids_are_deterministic_for_the_same_calls_on_the_same_state(live):
    first, second = live("stripe", STATE), live("stripe", STATE)
    for st in (first, second):
        st.ok("create_customer", name="Maria Lindqvist", email="maria@nordkapp.se")
        st.ok("create_customer", name="Jun Park", email="jun@hanbit.kr")
    assert first.state().digest() == second.state().digest()
    assert len({c.id for c in first.state().customers}) == 4


def test_updating_a_customer_merges_metadata_and_an_empty_value_deletes_a_key(live):
    st = live("stripe", STATE)
    st.ok("update_customer", customer="cus_AnnaK", metadata={"seats": "25", "plan": ""}, name="Anna K. Kowalski")
    c = st.state().customers[0]
    assert c.metadata == {"seats": "25"} and c.name == "Anna K. Kowalski"
    st.ok("update_customer", customer="cus_AnnaK", email="anna@fjordline.no", description="Pays by wire")
    c = st.state().customers[0]
    assert (c.email, c.description, c.metadata) == ("anna@fjordline.no", "Pays by wire", {"seats": "25"})


def test_products_and_prices_are_listed_with_product_names(live):
    st = live("stripe", STATE)
    assert [p["id"] for p in st.ok_json("list_products")["data"]] == ["prod_Seat", "prod_Old"]
    prices = st.ok_json("list_prices", product="prod_Seat")["data"]
    assert [(p["id"], p["unit_amount"], p["product_name"]) for p in prices] == [
        ("price_Seat4900", 4900, "Team seat"), ("price_SeatEur", 4500, "Team seat")]


def test_an_invoice_is_drafted_filled_finalized_and_paid(live):
    st = live("stripe", STATE)
    inv = st.ok_json("create_invoice", customer="cus_BenO", days_until_due=14, description="March catering")
    assert inv["status"] == "draft" and inv["total"] == 0
    st.ok("create_invoice_item", customer="cus_BenO", invoice=inv["id"], price="price_Seat4900", quantity=3)
    after = st.ok_json("create_invoice_item", customer="cus_BenO", invoice=inv["id"], unit_amount=1250, description="Delivery")
    assert after["total"] == 3 * 4900 + 1250
    assert [line["description"] for line in after["lines"]["data"]] == ["Team seat", "Delivery"]
    assert st.ok_json("finalize_invoice", invoice=inv["id"])["status"] == "open"
    paid = st.ok_json("pay_invoice", invoice=inv["id"])
    assert paid["status"] == "paid" and paid["amount_paid"] == 15950
    state = st.state()
    charge = state.charges[-1]
    assert (charge.amount, charge.customer, charge.invoice) == (15950, "cus_BenO", inv["id"])
    assert [i["id"] for i in st.ok_json("list_invoices", customer="cus_BenO", status="paid")["data"]] == [inv["id"]]


def test_voiding_an_open_invoice_keeps_it_on_record(live):
    st = live("stripe", STATE)
    assert st.ok_json("void_invoice", invoice="in_AnnaOpen")["status"] == "void"
    assert st.state().invoices[0].status == "void"
    assert "only open or uncollectible" in st.error("void_invoice", invoice="in_AnnaOpen")
    assert "only open or uncollectible" in st.error("pay_invoice", invoice="in_AnnaOpen")


def test_invoice_rules_are_enforced_with_clear_errors(live):
    st = live("stripe", STATE)
    assert "only draft invoices can be edited" in st.error(
        "create_invoice_item", customer="cus_AnnaK", invoice="in_AnnaOpen", unit_amount=100)
    draft = st.ok_json("create_invoice", customer="cus_AnnaK")["id"]
    assert "no line items" in st.error("finalize_invoice", invoice=draft)
    assert "belongs to customer cus_AnnaK" in st.error("create_invoice_item", customer="cus_BenO", invoice=draft, unit_amount=100)
    assert "exactly one of price or unit_amount" in st.error("create_invoice_item", customer="cus_AnnaK", invoice=draft)
    assert "exactly one of price or unit_amount" in st.error(
        "create_invoice_item", customer="cus_AnnaK", invoice=draft, price="price_Seat4900", unit_amount=5)
    assert "in eur" in st.error("create_invoice_item", customer="cus_AnnaK", invoice=draft, price="price_SeatEur")
    assert "archived" in st.error("create_invoice_item", customer="cus_AnnaK", invoice=draft, price="price_Old")
    assert "No such price" in st.error("create_invoice_item", customer="cus_AnnaK", invoice=draft, price="price_Nope")
    assert "already open" in st.error("finalize_invoice", invoice="in_AnnaOpen")
    assert st.state().invoices[-1].lines == []


def test_refunds_are_partial_or_full_and_never_exceed_the_charge(live):
    st = live("stripe", STATE)
    st.ok("create_refund", charge="ch_Ben1", amount=3000, reason="requested_by_customer")
    assert "greater than the unrefunded amount" in st.error("create_refund", charge="ch_Ben1", amount=5001)
    rest = st.ok_json("create_refund", charge="ch_Ben1")
    assert rest["amount"] == 5000
    assert "refunded in full" in st.error("create_refund", charge="ch_Ben1", amount=1)
    assert "only succeeded charges" in st.error("create_refund", charge="ch_Ben2")
    charges = {c["id"]: c for c in st.ok_json("list_charges", customer="cus_BenO")["data"]}
    assert (charges["ch_Ben1"]["amount_refunded"], charges["ch_Ben1"]["refunded"]) == (8000, True)
    assert [r["amount"] for r in st.ok_json("list_refunds", charge="ch_Ben1")["data"]] == [5000, 3000]  # newest first
    assert [r.amount for r in st.state().refunds] == [3000, 5000]


def test_unknown_objects_and_bad_arguments_are_errors_that_change_nothing(live):
    st = live("stripe", STATE)
    assert "No such customer: 'cus_Nobody'" in st.error("update_customer", customer="cus_Nobody", name="X")
    assert "list_customers(email=" in st.error("create_invoice", customer="anna.kowalski@fjordline.no")
    assert "No such invoice" in st.error("finalize_invoice", invoice="in_Nope")
    assert "No such charge" in st.error("create_refund", charge="ch_Nope")
    assert "No such charge" in st.error("list_refunds", charge="ch_Nope")
    assert "No such product" in st.error("list_prices", product="prod_Nope")
    assert "No such customer" in st.error("list_invoices", customer="cus_Nope")
    assert "No such customer" in st.error("list_charges", customer="cus_Nope")
    assert "Invalid email" in st.error("create_customer", name="Jun Park", email="jun-at-hanbit.kr")
    assert "Invalid metadata" in st.error("create_customer", name="Jun Park", email="jun@hanbit.kr", metadata={"k" * 41: "v"})
    assert "Nothing to update" in st.error("update_customer", customer="cus_AnnaK")
    st.error("create_refund", charge="ch_Ben1", amount=-5)
    st.error("create_invoice", customer="cus_AnnaK", currency="btc")
    assert st.state().digest() == StripeState.load(STATE).digest()


def test_dump_and_reload_keep_the_digest(live):
    st = live("stripe", STATE)
    st.ok("create_refund", charge="ch_Ben1", amount=1000)
    st.ok("update_customer", customer="cus_BenO", metadata={"tier": "gold"})
    state = st.state()
    assert StripeState.load(state.dump()).digest() == state.digest()
    assert StripeState.load(STATE).digest() != state.digest()


@pytest.mark.parametrize(
    ("patch", "problem"),
    [
        ({"invoices": [{"id": "in_X", "customer": "cus_Ghost"}]}, "does not exist"),
        ({"refunds": [{"id": "re_X", "charge": "ch_Ben1", "amount": 9000}]}, "exceed"),
        ({"customers": [{"id": "cus_A", "email": "a@b.c", "metadata": {"k": ""}}]}, "metadata value"),
        ({"customers": [{"id": "cust-1", "email": "a@b.c"}]}, "customers"),
        ({"charges": [{"id": "ch_Ben1", "amount": 1}, {"id": "ch_Ben1", "amount": 2}]}, "used twice"),
        ({"coupons": []}, "coupons"),
    ],
)
def test_a_bad_state_names_the_problem(patch, problem):
    with pytest.raises(StateError, match=problem):
        StripeState.load({**STATE, **patch})


def test_every_tool_has_a_description_and_the_right_annotations(live):
    tools = live("stripe", STATE).listed_tools()
    assert len(tools) == 17 and all(t.description for t in tools.values())
    read_only = {n for n, t in tools.items() if t.annotations.read_only_hint}
    assert read_only == {"list_customers", "list_products", "list_prices", "list_invoices", "list_charges", "list_refunds",
                         "search_customers", "search_charges", "search_invoices"}
    destructive = {n for n, t in tools.items() if t.annotations.destructive_hint}
    assert destructive == {"update_customer", "void_invoice", "create_refund"}


WORLD = {"world": {"generator": "stripe", "version": 1, "seed": 1, "size": "default"}}
MARCH, APRIL = 1_772_323_200, 1_775_001_600  # 2026-03-01 and 2026-04-01, 00:00 UTC


def test_listing_the_world_s_charges_takes_pages_newest_first_joined_by_starting_after(live):
    st = live("stripe", WORLD)
    first = st.ok_json("list_charges", limit=100)
    second = st.ok_json("list_charges", limit=100, starting_after=first["data"][-1]["id"])
    both = first["data"] + second["data"]
    stamps = [c["created"] for c in both]
    assert first["has_more"] and stamps == sorted(stamps, reverse=True) and len({c["id"] for c in both}) == 200
    newest = sorted(st.state().charges, key=lambda c: c.created, reverse=True)[:200]
    assert [c["id"] for c in both] == [c.id for c in newest]
    assert "No such charge: 'ch_nope'" in st.error("list_charges", starting_after="ch_nope")


def test_a_created_range_and_a_customer_narrow_a_listing(live):
    st = live("stripe", WORLD)
    out = st.ok_json("list_invoices", created={"gte": MARCH, "lt": APRIL}, status="open", limit=100)
    assert out["data"] and all(MARCH <= i["created"] < APRIL and i["status"] == "open" for i in out["data"])
    customer = out["data"][0]["customer"]
    mine = st.ok_json("list_invoices", customer=customer, limit=100)["data"]
    assert {i["customer"] for i in mine} == {customer} and len(mine) == len([i for i in st.state().invoices if i.customer == customer])


def test_searching_customers_finds_the_lookalikes_by_substring_and_metadata(live):
    st = live("stripe", WORLD)
    names = {c["name"] for c in st.ok_json("search_customers", query="name~'foods'", limit=100)["data"]}
    assert {"Harbour Foods Ltd", "Harbor Foods Inc"} <= names
    harbour = next(c for c in st.state().customers if c.name == "Harbour Foods Ltd")
    found = st.ok_json("search_customers", query=f"metadata['crm_id']:'{harbour.metadata['crm_id']}'")["data"]
    assert [c["id"] for c in found] == [harbour.id]
    exact = st.ok_json("search_customers", query=f'email:"{harbour.email.upper()}"')["data"]
    assert [c["id"] for c in exact] == [harbour.id]


def test_searching_charges_combines_clauses_and_pages_with_next_page(live):
    st = live("stripe", WORLD)
    query = f"created>={MARCH} AND created<{APRIL} AND status:'succeeded'"
    expected = [c.id for c in sorted(st.state().charges, key=lambda c: c.created, reverse=True)
                if MARCH <= c.created < APRIL and c.status == "succeeded"]
    seen, page = [], None
    while True:
        out = st.ok_json("search_charges", query=query, limit=100, **({"page": page} if page else {}))
        assert out["object"] == "search_result"
        seen += [c["id"] for c in out["data"]]
        page = out["next_page"]
        if not page:
            assert not out["has_more"]
            break
    assert len(expected) > 100 and seen == expected
    failed = st.ok_json("search_charges", query="-status:'succeeded'", limit=100)["data"]
    assert failed and all(c["status"] == "failed" and c["failure_message"] for c in failed)
    either = st.ok_json("search_charges", query="currency:'jpy' OR currency:'cad'", limit=100)["data"]
    assert {c["currency"] for c in either} == {"jpy", "cad"}


@pytest.mark.parametrize(("query", "problem"), [
    ("amount>'big'", "compares numeric fields"),
    ("colour:'red'", "not a searchable field"),
    ("amount>1 AND status:'failed' OR currency:'eur'", "cannot be combined"),
    ("customer~'ab'", "at least 3 characters"),
    ("status:succeeded", "quote the value"),
    ("status:'succeeded", "unterminated quote"),
])
def test_a_bad_search_query_is_a_clear_error(live, query, problem):
    st = live("stripe", WORLD)
    assert problem in st.error("search_charges", query=query)


def test_new_objects_take_the_account_clock_and_a_finalized_invoice_gets_a_number(live):
    st = live("stripe", WORLD)
    customer = next(c for c in st.state().customers if c.name == "Harbour Foods Ltd")
    numbered = [i for i in st.state().invoices if i.customer == customer.id and i.number]
    inv = st.ok_json("create_invoice", customer=customer.id, currency="gbp")
    st.ok("create_invoice_item", customer=customer.id, invoice=inv["id"], unit_amount=1000)
    final = st.ok_json("finalize_invoice", invoice=inv["id"])
    assert final["created"] == st.state().now == 1_773_651_600
    assert final["number"] == f"{customer.id[4:12].upper()}-{len(numbered) + 1:04d}"
    charge = next(c for c in st.state().charges if c.customer == customer.id and c.status == "succeeded")
    refund = st.ok_json("create_refund", charge=charge.id, amount=100, metadata={"ticket": "KFS-2231"})
    assert refund["created"] == 1_773_651_600 and refund["metadata"] == {"ticket": "KFS-2231"}


def test_a_charge_created_after_a_search_is_found_first_by_the_next_search(live):
    st = live("stripe", WORLD)
    query = f"created>={MARCH} AND status:'succeeded'"
    before = st.ok_json("search_charges", query=query, limit=5)["data"]
    invoice = next(i for i in st.state().invoices if i.status == "open" and i.created >= MARCH)
    st.ok("pay_invoice", invoice=invoice.id)
    paid = next(c for c in st.state().charges if c.invoice == invoice.id and c.status == "succeeded")
    after = st.ok_json("search_charges", query=query, limit=5)["data"]
    assert paid.created == st.state().now and after[0]["id"] == paid.id
    assert [c["id"] for c in after[1:]] == [c["id"] for c in before[:4]]


def test_all_ids_are_every_objects_and_invoice_lines_id_and_new_ids_avoid_them():
    """``all_ids`` (built with map and chain, at C speed: ``new_id`` makes it on every create) holds the id of
    every customer, product, price, invoice, charge, refund and invoice line, and nothing else."""
    from servers.kit.world import get_generator

    state = StripeState.load({"world": {"generator": "stripe", "version": get_generator("stripe").version, "seed": 2,
                                        "size": "small"}})
    kinds = (state.customers, state.products, state.prices, state.invoices, state.charges, state.refunds)
    every = [o.id for kind in kinds for o in kind] + [line.id for inv in state.invoices for line in inv.lines]
    assert state.invoices and any(inv.lines for inv in state.invoices)
    assert state.all_ids() == set(every) and len(every) == len(set(every))
    fresh = state.new_id("il")
    assert fresh.startswith("il_") and fresh not in set(every) and state.new_id("il") == fresh  # deterministic
