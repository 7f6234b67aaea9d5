"""Stripe primitives. A customer argument is matched exactly (case-sensitive) against a customer's
`id` or `email`; as emails need not be unique in Stripe, it may match several customers, and the
primitive is true when any of them satisfies it. Amounts are in the smallest currency unit (cents)
and compared numerically. A missing object makes a primitive false."""

from __future__ import annotations

from servers.stripe import StripeState
from tasks_catalog.predicates._registry import Args, Name, primitive, same


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
