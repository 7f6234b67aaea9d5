"""Stripe state: customers (with metadata), products and prices, invoices with line items, charges
and refunds. Amounts are integers in the currency's smallest unit (cents for USD/EUR), as in Stripe's
API; an invoice's total is the sum of its lines' amounts. ``created`` is a Unix timestamp (seconds,
UTC), optional so that small inline states need none; ``now`` is the account's clock, the time new
objects are created at.
"""

from __future__ import annotations

import hashlib
from itertools import chain
from operator import attrgetter
from typing import ClassVar, Literal

from pydantic import ConfigDict, Field, field_validator, model_validator

from servers.kit import Model, ServerState

Currency = Literal["usd", "eur", "gbp", "cad", "aud", "jpy", "chf"]
InvoiceStatus = Literal["draft", "open", "paid", "void", "uncollectible"]
RefundReason = Literal["duplicate", "fraudulent", "requested_by_customer"]

MAX_METADATA_KEYS = 50
MAX_METADATA_KEY = 40
MAX_METADATA_VALUE = 500


def check_metadata(metadata: dict[str, str]) -> dict[str, str]:
    if len(metadata) > MAX_METADATA_KEYS:
        raise ValueError(f"metadata has {len(metadata)} keys; the limit is {MAX_METADATA_KEYS}")
    for key, value in metadata.items():
        if not key or len(key) > MAX_METADATA_KEY or "[" in key or "]" in key:
            raise ValueError(f"metadata key {key!r} must be 1-{MAX_METADATA_KEY} characters without square brackets")
        if not value or len(value) > MAX_METADATA_VALUE:
            raise ValueError(f"metadata value of {key!r} must be 1-{MAX_METADATA_VALUE} characters")
    return dict(sorted(metadata.items()))


Timestamp = int | None


class _Record(Model):
    """A Stripe object (fields: scalars, flat string dicts, lists of records, records)."""


class Customer(_Record):
    id: str = Field(pattern=r"^cus_[A-Za-z0-9]+$")
    email: str = Field(min_length=3)
    name: str = ""
    description: str = ""
    metadata: dict[str, str] = Field(default_factory=dict)
    created: Timestamp = None
    currency: Currency | None = Field(default=None, description="The currency the customer is billed in")

    @field_validator("metadata")
    @classmethod
    def _metadata_ok(cls, metadata: dict[str, str]) -> dict[str, str]:
        return check_metadata(metadata)


class Product(_Record):
    id: str = Field(pattern=r"^prod_[A-Za-z0-9]+$")
    name: str = Field(min_length=1)
    description: str = ""
    active: bool = True


class Recurring(_Record):
    interval: Literal["day", "week", "month", "year"]
    interval_count: int = Field(default=1, ge=1, le=12)


class Price(_Record):
    id: str = Field(pattern=r"^price_[A-Za-z0-9]+$")
    product: str
    unit_amount: int = Field(ge=0)
    currency: Currency = "usd"
    active: bool = True
    nickname: str = ""
    recurring: Recurring | None = Field(default=None, description="Billing period of a recurring price; null: one-time")


class InvoiceLine(_Record):
    # frozen: no tool changes a line (a new line makes a new list), so a world's copy shares them (servers.kit.state)
    model_config = ConfigDict(frozen=True)

    id: str = Field(pattern=r"^il_[A-Za-z0-9]+$")
    description: str = ""
    quantity: int = Field(default=1, ge=1)
    amount: int = Field(description="Line total in the smallest currency unit (unit amount x quantity)")
    price: str | None = None


class Invoice(_Record):
    id: str = Field(pattern=r"^in_[A-Za-z0-9]+$")
    customer: str
    status: InvoiceStatus = "draft"
    currency: Currency = "usd"
    description: str = ""
    days_until_due: int | None = Field(default=30, ge=0, le=365)
    lines: list[InvoiceLine] = Field(default_factory=list)
    number: str | None = Field(default=None, description="The invoice number printed on it: the customer's prefix and "
                                                         "a sequence, given when the invoice is created")
    created: Timestamp = None
    metadata: dict[str, str] = Field(default_factory=dict)

    @field_validator("metadata")
    @classmethod
    def _metadata_ok(cls, metadata: dict[str, str]) -> dict[str, str]:
        return check_metadata(metadata)

    @property
    def total(self) -> int:
        return sum(line.amount for line in self.lines)


class Charge(_Record):
    # frozen: no tool changes a charge, nor its metadata in place (a refund is a record of its own), so a
    # world's copy shares them (servers.kit.state)
    model_config = ConfigDict(frozen=True)

    id: str = Field(pattern=r"^ch_[A-Za-z0-9]+$")
    amount: int = Field(gt=0)
    currency: Currency = "usd"
    customer: str | None = None
    description: str = ""
    status: Literal["succeeded", "pending", "failed"] = "succeeded"
    invoice: str | None = None
    created: Timestamp = None
    metadata: dict[str, str] = Field(default_factory=dict)
    failure_message: str | None = None

    @field_validator("metadata")
    @classmethod
    def _metadata_ok(cls, metadata: dict[str, str]) -> dict[str, str]:
        return check_metadata(metadata)


class Refund(_Record):
    id: str = Field(pattern=r"^re_[A-Za-z0-9]+$")
    charge: str
    amount: int = Field(gt=0)
    reason: RefundReason | None = None
    status: Literal["succeeded", "pending", "failed", "canceled"] = "succeeded"
    created: Timestamp = None
    metadata: dict[str, str] = Field(default_factory=dict)

    @field_validator("metadata")
    @classmethod
    def _metadata_ok(cls, metadata: dict[str, str]) -> dict[str, str]:
        return check_metadata(metadata)


class StripeState(ServerState):
    world_generator: ClassVar[str] = "stripe"

    now: Timestamp = Field(default=None, description="Unix time at which new objects are created")

    customers: list[Customer] = Field(default_factory=list)
    products: list[Product] = Field(default_factory=list)
    prices: list[Price] = Field(default_factory=list)
    invoices: list[Invoice] = Field(default_factory=list)
    charges: list[Charge] = Field(default_factory=list)
    refunds: list[Refund] = Field(default_factory=list)

    @model_validator(mode="after")
    def _references_resolve(self) -> StripeState:  # noqa: C901, PLR0912 - one flat check per kind of reference the state holds
        ids: set[str] = set()
        for kind in ("customers", "products", "prices", "invoices", "charges", "refunds"):
            for obj in getattr(self, kind):
                if obj.id in ids:
                    raise ValueError(f"id {obj.id!r} is used twice")
                ids.add(obj.id)
        for inv in self.invoices:
            for line in inv.lines:
                if line.id in ids:
                    raise ValueError(f"id {line.id!r} is used twice")
                ids.add(line.id)
        customers = {c.id for c in self.customers}
        products = {p.id for p in self.products}
        prices = {p.id for p in self.prices}
        for price in self.prices:
            if price.product not in products:
                raise ValueError(f"price {price.id}: product {price.product!r} does not exist")
        for inv in self.invoices:
            if inv.customer not in customers:
                raise ValueError(f"invoice {inv.id}: customer {inv.customer!r} does not exist")
            for line in inv.lines:
                if line.price is not None and line.price not in prices:
                    raise ValueError(f"invoice {inv.id}: line {line.id} price {line.price!r} does not exist")
        invoices = {i.id for i in self.invoices}
        for ch in self.charges:
            if ch.customer is not None and ch.customer not in customers:
                raise ValueError(f"charge {ch.id}: customer {ch.customer!r} does not exist")
            if ch.invoice is not None and ch.invoice not in invoices:
                raise ValueError(f"charge {ch.id}: invoice {ch.invoice!r} does not exist")
        charges = {c.id: c for c in self.charges}
        refunded: dict[str, int] = {}
        for ref in self.refunds:
            if ref.charge not in charges:
                raise ValueError(f"refund {ref.id}: charge {ref.charge!r} does not exist")
            if ref.status in ("succeeded", "pending"):
                refunded[ref.charge] = refunded.get(ref.charge, 0) + ref.amount
        for charge_id, amount in refunded.items():
            if amount > charges[charge_id].amount:
                raise ValueError(f"charge {charge_id}: refunds exceed the charged amount {charges[charge_id].amount}")
        return self

    # -- lookups shared by the tools and the predicates ------------------------------------------
    def customers_matching(self, ref: str) -> list[Customer]:
        """Customers whose id or email equals ``ref`` exactly."""
        return [c for c in self.customers if ref in (c.id, c.email)]

    def refunded(self, charge_id: str) -> int:
        """The amount of a charge refunded so far (succeeded and pending refunds)."""
        return sum(r.amount for r in self.refunds if r.charge == charge_id and r.status in ("succeeded", "pending"))

    def all_ids(self) -> set[str]:
        # (map and chain: the same set, built at C speed; new_id makes it on every create, 9,000 ids of a world)
        ids = set(map(_ID, chain(self.customers, self.products, self.prices, self.invoices, self.charges, self.refunds)))
        ids.update(map(_ID, chain.from_iterable(inv.lines for inv in self.invoices)))
        return ids

    def new_id(self, prefix: str) -> str:
        """A fresh Stripe-looking id (``cus_...``), derived deterministically from the objects that exist,
        so replaying the same calls on the same state gives the same ids."""
        taken = self.all_ids()
        n = len(taken)
        while True:
            digest = hashlib.sha256(f"{prefix}:{n}".encode()).digest()
            candidate = f"{prefix}_{_base62(digest)[:14]}"
            if candidate not in taken:
                return candidate
            n += 1


_ID = attrgetter("id")
_ALPHABET = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"


def _base62(data: bytes) -> str:
    n = int.from_bytes(data, "big")
    out = []
    while n:
        n, r = divmod(n, 62)
        out.append(_ALPHABET[r])
    return "".join(out) or "0"
