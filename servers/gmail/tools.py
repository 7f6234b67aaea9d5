"""Gmail tools, named after the popular Gmail MCP server (search_emails, read_email, send_email,
draft_email, modify_email, ...), over an in-memory mailbox.

Labels are addressed by id, as in the Gmail API: system labels by their name (``UNREAD``,
``STARRED``), user labels by the id ``list_email_labels`` shows (``Label_3``). Reading a message does
not mark it read; removing ``UNREAD`` with ``modify_email`` does.
"""

from __future__ import annotations

import re
import shlex
from collections.abc import Callable
from typing import Annotated, Any

from pydantic import Field

from servers.gmail.state import SYSTEM_LABELS, Draft, GmailState, Label, Message, check_address
from servers.kit import MAX_QUERY_CHARS, ToolError, Toolset, tool
from servers.kit.pages import page
from servers.kit.values import next_id

MessageId = Annotated[str, Field(min_length=1, description="A message id, as search_emails returns it")]
DraftId = Annotated[str, Field(min_length=1, description="A draft id, as list_drafts or draft_email returns it")]
Recipients = Annotated[list[str], Field(description="Bare email addresses, e.g. ['dana.okafor@lumen.example']")]
LabelIds = Annotated[
    list[str] | None,
    Field(description="Label ids: system labels by name (UNREAD, STARRED, INBOX, ...), user labels by id (Label_3)"),
]

#: Labels only Gmail itself sets: a client may not add or remove them.
_FIXED = {"SENT", "DRAFT"}
_OPERATORS = {"from", "to", "subject", "label", "is", "in", "after", "before"}
_IS = {"unread": ("UNREAD", True), "read": ("UNREAD", False), "starred": ("STARRED", True),
       "important": ("IMPORTANT", True)}
_IN = {"inbox": "INBOX", "sent": "SENT", "trash": "TRASH", "spam": "SPAM", "anywhere": None}
_DAY = re.compile(r"^(\d{4})[/-](\d{2})[/-](\d{2})$")


def _negated(test: Callable[[Message], bool]) -> Callable[[Message], bool]:
    """A term with a leading '-'."""
    return lambda m: not test(m)


class GmailTools(Toolset[GmailState]):
    state_model = GmailState

    # -- lookups -----------------------------------------------------------------------------
    def _message(self, message_id: str) -> Message:
        for message in self.state.messages:
            if message.id == message_id:
                return message
        raise ToolError(f"unknown message id {message_id!r}; find ids with search_emails")

    def _draft(self, draft_id: str) -> Draft:
        for draft in self.state.drafts:
            if draft.id == draft_id:
                return draft
        raise ToolError(f"unknown draft id {draft_id!r}; list drafts with list_drafts")

    def _label_names(self) -> dict[str, str]:
        names = {label_id: label_id for label_id in SYSTEM_LABELS}
        names.update({label.id: label.name for label in self.state.labels})
        return names

    def _check_label_ids(self, label_ids: list[str], verb: str) -> None:
        names = self._label_names()
        for label_id in label_ids:
            if label_id in _FIXED:
                raise ToolError(f"label {label_id} is set by Gmail itself and cannot be {verb}")
            if label_id not in names:
                hint = next((f"; did you mean {i} ({n})" for i, n in names.items() if n.lower() == label_id.lower()), "")
                raise ToolError(f"unknown label id {label_id!r}{hint}; list labels with list_email_labels")

    def _recipients(self, addresses: list[str] | None, field: str) -> list[str]:
        out = []
        for address in addresses or []:
            try:
                out.append(check_address(address))
            except ValueError:
                raise ToolError(f"invalid {field} recipient {address!r}: give a bare email address like name@example.com") from None
        return out

    def _thread(self, thread_id: str | None) -> str | None:
        if thread_id is not None and not any(m.thread_id == thread_id for m in self.state.messages):
            raise ToolError(f"unknown thread id {thread_id!r}")
        return thread_id

    def _summary(self, message: Message) -> dict[str, Any]:
        names = self._label_names()
        return {
            "id": message.id,
            "threadId": message.thread_id,
            "from": message.sender,
            "to": message.to,
            "subject": message.subject,
            "date": message.date,
            "labels": [names[i] for i in message.label_ids],
            "snippet": message.body[:100],
        }

    # -- search ------------------------------------------------------------------------------
    def _matcher(self, query: str):
        try:
            terms = shlex.split(query)
        except ValueError as exc:
            raise ToolError(f"cannot parse query {query!r}: {exc}") from None
        names = self._label_names()
        scope: set[str | None] = set()
        # Gmail's OR joins the terms on either side of it (``from:a OR from:b subject:x`` is either sender,
        # and the subject); every other pair of terms must both hold
        clauses: list[list[Callable[[Message, Callable[[], str]], bool]]] = []
        joined = False
        for i, term in enumerate(terms):
            if term == "OR":
                if not clauses or joined or i == len(terms) - 1:
                    raise ToolError(f"OR needs a term on each side, in {query!r}")
                joined = True
                continue
            test = self._term(term, names, scope)
            if joined:
                clauses[-1].append(test)
            else:
                clauses.append([test])
            joined = False
        if not scope:
            clauses.append([lambda m, _text: "TRASH" not in m.label_ids and "SPAM" not in m.label_ids])

        def match(m) -> bool:
            text: list[str] = []

            def words() -> str:  # the message's searchable text, built once, and only if a word asks
                if not text:
                    text.append(" ".join([m.subject, m.body, m.sender, *m.to, *m.cc]).lower())
                return text[0]

            return all(any(t(m, words) for t in clause) for clause in clauses)

        return match

    def _term(self, term: str, names: dict[str, str], scope: set) -> Callable[[Message, Callable[[], str]], bool]:
        """One search term as a test of a message (and its searchable text): a free word or quoted phrase,
        an operator, either negated by a leading '-'."""
        negate = term.startswith("-") and len(term) > 1
        term = term[1:] if negate else term
        key, sep, value = term.partition(":")
        key = key.lower()
        if sep and key in _OPERATORS:
            if not value:
                raise ToolError(f"operator {key}: needs a value")
            op = self._operator(key, value, names, scope)
            test = _negated(op) if negate else op
            return lambda m, _text: test(m)
        if sep and key.isalpha() and key not in _OPERATORS:
            raise ToolError(f"unsupported search operator {key}:; use from:, to:, subject:, label:, is:, in:, after:, before:")
        word = term.lower()
        return lambda m, text: (word in text()) is not negate

    def _operator(self, key: str, value: str, names: dict[str, str], scope: set) -> Any:
        low = value.lower()
        if key == "from":
            return lambda m: low in m.sender.lower()
        if key == "to":
            return lambda m: any(low in a.lower() for a in m.to + m.cc)
        if key == "subject":
            return lambda m: low in m.subject.lower()
        if key == "label":
            ids = {i for i, n in names.items() if low in (i.lower(), n.lower(), n.lower().replace(" ", "-"))}
            if not ids:
                raise ToolError(f"unknown label {value!r} in query; list labels with list_email_labels")
            return lambda m: bool(ids & set(m.label_ids))
        if key == "is":
            if low not in _IS:
                raise ToolError(f"unsupported is:{value}; use is:unread, is:read, is:starred or is:important")
            label_id, present = _IS[low]
            return lambda m: (label_id in m.label_ids) is present
        if key == "in":
            if low not in _IN:
                raise ToolError(f"unsupported in:{value}; use in:inbox, in:sent, in:trash, in:spam or in:anywhere")
            scope.add(_IN[low])
            in_label = _IN[low]
            return lambda m: in_label is None or in_label in m.label_ids
        day = _DAY.match(value)
        if not day:
            raise ToolError(f"{key}: takes a date like 2026/03/14, not {value!r}")
        bound = "-".join(day.groups())
        if key == "after":
            return lambda m: m.date[:10] >= bound
        return lambda m: m.date[:10] < bound

    @tool(read_only=True)
    def search_emails(
        self,
        query: Annotated[str, Field(max_length=MAX_QUERY_CHARS,
                                    description="Gmail search syntax, e.g. 'from:dana is:unread subject:invoice'")],
        maxResults: Annotated[int, Field(ge=1, le=100, description="Results per page")] = 10,
        pageToken: Annotated[str | None, Field(max_length=200, description="nextPageToken of the previous page")] = None,
    ) -> dict:
        """Search messages with Gmail query syntax: free words and quoted phrases (matched in subject, body
        and addresses, case-insensitive), from:, to:, subject:, label:, is:unread|read|starred|important,
        in:inbox|sent|trash|spam|anywhere, after:/before: YYYY/MM/DD, '-' to negate a term and OR between
        two terms for either (``from:dana OR from:lee subject:invoice``). Messages in
        trash or spam are left out unless in: asks for them. Newest first, one page at a time: pass
        nextPageToken as pageToken for the next page (absent on the last). Each result has id, threadId,
        from, to, subject, date, labels and a snippet; resultSizeEstimate counts all matches."""
        match = self._matcher(query)
        found = [(m.date, i, m) for i, m in enumerate(self.state.messages) if match(m)]
        found.sort(key=lambda t: (t[0], t[1]), reverse=True)
        chunk, token = page(found, f"search:{query}", pageToken, maxResults)
        out: dict[str, Any] = {"messages": [self._summary(m) for _, _, m in chunk], "resultSizeEstimate": len(found)}
        if token:
            out["nextPageToken"] = token
        return out

    @tool(read_only=True)
    def get_thread(self, threadId: Annotated[str, Field(min_length=1, description="A threadId, as search_emails returns it")]) -> dict:
        """A whole conversation: every message of the thread, oldest first, with headers, labels and body."""
        thread = sorted((m for m in self.state.messages if m.thread_id == threadId), key=lambda m: m.date)
        if not thread:
            raise ToolError(f"unknown thread id {threadId!r} (search_emails shows threadId)")
        names = self._label_names()
        return {"id": threadId, "messages": [
            {**self._summary(m), "cc": m.cc, "labelIds": m.label_ids, "body": m.body,
             "labels": [names[i] for i in m.label_ids]} for m in thread]}

    @tool(read_only=True)
    def read_email(self, messageId: MessageId) -> dict:
        """The full message: headers, label ids and names, and body. Reading does not mark it read."""
        message = self._message(messageId)
        out = self._summary(message)
        out.pop("snippet")
        out.update(cc=message.cc, labelIds=message.label_ids, body=message.body)
        return out

    # -- composing ---------------------------------------------------------------------------
    @tool()
    def send_email(
        self,
        to: Recipients,
        subject: str,
        body: str,
        cc: Recipients | None = None,
        threadId: Annotated[str | None, Field(description="Reply in this thread")] = None,
    ) -> str:
        """Send a new email (or a reply, with threadId) from the mailbox's address. It is stored with the SENT label."""
        recipients = self._recipients(to, "to")
        if not recipients:
            raise ToolError("give at least one recipient in 'to'")
        message = self._deliver(recipients, self._recipients(cc, "cc"), subject, body, self._thread(threadId))
        return f"Email sent. Message id: {message.id}"

    def _deliver(self, to: list[str], cc: list[str], subject: str, body: str, thread_id: str | None) -> Message:
        message_id = next_id("msg-", {m.id for m in self.state.messages})
        message = Message(id=message_id, thread_id=thread_id or message_id, sender=self.state.address, to=to, cc=cc,
                          subject=subject, body=body, date=self.state.now, label_ids=["SENT"])
        self.state.messages.append(message)
        return message

    @tool()
    def draft_email(
        self,
        to: Recipients,
        subject: str,
        body: str,
        cc: Recipients | None = None,
        threadId: Annotated[str | None, Field(description="Draft a reply in this thread")] = None,
    ) -> str:
        """Save a new draft without sending it. Returns the draft id."""
        draft_id = next_id("r-", {d.id for d in self.state.drafts})
        self.state.drafts.append(Draft(id=draft_id, to=self._recipients(to, "to"), cc=self._recipients(cc, "cc"),
                                       subject=subject, body=body, thread_id=self._thread(threadId)))
        return f"Draft saved. Draft id: {draft_id}"

    @tool(read_only=True)
    def list_drafts(self) -> list:
        """Every unsent draft: id, to, cc, subject, body and threadId."""
        return [{"id": d.id, "to": d.to, "cc": d.cc, "subject": d.subject, "body": d.body, "threadId": d.thread_id}
                for d in self.state.drafts]

    @tool(destructive=True)
    def update_draft(
        self,
        draftId: DraftId,
        to: Recipients | None = None,
        subject: str | None = None,
        body: str | None = None,
        cc: Recipients | None = None,
    ) -> str:
        """Replace fields of a draft; fields left out keep their value."""
        draft = self._draft(draftId)
        if to is None and subject is None and body is None and cc is None:
            raise ToolError("give at least one of to, subject, body or cc to change")
        changes: dict[str, Any] = {}
        if to is not None:
            changes["to"] = self._recipients(to, "to")
        if cc is not None:
            changes["cc"] = self._recipients(cc, "cc")
        if subject is not None:
            changes["subject"] = subject
        if body is not None:
            changes["body"] = body
        for key, value in changes.items():
            setattr(draft, key, value)
        return f"Draft {draftId} updated"

    @tool()
    def send_draft(self, draftId: DraftId) -> str:
        """Send a saved draft as it is; the draft is removed and the sent message gets the SENT label."""
        draft = self._draft(draftId)
        if not draft.to:
            raise ToolError(f"draft {draftId} has no recipients; add some with update_draft first")
        message = self._deliver(draft.to, draft.cc, draft.subject, draft.body, draft.thread_id)
        self.state.drafts = [d for d in self.state.drafts if d.id != draftId]
        return f"Draft {draftId} sent. Message id: {message.id}"

    @tool(destructive=True)
    def delete_draft(self, draftId: DraftId) -> str:
        """Discard a draft permanently."""
        self._draft(draftId)
        self.state.drafts = [d for d in self.state.drafts if d.id != draftId]
        return f"Draft {draftId} deleted"

    # -- labels ------------------------------------------------------------------------------
    def _modify(self, messages: list[Message], add: list[str], remove: list[str]) -> None:
        if not add and not remove:
            raise ToolError("give addLabelIds or removeLabelIds")
        self._check_label_ids(add, "added")
        self._check_label_ids(remove, "removed")
        both = set(add) & set(remove)
        if both:
            raise ToolError(f"label {sorted(both)[0]} is both added and removed")
        for message in messages:
            kept = [i for i in message.label_ids if i not in remove]
            message.label_ids = kept + [i for i in dict.fromkeys(add) if i not in kept]

    @tool(idempotent=True)
    def modify_email(self, messageId: MessageId, addLabelIds: LabelIds = None, removeLabelIds: LabelIds = None) -> str:
        """Add or remove labels on a message: e.g. removeLabelIds ['UNREAD'] marks it read, addLabelIds
        ['STARRED'] stars it, removeLabelIds ['INBOX'] archives it."""
        self._modify([self._message(messageId)], addLabelIds or [], removeLabelIds or [])
        return f"Labels of message {messageId} updated"

    @tool(idempotent=True)
    def batch_modify_emails(
        self,
        messageIds: Annotated[list[str], Field(min_length=1, max_length=100)],
        addLabelIds: LabelIds = None,
        removeLabelIds: LabelIds = None,
    ) -> str:
        """Add or remove labels on several messages at once. Nothing changes if any id is unknown."""
        messages = [self._message(i) for i in dict.fromkeys(messageIds)]
        self._modify(messages, addLabelIds or [], removeLabelIds or [])
        return f"Labels of {len(messages)} message(s) updated"

    @tool(destructive=True)
    def delete_email(self, messageId: MessageId) -> str:
        """Delete a message permanently (it cannot be recovered). To bin it instead, add the TRASH label."""
        self._message(messageId)
        self.state.messages = [m for m in self.state.messages if m.id != messageId]
        return f"Message {messageId} deleted permanently"

    @tool(read_only=True)
    def list_email_labels(self) -> list:
        """Every label, system and user: id, name, type, and how many messages carry it (total and unread)."""
        out = []
        for label_id, name in self._label_names().items():
            carrying = [m for m in self.state.messages if label_id in m.label_ids]
            out.append({"id": label_id, "name": name, "type": "system" if label_id in SYSTEM_LABELS else "user",
                        "messagesTotal": len(carrying),
                        "messagesUnread": sum("UNREAD" in m.label_ids for m in carrying)})
        return out

    @tool()
    def create_label(self, name: Annotated[str, Field(min_length=1, max_length=225)]) -> str:
        """Create a user label (names are unique, case-insensitively). Returns its id."""
        name = name.strip()
        if not name:
            raise ToolError("a label name cannot be blank")
        for label_id, existing in self._label_names().items():
            if existing.lower() == name.lower():
                raise ToolError(f"a label named {existing!r} already exists (id {label_id})")
        label_id = next_id("Label_", {label.id for label in self.state.labels})
        self.state.labels.append(Label(id=label_id, name=name))
        return f"Label {name!r} created with id {label_id}"

    @tool(destructive=True)
    def delete_label(self, labelId: Annotated[str, Field(min_length=1)]) -> str:
        """Delete a user label and remove it from every message. System labels cannot be deleted."""
        if labelId in SYSTEM_LABELS:
            raise ToolError(f"{labelId} is a system label and cannot be deleted")
        if not any(label.id == labelId for label in self.state.labels):
            self._check_label_ids([labelId], "deleted")
        for message in self.state.messages:
            if labelId in message.label_ids:
                message.label_ids = [i for i in message.label_ids if i != labelId]
        self.state.labels = [label for label in self.state.labels if label.id != labelId]
        return f"Label {labelId} deleted"
