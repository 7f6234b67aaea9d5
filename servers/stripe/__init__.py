"""The Stripe server: customers, products and prices, invoices, charges and refunds."""

from servers.kit import ServerSpec
from servers.stripe.state import StripeState
from servers.stripe.tools import StripeTools

SPEC = ServerSpec(
    name="stripe",
    description=(
        "A Stripe account: customers with metadata, products and prices, invoices, charges and refunds. "
        "Objects are referenced by id (cus_..., in_..., ch_...); amounts are integers in the smallest "
        "currency unit (cents); created is a Unix timestamp. Lists are newest first and page with "
        "starting_after; search_customers, search_charges and search_invoices take Stripe's search query language."
    ),
    toolset=StripeTools,
)

__all__ = ["SPEC", "StripeState", "StripeTools"]
