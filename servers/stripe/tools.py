"""Stripe tools, named after Stripe's agent toolkit MCP server (create_customer, list_customers,
create_invoice, create_invoice_item, finalize_invoice, create_refund, ...).

As in Stripe's API, objects are referenced by id (``cus_...``, ``in_...``, ``ch_...``), amounts are
integers in the smallest currency unit (cents), and lists come back as ``{"object": "list", "data":
[...], "has_more": ...}``. Errors read like Stripe's (``No such customer: 'cus_x'``).
"""

from __future__ import annotations

from typing import Annotated, Any

from pydantic import Field

from servers.kit import ToolError, Toolset, tool
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


def _page(items: list[dict[str, Any]], limit: int) -> dict[str, Any]:
    return {"object": "list", "data": items[:limit], "has_more": len(items) > limit}


class StripeTools(Toolset[StripeState]):
    state_model = StripeState

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
                "description": c.description, "metadata": c.metadata}

    def _invoice_json(self, inv: Invoice) -> dict[str, Any]:
        customer = next((c for c in self.state.customers if c.id == inv.customer), None)
        total = inv.total
        return {
            "id": inv.id, "object": "invoice", "customer": inv.customer,
            "customer_email": customer.email if customer else None, "status": inv.status,
            "currency": inv.currency, "description": inv.description, "days_until_due": inv.days_until_due,
            "total": total, "amount_due": total, "amount_paid": total if inv.status == "paid" else 0,
            "lines": [line.model_dump() for line in inv.lines],
        }

    def _charge_json(self, ch: Charge) -> dict[str, Any]:
        refunded = self.state.refunded(ch.id)
        return {**ch.model_dump(), "object": "charge", "amount_refunded": refunded, "refunded": refunded == ch.amount}

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
        customer = Customer(id=self.state.new_id("cus"), email=email, name=name, description=description, metadata=meta)
        self.state.customers.append(customer)
        return self._customer_json(customer)

    @tool(read_only=True)
    def list_customers(
        self,
        email: Annotated[str | None, Field(description="Only customers with exactly this email (case-insensitive)")] = None,
        limit: Limit = 10,
    ) -> dict:
        """List customers (id, email, name, description, metadata), optionally only those with a given email."""
        found = [c for c in self.state.customers if email is None or c.email.casefold() == email.strip().casefold()]
        return _page([self._customer_json(c) for c in found], limit)

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
    def list_products(self, limit: Limit = 10) -> dict:
        """List products (id, name, description, active)."""
        return _page([{**p.model_dump(), "object": "product"} for p in self.state.products], limit)

    @tool(read_only=True)
    def list_prices(
        self,
        product: Annotated[str | None, Field(description="Only prices of this product id")] = None,
        limit: Limit = 10,
    ) -> dict:
        """List prices (id, product id and name, unit_amount in the smallest currency unit, currency, active)."""
        names = {p.id: p.name for p in self.state.products}
        if product is not None and product not in names:
            raise ToolError(f"No such product: {product!r}")
        found = [p for p in self.state.prices if product is None or p.product == product]
        return _page([{**p.model_dump(), "object": "price", "product_name": names.get(p.product)} for p in found], limit)

    # -- invoices ---------------------------------------------------------------------------
    @tool()
    def create_invoice(
        self,
        customer: CustomerId,
        days_until_due: Annotated[int, Field(ge=0, le=365)] = 30,
        currency: Currency = "usd",
        description: str = "",
    ) -> dict:
        """Create a draft invoice for a customer. Add lines with create_invoice_item, then finalize_invoice."""
        c = self._customer(customer)
        inv = Invoice(id=self.state.new_id("in"), customer=c.id, currency=currency,
                      description=description, days_until_due=days_until_due)
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
                description=f"Payment for invoice {inv.id}", invoice=inv.id,
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
    ) -> dict:
        """List invoices (status, customer, total in the smallest currency unit, lines), optionally filtered."""
        if customer is not None:
            self._customer(customer)
        found = [i for i in self.state.invoices
                 if (customer is None or i.customer == customer) and (status is None or i.status == status)]
        return _page([self._invoice_json(i) for i in found], limit)

    # -- charges and refunds ----------------------------------------------------------------
    @tool(read_only=True)
    def list_charges(
        self,
        customer: Annotated[str | None, Field(description="Only charges of this customer id")] = None,
        limit: Limit = 10,
    ) -> dict:
        """List charges (amount, amount_refunded, currency, customer, description, status), newest last."""
        if customer is not None:
            self._customer(customer)
        found = [c for c in self.state.charges if customer is None or c.customer == customer]
        return _page([self._charge_json(c) for c in found], limit)

    @tool(destructive=True)
    def create_refund(
        self,
        charge: ChargeId,
        amount: Annotated[Amount | None, Field(description="Amount to refund in the smallest currency unit; default: all that remains")] = None,
        reason: RefundReason | None = None,
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
        refund = Refund(id=self.state.new_id("re"), charge=ch.id, amount=amount or remaining, reason=reason)
        self.state.refunds.append(refund)
        return {**refund.model_dump(), "object": "refund", "currency": ch.currency}

    @tool(read_only=True)
    def list_refunds(
        self,
        charge: Annotated[str | None, Field(description="Only refunds of this charge id")] = None,
        limit: Limit = 10,
    ) -> dict:
        """List refunds (charge, amount, reason, status)."""
        if charge is not None:
            self._charge(charge)
        found = [r for r in self.state.refunds if charge is None or r.charge == charge]
        return _page([{**r.model_dump(), "object": "refund"} for r in found], limit)
