"""Private months in the store: sealed at rest, attested at the start, published when retired.

Store layout (keys under the store root)::

    private/months/<YYYY-MM>.sealed                     the month, sealed (tasks_catalog.sealed)
    private/pool.sealed                                 an operator's sealed template pool (optional;
                                                        ``mcpbench author seal-pool`` writes it)
    public/attestations/<YYYY-MM>.json                  (task_id, sha256) list, published at the start
    public/historical/Historical-<YYYY-MM>/tasks.json   the full plaintext, published at retirement
    public/historical/Historical-<YYYY-MM>/attestation.json   (task_id, sha256, retired_on)

Only ``public/`` is ever plaintext, and only for attestations and retired months.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from datetime import UTC, date, datetime
from typing import TYPE_CHECKING, Any, Protocol

from runstore.store import PUBLISHED_MAX_BYTES, StoreError
from servers.kit.safejson import NestingError, loads
from tasks_catalog.hashing import task_hash
from tasks_catalog.rotation import Month, RotationError, build_month, check_pool
from tasks_catalog.schema import Task
from tasks_catalog.sealed import SealError, check_month, month_seed, operator_secret, seal, unseal
from tasks_catalog.templates import Template, TemplateError, load_pool

if TYPE_CHECKING:
    from tasks_catalog.gate import Gate


class ArtefactStore(Protocol):
    def put_bytes(self, key: str, data: bytes) -> None: ...
    def get_bytes(self, key: str, *, limit: int | None = None) -> bytes: ...
    def exists(self, key: str) -> bool: ...


class MonthError(ValueError):
    pass


#: Where an operator's sealed template pool lives in the store.
POOL_KEY = "private/pool.sealed"


def sealed_key(month: str) -> str:
    return f"private/months/{check_month(month)}.sealed"


def attestation_key(month: str) -> str:
    return f"public/attestations/{check_month(month)}.json"


def historical_tag(month: str) -> str:
    return f"Historical-{check_month(month)}"


def historical_keys(tag: str) -> tuple[str, str]:
    if not tag.startswith("Historical-"):
        raise MonthError(f"a historical tag looks like Historical-YYYY-MM, got {tag!r}")
    check_month(tag.removeprefix("Historical-"))
    return f"public/historical/{tag}/tasks.json", f"public/historical/{tag}/attestation.json"


def published_json(store: ArtefactStore, key: str) -> Any:
    """A published JSON artefact (anyone may hand one to ``mcpbench attest verify``), read as untrusted
    input: refused by size (``runstore.store.PUBLISHED_MAX_BYTES``) before it is read whole and by
    nesting before it is parsed; ``MonthError`` naming the key otherwise."""
    try:
        return loads(store.get_bytes(key, limit=PUBLISHED_MAX_BYTES).decode("utf-8"))
    except StoreError as exc:
        raise MonthError(str(exc)) from None
    except NestingError as exc:
        raise MonthError(f"{key}: {exc.path}: {exc}") from None
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise MonthError(f"{key}: not valid JSON: {exc}") from None


def previous_month(month: str) -> str:
    y, m = map(int, check_month(month).split("-"))
    return f"{y - 1}-12" if m == 1 else f"{y}-{m - 1:02d}"


def _json(data: Any) -> bytes:
    return (json.dumps(data, indent=1, ensure_ascii=False) + "\n").encode()


def load_month(store: ArtefactStore, month: str, secret: str | bytes | None = None) -> Month:
    """The sealed month, decrypted in memory."""
    key = sealed_key(month)
    if not store.exists(key):
        raise MonthError(f"month {month} has not been built (no {key} in the store)")
    return Month.from_json(unseal(store.get_bytes(key), month=month, secret=secret))


def load_month_tasks(store: ArtefactStore, month: str, secret: str | bytes | None = None,
                     task_ids: list[str] | None = None) -> list[Task]:
    tasks = load_month(store, month, secret).tasks
    if task_ids is not None:
        wanted = set(task_ids)
        unknown = wanted - {t.id for t in tasks}
        if unknown:
            raise MonthError(f"month {month} has no task {sorted(unknown)[0]!r}")
        tasks = [t for t in tasks if t.id in wanted]
    return tasks


def load_historical_tasks(store: ArtefactStore, tag: str, task_ids: list[str] | None = None) -> list[Task]:
    """The tasks of a retired month, from its published plaintext, after checking that plaintext
    against the hashes committed at the month's start (``verify_historical``): a task that does not
    match is never run."""
    from tasks_catalog.loader import TaskLoadError, validate_task

    report = verify_historical(store, tag)
    if not report.ok:
        raise MonthError(f"{tag}: the published plaintext does not match its attestation, so it is not run: "
                         + "; ".join(report.problems[:5]) if report.problems else f"{tag}: nothing published")
    tasks, errors = [], []
    for i, doc in enumerate(published_json(store, historical_keys(tag)[0])):
        task, problems = validate_task(doc, f"{tag}/tasks.json[{i}]")
        errors += problems
        if task is not None:
            tasks.append(task)
    if errors:
        raise TaskLoadError(errors)
    if task_ids is not None:
        unknown = set(task_ids) - {t.id for t in tasks}
        if unknown:
            raise MonthError(f"{tag} has no task {sorted(unknown)[0]!r}")
        tasks = [t for t in tasks if t.id in set(task_ids)]
    return tasks


def load_operator_pool(store: ArtefactStore | None = None, secret: str | bytes | None = None,
                       pool_dir: str | None = None) -> list[Template]:
    """The template pool: ``pool_dir`` if given, else the operator's sealed pool in the store if there is
    one (unsealed in memory; a wrong secret is a ``SealError``, never a fallback), else the public
    demonstration pool shipped in the repository."""
    from pathlib import Path

    if pool_dir is not None:
        return load_pool(Path(pool_dir))
    if store is not None and store.exists(POOL_KEY):
        docs = unseal(store.get_bytes(POOL_KEY), month="pool", secret=secret, label="pool")
        return sorted((Template.model_validate(d) for d in docs), key=lambda t: t.id)
    return load_pool()


def seal_pool(store: ArtefactStore, templates: list[Template], secret: str | bytes | None = None, *,
              replace: bool = False) -> dict[str, int]:
    """Seal ``templates`` into the store as the operator's pool (``POOL_KEY``), which every later rotation
    renders from. The pool must be able to fill a month (``rotation.check_pool``); a pool already sealed
    there is replaced only with ``replace``. Returns the templates per server."""
    secret = operator_secret(secret)
    try:
        counts = check_pool(templates)
    except RotationError as exc:
        raise MonthError(f"the pool cannot fill a month: {exc}") from None
    if store.exists(POOL_KEY) and not replace:
        raise MonthError(f"the store already holds a sealed pool ({POOL_KEY}); replacing it changes every later "
                         "month, so ask for it explicitly (--replace)")
    docs = [t.model_dump(mode="json", by_alias=True, exclude_none=True) for t in templates]
    store.put_bytes(POOL_KEY, seal(docs, month="pool", secret=secret, label="pool"))
    return counts


@dataclass
class RotationReport:
    """What a rotation did. :meth:`public` (ids and counts only) is all the CLI prints and the flow
    returns: ``reasons`` can quote the month's sampled values and stays in the operator's process."""

    month: str
    tasks: int
    by_server: dict[str, int]
    carried: int
    replaced: int
    leaked_replaced: int
    retired: str | None
    gate_failures: list[str]  # ids of the tasks that failed the gate (nothing was sealed)
    verifiers: list[str] = field(default_factory=list)  # who judged every verdict: python, typescript
    gate_cached: int = 0  # tasks the gate had accepted before (same task, same code): not judged again
    reasons: dict[str, list[str]] = field(default_factory=dict, repr=False)  # task id -> why; never printed

    def public(self) -> dict[str, Any]:
        """Ids and counts: the same report for ``mcpbench rotate`` and the ``rotate-month`` flow."""
        return {k: v for k, v in self.__dict__.items() if k != "reasons"}

    def to_json(self) -> dict[str, Any]:
        return self.public()


def rotate(store: ArtefactStore, month: str, *, secret: str | bytes | None = None,  # noqa: PLR0913 - past the second, keyword-only options
           pool: list[Template] | None = None, leaked_task_ids: set[str] | frozenset[str] = frozenset(),
           retire_previous: bool = True, gate: Gate | bool = True, today: date | None = None,
           gate_processes: int = 1, progress: Any = None) -> RotationReport:
    """Build ``month``: render from the pool (rotating from the month before, if it exists), run the
    acceptance gate over every task (``gate``: True for :func:`tasks_catalog.gate.sealed_month_gate`, both
    verifiers always, the TypeScript one built where it is not; a gate given must consult both; False
    gates nothing, for tests), seal, publish the attestation list; then
    retire the month before (publish its plaintext and hashes under ``Historical-YYYY-MM``). Nothing is
    written unless every task passes the gate. ``gate_processes``: how many processes gate the month
    (tasks_catalog/gate_pool.py), this one included. ``progress`` (an ``mcpbench.progress.ProgressLines``,
    or anything with its ``say(text)``, ``expect(total)`` and ``advance(outcome, n)``) hears of each
    stage and of every task gated: ids and counts only."""
    from dataclasses import replace

    from tasks_catalog import gate_pool
    from tasks_catalog.gate import GateUnavailable, sealed_month_gate

    secret = operator_secret(secret)
    judge = sealed_month_gate() if gate is True else (gate or None)
    if judge is not None and "typescript" not in judge.verifiers:
        raise GateUnavailable(f"month {month} would be gated by {' + '.join(judge.verifiers)} alone: a private month "
                              f"is gated by both verifiers ({judge.describe()})")
    if progress is not None and judge is not None:
        judge = replace(judge, progress=lambda n: progress.advance("gated", n))
    pool = pool if pool is not None else load_operator_pool(store, secret)
    prev_name = previous_month(month)
    previous = load_month(store, prev_name, secret) if store.exists(sealed_key(prev_name)) else None
    if store.exists(sealed_key(month)):
        raise MonthError(f"month {month} is already built; a month is built once and never rewritten")
    if progress is not None:
        progress.say(f"rendering {month} from {len(pool)} templates"
                     + (f", rotating from {prev_name}" if previous is not None else ""))
    try:
        built = build_month(pool, month, month_seed(month, secret), previous, leaked_task_ids)
    except TemplateError as exc:
        raise MonthError(f"cannot render month {month}: {exc}") from None
    verifiers = judge.verifiers if judge is not None else []
    cached = 0
    if judge is not None:
        if progress is not None:
            progress.expect(len(built.tasks))
            how = (f"{len(built.carried)} carried over, {len(built.replaced)} replaced" if previous is not None
                   else "the first month: every task new")
            progress.say(f"rendered {len(built.tasks)} tasks ({how}); gating them with {' + '.join(verifiers)} on "
                         f"{gate_processes} processes")
        results = gate_pool.check(judge, built.tasks, gate_processes)
        reasons = {r.task_id: r.reasons for r in results if not r.ok}
        cached = sum(r.cached for r in results)
        if reasons:
            return _report(built, None, reasons, verifiers, cached)
    if progress is not None:
        progress.say(f"sealing {month} and publishing its attestation list")
    store.put_bytes(sealed_key(month), seal(built.to_json(), month=month, secret=secret))
    store.put_bytes(attestation_key(month), _json({
        "month": month, "published_at": datetime.now(UTC).isoformat(timespec="seconds"),
        "algorithm": "sha256 over RFC 8785 canonical JSON of the task without $schema (its nonce included)",
        "tasks": built.attestation(),
    }))
    retired = None
    if retire_previous and previous is not None:
        if progress is not None:
            progress.say(f"retiring {prev_name}: publishing its plaintext")
        retired = retire(store, previous, today=today)
    return _report(built, retired, {}, verifiers, cached)


def _report(built: Month, retired: str | None, reasons: dict[str, list[str]], verifiers: list[str],
            cached: int) -> RotationReport:
    by_server: dict[str, int] = {}
    for t in built.tasks:
        by_server[t.server_label] = by_server.get(t.server_label, 0) + 1
    return RotationReport(month=built.month, tasks=len(built.tasks), by_server=by_server,
                          carried=len(built.carried), replaced=len(built.replaced),
                          leaked_replaced=len(built.leaked_replaced), retired=retired,
                          gate_failures=sorted(reasons), verifiers=verifiers, gate_cached=cached, reasons=reasons)


def retire(store: ArtefactStore, month: Month, *, today: date | None = None) -> str:
    """Publish a month's full plaintext and ``(task_id, sha256, retired_on)`` under its historical tag."""
    tag = historical_tag(month.month)
    tasks_key, attest_key = historical_keys(tag)
    retired_on = (today or datetime.now(UTC).date()).isoformat()
    store.put_bytes(tasks_key, _json([t.to_json() for t in month.tasks]))
    store.put_bytes(attest_key, _json({"tag": tag, "month": month.month, "tasks": [
        {"task_id": t.id, "sha256": task_hash(t), "retired_on": retired_on} for t in month.tasks]}))
    return tag


@dataclass
class VerifyReport:
    tag: str
    checked: int
    problems: list[str]

    @property
    def ok(self) -> bool:
        return not self.problems and self.checked > 0


def verify_historical(store: ArtefactStore, tag: str) -> VerifyReport:
    """Recompute every hash of a retired month from its published plaintext and compare it with the
    list committed at the month's start. A changed byte, a missing or an extra task is a problem."""
    tasks_key, _ = historical_keys(tag)
    month = tag.removeprefix("Historical-")
    for key in (tasks_key, attestation_key(month)):
        if not store.exists(key):
            raise MonthError(f"{tag}: nothing published at {key}")
    try:
        committed = {e["task_id"]: e["sha256"] for e in published_json(store, attestation_key(month))["tasks"]}
    except (KeyError, TypeError) as exc:
        raise MonthError(f"{attestation_key(month)} is not an attestation list: {exc!r}") from None
    published = published_json(store, tasks_key)
    if not isinstance(published, list):
        raise MonthError(f"{tasks_key} is not a list of tasks")
    problems = []
    seen = set()
    for i, doc in enumerate(published):
        tid = doc.get("id") if isinstance(doc, dict) else None
        if tid is None:
            problems.append(f"tasks[{i}] has no id")
            continue
        seen.add(tid)
        if tid not in committed:
            problems.append(f"{tid}: published but not in the list committed at the start of {month}")
        elif task_hash(doc) != committed[tid]:
            problems.append(f"{tid}: hash {task_hash(doc)[:16]}… does not match the committed {committed[tid][:16]}…")
    for tid in sorted(set(committed) - seen):
        problems.append(f"{tid}: committed at the start of {month} but missing from the published plaintext")
    return VerifyReport(tag, len(published), problems)


__all__ = ["POOL_KEY", "MonthError", "RotationReport", "SealError", "VerifyReport", "attestation_key",
           "historical_keys", "historical_tag", "load_historical_tasks", "load_month", "load_month_tasks",
           "load_operator_pool", "previous_month", "published_json", "retire", "rotate", "seal_pool", "sealed_key",
           "verify_historical"]
