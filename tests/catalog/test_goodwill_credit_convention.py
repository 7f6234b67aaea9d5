"""x-t-goodwill-credit-requests' habit that only opening the earlier threads shows: our answer about a
credit to a customer billed against a purchase order (the Stripe customer's ``po_number``) quotes it. The
module refuses a draw of earlier requests that leaves another reading open, and every committed case shows
the quote in a minority of the earlier answers, exactly those of customers with a purchase order, in thread
replies only (never in a request a search for them lists), and asks it of the new answer."""

from __future__ import annotations

import json
import re

import pytest

from tasks_catalog.authoring.cross import OUT_DIR, world
from tasks_catalog.authoring.cross import x_t_goodwill_credit_requests as goodwill


def _credit(n: int, *, po: bool, above: bool, plan: str = "growth", asker: str = "a@k.com") -> dict:
    customer = {"po": f"PO-2026-{n:04d}" if po else None, "plan": plan}
    amount = 60_000 + 1_000 * n if above else 20_000 + 1_000 * n
    return {**goodwill._facts(customer, asker, amount, 200_000 + 10_000 * (3 * n % 7)), "quoted": po}


def _earlier(po_above_only: bool) -> list[dict]:
    quoted = [_credit(n, po=True, above=po_above_only or n != 1, plan="growth" if n % 2 else "scale",
                      asker=f"o{n}@k.com") for n in (1, 2, 3)]
    others = [_credit(n, po=False, above=not po_above_only and n % 2 == 0, plan="growth" if n % 2 else "scale",
                      asker=f"o{n % 3 + 1}@k.com") for n in range(4, 8)]
    return quoted + others


def _new() -> list[dict]:
    return [_credit(8, po=False, above=True, asker="o1@k.com"), _credit(9, po=True, above=False, asker="o1@k.com")]


def test_earlier_answers_that_the_approval_explains_as_well_as_the_purchase_order_are_refused_naming_it():
    with pytest.raises(ValueError, match="needed an approval"):
        goodwill.check_po_convention(_earlier(po_above_only=True), _new())


def test_earlier_answers_that_only_the_purchase_order_explains_are_accepted():
    goodwill.check_po_convention(_earlier(po_above_only=False), _new())


def test_an_earlier_answer_that_breaks_the_habit_is_refused():
    earlier = _earlier(po_above_only=False)
    earlier[4]["quoted"] = True
    with pytest.raises(ValueError, match="does not follow the habit"):
        goodwill.check_po_convention(earlier, _new())


def test_new_credits_that_all_or_none_have_a_purchase_order_are_refused():
    both_po = [_credit(8, po=True, above=True), _credit(9, po=True, above=False)]
    with pytest.raises(ValueError, match="one due a purchase order quote and one not"):
        goodwill.check_po_convention(_earlier(po_above_only=False), both_po)


def _answer(case: dict, quote: bool) -> str:
    text = next(c["arguments"]["text"] for c in case["reference"] if c["tool"] == "slack__reply_to_thread")
    po = case["approved"]["po"] or case["small"]["po"]
    return text if quote else text.replace(f", purchase order {po}", "")


def test_every_case_quotes_the_purchase_order_on_the_earlier_answers_of_customers_with_one_only():
    doc = json.loads((OUT_DIR / "x-t-goodwill-credit-requests.json").read_text(encoding="utf-8"))
    for case in doc["params"]["case"]["choice"]:
        stripe = world("stripe", case["seed"])
        po_of_charge = {ch["id"]: next(c["metadata"].get("po_number") for c in stripe["customers"]
                                       if c["id"] == ch["customer"]) for ch in stripe["charges"]}
        messages = [op["value"] for op in case["slack_patch"]]
        roots = [m for m in messages if "thread_ts" not in m and m["ts"] != case["root"]]
        replies = [m for m in messages if m.get("thread_ts") not in (None, case["root"])]
        assert len(roots) == goodwill.PAST, case["seed"]
        # every earlier thread has two replies: the channel history counts them alike
        assert all(sum(r["thread_ts"] == m["ts"] for r in replies) == 2 for m in roots), case["seed"]
        answers = [r for r in replies if r["text"].startswith("Done: refunded")]
        pos = [po_of_charge[op["value"]["charge"]] for op in case["stripe_patch"]]
        assert len(answers) == len(pos) == goodwill.PAST, case["seed"]
        quoted = [a for a, po in zip(answers, pos, strict=True) if po and po in a["text"]]
        assert 2 <= len(quoted) <= 3 and len(quoted) == sum(map(bool, pos)), case["seed"]
        assert not any("purchase order" in a["text"] for a, po in zip(answers, pos, strict=True) if not po), case["seed"]
        # a search for the requests ("goodwill") lists the roots only, and no root names a purchase order
        assert not any("goodwill" in m["text"].lower() for m in replies), case["seed"]
        assert not any("PO-" in m["text"] or "purchase order" in m["text"] for m in roots), case["seed"]
        # the new answer must quote the one issued credit's purchase order; the refused customer has none
        assert bool(case["approved"]["po"]) != bool(case["small"]["po"]) and not case["refused"]["po"], case["seed"]
        assert re.search(case["po_pattern"], _answer(case, quote=True)), case["seed"]
        assert not re.search(case["po_pattern"], _answer(case, quote=False)), case["seed"]
