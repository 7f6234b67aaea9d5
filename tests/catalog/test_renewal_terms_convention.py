"""x-t-renewal-terms-request's habit that only opening the earlier forwards shows: the forward of a renewal
request from an account the CRM places in North America copies the Sales director, North America. The
module refuses a draw of earlier forwards that leaves another reading open, and every committed case shows
the copy in a minority of the earlier forwards, exactly those of North American accounts, nowhere a search
result would show it, and requires it on the new forward."""

from __future__ import annotations

import json

import pytest

from tasks_catalog.authoring.cross import OUT_DIR
from tasks_catalog.authoring.cross import x_t_renewal_terms_request as renewal
from tasks_catalog.authoring.cross._x_t_accounts import crm_rows

NA = renewal.REGION


def _forward(name: str, region: str, plan: str, owner: str, *, seats: int = 50, arr: int = 40_000) -> dict:
    return {"short": name, "region": region, "plan": plan, "owner": owner, "status": "Active",
            "renewal_month": "2026-06", "title": "Controller", "tld": "com", "asked_month": "2026-02", "seats": seats,
            "arr": arr, "cc": region == NA}


def _earlier(plan_of_na: str) -> list[dict]:
    na = [_forward(f"North {n}", NA, plan_of_na, f"o{n}@k.com", seats=30 * n, arr=30_000 * n) for n in (1, 2)]
    others = [_forward(f"East {n}", "EMEA" if n % 2 else "APAC", "Growth" if n % 2 else "Scale", f"o{n % 3}@k.com",
                       seats=25 * n, arr=25_000 * n) for n in range(1, 6)]
    return na + others


def _new() -> list[dict]:
    return [{**_forward("New", NA, "Enterprise", "o1@k.com", seats=60, arr=45_000), "asked_month": "2026-03"}]


def test_earlier_forwards_that_a_plan_explains_as_well_as_the_region_are_refused_naming_the_reading():
    earlier = _earlier("Enterprise")
    with pytest.raises(ValueError, match="by the account's plan"):
        renewal.check_copy_convention(earlier, [{**_new()[0], "plan": "Starter"}])


def test_earlier_forwards_that_only_the_region_explains_are_accepted():
    earlier = _earlier("Enterprise")
    earlier[2]["plan"] = "Enterprise"  # an EMEA Enterprise account's forward without the copy rules out the plan
    renewal.check_copy_convention(earlier, _new())


def test_earlier_forwards_with_no_emea_account_uncopied_are_refused():
    earlier = [{**e, "region": "APAC"} if e["region"] == "EMEA" else e for e in _earlier("Growth")]
    with pytest.raises(ValueError, match="EMEA"):
        renewal.check_copy_convention(earlier, _new())


def test_an_earlier_forward_that_breaks_the_habit_is_refused():
    earlier = _earlier("Growth")
    earlier[3]["cc"] = True
    with pytest.raises(ValueError, match="does not follow the habit"):
        renewal.check_copy_convention(earlier, _new())


def test_every_case_copies_the_director_on_the_north_american_forwards_only_and_requires_it_on_the_new_one():
    doc = json.loads((OUT_DIR / "x-t-renewal-terms-request.json").read_text(encoding="utf-8"))
    assert doc["version"] == 2
    for case in doc["params"]["case"]["choice"]:
        seed, director = case["seed"], case["director"]
        region_of = {r["properties"]["Billing email"]: r["properties"]["Region"] for r in crm_rows(seed)}
        messages = [op["value"] for op in case["gmail_patch"]]
        requests = {m["id"]: m for m in messages if "INBOX" in m["label_ids"]}
        forwards = [m for m in messages if m["subject"].startswith("Fwd: ")]
        replies = [m for m in messages if m["subject"].startswith("Re: ")]
        assert len(forwards) == len(replies) == renewal.PAST, seed
        copied = [f for f in forwards if f["cc"]]
        assert 2 <= len(copied) <= 3 and all(f["cc"] == [director] for f in copied), seed
        assert all(r["cc"] == [] for r in replies), seed
        # each forward names its requester: copied exactly when the CRM places that account in North America
        for f in forwards:
            requester = next(m["sender"] for m in requests.values() if m["sender"] in f["body"])
            assert bool(f["cc"]) == (region_of[requester] == NA), seed
        # an uncopied EMEA forward is there, and a search result (from, to, subject, snippet) never shows the copy
        assert any(region_of[r["to"][0]] == "EMEA" for r in replies), seed
        assert all(director not in m["body"] and director not in m["to"] for m in messages), seed
        # the new request is from a North American account, and the frame allows its forward only copied
        assert region_of[case["contact"]["email"]] == NA, seed
        to_owner = [f["where"] for f in doc["task"]["frame"]
                    if "{{case.owner.email}}" in f.get("where", {}).get("to", [])]
        assert to_owner and all(
            w.get("cc") == ["{{case.director}}"] or "{{case.director}}" in w["to"] for w in to_owner)
