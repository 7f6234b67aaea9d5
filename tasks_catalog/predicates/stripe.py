"""Stripe primitives. A customer argument is matched exactly (case-sensitive) against a customer's
`id` or `email`; as emails need not be unique in Stripe, it may match several customers, and the
primitive is true when any of them satisfies it. Amounts are in the smallest currency unit (cents)
and compared numerically. A missing object makes a primitive false."""

from __future__ import annotations

from servers.stripe import StripeState
from tasks_catalog.predicates._registry import Args, Name, explains, listing, primitive, same, value


class CustomerExists(Args):
    """True when at least one customer's `email` equals `email` (exact, case-sensitive)."""

    email: Name


class InvoiceExists(Args):
    """True when some invoice belongs to a customer matched by `customer` (its id or email) and, when
    given, its total (the sum of its line amounts, in the smallest currency unit) equals `amount`
    numerically and its status ("draft", "open", "paid", "void", "uncollectible") equals `status`
    exactly. All given conditions must hold for the same invoice."""

    customer: Name
    amount: int | float | None = None
    status: Name | None = None


class CustomerHasMetadata(Args):
    """True when a customer matched by `customer` (its id or email) has metadata key `key` whose value
    equals `value` (exact, case-sensitive string equality; Stripe metadata values are strings)."""

    customer: Name
    key: Name
    value: Name


class RefundIssued(Args):
    """True when charge `charge` (its id, exact) has at least one refund with status "succeeded", and,
    when `amount` is given, the sum of its succeeded refunds equals `amount` numerically (smallest
    currency unit): two partial refunds of 1000 and 1500 satisfy amount 2500."""

    charge: Name
    amount: int | float | None = None


@primitive("stripe", "customerExists", CustomerExists)
def customer_exists(state: StripeState, args: CustomerExists) -> bool:
    return any(c.email == args.email for c in state.customers)


@primitive("stripe", "invoiceExists", InvoiceExists)
def invoice_exists(state: StripeState, args: InvoiceExists) -> bool:
    ids = {c.id for c in state.customers_matching(args.customer)}
    return any(
        inv.customer in ids
        and (args.amount is None or same(args.amount, inv.total))
        and (args.status is None or inv.status == args.status)
        for inv in state.invoices
    )


@primitive("stripe", "customerHasMetadata", CustomerHasMetadata)
def customer_has_metadata(state: StripeState, args: CustomerHasMetadata) -> bool:
    return any(c.metadata.get(args.key) == args.value for c in state.customers_matching(args.customer))


@primitive("stripe", "refundIssued", RefundIssued)
def refund_issued(state: StripeState, args: RefundIssued) -> bool:
    amounts = [r.amount for r in state.refunds if r.charge == args.charge and r.status == "succeeded"]
    if not amounts:
        return False
    return args.amount is None or same(args.amount, sum(amounts))


# -- explainers: what each clause asks and what the state held -------------------------------------

def _customers(state: StripeState, ref: str) -> tuple[list, str]:
    matched = state.customers_matching(ref)
    return matched, ("" if matched else f"no customer with id or email {ref!r} ({len(state.customers)} customers)")


@explains("stripe", "customerExists")
def _explain_customer_exists(state: StripeState, args: CustomerExists) -> tuple[str, str]:
    same_domain = [c.email for c in state.customers if c.email.split("@")[-1] == args.email.split("@")[-1]]
    found = (f"customers with that email: {listing(c.id for c in state.customers if c.email == args.email)}"
             if any(c.email == args.email for c in state.customers)
             else f"no customer with email {args.email!r}; emails at its domain: {listing(same_domain)}")
    return f"a customer with email {args.email!r}", found


@explains("stripe", "invoiceExists")
def _explain_invoice_exists(state: StripeState, args: InvoiceExists) -> tuple[str, str]:
    parts = [f"total {value(args.amount)}" if args.amount is not None else "",
             f"status {args.status!r}" if args.status is not None else ""]
    expected = f"an invoice of {args.customer!r}" + (" with " + ", ".join(p for p in parts if p) if any(parts) else "")
    matched, why = _customers(state, args.customer)
    if not matched:
        return expected, why
    ids = {c.id for c in matched}
    invoices = [i for i in state.invoices if i.customer in ids]
    shown_ = "; ".join(f"{i.id} total {i.total} {i.status}" for i in invoices[-4:]) or "none"
    return expected, f"{listing(ids)}: {len(invoices)} invoices; the last: {shown_}"


@explains("stripe", "customerHasMetadata")
def _explain_customer_has_metadata(state: StripeState, args: CustomerHasMetadata) -> tuple[str, str]:
    expected = f"{args.customer!r} with metadata {args.key} = {value(args.value)}"
    matched, why = _customers(state, args.customer)
    if not matched:
        return expected, why
    return expected, "; ".join(f"{c.id}: {args.key} = {value(c.metadata.get(args.key))}" for c in matched[:4])


@explains("stripe", "refundIssued")
def _explain_refund_issued(state: StripeState, args: RefundIssued) -> tuple[str, str]:
    expected = f"a refund of charge {args.charge}" + (f" totalling {value(args.amount)}" if args.amount is not None else "")
    refunds = [r for r in state.refunds if r.charge == args.charge]
    charge = next((c for c in state.charges if c.id == args.charge), None)
    if charge is None and not refunds:
        return expected, f"no charge {args.charge}"
    succeeded = sum(r.amount for r in refunds if r.status == "succeeded")
    return expected, (f"{len(refunds)} refunds of {args.charge}: {listing(f'{r.id} {r.amount} {r.status}' for r in refunds)}"
                      f"; succeeded total {succeeded}")
