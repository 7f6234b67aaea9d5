"""Gmail primitives. A message is identified by its ``id``; addresses are compared exactly
(case-sensitive, bare addresses as stored); subjects and bodies by regex search (case-sensitive)."""

from __future__ import annotations

from pydantic import Field

from servers.gmail import GmailState
from servers.gmail.state import SYSTEM_LABELS
from tasks_catalog.predicates._registry import Args, Name, Pattern, primitive, search

#: An optional regex argument. The Pattern marker sits inside the Optional, where ``goal_literals`` does not
#: look, so the field repeats it: the gate then checks the pattern against the goal as a pattern.
OPTIONAL_PATTERN = Field(default=None, json_schema_extra={"pattern_arg": True})


class DraftExists(Args):
    """True when at least one unsent draft (in `drafts`) satisfies every argument given: `to` equals
    one of the draft's `to` addresses exactly (cc does not count), `subject_pattern` matches its
    subject, `body_pattern` matches its body (regex search, case-sensitive). With no argument, true
    when any draft exists. A sent draft is no longer a draft."""

    to: Name | None = None
    subject_pattern: Pattern | None = OPTIONAL_PATTERN
    body_pattern: Pattern | None = OPTIONAL_PATTERN


class MessageLabelApplied(Args):
    """True when the message whose `id` equals `message` carries the label `label`. `label` is a
    system label id (INBOX, SENT, DRAFT, UNREAD, STARRED, IMPORTANT, SPAM, TRASH, CATEGORY_PERSONAL,
    CATEGORY_SOCIAL, CATEGORY_PROMOTIONS, CATEGORY_UPDATES, CATEGORY_FORUMS) or a user label in
    `labels`, given by its exact, case-sensitive `name` or by its `id` (an id still finds the label
    after a rename, so a guard should use it). False when the message or the label does not exist."""

    message: Name
    label: Name


class DraftSent(Args):
    """True when some message carrying the SENT label has a subject matching `subject_pattern`
    (regex search, case-sensitive), and, if given, `to` equals one of its `to` addresses exactly (cc
    does not count) and `body_pattern` matches its body (regex search, case-sensitive; what a sent
    reply must say, e.g. the date it confirms). Whether it was sent from a saved draft or directly
    does not matter; an unsent draft does not count."""

    subject_pattern: Pattern
    to: Name | None = None
    body_pattern: Pattern | None = OPTIONAL_PATTERN


class MessageIsRead(Args):
    """True when the message whose `id` equals `message` exists and does not carry the UNREAD label.
    False when no such message exists (e.g. it was deleted)."""

    message: Name


@primitive("gmail", "draftExists", DraftExists)
def draft_exists(state: GmailState, args: DraftExists) -> bool:
    return any(
        (args.to is None or args.to in draft.to)
        and (args.subject_pattern is None or search(args.subject_pattern, draft.subject))
        and (args.body_pattern is None or search(args.body_pattern, draft.body))
        for draft in state.drafts
    )


@primitive("gmail", "messageLabelApplied", MessageLabelApplied)
def message_label_applied(state: GmailState, args: MessageLabelApplied) -> bool:
    label_id: str | None
    if args.label in SYSTEM_LABELS:
        label_id = args.label
    else:
        label_id = next((label.id for label in state.labels if args.label in (label.name, label.id)), None)
        if label_id is None:
            return False
    return any(m.id == args.message and label_id in m.label_ids for m in state.messages)


@primitive("gmail", "draftSent", DraftSent)
def draft_sent(state: GmailState, args: DraftSent) -> bool:
    return any(
        "SENT" in m.label_ids
        and search(args.subject_pattern, m.subject)
        and (args.to is None or args.to in m.to)
        and (args.body_pattern is None or search(args.body_pattern, m.body))
        for m in state.messages
    )


@primitive("gmail", "messageIsRead", MessageIsRead)
def message_is_read(state: GmailState, args: MessageIsRead) -> bool:
    return any(m.id == args.message and "UNREAD" not in m.label_ids for m in state.messages)
