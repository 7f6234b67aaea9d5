"""The browser server: a simulated website browsed through Playwright-style tools."""

from servers.browser.state import BrowserState
from servers.browser.tools import BrowserTools
from servers.kit import ServerSpec

SPEC = ServerSpec(
    name="browser",
    description=(
        "A web browser on a small website. browser_snapshot shows the current page with refs for its "
        "links, form fields and buttons; click, type, select and fill by ref; navigate by URL."
    ),
    toolset=BrowserTools,
)

__all__ = ["SPEC", "BrowserState", "BrowserTools"]
