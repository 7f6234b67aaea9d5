"""Sealing: a private month exists at rest only as authenticated ciphertext.

AES-256-GCM with a key derived (HKDF-SHA256) from the operator's secret and the month, and the
month as associated data, so a sealed month cannot be swapped for another month's. A missing or
wrong secret, or one flipped byte, is a ``SealError``; there is no fallback to plaintext. Unsealed
tasks live only in memory.
"""

from __future__ import annotations

import json
import os
import re
import zlib
from typing import Any

from cryptography.exceptions import InvalidTag
from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.ciphers.aead import AESGCM
from cryptography.hazmat.primitives.kdf.hkdf import HKDF

MAGIC = b"MCPBENCH-SEALED-1\n"
SECRET_ENV = "MCPBENCH_SECRET"
MONTH = re.compile(r"^\d{4}-(0[1-9]|1[0-2])$")


class SealError(ValueError):
    """The sealed data cannot be opened (or the secret is missing); nothing was decrypted."""


def operator_secret(secret: str | bytes | None = None) -> bytes:
    """The operator's secret: the argument, else ``MCPBENCH_SECRET``; a clear error when neither is set."""
    if secret is None:
        secret = os.environ.get(SECRET_ENV)
    if not secret:
        raise SealError(f"no operator secret: set {SECRET_ENV} (the private set is never handled in plaintext)")
    raw = secret.encode() if isinstance(secret, str) else secret
    if len(raw) < 16:
        raise SealError("the operator secret is too short: use at least 16 characters")
    return raw


def check_month(month: str) -> str:
    if not MONTH.match(month):
        raise ValueError(f"month must be YYYY-MM, got {month!r}")
    return month


def _key(secret: bytes, purpose: str, context: str) -> bytes:
    return HKDF(algorithm=hashes.SHA256(), length=32, salt=b"mcpbench/" + purpose.encode(),
                info=context.encode()).derive(secret)


def seal(document: Any, *, month: str, secret: str | bytes | None = None, label: str = "month") -> bytes:
    """Encrypt a JSON document for ``month`` (``label`` separates kinds, e.g. a template pool)."""
    key = _key(operator_secret(secret), "seal", f"{label}:{check_month(month) if label == 'month' else month}")
    nonce = os.urandom(12)
    plaintext = zlib.compress(json.dumps(document, separators=(",", ":"), ensure_ascii=False).encode())
    return MAGIC + nonce + AESGCM(key).encrypt(nonce, plaintext, f"{label}:{month}".encode())


def unseal(blob: bytes, *, month: str, secret: str | bytes | None = None, label: str = "month") -> Any:
    """Decrypt what ``seal`` produced, in memory only."""
    if not blob.startswith(MAGIC) or len(blob) < len(MAGIC) + 12 + 16:
        raise SealError("not a sealed MCPBench document")
    key = _key(operator_secret(secret), "seal", f"{label}:{month}")
    nonce, body = blob[len(MAGIC):len(MAGIC) + 12], blob[len(MAGIC) + 12:]
    try:
        plaintext = AESGCM(key).decrypt(nonce, body, f"{label}:{month}".encode())
    except InvalidTag:
        raise SealError(f"cannot open the sealed {label} {month}: wrong secret, or the data was altered") from None
    return json.loads(zlib.decompress(plaintext))


def month_seed(month: str, secret: str | bytes | None = None) -> bytes:
    """The month's sampling seed: HMAC-derived from the secret, so only its operator can reproduce it."""
    return _key(operator_secret(secret), "seed", f"month:{check_month(month)}")


__all__ = ["SECRET_ENV", "SealError", "check_month", "month_seed", "operator_secret", "seal", "unseal"]
