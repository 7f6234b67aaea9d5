"""The notion server: pages, databases with typed columns, content blocks and comments."""

from servers.kit import ServerSpec
from servers.notion.state import NotionState
from servers.notion.tools import NotionTools

SPEC = ServerSpec(
    name="notion",
    description="A Notion workspace: pages, databases (tables of row pages with typed properties), "
    "page content blocks, comments and users. Find ids with search, then read or change objects by id. "
    "Listings page with start_cursor/next_cursor; property values come back as Notion property objects.",
    toolset=NotionTools,
)

__all__ = ["SPEC", "NotionState", "NotionTools"]
