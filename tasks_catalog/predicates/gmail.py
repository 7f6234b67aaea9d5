"""Gmail primitives. A message is identified by its ``id``; addresses are compared exactly
(case-sensitive, bare addresses as stored); subjects and bodies by regex search (case-sensitive)."""

from __future__ import annotations

from pydantic import Field

from servers.gmail import GmailState
from servers.gmail.state import SYSTEM_LABELS
from tasks_catalog.predicates._registry import Args, Name, Pattern, explains, listing, pattern, primitive, search, shown

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
    """True when some message carrying the SENT label has, for each argument given, a subject
    matching `subject_pattern` (regex search, case-sensitive), `to` among its `to` addresses exactly
    (cc does not count) and a body matching `body_pattern` (regex search, case-sensitive; what a sent
    reply must say, e.g. the date it confirms). With `to` and `body_pattern` and no `subject_pattern`,
    any subject will do: a reply's subject is the sender's to choose. Whether it was sent from a saved
    draft or directly does not matter; an unsent draft does not count."""

    subject_pattern: Pattern | None = OPTIONAL_PATTERN
    to: Name | None = None
    body_pattern: Pattern | None = OPTIONAL_PATTERN


class LabelExists(Args):
    """True when `label` is a system label id (see `messageLabelApplied`; they always exist) or `labels`
    holds a user label whose exact, case-sensitive `name` or whose `id` equals it. A guard that a label
    was deleted should give its id: a label renamed rather than deleted keeps it."""

    label: Name


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
        and (args.subject_pattern is None or search(args.subject_pattern, m.subject))
        and (args.to is None or args.to in m.to)
        and (args.body_pattern is None or search(args.body_pattern, m.body))
        for m in state.messages
    )


@primitive("gmail", "messageIsRead", MessageIsRead)
def message_is_read(state: GmailState, args: MessageIsRead) -> bool:
    return any(m.id == args.message and "UNREAD" not in m.label_ids for m in state.messages)


@primitive("gmail", "labelExists", LabelExists)
def label_exists(state: GmailState, args: LabelExists) -> bool:
    return args.label in SYSTEM_LABELS or any(args.label in (label.name, label.id) for label in state.labels)


# -- explainers: what each clause asks and what the state held -------------------------------------

def _wanted(what: str, to: str | None, subject: str | None, body: str | None) -> str:
    parts = [f"to {to}" if to is not None else "", f"subject matching {pattern(subject)}" if subject is not None else "",
             f"body matching {pattern(body)}" if body is not None else ""]
    return what + (" with " + ", ".join(p for p in parts if p) if any(parts) else "")


def _mails(items) -> str:
    return "; ".join(f"to {listing(m.to, 3)}, subject {shown(m.subject, 60)}" for m in items) or "none"


def _labels_of(state: GmailState, label_ids: list[str]) -> str:
    names = {label.id: label.name for label in state.labels}
    return listing((names.get(i, i) for i in label_ids), 10)


@explains("gmail", "draftExists")
def _explain_draft_exists(state: GmailState, args: DraftExists) -> tuple[str, str]:
    expected = _wanted("a draft", args.to, args.subject_pattern, args.body_pattern)
    return expected, f"{len(state.drafts)} drafts; the last: {_mails(state.drafts[-3:])}"


@explains("gmail", "messageLabelApplied")
def _explain_message_label_applied(state: GmailState, args: MessageLabelApplied) -> tuple[str, str]:
    expected = f"message {args.message} labelled {args.label}"
    if args.label not in SYSTEM_LABELS and not any(args.label in (lab.name, lab.id) for lab in state.labels):
        return expected, f"no label {args.label!r}; user labels: {listing(lab.name for lab in state.labels)}"
    message = next((m for m in state.messages if m.id == args.message), None)
    if message is None:
        return expected, f"no message {args.message}"
    return expected, f"message {message.id} {shown(message.subject, 60)} carries {_labels_of(state, message.label_ids)}"


@explains("gmail", "draftSent")
def _explain_draft_sent(state: GmailState, args: DraftSent) -> tuple[str, str]:
    expected = _wanted("a sent message", args.to, args.subject_pattern, args.body_pattern)
    sent = [m for m in state.messages if "SENT" in m.label_ids]
    return expected, (f"{len(sent)} sent messages; the last: {_mails(sent[-3:])}; "
                      f"{len(state.drafts)} unsent drafts")


@explains("gmail", "messageIsRead")
def _explain_message_is_read(state: GmailState, args: MessageIsRead) -> tuple[str, str]:
    message = next((m for m in state.messages if m.id == args.message), None)
    if message is None:
        return f"message {args.message} read", f"no message {args.message}"
    return (f"message {args.message} read",
            f"message {message.id} {shown(message.subject, 60)} carries {_labels_of(state, message.label_ids)}")


@explains("gmail", "labelExists")
def _explain_label_exists(state: GmailState, args: LabelExists) -> tuple[str, str]:
    found = next((lab for lab in state.labels if args.label in (lab.name, lab.id)), None)
    if args.label in SYSTEM_LABELS:
        return f"a label {args.label!r}", f"{args.label} is a system label"
    if found is None:
        return f"a label {args.label!r}", f"no label {args.label!r}; user labels: {listing(lab.name for lab in state.labels)}"
    return f"a label {args.label!r}", f"label {found.id} {shown(found.name, 60)} exists"
