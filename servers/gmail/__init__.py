"""The gmail server: one mailbox of messages, drafts and labels."""

from servers.gmail.state import GmailState
from servers.gmail.tools import GmailTools
from servers.kit import ServerSpec

SPEC = ServerSpec(
    name="gmail",
    description=(
        "The Gmail mailbox of one user: search and read messages, send mail, keep drafts, and label "
        "messages. Labels are addressed by id (system labels by name, e.g. UNREAD; user labels as "
        "list_email_labels shows, e.g. Label_3)."
    ),
    toolset=GmailTools,
)

__all__ = ["SPEC", "GmailState", "GmailTools"]
