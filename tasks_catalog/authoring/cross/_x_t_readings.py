"""Readings of a habit the team's past work shows: what a careful reader of the examples might take the rule
to be, each told apart from the habit itself by the examples or by the new items.

A template whose convention shows in some of its examples (an entry commented, an answer copied, an issue
linked: the example's ``flag``) lists the readings a reader could fairly draw, and asserts per case that each
is contradicted by an example or treats every new item as the habit does. A reading is called with the
examples (does it fit them all?) and ``predicts`` a new item's flag (``None``: the examples do not say).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any


class Always:
    """The reading "every example is flagged" (``value`` True) or "none is" (False)."""

    def __init__(self, value: bool, flag: str = "commented") -> None:
        self.value, self.flag = value, flag

    def __call__(self, examples: list[dict[str, Any]]) -> bool:
        return all(bool(e[self.flag]) == self.value for e in examples)

    def predicts(self, examples: list[dict[str, Any]], item: dict[str, Any]) -> bool | None:
        return self.value


class FlaggedWhen:
    """The reading "an example is flagged (``flag``: commented, copied...) when ``field`` is one of the values
    the flagged examples have": it fits when no unflagged example shares such a value, and then flags a new
    item exactly when its value is one of them (an unseen value, like every value no flagged example has, is
    not flagged). ``field`` may be a tuple of fields, read together: ``("overdue", "kind")`` is "the habit's
    trigger, but only on the kinds of item the flagged examples are" (a copy to collections on the invoice
    answers to customers past due, never seen on a plan answer to one)."""

    def __init__(self, field: str | tuple[str, ...], flag: str = "commented") -> None:
        self.field, self.flag = field, flag

    def _value(self, item: dict[str, Any]) -> Any:
        return tuple(item[f] for f in self.field) if isinstance(self.field, tuple) else item[self.field]

    def _values(self, examples: list[dict[str, Any]]) -> set[Any]:
        return {self._value(e) for e in examples if e[self.flag]}

    def __call__(self, examples: list[dict[str, Any]]) -> bool:
        return not any(self._value(e) in self._values(examples) for e in examples if not e[self.flag])

    def predicts(self, examples: list[dict[str, Any]], item: dict[str, Any]) -> bool | None:
        return self._value(item) in self._values(examples)


class FlaggedSide:
    """The reading "an example is flagged when ``field`` (a credit limit, an invoice's total, an ARR) is below
    (``low``) or above some amount": it fits when every flagged example's value is on that side of every
    other's, and then flags a new item on the flagged examples' side of them all, not one on the others' side;
    between the two the examples do not say (None: a case where a new item falls there is not kept)."""

    def __init__(self, field: str, low: bool, flag: str = "commented") -> None:
        self.field, self.low, self.flag = field, low, flag

    def _split(self, examples: list[dict[str, Any]]) -> tuple[list[Any], list[Any]]:
        sign = 1 if self.low else -1
        return ([sign * e[self.field] for e in examples if e[self.flag]],
                [sign * e[self.field] for e in examples if not e[self.flag]])

    def __call__(self, examples: list[dict[str, Any]]) -> bool:
        yes, no = self._split(examples)
        return bool(yes) and (not no or max(yes) < min(no))

    def predicts(self, examples: list[dict[str, Any]], item: dict[str, Any]) -> bool | None:
        yes, no = self._split(examples)
        value = (1 if self.low else -1) * item[self.field]
        return True if value <= max(yes) else False if no and value >= min(no) else None


def left_open(readings: Mapping[str, Any], examples: list[dict[str, Any]], items: list[dict[str, Any]],
              habit: Callable[[dict[str, Any]], bool]) -> list[str]:
    """The readings that fit every example and yet treat some new item otherwise than ``habit`` does (or
    leave it undecided): each is a second outcome a careful reader could defend, so a case with one is not
    fair. Empty when the examples tell the habit apart from every reading."""
    return [name for name, reading in readings.items()
            if reading(examples) and any(reading.predicts(examples, i) != habit(i) for i in items)]


__all__ = ["Always", "FlaggedSide", "FlaggedWhen", "left_open"]
