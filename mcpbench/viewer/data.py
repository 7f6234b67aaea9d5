"""What the viewer reads: a store's runs, calls and turns in an in-memory DuckDB connection with the
warehouse's views over them (``warehouse/sql``), read in place and never written.

Every query here is parameterised: a value a person typed (a search, an id from a URL) is only ever a
bound parameter, never part of the SQL text. A private month's run shows only what its records keep
(they keep no text); search never looks into private runs.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass, field
from typing import Any

import duckdb

from runstore.records import REDACTED, Explanation
from runstore.store import LocalStore, Store
from warehouse.reader import query
from warehouse.scorecard import agent_name, submission_labels
from warehouse.sources import attach_sources, name_corrupt_files
from warehouse.views import create_views

#: Calls on one page of a run (a 10,000-call run is 100 pages, each read on its own).
PAGE_CALLS = 100
#: Hits a search shows at most (the count says how many there were).
SEARCH_HITS = 200
#: The longest search text accepted.
SEARCH_MAX_CHARS = 200

_CALL_COLUMNS = ("seq, ts, tool, arguments_json, arguments_bytes, truncated, listed, is_error, error_kind, "
                 "error_message, latency_ms, result_bytes, result_text, result_truncated, result_cap, fault")
_TURN_COLUMNS = ("seq, ts, calls_before, model, status, finish_reason, prompt_tokens, completion_tokens, "
                 "tokens_estimated, latency_ms, tool_calls, text, text_truncated, text_cap")
#: What search looks in: a call's tool, arguments, result and error text; a turn's text.
_CALL_MATCH = ("(strpos(lower(c.tool), ?) > 0 or strpos(lower(coalesce(c.arguments_json, '')), ?) > 0 "
               "or strpos(lower(coalesce(c.result_text, '')), ?) > 0 "
               "or strpos(lower(coalesce(c.error_message, '')), ?) > 0)")


class NoSuchRecord(LookupError):
    """A submission, task or run the store does not hold."""


@dataclass(frozen=True)
class RunPage:
    """One page of a run: its record, the calls on the page, the model turns that fall among them
    (by ``calls_before``), and where the page sits among the run's pages."""

    run: dict[str, Any]
    calls: list[dict[str, Any]]
    turns: list[dict[str, Any]]
    page: int
    pages: int
    total_calls: int
    total_turns: int
    error_seqs: list[int]  # the run's calls answered with an error (all pages), in order
    #: for each failing clause (by id): the run's calls whose arguments hold one of the clause's values
    touching: dict[str, list[dict[str, Any]]] = field(default_factory=dict)

    @property
    def private(self) -> bool:
        return self.run["split_kind"] == "private"

    def explanation(self) -> Explanation | None:
        """The run's explanation; on a private month only its clause ids and frame kinds, whatever the
        record holds. None when the run has none (or it does not read as one)."""
        text = self.run.get("explanation")
        if not text:
            return None
        try:
            parsed = Explanation.model_validate_json(text)
        except ValueError:
            return None
        return parsed.ids_only() if self.private else parsed


def clause_values(args: dict[str, Any] | None) -> list[str]:
    """The text values of a clause's arguments that name something a call would carry (an id, a name,
    a path; at least 3 characters), nested ones included."""
    out: list[str] = []

    def visit(value: Any) -> None:
        if isinstance(value, str) and len(value) >= 3:
            out.append(value)
        elif isinstance(value, dict):
            for v in value.values():
                visit(v)
        elif isinstance(value, list):
            for v in value:
                visit(v)

    visit(args or {})
    return list(dict.fromkeys(out))


def search_terms(text: str) -> str:
    """A search text as it is matched (trimmed, lower case), or ``ValueError`` saying what is wrong."""
    term = text.strip().lower()
    if not term:
        raise ValueError("the search text is empty")
    if len(term) > SEARCH_MAX_CHARS:
        raise ValueError(f"the search text is {len(term)} characters; at most {SEARCH_MAX_CHARS} are searched")
    return term


class Trace:
    """The store's runs, calls and turns with the warehouse's views, in memory, for reading only: a local
    store is read in place (and again when runs land: :meth:`refresh`), any other (S3) copied into memory
    once. One query at a time (a lock), so a threaded server can share it."""

    def __init__(self, store: Store, *, page_calls: int = PAGE_CALLS) -> None:
        self.store = store
        self.page_calls = page_calls
        self._lock = threading.Lock()
        self._version = store.version()
        self.con = self._connect()

    def _connect(self) -> duckdb.DuckDBPyConnection:
        con = duckdb.connect()
        try:
            create_views(con, attach_sources(con, self.store, copy=not isinstance(self.store, LocalStore),
                                             read_only=True))
        except Exception as exc:
            con.close()
            name_corrupt_files(self.store, exc, stopped="Nothing is shown")
            raise
        return con

    def refresh(self) -> bool:
        """Read the store again if runs have landed since it was read (a local store says so cheaply;
        an S3 store is read once, when the viewer starts). Whether it was read again."""
        version = self.store.version()
        if version is None or version == self._version:
            return False
        with self._lock:
            if version != self._version:
                fresh = self._connect()
                self.con.close()
                self.con, self._version = fresh, version
        return True

    def close(self) -> None:
        self.con.close()

    def rows(self, sql: str, params: list | None = None) -> list[dict[str, Any]]:
        with self._lock:
            return query(self.con, sql, params).dicts()

    # -- boards --------------------------------------------------------------------------------------
    def boards(self) -> dict[str, list[dict[str, Any]]]:
        """The contemporary and historical leaderboards (ranked rows first, then the unranked, as the
        views give them) and every submission (its split, counts and rank, if any), newest first."""
        with self._lock:
            labels = submission_labels(self.con)
        out = {}
        for name in ("contemporary", "historical"):
            rows = self.rows(f"select * from leaderboard_{name}")
            for r in rows:
                r["agent"] = agent_name(r["agent"], labels.get(r["submission_id"]))
            out[name] = rows
        ranked = {r["submission_id"]: r["rank"] for name in ("contemporary", "historical") for r in out[name]}
        subs = self.rows(
            "select submission_id, any_value(submitter) as submitter, arg_max(agent, started_at) as agent, "
            "arg_max(split, started_at) as split, arg_max(split_kind, started_at) as split_kind, "
            "count(*) as runs, count(*) filter (where passed) as passed, "
            "count(*) filter (where status = 'infra_error') as infra_errors, min(started_at) as started "
            "from stg_runs group by submission_id order by started desc, submission_id")
        for r in subs:
            r["agent"] = agent_name(r["agent"], labels.get(r["submission_id"]))
            r["rank"] = ranked.get(r["submission_id"])
        out["submissions"] = subs
        return out

    # -- a submission, a task --------------------------------------------------------------------------
    def submission(self, submission_id: str) -> dict[str, Any]:
        """A submission's runs (task order), and its end reasons counted."""
        runs = self.rows("select run_id, task_id, server, trial, split, split_kind, agent, label, submitter, status, "
                         "end_reason, end_reason_detail, tool_calls, errors_observed, faults_injected, duration_s, "
                         "started_at from stg_runs where submission_id = ? order by task_id, trial, run_id",
                         [submission_id])
        if not runs:
            raise NoSuchRecord(f"no submission {submission_id!r} in {self.store.url()}")
        reasons = self.rows("select end_reason, count(*) as runs from stg_runs where submission_id = ? "
                            "group by end_reason order by runs desc, end_reason", [submission_id])
        return {"submission_id": submission_id, "runs": runs, "end_reasons": reasons}

    def task(self, task_id: str) -> dict[str, Any]:
        """A task's runs across submissions, newest first."""
        runs = self.rows("select run_id, submission_id, agent, label, split, split_kind, trial, status, end_reason, "
                         "tool_calls, duration_s, started_at, server, difficulty, category from stg_runs "
                         "where task_id = ? order by started_at desc, run_id", [task_id])
        if not runs:
            raise NoSuchRecord(f"no runs of task {task_id!r} in {self.store.url()}")
        return {"task_id": task_id, "runs": runs}

    # -- a run -------------------------------------------------------------------------------------------
    def run_page(self, run_id: str, page: int = 1) -> RunPage:
        """Page ``page`` (1-based) of run ``run_id``: its calls ``(page-1)*n+1 .. page*n`` by ``seq`` and
        the turns that come among them (a turn after call k is on the page of call k+1; the turns after
        the last call are on the last page). Only this page's rows are read."""
        found = self.rows("select * from stg_runs where run_id = ?", [run_id])
        if not found:
            raise NoSuchRecord(f"no run {run_id!r} in {self.store.url()}")
        run = found[0]
        if not run["goals_published"] or run["split_kind"] == "private":
            run["goal"] = REDACTED
        ((total, errors),) = [tuple(r.values()) for r in self.rows(
            "select count(*), list(seq order by seq) filter (where is_error) from stg_calls where run_id = ?",
            [run_id])]
        (total_turns,) = self.rows("select count(*) as n from stg_turns where run_id = ?", [run_id])[0].values()
        pages = max(1, -(-total // self.page_calls))
        if not 1 <= page <= pages:
            raise NoSuchRecord(f"run {run_id!r} has {pages} page(s) of calls; there is no page {page}")
        low, high = (page - 1) * self.page_calls, page * self.page_calls
        calls = self.rows(f"select {_CALL_COLUMNS} from stg_calls where run_id = ? and seq > ? and seq <= ? "
                          "order by seq", [run_id, low, high])
        turns = self.rows(f"select {_TURN_COLUMNS} from stg_turns where run_id = ? and calls_before >= ? "
                          "and (calls_before < ? or ?) order by seq", [run_id, low, high, page == pages])
        found_page = RunPage(run, calls, turns, page, pages, total, total_turns, list(errors or []))
        explanation = found_page.explanation()
        if explanation is not None and not found_page.private:
            for clause in explanation.clauses:
                found_page.touching[clause.clause] = self.calls_touching(run_id, clause_values(clause.args))
        return found_page

    def calls_touching(self, run_id: str, values: list[str], limit: int = 20) -> list[dict[str, Any]]:
        """The calls of run ``run_id`` whose arguments hold any of ``values`` (a failing clause's channel,
        repository, path...): where to look for the call that should have made it hold. None on a
        private month."""
        if not values:
            return []
        return self.rows(
            "select c.seq, c.tool, c.is_error from stg_calls c join stg_runs r on r.run_id = c.run_id "
            "where c.run_id = ? and r.split_kind <> 'private' and exists (select 1 from unnest(?::varchar[]) as v(x) "
            "where strpos(c.arguments_json, v.x) > 0) order by c.seq limit ?", [run_id, values, limit])

    def page_of(self, seq: int) -> int:
        """The page call ``seq`` is on."""
        return max(1, -(-seq // self.page_calls))

    # -- search ------------------------------------------------------------------------------------------
    def search_run(self, run_id: str, text: str) -> list[dict[str, Any]]:
        """The calls and turns of run ``run_id`` whose text holds ``text`` (case-insensitive), in order;
        none on a private month (its records keep no text)."""
        term = search_terms(text)
        calls = self.rows(
            f"select 'call' as kind, c.seq, c.tool, c.arguments_json, c.result_text, c.error_message, null as text "
            f"from stg_calls c join stg_runs r on r.run_id = c.run_id where c.run_id = ? and r.split_kind <> 'private' "
            f"and {_CALL_MATCH} order by c.seq limit ?", [run_id, term, term, term, term, SEARCH_HITS])
        turns = self.rows(
            "select 'turn' as kind, t.seq, t.calls_before, t.text from stg_turns t join stg_runs r on r.run_id = t.run_id "
            "where t.run_id = ? and r.split_kind <> 'private' and strpos(lower(coalesce(t.text, '')), ?) > 0 "
            "order by t.seq limit ?", [run_id, term, SEARCH_HITS])
        return calls + turns

    def search_all(self, text: str) -> tuple[list[dict[str, Any]], int]:
        """The calls of every run outside private months whose tool, arguments, result or error text
        holds ``text`` (case-insensitive), newest runs first, at most SEARCH_HITS; and how many there were."""
        term = search_terms(text)
        where = f"from stg_calls c join stg_runs r on r.run_id = c.run_id where r.split_kind <> 'private' and {_CALL_MATCH}"
        (count,) = self.rows(f"select count(*) as n {where}", [term] * 4)[0].values()
        hits = self.rows(f"select c.run_id, c.seq, c.tool, c.arguments_json, c.result_text, c.error_message, "
                         f"r.submission_id, r.task_id, r.end_reason {where} "
                         "order by r.started_at desc, c.run_id, c.seq limit ?", [term] * 4 + [SEARCH_HITS])
        return hits, count

    def run_ids(self) -> list[str]:
        return [r["run_id"] for r in self.rows("select run_id from stg_runs order by run_id")]

    def task_ids(self) -> list[str]:
        return [r["task_id"] for r in self.rows("select distinct task_id from stg_runs order by task_id")]


__all__ = ["PAGE_CALLS", "SEARCH_HITS", "SEARCH_MAX_CHARS", "NoSuchRecord", "RunPage", "Trace", "search_terms"]
