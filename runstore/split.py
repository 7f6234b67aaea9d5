"""What a run was evaluated on, parsed once: the one split type every layer uses.

A split is written as text in the CLI, in flow parameters and in the run record; :meth:`Split.parse`
is the only place that text is read. The run record stores both the canonical text (``split``) and
the kind (``split_kind``), so the warehouse's SQL never parses a split again.

=================  =====================  ===========================================================
kind               written as             what
=================  =====================  ===========================================================
``dev``            ``dev``                the public dev set; never ranks
``private``        ``YYYY-MM``            a sealed private month; ranks on the contemporary board
``historical``     ``Historical-YYYY-MM`` a retired month, evaluated from its published plaintext;
                                          ranks on the historical board (``historical-YYYY-MM`` is
                                          read as the same split)
``folder``         ``dir:<name>``         the task files of a folder (``--tasks-dir``); never ranks
=================  =====================  ===========================================================
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Literal

SplitKind = Literal["dev", "private", "historical", "folder"]
#: Every kind, in the order the docs list them.
SPLIT_KINDS: tuple[str, ...] = ("dev", "private", "historical", "folder")
#: The kinds whose submissions are ranked on a leaderboard.
RANKED_KINDS: tuple[str, ...] = ("private", "historical")

_MONTH = re.compile(r"^\d{4}-(0[1-9]|1[0-2])$")
_HISTORICAL = re.compile(r"^historical-(\d{4}-(?:0[1-9]|1[0-2]))$", re.IGNORECASE)
_FOLDER = re.compile(r"^dir:([A-Za-z0-9][A-Za-z0-9._-]{0,99})$")


class SplitError(ValueError):
    """Text that names no split; the message says what a split looks like."""


@dataclass(frozen=True)
class Split:
    """A parsed split: its ``kind``, and its ``month`` (private, historical) or folder ``name``."""

    kind: SplitKind
    month: str | None = None
    name: str | None = None

    @classmethod
    def parse(cls, text: str | Split) -> Split:
        """``dev``, ``YYYY-MM``, ``Historical-YYYY-MM`` (any case) or ``dir:<name>``."""
        if isinstance(text, Split):
            return text
        if not isinstance(text, str):
            raise SplitError(f"a split is text, got {type(text).__name__}")
        if text == "dev":
            return cls("dev")
        if _MONTH.match(text):
            return cls("private", month=text)
        if found := _HISTORICAL.match(text):
            return cls("historical", month=found.group(1))
        if found := _FOLDER.match(text):
            return cls("folder", name=found.group(1))
        raise SplitError(f"unknown split {text!r}: use 'dev', a private month 'YYYY-MM', a retired month "
                         "'Historical-YYYY-MM', or 'dir:<name>' for a folder of task files")

    @classmethod
    def folder(cls, name: str) -> Split:
        """The split of the task files in a folder called ``name`` (characters a key cannot hold become '-')."""
        safe = re.sub(r"[^A-Za-z0-9._-]", "-", name).lstrip("._-") or "tasks"
        return cls.parse(f"dir:{safe[:100]}")

    @property
    def text(self) -> str:
        """The canonical text, as stored in ``RunRecord.split``."""
        if self.kind == "dev":
            return "dev"
        if self.kind == "private":
            return str(self.month)
        if self.kind == "historical":
            return f"Historical-{self.month}"
        return f"dir:{self.name}"

    @property
    def is_private(self) -> bool:
        """A sealed month: goals, call arguments and error texts are never stored."""
        return self.kind == "private"

    @property
    def ranks(self) -> bool:
        return self.kind in RANKED_KINDS

    @property
    def tag(self) -> str | None:
        """The publication tag of a historical split (``Historical-YYYY-MM``)."""
        return self.text if self.kind == "historical" else None

    def __str__(self) -> str:
        return self.text


__all__ = ["RANKED_KINDS", "SPLIT_KINDS", "Split", "SplitError", "SplitKind"]
