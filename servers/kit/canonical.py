"""RFC 8785 canonical JSON (the JSON Canonicalization Scheme), fast where it can be.

Every digest and hash in MCPBench is taken over this form: state digests, world cache keys, task
attestation hashes, run records' ``final_state_digest``. The reference implementation (``rfc8785``)
is pure Python and costs about 100 ms on a default-size world; the standard library's C encoder with
sorted keys and no whitespace writes the very same bytes for most documents, in a tenth of the time.
It differs from RFC 8785 only in:

* numbers that are not integers (RFC 8785 writes them as ECMAScript does: ``1`` for ``1.0``,
  ``1e+21``), and integers beyond 2**53 (which RFC 8785 rejects);
* the order of keys with characters outside the Basic Multilingual Plane (RFC 8785 orders by UTF-16
  code units, Python by code points);
* what it accepts: NaN, infinities and strings that are not valid UTF-8 are errors in RFC 8785; keys
  that are not strings are converted by the standard library, rejected by RFC 8785.

So :func:`dumps` encodes with the standard library and checks the bytes. A number with a fraction is
written alike by both as long as it has no exponent (both print the shortest digits that read back as
the same double, and both print them without an exponent from 1e-4 up to 1e16, the range where a
double still has a fraction). What needs care is found by fast searches (a literal, a byte
translation) whose hits are then checked to lie inside a number token, not a string:

* an integral float (``50000.0``, a postgres ``DOUBLE`` column's usual value): its ``.0`` is cut from
  the bytes (and ``-0`` written ``0``), where a count of the quotes before it (escapes masked) shows
  it lies outside every string;
* an exponent or 16 digits in a row, or a character outside the BMP (in any string), or what the
  encoder refuses: the reference implementation writes (or refuses) the document.

The one difference left is non-string keys, which no JSON document has. ``tests/servers/test_canonical.py``
checks the two agree on arbitrary JSON values, strings that look like numbers included.
"""

from __future__ import annotations

import json
import re
from typing import Any

import rfc8785

CanonicalizationError = rfc8785.CanonicalizationError

_ENCODER = json.JSONEncoder(ensure_ascii=False, sort_keys=True, separators=(",", ":"), allow_nan=False)
#: Where Python may write a number otherwise than ECMAScript. Each is a fast search over the encoded
#: bytes that also finds such text inside strings; a hit counts only inside a number token.
#: An integral float below 1e16 (``50000.0``; ``-0.0`` too, which ECMAScript writes ``0``):
_INTEGRAL_FLOAT = re.compile(rb"\.0[,\]}]")
#: an exponent (``1e-05``, ``1e+16``):
_EXPONENT = re.compile(rb"e[-+]\d(?<=\de[-+]\d)")
#: 16 digits in a row (an integer RFC 8785 may refuse), found with every digit mapped to ``0``:
_DIGITS_AS_ZERO = bytes.maketrans(b"123456789", b"000000000")
_SIXTEEN_DIGITS = b"0" * 16
#: the lead byte of a UTF-8 sequence outside the BMP (its keys sort otherwise):
_ASTRAL = re.compile(rb"[\xf0-\xf7]")
_NUMBER = re.compile(rb"-?\d+(?:\.\d+)?(?:e[-+]\d+)?(?=[,\]}])")
_NUMBER_BYTES = frozenset(b"0123456789.e+-")
_BEFORE_A_VALUE = frozenset(b":,[")
#: an escape in a JSON string: a backslash and the byte after it
_ESCAPE = re.compile(rb"\\.", re.DOTALL)


def dumps(value: Any) -> bytes:
    """The RFC 8785 canonical UTF-8 bytes of ``value``; raises :class:`CanonicalizationError` (or
    ``TypeError`` for what is not JSON data) as ``rfc8785.dumps`` does."""
    try:
        text = _ENCODER.encode(value)
    except (TypeError, ValueError, RecursionError):
        return rfc8785.dumps(value)  # NaN, infinities, not JSON data: the reference says what is wrong
    if text[:1] not in ("{", "["):
        return rfc8785.dumps(value)
    try:
        data = text.encode("utf-8")
    except UnicodeEncodeError:
        return rfc8785.dumps(value)  # a lone surrogate: the reference's error
    if _INTEGRAL_FLOAT.search(data):
        data = _integral_floats_as_ints(data)
    if (_in_a_number(data, (m.start() for m in _EXPONENT.finditer(data)))
            or _in_a_number(data, _found(data.translate(_DIGITS_AS_ZERO), _SIXTEEN_DIGITS))
            or (not text.isascii() and _ASTRAL.search(data))):
        return rfc8785.dumps(value)
    return data


def _found(data: bytes, needle: bytes):
    at = data.find(needle)
    while at >= 0:
        yield at
        at = data.find(needle, at + len(needle))


def _in_a_number(data: bytes, positions) -> bool:
    """Whether any of ``positions`` lies inside a number token of the compact JSON ``data`` (one that
    follows ``:``, ``,`` or ``[`` and is followed by ``,``, ``]`` or ``}``; text inside a string can
    look like that too, and then the answer is a needless but harmless yes)."""
    for at in positions:
        start = at
        while start > 0 and data[start - 1] in _NUMBER_BYTES:
            start -= 1
        if start > 0 and data[start - 1] in _BEFORE_A_VALUE:
            token = _NUMBER.match(data, start)
            if token is not None and token.end() > at:
                return True
    return False


def _integral_floats_as_ints(data: bytes) -> bytes:
    """The compact JSON ``data`` with every integral float written as the integer it equals (``50000.0``
    as ``50000``, ``-0.0`` as ``0``), as ECMAScript writes them. The encoder writes such a float below
    1e16 as its digits and ``.0`` (above, with an exponent, which the reference writes); text in a
    string can look alike, so a hit counts only where an even number of quotes precede it, counted
    with every escape (a backslash and the byte after it) masked."""
    quotes = _ESCAPE.sub(b"__", data) if b"\\" in data else data  # as long as data; each quote delimits a string
    parts: list[bytes] = []
    done = counted = opened = 0
    for hit in _INTEGRAL_FLOAT.finditer(data):
        at = hit.start()
        opened += quotes.count(b'"', counted, at)
        counted = at
        if opened % 2:
            continue  # inside a string
        if data[at - 2:at] == b"-0":  # -0.0 (outside a string, a minus is a number's sign)
            parts += (data[done:at - 2], b"0")
        else:
            parts.append(data[done:at])
        done = at + 2  # past the ".0"
    parts.append(data[done:])
    return b"".join(parts)


__all__ = ["CanonicalizationError", "dumps"]
