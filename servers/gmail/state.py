"""Gmail state: one mailbox of messages, unsent drafts and user labels.

System labels (``INBOX``, ``SENT``, ``UNREAD``, ``STARRED``, ...) are fixed and implicit: their id is
their name. ``labels`` lists only the user's own labels. A message is unread while it carries
``UNREAD``; a message the user sent carries ``SENT``.
"""

from __future__ import annotations

import re
from typing import ClassVar

from pydantic import Field, field_validator, model_validator

from servers.kit import Model, ServerState
from servers.kit.values import check_address

#: The system labels every mailbox has; a label id in this set needs no entry in ``labels``.
SYSTEM_LABELS: tuple[str, ...] = (
    "INBOX",
    "SENT",
    "DRAFT",
    "UNREAD",
    "STARRED",
    "IMPORTANT",
    "SPAM",
    "TRASH",
    "CATEGORY_PERSONAL",
    "CATEGORY_SOCIAL",
    "CATEGORY_PROMOTIONS",
    "CATEGORY_UPDATES",
    "CATEGORY_FORUMS",
)

_DATETIME = re.compile(r"^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z$")


def check_date(value: str) -> str:
    """A UTC timestamp ``YYYY-MM-DDTHH:MM:SSZ``, or ``ValueError``."""
    if not isinstance(value, str) or not _DATETIME.match(value):
        raise ValueError(f"date {value!r} must be UTC in the form 2026-03-16T09:00:00Z")
    return value


class Label(Model):
    """A user label. ``id`` is what messages carry in ``label_ids`` (e.g. ``Label_4``)."""

    id: str = Field(min_length=1)
    name: str = Field(min_length=1)

    @model_validator(mode="after")
    def _not_a_system_label(self) -> Label:
        if self.id in SYSTEM_LABELS or self.name in SYSTEM_LABELS:
            raise ValueError(f"label {self.name!r} ({self.id}) clashes with a system label")
        return self


class Message(Model):
    """A received or sent message. ``date`` is UTC, ``YYYY-MM-DDTHH:MM:SSZ``."""

    id: str = Field(min_length=1)
    thread_id: str = Field(min_length=1)
    sender: str
    to: list[str] = Field(default_factory=list)
    cc: list[str] = Field(default_factory=list)
    subject: str = ""
    body: str = ""
    date: str
    label_ids: list[str] = Field(default_factory=list)

    @field_validator("sender")
    @classmethod
    def _sender(cls, value: str) -> str:
        return check_address(value)

    @field_validator("to", "cc")
    @classmethod
    def _recipients(cls, values: list[str]) -> list[str]:
        return [check_address(v) for v in values]

    @field_validator("date")
    @classmethod
    def _date(cls, value: str) -> str:
        return check_date(value)


class Draft(Model):
    """An unsent draft. ``thread_id`` is set when it replies in an existing thread."""

    id: str = Field(min_length=1)
    to: list[str] = Field(default_factory=list)
    cc: list[str] = Field(default_factory=list)
    subject: str = ""
    body: str = ""
    thread_id: str | None = None

    @field_validator("to", "cc")
    @classmethod
    def _recipients(cls, values: list[str]) -> list[str]:
        return [check_address(v) for v in values]


class GmailState(ServerState):
    """The mailbox of ``address``. ``now`` is the mailbox clock: the date given to sent messages."""

    world_generator: ClassVar[str] = "gmail"

    address: str = "me@example.com"
    now: str = "2026-03-16T09:00:00Z"
    labels: list[Label] = Field(default_factory=list)
    messages: list[Message] = Field(default_factory=list)
    drafts: list[Draft] = Field(default_factory=list)

    @field_validator("address")
    @classmethod
    def _address(cls, value: str) -> str:
        return check_address(value)

    @field_validator("now")
    @classmethod
    def _now(cls, value: str) -> str:
        return check_date(value)

    @model_validator(mode="after")
    def _references_resolve(self) -> GmailState:
        for what, items in (("label", self.labels), ("message", self.messages), ("draft", self.drafts)):
            ids = [item.id for item in items]
            dupes = sorted({i for i in ids if ids.count(i) > 1})
            if dupes:
                raise ValueError(f"{what} id {dupes[0]!r} is used twice")
        names = [label.name for label in self.labels]
        dupes = sorted({n for n in names if names.count(n) > 1})
        if dupes:
            raise ValueError(f"label name {dupes[0]!r} is used twice")
        known = set(SYSTEM_LABELS) | {label.id for label in self.labels}
        for message in self.messages:
            for label_id in message.label_ids:
                if label_id not in known:
                    raise ValueError(f"message {message.id!r} carries unknown label id {label_id!r}")
        return self
