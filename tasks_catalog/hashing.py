"""Attestation hashes: SHA-256 over a task's canonical JSON (RFC 8785, the JSON Canonicalization Scheme).

What is hashed is the task document as the task model reads it (every field, defaults filled in,
nulls of declared properties left out, as ``Task.to_json`` writes it) without ``$schema`` (an editor
hint that depends on where the file lives). So a task hashes the same whether it is hashed as a
``Task``, as the file it was loaded from, or as the file ``Task.to_json`` writes, and a hand-written
file that leaves out a default (e.g. ``"faults": []``) hashes like one that spells it out. The
defaults are exported in ``task.schema.json`` and the rule is spelled out there (``$comment``) and
in ``mcpbench tasks hash --help``, so anyone can recompute a hash with the schema and any RFC 8785
implementation (``tests/catalog/test_hash_rule.py`` does, with nothing of ours). The nonce is part
of the document. A document that is not a valid task is hashed as it is.

A run record's ``final_state_digest`` is keyed the same way: HMAC-SHA256 of the final state's canonical
JSON under the task's nonce (``state_digest``). An unsalted hash of a private month's final state would
let anyone holding a published run record test guesses of the sealed values; keyed by the nonce, which
stays sealed until the month retires, it reveals nothing, yet two runs of the same task (any
submission, any trial) still get equal digests exactly when their final states are equal.
"""

from __future__ import annotations

import hashlib
import hmac
from typing import Any

from pydantic import ValidationError

from servers.kit import canonical
from tasks_catalog.schema import Task


def canonical_json(value: Any) -> bytes:
    """RFC 8785 canonical UTF-8 bytes: sorted keys, no insignificant whitespace, ES6 number form
    (``servers.kit.canonical``: the reference implementation's bytes, faster)."""
    try:
        return canonical.dumps(value)
    except (canonical.CanonicalizationError, TypeError) as exc:
        raise ValueError(f"cannot canonicalise: {exc}") from exc
    except RecursionError:
        raise ValueError("cannot canonicalise: nested too deeply") from None


def task_document(task: Task | dict[str, Any]) -> dict[str, Any]:
    """What is hashed: the task as ``Task.to_json`` writes it (the document itself when it is not a
    valid task), without ``$schema``."""
    if not isinstance(task, Task):
        if not isinstance(task, dict):
            raise ValueError(f"a task document is a JSON object, not {type(task).__name__}")
        try:
            task = Task.model_validate(task)
        except ValidationError:
            doc = dict(task)
            doc.pop("$schema", None)
            return doc
    doc = task.to_json()
    doc.pop("$schema", None)
    return doc


def task_hash(task: Task | dict[str, Any]) -> str:
    """The attestation hash of a task (a ``Task`` or its JSON document)."""
    return hashlib.sha256(canonical_json(task_document(task))).hexdigest()


#: The prefix of a keyed final-state digest (an unkeyed one would be bare hex).
STATE_DIGEST_PREFIX = "hmac-sha256:"


def state_digest(task: Task, state: Any) -> str:
    """The digest a run record keeps of its final ``state`` (a JSON value): HMAC-SHA256 over its RFC 8785
    canonical JSON, keyed by ``task``'s nonce (its ASCII text), so only whoever holds the task can
    recompute it."""
    mac = hmac.new(task.nonce.encode("ascii"), canonical_json(state), hashlib.sha256)
    return STATE_DIGEST_PREFIX + mac.hexdigest()


__all__ = ["STATE_DIGEST_PREFIX", "canonical_json", "state_digest", "task_document", "task_hash"]
