"""A closed database hands its engine to the next one only when nothing of its run can survive there:
what a run leaves in its connection dies with it, its tables are dropped, and an engine still holding
anything else (a view, a macro, an attached database ...) is shut down instead of reused. (An index
goes with its table.)"""

import threading

import duckdb
import pytest

from servers.postgres import PostgresState, PostgresTools, _engine, query_state

#: Foreign keys name their tables in another case than the tables do (the engine folds names).
ONE = {"tables": [{"name": "parents", "columns": [{"name": "id", "type": "INTEGER", "nullable": False}],
                   "primary_key": ["id"], "rows": [[1], [2]]},
                  {"name": "children", "columns": [{"name": "id", "type": "INTEGER", "nullable": False},
                                                   {"name": "parent", "type": "INTEGER"}],
                   "primary_key": ["id"], "rows": [[10, 1], [11, 2]],
                   "foreign_keys": [{"columns": ["parent"], "references": "Parents", "referenced_columns": ["id"]}]},
                  {"name": "grandchildren", "columns": [{"name": "child", "type": "INTEGER"}], "rows": [[10]],
                   "foreign_keys": [{"columns": ["child"], "references": "CHILDREN", "referenced_columns": ["id"]}]}]}
OTHER = {"tables": [{"name": "notes", "columns": [{"name": "text", "type": "VARCHAR"}], "rows": [["hello"]]}]}


def engine_of(conn):
    return _engine._ENGINES._leased[conn]


@pytest.fixture
def engines(monkeypatch):
    """A pool of this test's own, empty at first (the process's pool is left as it was)."""
    pool = _engine._Engines()
    monkeypatch.setattr(_engine, "_ENGINES", pool)
    yield pool
    for root in pool._idle:
        root.close()


def catalog(conn) -> dict:
    """Everything a run could find of an earlier one in the engine's catalog and its own connection."""
    def names(sql):
        return sorted(r[0] for r in conn.execute(sql).fetchall())
    return {
        "databases": names("select database_name from duckdb_databases()"),
        "tables": names("select table_name from duckdb_tables()"),
        "views": names("select view_name from duckdb_views() where not internal"),
        "macros": names("select function_name from duckdb_functions() where not internal"),
        "sequences": names("select sequence_name from duckdb_sequences()"),
        "types": names("select type_name from duckdb_types() where not internal"),
        "schemas": names("select schema_name from duckdb_schemas() where not internal"),
        "variables": names("select name from duckdb_variables()"),
    }


def test_a_closed_database_hands_its_engine_to_the_next_with_nothing_of_its_run_left(engines):
    with PostgresTools(PostgresState.load(ONE)) as first:
        engine = engine_of(first.conn)
        first.execute("create table extra (id integer primary key); insert into extra values (7)")
        first.execute("insert into grandchildren values (11)")
        first.conn.execute("create temp table scratch as select 42 as answer")
        first.conn.execute("set variable answer = 42")
        first.conn.execute("begin transaction; insert into parents values (3)")  # left open
    assert engines.idle() == 1
    with PostgresTools(PostgresState.load(OTHER)) as second:
        assert engine_of(second.conn) is engine  # reused
        assert catalog(second.conn) == {"databases": ["memory", "system", "temp"], "tables": ["notes"],
                                        "views": [], "macros": [], "sequences": [], "types": [], "schemas": [],
                                        "variables": []}
        assert _engine.dump(second.conn).digest() == PostgresState.load(OTHER).digest()
        # The hardening holds on a reused engine: its settings are locked, files out of reach.
        with pytest.raises(duckdb.Error, match="locked"):
            second.conn.execute("set enable_external_access = true")
        with pytest.raises(duckdb.Error, match="disabled"):
            second.conn.execute("select * from read_csv('/etc/passwd')")


LEFTOVERS = {
    "view": "create view v as select 1 as x",
    "macro": "create macro twice(x) as 2 * x",
    "table macro": "create macro rows_of() as table select 1 as x",
    "sequence": "create sequence s",
    "type": "create type mood as enum ('ok', 'bad')",
    "schema": "create schema hidden",
    "table in a schema": "create schema hidden; create table hidden.t (x integer)",
    "attached database": "attach ':memory:' as stash",
    "table in an attached database": "attach ':memory:' as stash; create table stash.t (x integer)",
}


@pytest.mark.parametrize("sql", LEFTOVERS.values(), ids=LEFTOVERS.keys())
def test_an_engine_left_holding_anything_but_tables_is_shut_down_not_reused(engines, sql):
    conn = _engine.open_database(PostgresState.load(ONE))
    engine = engine_of(conn)
    conn.execute(sql)  # what the tools refuse or roll back, done here behind their back
    _engine.release(conn)
    assert engines.idle() == 0
    with pytest.raises(duckdb.Error, match="closed"):
        engine.execute("select 1")


BEHIND_THE_CHECK = {
    "a table more": "create table extra (x integer)",
    "a table fewer": "drop table grandchildren",
    "attached database": "attach ':memory:' as stash",
}


@pytest.mark.parametrize("sql", BEHIND_THE_CHECK.values(), ids=BEHIND_THE_CHECK.keys())
def test_without_ddl_the_tables_and_databases_are_still_checked(engines, sql):
    """A caller that ran no DDL skips the rest of the inventory and names the tables it loaded; had
    DDL run all the same, another set of tables, or an attached database, still shuts the engine down."""
    state = PostgresState.load(ONE)
    conn = _engine.open_database(state)
    conn.execute(sql)
    _engine.release(conn, ran_ddl=False, tables=state.tables)
    assert engines.idle() == 0


def test_without_ddl_the_loaded_tables_are_dropped_and_the_engine_kept(engines):
    state = PostgresState.load(ONE)
    conn = _engine.open_database(state)
    conn.execute("insert into grandchildren values (11)")
    _engine.release(conn, ran_ddl=False, tables=state.tables)
    assert engines.idle() == 1


def test_the_tools_record_ddl_so_that_a_macro_cannot_slip_past_the_check(engines):
    with PostgresTools(PostgresState.load(ONE)) as tools:
        assert tools._ran_ddl is False
        tools.query("select count(*) from parents")
        tools.execute("update children set parent = 2 where id = 11")
        assert tools._ran_ddl is False
        with pytest.raises(Exception, match="macros are not supported"):
            tools.execute("create macro twice(x) as 2 * x")
        assert tools._ran_ddl is True
    assert engines.idle() == 1  # rolled back: nothing left, the engine is kept


def test_a_verdict_query_borrows_and_returns_an_engine(engines):
    state = PostgresState.load(ONE)
    assert query_state(state, "select count(*) from children join parents on parents.id = children.parent") \
        == (["count_star()"], [(2,)])
    assert engines.idle() == 1
    with pytest.raises(_engine.SQLError):
        query_state(state, "select nope from parents")
    assert engines.idle() == 1


def test_databases_open_at_once_never_share_an_engine_and_the_idle_are_bounded(engines):
    opened = [_engine.open_database(PostgresState.load(ONE)) for _ in range(engines.KEEP + 2)]
    assert len({id(engine_of(conn)) for conn in opened}) == len(opened)
    for conn in opened:
        _engine.release(conn, ran_ddl=False)
    assert engines.idle() == engines.KEEP


def test_threads_opening_and_closing_databases_each_see_only_their_own(engines):
    failures = []

    def worker(k: int) -> None:
        try:
            for i in range(15):
                state = PostgresState.load({"tables": [{"name": f"t{k}", "columns": [{"name": "x", "type": "INTEGER"}],
                                                        "rows": [[k * 100 + i]]}]})
                with PostgresTools(state) as tools:
                    assert catalog(tools.conn)["tables"] == [f"t{k}"]
                    assert tools.query(f"select x from t{k}")["rows"] == [[k * 100 + i]]
        except Exception as exc:  # noqa: BLE001 - reported below
            failures.append(repr(exc))

    threads = [threading.Thread(target=worker, args=(k,)) for k in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(60)
    assert failures == []
    assert 1 <= engines.idle() <= engines.KEEP


def test_a_connection_dropped_without_release_takes_its_engine_with_it(engines):
    import gc
    import weakref

    conn = _engine.connect()
    engine = weakref.ref(engine_of(conn))
    del conn
    gc.collect()
    assert len(engines._leased) == 0 and engines.idle() == 0
    assert engine() is None  # collected, and so closed


def test_a_database_that_cannot_be_loaded_returns_its_engine_empty(engines):
    broken = {"tables": [{"name": "t", "columns": [{"name": "x", "type": "INTEGER", "nullable": False}],
                          "primary_key": ["x"], "rows": [[1], [1]]}]}  # a duplicate key the engine refuses
    with pytest.raises(_engine.SQLError, match="cannot be loaded"):
        _engine.open_database(PostgresState.model_construct(**PostgresState.load(broken).__dict__))
    assert engines.idle() == 1
    conn = _engine.connect()
    try:
        assert catalog(conn)["tables"] == []
    finally:
        _engine.release(conn)


def test_closing_a_database_while_a_statement_runs_on_another_thread_stops_the_statement(engines, monkeypatch):
    """A connection busy with a call refuses to close; the close interrupts the call instead of failing,
    and the engine is emptied as after any run."""
    import contextlib
    import time

    running = threading.Event()
    armed = _engine.deadline

    @contextlib.contextmanager
    def deadline(conn, seconds=None):
        with armed(conn, seconds):
            running.set()  # the statement starts right after this
            yield

    monkeypatch.setattr(_engine, "deadline", deadline)
    tools = PostgresTools(PostgresState.load(ONE))
    outcome = {}

    def slow():
        try:
            tools.query("SELECT count(*) FROM range(100000000000) a, range(1000) b")
        except Exception as exc:  # noqa: BLE001 - reported below
            outcome["error"] = str(exc)

    thread = threading.Thread(target=slow)
    thread.start()
    assert running.wait(30)
    time.sleep(0.3)  # well into the statement (were it not, the call would find its connection closed)
    tools.close()
    thread.join(10)
    assert not thread.is_alive()
    # interrupted by the close, seconds before its deadline: said so, never called a timeout
    assert "closed" in outcome["error"] and "ran longer than" not in outcome["error"], outcome["error"]
    assert engines.idle() == 1
    with PostgresTools(PostgresState.load(OTHER)) as fresh:
        assert catalog(fresh.conn)["tables"] == ["notes"]
