"""Stripe tools, named after Stripe's agent toolkit MCP server (create_customer, list_customers,
create_invoice, create_invoice_item, finalize_invoice, create_refund, ...) and Stripe's search API
(search_customers, search_charges, search_invoices).

As in Stripe's API, objects are referenced by id (``cus_...``, ``in_...``, ``ch_...``), amounts are
integers in the smallest currency unit (cents; whole yen for JPY), ``created`` is a Unix timestamp, and
lists come back newest first as ``{"object": "list", "data": [...], "has_more": ...}``: pass the last
object's id as ``starting_after`` for the next page. Searches take Stripe's query language
(``servers/stripe/search.py``) and page with ``next_page``. Errors read like Stripe's (``No such
customer: 'cus_x'``).
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Sequence
from itertools import islice
from typing import Annotated, Any

from pydantic import BaseModel, Field

from servers.kit import ToolError, Toolset, tool
from servers.kit.pages import make_cursor, read_cursor
from servers.stripe import search
from servers.stripe.state import (
    Charge,
    Currency,
    Customer,
    Invoice,
    InvoiceLine,
    InvoiceStatus,
    Refund,
    RefundReason,
    StripeState,
    check_metadata,
)

CustomerId = Annotated[str, Field(min_length=1, description="Customer id, e.g. 'cus_NffrFeUfNV2Hib'")]
InvoiceId = Annotated[str, Field(min_length=1, description="Invoice id, e.g. 'in_1MtHbELkdIwHu7ix'")]
ChargeId = Annotated[str, Field(min_length=1, description="Charge id, e.g. 'ch_3MmlLrLkdIwHu7ix'")]
Amount = Annotated[int, Field(gt=0, le=99_999_999, description="Amount in the smallest currency unit, e.g. 1250 = $12.50")]
Limit = Annotated[int, Field(ge=1, le=100, description="Maximum number of objects to return (1-100)")]
Metadata = Annotated[dict[str, str], Field(description="Key-value pairs (strings) to store on the object")]
StartingAfter = Annotated[str | None, Field(
    max_length=100, description="A cursor: the id of the last object of the previous page; the list goes on after it")]
Query = Annotated[str, Field(min_length=1, max_length=1000, description=(
    "Stripe search query, e.g. \"email:'jenny@example.com'\", \"name~'harbour'\", \"amount>10000 AND "
    "created>=1772323200\", \"metadata['crm_id']:'HS-10423'\"; clauses joined by AND or by OR"))]
SearchPage = Annotated[str | None, Field(max_length=200, description="next_page from the previous search result")]


class Created(BaseModel):
    """A range of Unix timestamps, as Stripe's ``created`` list filter."""

    gt: int | None = None
    gte: int | None = None
    lt: int | None = None
    lte: int | None = None

    def holds(self, created: int | None) -> bool:
        if created is None:
            return False
        return ((self.gt is None or created > self.gt) and (self.gte is None or created >= self.gte)
                and (self.lt is None or created < self.lt) and (self.lte is None or created <= self.lte))


CreatedFilter = Annotated[Created | None, Field(description="Only objects created in this range of Unix timestamps, "
                                                "e.g. {'gte': 1772323200, 'lt': 1775001600}")]


def newest_first(objects: Sequence[Any]) -> list[Any]:
    """Objects by ``created`` descending (objects without one count as oldest), later ones first on ties."""
    order = sorted(enumerate(objects), key=lambda pair: (pair[1].created or 0, pair[0]), reverse=True)
    return [obj for _, obj in order]


def _page(objects: list[Any], render: Callable[[Any], dict[str, Any]], limit: int, starting_after: str | None,
          url: str, kind: str) -> dict[str, Any]:
    start = 0
    if starting_after:
        at = next((i for i, obj in enumerate(objects) if obj.id == starting_after), None)
        if at is None:
            raise ToolError(f"No such {kind}: {starting_after!r} (starting_after takes the id of an object this list returned)")
        start = at + 1
    chunk = objects[start:start + limit]
    return {"object": "list", "url": url, "has_more": start + limit < len(objects), "data": [render(o) for o in chunk]}


def _search(objects: list[Any], fields: dict[str, str], query: str, render: Callable[[Any], dict[str, Any]],
            limit: int, page_token: str | None, url: str,
            value: Callable[[Any, str], Any] = lambda obj, name: getattr(obj, name, None)) -> dict[str, Any]:
    """One page of the objects (newest first) matching ``query``; scanning stops once the page is full."""
    clauses, joiner = search.parse(query, fields)
    test = search.compile_query(clauses, joiner, value)
    listing = f"{url}:{hashlib.sha256(query.encode()).hexdigest()[:12]}"
    start = read_cursor(listing, page_token)
    chunk = list(islice((o for o in objects if test(o)), start, start + limit + 1))
    more = len(chunk) > limit
    return {"object": "search_result", "url": url, "has_more": more,
            "next_page": make_cursor(listing, start + limit) if more else None,
            "data": [render(o) for o in chunk[:limit]]}


class StripeTools(Toolset[StripeState]):
    state_model = StripeState

    def _newest_first(self, kind: str) -> list[Any]:
        """``state.<kind>`` newest first, cached while the list keeps its length and last object (no tool
        changes an object's ``created``; creating one appends it)."""
        objects = getattr(self.state, kind)
        key = (len(objects), objects[-1].id if objects else None)
        cache = self.__dict__.setdefault("_order_cache", {})
        hit = cache.get(kind)
        if hit is None or hit[0] != key:
            hit = cache[kind] = (key, newest_first(objects))
        return hit[1]

    # -- lookups ----------------------------------------------------------------------------
    def _customer(self, ref: str) -> Customer:
        c = next((c for c in self.state.customers if c.id == ref), None)
        if c is None:
            hint = " (customers are referenced by id; find it with list_customers(email=...))" if "@" in ref else ""
            raise ToolError(f"No such customer: {ref!r}{hint}")
        return c

    def _invoice(self, ref: str) -> Invoice:
        inv = next((i for i in self.state.invoices if i.id == ref), None)
        if inv is None:
            raise ToolError(f"No such invoice: {ref!r}")
        return inv

    def _charge(self, ref: str) -> Charge:
        ch = next((c for c in self.state.charges if c.id == ref), None)
        if ch is None:
            raise ToolError(f"No such charge: {ref!r}")
        return ch

    # -- rendering --------------------------------------------------------------------------
    def _customer_json(self, c: Customer) -> dict[str, Any]:
        return {"id": c.id, "object": "customer", "email": c.email, "name": c.name,
                "description": c.description, "metadata": c.metadata, "created": c.created, "currency": c.currency,
                "invoice_prefix": _prefix(c.id)}

    def _invoice_json(self, inv: Invoice, payments: dict[str, str] | None = None) -> dict[str, Any]:
        customer = next((c for c in self.state.customers if c.id == inv.customer), None)
        if payments is None:
            payments = self._payments()
        total = inv.total
        paid = total if inv.status == "paid" else 0
        due = inv.created + inv.days_until_due * 86_400 if inv.created is not None and inv.days_until_due is not None else None
        return {
            "id": inv.id, "object": "invoice", "number": inv.number, "customer": inv.customer,
            "customer_email": customer.email if customer else None,
            "customer_name": customer.name if customer else None, "status": inv.status,
            "currency": inv.currency, "description": inv.description, "created": inv.created,
            "days_until_due": inv.days_until_due, "due_date": due,
            "total": total, "amount_due": total, "amount_paid": paid, "amount_remaining": total - paid
            if inv.status in ("open", "paid", "uncollectible") else 0,
            "charge": payments.get(inv.id), "metadata": inv.metadata,
            "lines": {"object": "list", "data": [line.model_dump() for line in inv.lines]},
        }

    def _payments(self) -> dict[str, str]:
        """Invoice id -> the id of the succeeded charge that paid it."""
        return {ch.invoice: ch.id for ch in self.state.charges if ch.invoice is not None and ch.status == "succeeded"}

    def _charge_json(self, ch: Charge) -> dict[str, Any]:
        refunded = self.state.refunded(ch.id)
        return {**ch.model_dump(), "object": "charge", "paid": ch.status == "succeeded",
                "amount_refunded": refunded, "refunded": refunded == ch.amount}

    def _refund_json(self, r: Refund) -> dict[str, Any]:
        currency = next((c.currency for c in self.state.charges if c.id == r.charge), None)
        return {**r.model_dump(), "object": "refund", "currency": currency}

    # -- customers --------------------------------------------------------------------------
    @tool()
    def create_customer(
        self,
        name: Annotated[str, Field(min_length=1, max_length=256)],
        email: Annotated[str, Field(min_length=3, max_length=512)],
        description: str = "",
        metadata: Metadata | None = None,
    ) -> dict:
        """Create a customer with a name and email (and optionally a description and metadata)."""
        if "@" not in email or email.strip() != email:
            raise ToolError(f"Invalid email address: {email!r}")
        try:
            meta = check_metadata(metadata or {})
        except ValueError as exc:
            raise ToolError(f"Invalid metadata: {exc}") from None
        customer = Customer(id=self.state.new_id("cus"), email=email, name=name, description=description, metadata=meta,
                            created=self.state.now)
        self.state.customers.append(customer)
        return self._customer_json(customer)

    @tool(read_only=True)
    def list_customers(
        self,
        email: Annotated[str | None, Field(description="Only customers with exactly this email (case-insensitive)")] = None,
        limit: Limit = 10,
        starting_after: StartingAfter = None,
        created: CreatedFilter = None,
    ) -> dict:
        """List customers newest first (id, email, name, description, metadata, created, currency), optionally
        only those with a given email. Pages of `limit`; has_more says whether starting_after the last id
        gives more. To find customers by name or metadata, use search_customers."""
        found = [c for c in self.state.customers if (email is None or c.email.casefold() == email.strip().casefold())
                 and (created is None or created.holds(c.created))]
        return _page(newest_first(found), self._customer_json, limit, starting_after, "/v1/customers", "customer")

    @tool(read_only=True)
    def search_customers(self, query: Query, limit: Limit = 10, page: SearchPage = None) -> dict:
        """Search customers with Stripe's search query language. Fields: email, name, created, metadata.
        E.g. "name~'harbour'", "email:'ap@example.com'", "metadata['crm_id']:'HS-10423'". Newest first;
        pass next_page as page for more."""
        return _search(self._newest_first("customers"), {"email": "string", "name": "string", "created": "number",
                                              "metadata": "metadata"},
                       query, self._customer_json, limit, page, "/v1/customers/search")

    @tool(destructive=True)
    def update_customer(
        self,
        customer: CustomerId,
        name: Annotated[str | None, Field(min_length=1, max_length=256)] = None,
        email: Annotated[str | None, Field(min_length=3, max_length=512)] = None,
        description: str | None = None,
        metadata: Annotated[
            dict[str, str] | None,
            Field(description="Keys to set, merged into the existing metadata; set a key to '' to delete it"),
        ] = None,
    ) -> dict:
        """Update a customer's name, email, description or metadata. Metadata keys are merged: keys not given
        are kept, a key set to an empty string is removed."""
        c = self._customer(customer)
        if name is None and email is None and description is None and metadata is None:
            raise ToolError("Nothing to update: give name, email, description or metadata")
        if email is not None and ("@" not in email or email.strip() != email):
            raise ToolError(f"Invalid email address: {email!r}")
        new_meta = dict(c.metadata)
        for key, value in (metadata or {}).items():
            if value == "":
                new_meta.pop(key, None)
            else:
                new_meta[key] = value
        try:
            new_meta = check_metadata(new_meta)
        except ValueError as exc:
            raise ToolError(f"Invalid metadata: {exc}") from None
        if name is not None:
            c.name = name
        if email is not None:
            c.email = email
        if description is not None:
            c.description = description
        c.metadata = new_meta
        return self._customer_json(c)

    # -- catalog ----------------------------------------------------------------------------
    @tool(read_only=True)
    def list_products(self, limit: Limit = 10, starting_after: StartingAfter = None) -> dict:
        """List products (id, name, description, active)."""
        return _page(list(self.state.products), lambda p: {**p.model_dump(), "object": "product"}, limit,
                     starting_after, "/v1/products", "product")

    @tool(read_only=True)
    def list_prices(
        self,
        product: Annotated[str | None, Field(description="Only prices of this product id")] = None,
        currency: Annotated[Currency | None, Field(description="Only prices in this currency")] = None,
        active: Annotated[bool | None, Field(description="Only active (true) or archived (false) prices")] = None,
        limit: Limit = 10,
        starting_after: StartingAfter = None,
    ) -> dict:
        """List prices (id, product id and name, nickname, unit_amount in the smallest currency unit, currency,
        recurring interval or null for one-time, active)."""
        names = {p.id: p.name for p in self.state.products}
        if product is not None and product not in names:
            raise ToolError(f"No such product: {product!r}")
        found = [p for p in self.state.prices if (product is None or p.product == product)
                 and (currency is None or p.currency == currency) and (active is None or p.active == active)]
        return _page(found, lambda p: {**p.model_dump(), "object": "price", "product_name": names.get(p.product),
                                       "type": "recurring" if p.recurring else "one_time"},
                     limit, starting_after, "/v1/prices", "price")

    # -- invoices ---------------------------------------------------------------------------
    @tool()
    def create_invoice(
        self,
        customer: CustomerId,
        days_until_due: Annotated[int, Field(ge=0, le=365)] = 30,
        currency: Currency = "usd",
        description: str = "",
    ) -> dict:
        """Create a draft invoice for a customer (it gets the customer's next invoice number). Add lines with
        create_invoice_item, then finalize_invoice."""
        c = self._customer(customer)
        numbered = sum(1 for i in self.state.invoices if i.customer == c.id and i.number is not None)
        inv = Invoice(id=self.state.new_id("in"), customer=c.id, currency=currency, description=description,
                      days_until_due=days_until_due, created=self.state.now,
                      number=f"{_prefix(c.id)}-{numbered + 1:04d}")
        self.state.invoices.append(inv)
        return self._invoice_json(inv)

    @tool()
    def create_invoice_item(
        self,
        customer: CustomerId,
        invoice: InvoiceId,
        price: Annotated[str | None, Field(description="Price id (price_...); or give unit_amount instead")] = None,
        unit_amount: Annotated[int | None, Field(ge=0, le=99_999_999, description="Amount per unit in the smallest currency unit, when no price is given")] = None,
        quantity: Annotated[int, Field(ge=1, le=10_000)] = 1,
        description: str | None = None,
    ) -> dict:
        """Add a line to a draft invoice: a price (price_...) times quantity, or a custom unit_amount times quantity."""
        c = self._customer(customer)
        inv = self._invoice(invoice)
        if inv.customer != c.id:
            raise ToolError(f"Invoice {inv.id} belongs to customer {inv.customer}, not {c.id}")
        if inv.status != "draft":
            raise ToolError(f"Invoice {inv.id} is {inv.status}; only draft invoices can be edited")
        if (price is None) == (unit_amount is None):
            raise ToolError("Give exactly one of price or unit_amount")
        if price is not None:
            p = next((p for p in self.state.prices if p.id == price), None)
            if p is None:
                raise ToolError(f"No such price: {price!r}")
            if not p.active:
                raise ToolError(f"Price {price} is archived and cannot be used")
            if p.currency != inv.currency:
                raise ToolError(f"Price {price} is in {p.currency}, but invoice {inv.id} is in {inv.currency}")
            unit = p.unit_amount
            product = next(x for x in self.state.products if x.id == p.product)
            default_description = product.name
        else:
            assert unit_amount is not None  # exactly one of price or unit_amount, checked above
            unit = unit_amount
            default_description = "Invoice item"
        line = InvoiceLine(id=self.state.new_id("il"), description=description or default_description,
                           quantity=quantity, amount=unit * quantity, price=price)
        inv.lines = [*inv.lines, line]
        return self._invoice_json(inv)

    @tool()
    def finalize_invoice(self, invoice: InvoiceId) -> dict:
        """Finalize a draft invoice: its status becomes 'open' and it can no longer be edited."""
        inv = self._invoice(invoice)
        if inv.status != "draft":
            raise ToolError(f"Invoice {inv.id} is already {inv.status}; only draft invoices can be finalized")
        if not inv.lines:
            raise ToolError(f"Invoice {inv.id} has no line items; add one with create_invoice_item first")
        inv.status = "open"
        return self._invoice_json(inv)

    @tool()
    def pay_invoice(self, invoice: InvoiceId) -> dict:
        """Pay an open invoice with the customer's default payment method: creates a charge for its total and
        marks the invoice 'paid'."""
        inv = self._invoice(invoice)
        if inv.status not in ("open", "uncollectible"):
            raise ToolError(f"Invoice {inv.id} is {inv.status}; only open or uncollectible invoices can be paid")
        if inv.total > 0:
            self.state.charges.append(Charge(
                id=self.state.new_id("ch"), amount=inv.total, currency=inv.currency, customer=inv.customer,
                description=f"Payment for invoice {inv.number or inv.id}", invoice=inv.id, created=self.state.now,
            ))
        inv.status = "paid"
        return self._invoice_json(inv)

    @tool(destructive=True)
    def void_invoice(self, invoice: InvoiceId) -> dict:
        """Void an open or uncollectible invoice (it stays on record with status 'void' and is no longer owed)."""
        inv = self._invoice(invoice)
        if inv.status not in ("open", "uncollectible"):
            raise ToolError(f"Invoice {inv.id} is {inv.status}; only open or uncollectible invoices can be voided")
        inv.status = "void"
        return self._invoice_json(inv)

    @tool(read_only=True)
    def list_invoices(
        self,
        customer: Annotated[str | None, Field(description="Only invoices of this customer id")] = None,
        status: InvoiceStatus | None = None,
        limit: Limit = 10,
        starting_after: StartingAfter = None,
        created: CreatedFilter = None,
    ) -> dict:
        """List invoices newest first (number, status, customer, created, total in the smallest currency unit,
        lines, the charge that paid it), optionally filtered by customer, status and created range."""
        if customer is not None:
            self._customer(customer)
        found = [i for i in self.state.invoices
                 if (customer is None or i.customer == customer) and (status is None or i.status == status)
                 and (created is None or created.holds(i.created))]
        payments = self._payments()
        return _page(newest_first(found), lambda i: self._invoice_json(i, payments), limit, starting_after,
                     "/v1/invoices", "invoice")

    @tool(read_only=True)
    def search_invoices(self, query: Query, limit: Limit = 10, page: SearchPage = None) -> dict:
        """Search invoices with Stripe's search query language. Fields: number, customer, status, currency,
        total, created, metadata. E.g. "customer:'cus_123' AND status:'open'", "total>100000",
        "number:'A1B2C3D4-0003'". Newest first; pass next_page as page for more."""
        payments = self._payments()
        return _search(self._newest_first("invoices"), {"number": "string", "customer": "string", "status": "string",
                                             "currency": "string", "total": "number", "created": "number",
                                             "metadata": "metadata"},
                       query, lambda i: self._invoice_json(i, payments), limit, page, "/v1/invoices/search")

    # -- charges and refunds ----------------------------------------------------------------
    @tool(read_only=True)
    def list_charges(
        self,
        customer: Annotated[str | None, Field(description="Only charges of this customer id")] = None,
        limit: Limit = 10,
        starting_after: StartingAfter = None,
        created: CreatedFilter = None,
    ) -> dict:
        """List charges newest first (amount, amount_refunded, currency, customer, description, status, invoice,
        created, metadata), optionally of one customer and in a created range."""
        if customer is not None:
            self._customer(customer)
        found = [c for c in self.state.charges if (customer is None or c.customer == customer)
                 and (created is None or created.holds(c.created))]
        return _page(newest_first(found), self._charge_json, limit, starting_after, "/v1/charges", "charge")

    @tool(read_only=True)
    def search_charges(self, query: Query, limit: Limit = 10, page: SearchPage = None) -> dict:
        """Search charges with Stripe's search query language. Fields: amount, currency, customer, status
        (succeeded, pending, failed), refunded (true when refunded in full), created, metadata. E.g.
        "customer:'cus_123' AND created>=1772323200", "amount>50000 AND currency:'eur'". Newest first; pass
        next_page as page for more."""

        def value(ch: Charge, name: str) -> Any:
            return self.state.refunded(ch.id) == ch.amount if name == "refunded" else getattr(ch, name, None)

        return _search(self._newest_first("charges"), {"amount": "number", "currency": "string", "customer": "string",
                                            "status": "string", "refunded": "bool", "created": "number",
                                            "metadata": "metadata"},
                       query, self._charge_json, limit, page, "/v1/charges/search", value)

    @tool(destructive=True)
    def create_refund(
        self,
        charge: ChargeId,
        amount: Annotated[Amount | None, Field(description="Amount to refund in the smallest currency unit; default: all that remains")] = None,
        reason: RefundReason | None = None,
        metadata: Metadata | None = None,
    ) -> dict:
        """Refund a succeeded charge, fully or partly. Refunds of one charge cannot exceed what was charged."""
        ch = self._charge(charge)
        if ch.status != "succeeded":
            raise ToolError(f"Charge {ch.id} is {ch.status}; only succeeded charges can be refunded")
        remaining = ch.amount - self.state.refunded(ch.id)
        if remaining <= 0:
            raise ToolError(f"Charge {ch.id} has already been refunded in full")
        if amount is not None and amount > remaining:
            raise ToolError(f"Refund amount ({amount}) is greater than the unrefunded amount of charge {ch.id} ({remaining})")
        try:
            meta = check_metadata(metadata or {})
        except ValueError as exc:
            raise ToolError(f"Invalid metadata: {exc}") from None
        refund = Refund(id=self.state.new_id("re"), charge=ch.id, amount=amount or remaining, reason=reason,
                        created=self.state.now, metadata=meta)
        self.state.refunds.append(refund)
        return self._refund_json(refund)

    @tool(read_only=True)
    def list_refunds(
        self,
        charge: Annotated[str | None, Field(description="Only refunds of this charge id")] = None,
        limit: Limit = 10,
        starting_after: StartingAfter = None,
    ) -> dict:
        """List refunds newest first (charge, amount, reason, status, created, metadata)."""
        if charge is not None:
            self._charge(charge)
        found = [r for r in self.state.refunds if charge is None or r.charge == charge]
        return _page(newest_first(found), self._refund_json, limit, starting_after, "/v1/refunds", "refund")


def _prefix(customer_id: str) -> str:
    """A customer's invoice number prefix (Stripe gives every customer one)."""
    return customer_id.removeprefix("cus_")[:8].upper()
