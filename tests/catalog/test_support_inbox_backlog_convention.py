"""x-t-support-inbox-backlog's habit that only opening the earlier answers shows and that does not explain
itself (version 4): an answer to a customer with an invoice past due in Stripe copies finance's collections
address. The module refuses earlier answers that leave another reading open (``check_copies``), and every
committed case copies collections on exactly the earlier answers to customers past due at the time (a
minority) and asks the new answers for the copy exactly where the customer is past due today."""

from __future__ import annotations

import json
import random
import secrets
from typing import Any

import anyio
import pytest

from servers.gmail.state import GmailState
from servers.gmail.tools import GmailTools
from servers.kit.world import resolve
from servers.stripe.state import StripeState
from servers.stripe.tools import Created, StripeTools
from tasks_catalog import gate
from tasks_catalog.authoring.cross import OUT_DIR, world
from tasks_catalog.authoring.cross import x_t_support_inbox_backlog as inbox
from tasks_catalog.authoring.cross._x_t_billing import unix
from tasks_catalog.templates import instantiate, load_template

PATH = OUT_DIR / f"{inbox.ID}.json"
DAY = 86_400
NOW = unix("2026-03-16T09:00:00")


def _answer(name: str, *, cc: bool, day: int, **facts: Any) -> dict[str, Any]:
    """An earlier answer (or a new one) as ``check_copies`` reads it; ``facts`` override the customer's."""
    item: dict[str, Any] = {
        "name": name, "cc": cc, "kind": "billing", "plan": "growth", "key": False, "tier": (False, "growth"),
        "owner": "", "currency": "eur", "region": "EMEA", "country": "DE", "po": False, "annual": False,
        "status": "paid", "ask": ("billing", 0), "title": "Finance Manager", "month": "2026-02", "open_any": True,
        "failed": False, "tracking": True, "renewal": "05", "seats": 10, "arr": 20_000, "signup": 1_700_000_000,
        "day": unix(f"2026-02-{day:02d}T10:00:00"), "late": 20 if cc else 0, "overdue": cc}
    return item | facts


def _earlier() -> list[dict[str, Any]]:
    """Three answers copied (customers past due), five not; every other fact of a copied answer is shared by
    an uncopied one, and an uncopied answer lies between the copied ones and after them."""
    copied = [_answer("Late A", cc=True, day=10, late=9),
              _answer("Late B", cc=True, day=14, kind="account", status="", ask=("account", 1), plan="scale",
                      tier=(False, "scale"), currency="gbp", country="GB", seats=30, arr=60_000, late=45),
              _answer("Late C", cc=True, day=20, key=True, tier=(True, "growth"), owner="o1", region="NA",
                      country="US", currency="usd", ask=("billing", 2), title="Controller", failed=True,
                      tracking=False, renewal="11", seats=4, arr=8_000, signup=1_750_000_000, late=70)]
    calm = [_answer("Calm A", cc=False, day=11, ask=("billing", 2), title="Controller", seats=3, arr=7_000,
                    signup=1_760_000_000),
            _answer("Calm B", cc=False, day=16, kind="account", status="", ask=("account", 1), plan="scale",
                    tier=(False, "scale"), currency="gbp", country="GB", open_any=False, renewal="11",
                    seats=40, arr=90_000, signup=1_650_000_000),
            _answer("Calm C", cc=False, day=18, key=True, tier=(True, "growth"), owner="o1", region="NA",
                    country="US", currency="usd", failed=True, tracking=False),
            _answer("Calm D", cc=False, day=24, month="2026-02"),
            _answer("Calm E", cc=False, day=25, open_any=False)]
    return copied + calm


def _new() -> list[dict[str, Any]]:
    at = {"day": 16, "month": "2026-03"}
    return [{**_answer("New late", cc=True, day=1, late=60), **at, "day": NOW},
            {**_answer("New late plan", cc=True, day=1, kind="account", status="", ask=("account", 0),
                       country="GB", currency="gbp", late=50), "day": NOW, "month": "2026-03"},
            {**_answer("New calm", cc=False, day=1), "day": NOW, "month": "2026-03"},
            {**_answer("New calm open", cc=False, day=1, country="US", currency="usd"), "day": NOW,
             "month": "2026-03"}]


def test_earlier_answers_that_only_an_invoice_past_due_explains_are_accepted():
    inbox.check_copies((_earlier(), _new()))


def test_an_earlier_answer_changed_to_leave_the_country_reading_open_is_refused_naming_it():
    earlier = _earlier()
    for e in earlier:
        if not e["cc"]:
            e["country"] = "AT"  # no uncopied answer is German, British or American: "by country" fits
    with pytest.raises(ValueError, match="by the customer's country"):
        inbox.check_copies((earlier, _new()))  # and would copy the new Americans not past due


def test_an_earlier_answer_changed_to_leave_the_open_invoice_reading_open_is_refused_naming_it():
    earlier = _earlier()
    for e in earlier:
        if not e["cc"]:
            e["open_any"] = False  # no uncopied customer has an open invoice: "any open invoice" fits too
    with pytest.raises(ValueError, match="any open invoice"):
        inbox.check_copies((earlier, _new()))  # and copies the new customer with an invoice open, not yet due


def test_copied_answers_all_of_one_kind_leave_the_copy_of_the_other_kind_open_and_are_refused():
    # Round 14's solvers met such a draft case: every copied earlier answer an invoice answer, and a new plan
    # answer to a customer past due asked for the copy. "Collections copies the invoice answers of customers
    # past due" fitted every earlier answer and left that plan answer uncopied: a second outcome.
    earlier = _earlier()
    earlier[1].update(kind="billing", status="paid", ask=("billing", 1))  # Late B: now an invoice answer
    with pytest.raises(ValueError, match="past due, on the invoice answers only"):
        inbox.check_copies((earlier, _new()))
    inbox.check_copies((earlier, [i for i in _new() if i["kind"] == "billing"]))  # no new plan answer: fair


def test_an_earlier_answer_changed_to_leave_the_days_late_reading_open_is_refused():
    earlier = _earlier()
    earlier[0]["late"] = 75  # every copied answer 45 days late or more: the new one 30 days late is undecided
    new = _new()
    new[0]["late"] = 30
    with pytest.raises(ValueError, match="past due by more than some days"):
        inbox.check_copies((earlier, new))


def test_copies_that_stopped_before_the_latest_answer_are_refused_as_a_habit_dropped_since():
    earlier = _earlier()
    for e in earlier:
        if e["name"] in ("Calm A", "Calm B", "Calm C"):
            e["day"] -= 10 * DAY  # no uncopied answer between the copied ones, two after them
    with pytest.raises(ValueError, match="no more since"):
        inbox.check_copies((earlier, _new()))


def test_a_majority_of_copied_answers_or_one_to_a_customer_not_past_due_is_refused():
    with pytest.raises(ValueError, match="copy collections"):
        inbox.check_copies((_earlier()[:5], _new()))
    earlier = _earlier()
    earlier[3]["cc"] = True  # a customer with nothing past due, copied
    with pytest.raises(ValueError):
        inbox.check_copies((earlier, _new()))


def _committed_draw(seed: int) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """The draw ``case_of`` kept for ``seed``, as the readings see it."""
    for attempt in range(inbox.DRAWS):
        drawn = inbox._draw(seed, random.Random(f"{inbox.ID}:{seed}" + (f":{attempt}" if attempt else "")))
        if drawn is None:
            continue
        items = inbox._copy_items(seed, drawn[2], drawn[0])
        try:
            inbox.check_copies(items)
        except ValueError:
            continue
        return items
    raise AssertionError(f"seed {seed} has no draw")


def test_a_committed_draw_changed_to_leave_a_reading_open_is_refused():
    seed = _cases()[0]["seed"]
    earlier, new = _committed_draw(seed)
    # the uncopied earlier answers now all bill in a currency no copied one does: "by currency" fits every
    # earlier answer, and would copy no new customer past due whose currency no copied earlier one has
    copied = {e["currency"] for e in earlier if e["cc"]}
    for e in earlier:
        if not e["cc"]:
            e["currency"] = "zzz"
    new[[n for n, i in enumerate(new) if i["cc"]][0]]["currency"] = "yyy"
    assert "yyy" not in copied
    with pytest.raises(ValueError, match="by the customer's currency"):
        inbox.check_copies((earlier, new))


def _cases() -> list[dict[str, Any]]:
    return json.loads(PATH.read_text(encoding="utf-8"))["params"]["case"]["choice"]


def _past_due(seed: int, email: str, at: int) -> bool:
    """Whether Stripe shows the customer billed at ``email`` an invoice open and due before ``at``."""
    stripe = world("stripe", seed)
    (cid,) = [c["id"] for c in stripe["customers"] if c["email"] == email]
    return any(i["customer"] == cid and i["status"] == "open" and i["created"] + i["days_until_due"] * DAY < at
               for i in stripe["invoices"])


def test_every_case_copies_collections_on_exactly_the_answers_to_customers_past_due():
    doc = json.loads(PATH.read_text(encoding="utf-8"))
    assert doc["version"] == 4
    cases = _cases()
    assert 8 <= len(cases) <= 10
    latest = 0
    for case in cases:
        seed = case["seed"]
        messages = [op["value"] for op in case["patch"]["gmail"] if op["in"] == ["messages"]]
        answers = sorted((m for m in messages if "SENT" in m["label_ids"]), key=lambda m: m["date"])
        copied = [inbox.COLLECTIONS in m["cc"] for m in answers]
        assert 2 <= sum(copied) <= 5 and 2 * sum(copied) < len(answers), seed
        for m, cc in zip(answers, copied, strict=True):
            assert cc == _past_due(seed, m["to"][0], unix(m["date"].removesuffix("Z"))), (seed, m["to"])
            assert inbox.COLLECTIONS not in m["body"], seed
        latest += copied[-1]
        # the new answers: copied exactly where the customer is past due today, and the frame allows each
        # answer with exactly the reference's copies
        now = world("stripe", seed)["now"]
        sends = [c["arguments"] for c in case["reference"] if c["tool"] == "gmail__send_email"
                 and not c["arguments"]["subject"].startswith("Fwd:")]
        wanted = [inbox.COLLECTIONS in a.get("cc", []) for a in sends]
        assert wanted == [_past_due(seed, a["to"][0], now) for a in sends], seed
        assert 2 <= sum(wanted) < len(sends), seed
        where = {f["where"]["to"][0]: f["where"]["cc"] for f in case["frame"]
                 if f["entity"] == "gmail.message" and "cc" in f.get("where", {})}
        assert all(where[a["to"][0]] == a.get("cc", []) for a in sends), seed
        assert any(w["why"].endswith("copies collections on no answer") for w in case["wrong"]), seed
        assert 25 <= len(case["reference"]) <= 60, seed
    assert 0 < latest < len(cases), latest


def test_a_search_result_does_not_carry_the_copy_and_the_opened_thread_does():
    case = _cases()[0]
    _, mailbox = resolve({"world": {"generator": "gmail", "version": 2, "seed": case["seed"], "size": "default"},
                          "patch": case["patch"]["gmail"]})
    tools = GmailTools(GmailState.model_validate(mailbox))
    found = tools.search_emails(query="label:Support", maxResults=50)
    sent = tools.search_emails(query="in:sent", maxResults=50)
    copied = [m for m in mailbox["messages"] if inbox.COLLECTIONS in m["cc"]]
    assert len(copied) >= 2
    assert inbox.COLLECTIONS not in json.dumps(found) + json.dumps(sent)
    for m in copied:
        (shown,) = [t for t in tools.get_thread(m["thread_id"])["messages"] if t["id"] == m["id"]]
        assert inbox.COLLECTIONS in shown["cc"]


def test_the_references_invoice_list_holds_every_invoice_past_due_in_one_page():
    for case in _cases():
        _, stripe = resolve({"world": {"generator": "stripe", "version": 2, "seed": case["seed"], "size": "default"},
                             "patch": case["patch"]["stripe"]})
        (listing,) = [c["arguments"] for c in case["reference"] if c["tool"] == "stripe__list_invoices"]
        found = StripeTools(StripeState.model_validate(stripe)).list_invoices(
            **{**listing, "created": Created(**listing["created"])})
        assert not found["has_more"], case["seed"]
        late = {i["id"] for i in stripe["invoices"] if i["status"] == "open"
                and i["created"] + i["days_until_due"] * DAY < stripe["now"]}
        assert late == {i["id"] for i in found["data"]}, case["seed"]


def test_the_reference_without_the_copy_to_collections_leaves_the_frame_and_with_it_passes_the_gate():
    template = load_template(PATH)
    case = _cases()[0]
    task = instantiate(template, {"case": case}, task_id=f"{inbox.ID}-probe", nonce=secrets.token_hex(16))

    def bare(call: Any) -> Any:
        cc = [a for a in call.arguments.get("cc", []) if a != inbox.COLLECTIONS]
        args = {k: v for k, v in call.arguments.items() if k != "cc"} | ({"cc": cc} if cc else {})
        return call.model_copy(update={"arguments": args})

    uncopied = [bare(c) if c.tool == "gmail__send_email" else c for c in task.reference_solution]
    assert uncopied != task.reference_solution
    sampler = task.model_copy(update={"reference_solution": uncopied})
    good, bad = anyio.run(gate.gate_tasks, [task, sampler])
    assert good.ok, good.reasons
    assert not bad.ok and any("leaves the frame" in r for r in bad.reasons), bad.reasons
