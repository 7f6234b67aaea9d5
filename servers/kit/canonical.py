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

So :func:`dumps` encodes with the standard library, and hands the document to the reference
implementation whenever its text could hold any of these (a number with a fraction, an exponent or 16
digits after ``:``, ``,`` or ``[``, which a string may also contain: then the reference runs, needlessly
but correctly; or a character outside the BMP) or the encoder refuses it. The one difference left is
non-string keys, which no JSON document has. ``tests/servers/test_canonical.py`` checks the two agree
on arbitrary JSON values.
"""

from __future__ import annotations

import json
import re
from typing import Any

import rfc8785

CanonicalizationError = rfc8785.CanonicalizationError

_ENCODER = json.JSONEncoder(ensure_ascii=False, sort_keys=True, separators=(",", ":"), allow_nan=False)
#: a number token that may not be written the RFC 8785 way: a fraction, an exponent, or 16+ digits
_NOT_PLAIN_NUMBER = re.compile(r"[:,\[]-?(?:\d+[.eE]|\d{16})")
_ASTRAL = re.compile("[\U00010000-\U0010ffff]")


def dumps(value: Any) -> bytes:
    """The RFC 8785 canonical UTF-8 bytes of ``value``; raises :class:`CanonicalizationError` (or
    ``TypeError`` for what is not JSON data) as ``rfc8785.dumps`` does."""
    try:
        text = _ENCODER.encode(value)
    except (TypeError, ValueError, RecursionError):
        return rfc8785.dumps(value)  # NaN, infinities, not JSON data: the reference says what is wrong
    if text[:1] not in ("{", "[") or _NOT_PLAIN_NUMBER.search(text) or _ASTRAL.search(text):
        return rfc8785.dumps(value)
    try:
        return text.encode("utf-8")
    except UnicodeEncodeError:
        return rfc8785.dumps(value)  # a lone surrogate: the reference's error


__all__ = ["CanonicalizationError", "dumps"]
