"""Attestation hashes: SHA-256 over a task's canonical JSON (RFC 8785, the JSON Canonicalization Scheme).

What is hashed is the task document without ``$schema`` (an editor hint that depends on where the
file lives). Anyone can recompute a hash with any RFC 8785 implementation: drop ``$schema``,
canonicalise, SHA-256, hex.
"""

from __future__ import annotations

import hashlib
from typing import Any

import rfc8785

from tasks_catalog.schema import Task


def canonical_json(value: Any) -> bytes:
    """RFC 8785 canonical UTF-8 bytes: sorted keys, no insignificant whitespace, ES6 number form."""
    try:
        return rfc8785.dumps(value)
    except (rfc8785.CanonicalizationError, TypeError) as exc:
        raise ValueError(f"cannot canonicalise: {exc}") from exc


def task_document(task: Task | dict[str, Any]) -> dict[str, Any]:
    doc = task.to_json() if isinstance(task, Task) else dict(task)
    doc.pop("$schema", None)
    return doc


def task_hash(task: Task | dict[str, Any]) -> str:
    """The attestation hash of a task (a ``Task`` or its JSON document)."""
    return hashlib.sha256(canonical_json(task_document(task))).hexdigest()
