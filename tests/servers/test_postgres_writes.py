"""A write reads back only the rows it changed; the state it leaves must be exactly what a full read of the
database gives, for any DML an agent may send (RETURNING, MERGE, INSERT OR REPLACE, quoted, qualified and
re-cased names, several statements at once, statements the engine or the state refuses)."""

import threading
import time

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from servers.kit import ToolError
from servers.postgres import PostgresState, PostgresTools, _engine

STATE = {
    "tables": [
        {
            "name": "Customers",
            "columns": [
                {"name": "id", "type": "INTEGER", "nullable": False},
                {"name": "name", "type": "VARCHAR"},
                {"name": "score", "type": "DOUBLE"},
                {"name": "big", "type": "BIGINT"},
            ],
            "primary_key": ["id"],
            "rows": [[i, f"customer {i}", i / 4, i * 1000] for i in range(1, 31)],
        },
        {
            "name": "orders",
            "columns": [
                {"name": "id", "type": "INTEGER", "nullable": False},
                {"name": "customer_id", "type": "INTEGER"},
                {"name": "status", "type": "VARCHAR", "nullable": False, "default": "'new'"},
                {"name": "amount", "type": "DECIMAL(10,2)"},
            ],
            "primary_key": ["id"],
            "foreign_keys": [{"columns": ["customer_id"], "references": "Customers", "referenced_columns": ["id"]}],
            "rows": [[100 + i, 1 + i % 30, "open" if i % 3 else "paid", i * 2.5] for i in range(60)],
        },
        {  # no primary key, a quote in its name, and a name inside another table's name ("orders")
            "name": 'order"s',
            "columns": [{"name": "id", "type": "INTEGER"}, {"name": "note", "type": "VARCHAR"}],
            "rows": [[i, f"note {i}"] for i in range(10)],
        },
    ]
}

#: Ways an agent may name each table in SQL.
NAMES = {
    "Customers": ["customers", "CUSTOMERS", '"Customers"', "memory.main.customers", "main.Customers"],
    "orders": ["orders", "Orders", '"orders"', "main.ORDERS"],
    'order"s': ['"order""s"', '"ORDER""S"', 'main."order""s"'],
}


@pytest.fixture
def tools():
    """A backend on ``STATE``, closed after the test."""
    with PostgresTools(PostgresState.load(STATE)) as opened:
        yield opened


def _name(table: str):
    return st.sampled_from(NAMES[table])


ids = st.integers(min_value=-2, max_value=40)
order_ids = st.integers(min_value=95, max_value=170)
statements = st.one_of(
    st.builds("INSERT INTO {} VALUES ({}, 'new {}', {}, {})".format, _name("Customers"), ids, ids, ids, ids),
    st.builds("INSERT INTO {} (id, customer_id, amount) VALUES ({}, {}, {}) RETURNING *".format,
              _name("orders"), order_ids, ids, ids),
    st.builds("INSERT OR REPLACE INTO {} VALUES ({}, 'replaced', 0.5, 7)".format, _name("Customers"), ids),
    st.builds("UPDATE {} SET status = 'status {}' WHERE id % 7 = {}".format, _name("orders"), ids, st.integers(0, 6)),
    st.builds("UPDATE {} SET score = score + 1 WHERE id = {}".format, _name("Customers"), ids),
    st.builds("UPDATE {} SET customer_id = {} WHERE id = {}".format, _name("orders"), ids, order_ids),
    st.builds("DELETE FROM {} WHERE id = {}".format, _name("orders"), order_ids),
    st.builds("DELETE FROM {} WHERE id = {} RETURNING id".format, _name("Customers"), ids),
    st.builds("DELETE FROM {} WHERE id < {}".format, _name('order"s'), st.integers(0, 10)),
    st.builds("INSERT INTO {} SELECT id + 100, name FROM {} WHERE id < {}".format,
              _name('order"s'), _name("Customers"), st.integers(0, 5)),
    st.builds("MERGE INTO {0} USING (SELECT {1} AS id) s ON {0}.id = s.id WHEN MATCHED THEN UPDATE SET "
              "status = 'merged' WHEN NOT MATCHED THEN INSERT VALUES (s.id, 1, 'merged', 1)".format,
              st.just("orders"), order_ids),
    # refused by the state (beyond 2**53, not finite) or by the engine (keys): rolled back as a whole
    st.builds("UPDATE {} SET big = 9007199254740993 WHERE id = {}".format, _name("Customers"), ids),
    st.builds("UPDATE {} SET score = 'nan'::DOUBLE WHERE id = {}".format, _name("Customers"), ids),
    st.builds("INSERT INTO {} VALUES (1, 'dup', 0, 0)".format, _name("Customers")),
    st.just("SELECT count(*) FROM orders"),
)


#: Statements whose WITH clause writes: the engine runs them, whatever the statement's own kind.
writing_with = st.one_of(
    st.builds("WITH gone AS (DELETE FROM {} WHERE id = {} RETURNING *) SELECT count(*) FROM gone".format,
              _name("orders"), order_ids),
    st.builds("WITH moved AS (UPDATE {} SET note = 'moved' WHERE id < {} RETURNING *) "
              "SELECT count(*) FROM moved".format, _name('order"s'), st.integers(0, 10)),
    st.builds("WITH added AS (INSERT INTO {} VALUES ({}, 'via with') RETURNING *) "
              "UPDATE orders SET status = 'with' WHERE id = {}".format, _name('order"s'), ids, order_ids),
    st.builds("WITH gone AS (DELETE FROM {} WHERE id = {} RETURNING *) "
              "DELETE FROM orders WHERE id = {}".format, _name('order"s'), st.integers(0, 10), order_ids),
)



def _batches(statement):
    """Batches of one to three statements, each with whether the state is read after it."""
    return st.lists(st.tuples(st.lists(statement, min_size=1, max_size=3).map("; ".join), st.booleans()),
                    min_size=1, max_size=8)


@settings(max_examples=60)
@given(_batches(st.one_of(statements, writing_with)))
def test_after_any_dml_the_state_is_what_a_full_read_gives(batches):
    _execute_and_compare_with_a_full_read(batches)


def _full_read(tools) -> str:
    """The digest of every table as the database holds it, read whole (the catalog is not inventoried:
    what is compared is the tables)."""
    return _engine.dump(tools.conn, check_catalog=False).digest()


def _execute_and_compare_with_a_full_read(batches: list[tuple[str, bool]]) -> None:
    """Run each batch, and read the state after those marked so (some writes are read back only when
    the state is next read, once for all of them): whenever it is read, and at the end, the state is
    what a full read gives, and a table that no batch since the last read named (under any of its
    names) is the very object it was then. Batches may fail: each is then rolled back as a whole."""
    with PostgresTools(PostgresState.load(STATE)) as tools:
        last, since = tools.state, []
        for sql, read in batches:
            try:
                tools.execute(sql)
            except ToolError as exc:
                assert "rolled back" in str(exc) or "SQL error" in str(exc)
            since.append(sql.lower())
            if read:
                state = tools.state
                assert state.digest() == _full_read(tools), since
                for old in last.tables:
                    if all(n.lower() not in text for text in since for n in NAMES.get(old.name, [old.name])):
                        assert state.table(old.name) is old, (old.name, since)
                last, since = state, []
        assert tools.snapshot().digest() == _full_read(tools)


#: DDL mixed in: a new table, filled, renamed and dropped; a column added; a table dropped and made again
#: with the same columns (its rows start again from rowid 0); statements the engine refuses.
ddl = st.one_of(
    st.sampled_from(["CREATE TABLE extra (id INTEGER PRIMARY KEY, v VARCHAR)", "DROP TABLE extra",
                     "ALTER TABLE extra RENAME TO Extra2", "DROP TABLE Extra2",
                     'DROP TABLE "order""s"', 'CREATE TABLE "order""s" (id INTEGER, note VARCHAR)',
                     "ALTER TABLE orders ALTER COLUMN status SET DEFAULT 'fresh'"]),
    st.builds("INSERT INTO extra VALUES ({}, 'x')".format, ids),
    st.builds("ALTER TABLE {} ADD COLUMN c{} VARCHAR DEFAULT 'd'".format, _name('order"s'), st.integers(0, 2)),
    st.builds('INSERT INTO "order""s" (id, note) VALUES ({}, {})'.format, ids, st.sampled_from(["'n'", "NULL"])),
)


@settings(max_examples=30)
@given(_batches(st.one_of(statements, writing_with, ddl)))
def test_after_any_ddl_the_state_is_what_a_full_read_gives_and_untouched_tables_are_kept(batches):
    """After DDL only tables whose columns or keys changed are read whole; the others are refreshed."""
    _execute_and_compare_with_a_full_read(batches)


def test_after_an_insert_the_next_write_reads_back_only_what_it_changes(tools):
    """Rows a transaction inserts are numbered apart until it commits: the index kept for the next write
    is not the one read inside it (the inserted row would be read back again on every later write)."""
    tools.execute("INSERT INTO orders (id, customer_id, amount) VALUES (500, 1, 1)")
    old = tools.state.table("orders")
    tools.execute("UPDATE orders SET status = 'void' WHERE id = 101")
    new = tools.state.table("orders")
    assert new.rows[1][2] == "void" and new.rows[-1][0] == 500
    assert all(a is b for i, (a, b) in enumerate(zip(old.rows, new.rows)) if i != 1)
    tools.execute("CREATE TABLE extra (id INTEGER)")  # DDL elsewhere keeps the table as it is
    assert tools.state.table("orders") is new


def test_a_value_the_state_cannot_hold_names_the_table_and_row_and_nothing_changes(tools):
    before = tools.state
    with pytest.raises(ToolError) as caught:
        tools.execute("UPDATE customers SET big = 9007199254740993 WHERE id = 4")
    message = str(caught.value)
    assert "cannot be stored: tables[0]: rows[3] of 'Customers', column 'big': integer beyond" in message
    assert "rolled back" in message and tools.state is before
    assert tools.conn.execute("select big from customers where id = 4").fetchone() == (4000,)


def test_one_update_reads_back_one_row_and_keeps_the_other_rows_as_they_were(tools):
    old = tools.state.table("orders")
    tools.execute("UPDATE orders SET status = 'void' WHERE id = 105")
    new = tools.state.table("orders")
    assert new.rows[5] == [105, 6, "void", 12.5] and old.rows[5][2] == "open"
    assert all(a is b for i, (a, b) in enumerate(zip(old.rows, new.rows)) if i != 5)


def test_a_write_that_changes_nothing_keeps_the_table(tools):
    old = tools.state.table("orders")
    report = tools.execute("UPDATE orders SET status = status WHERE id = 105; DELETE FROM orders WHERE id = -1")
    assert [r["rows_affected"] for r in report["results"]] == [1, 0]
    assert tools.state.table("orders") is old


def test_a_select_whose_with_clause_deletes_is_read_back(tools):
    """``WITH ... AS (DELETE ...) SELECT`` is a SELECT that deletes: the state must see it (it did not:
    only DML statements counted as writing, so the judged state kept a row the database had lost)."""
    report = tools.execute("WITH gone AS (DELETE FROM orders WHERE id = 105 RETURNING *) SELECT count(*) AS n FROM gone")
    assert report["results"][0]["rows"] == [[1]]
    assert [r[0] for r in tools.state.table("orders").rows].count(105) == 0
    assert tools.state.digest() == _engine.dump(tools.conn).digest()


def test_unread_writes_show_in_every_read_of_the_state_and_keep_the_rows_they_did_not_touch(tools):
    old = tools.state.table("orders")
    tools.execute("UPDATE orders SET status = 'void' WHERE id = 105")
    tools.execute("DELETE FROM orders WHERE id = 159")
    assert {"table": "orders", "columns": 4, "rows": 59} in tools.list_tables()
    new = tools.state.table("orders")
    assert new.rows[5] == [105, 6, "void", 12.5] and len(new.rows) == 59
    assert all(a is b for a, b in zip(old.rows[:59], new.rows) if a[0] != 105)
    tools.execute("UPDATE orders SET status = 'open' WHERE id = 105")
    assert tools.describe_table("orders")["rows"] == 59 and tools.snapshot().table("orders").rows[5][2] == "open"


def test_a_write_that_may_add_rows_is_refused_by_the_call_that_would_overflow_the_state(tools):
    """An UPDATE whose WITH clause inserts adds rows: it is read back before it commits (not later,
    when nothing could be rolled back any more), so a database past the state's limit is refused."""
    tools.execute("UPDATE orders SET status = 'void' WHERE id = 105")  # unread until the next such call
    with pytest.raises(ToolError, match="at most 50000 rows in all.*rolled back"):
        tools.execute("WITH added AS (INSERT INTO \"order\"\"s\" SELECT i, 'n' FROM range(60000) t(i) RETURNING *) "
                      "UPDATE orders SET status = 'x' WHERE id = 101")
    orders = tools.state.table("orders")
    assert orders.rows[5][2] == "void" and orders.rows[1][2] == "open"
    assert len(tools.state.table('order"s').rows) == 10
    assert tools.state.digest() == _engine.dump(tools.conn).digest()


def test_the_deadline_interrupts_only_the_connection_whose_time_is_up():
    slow, quick = _engine.connect(), _engine.connect()
    outcome = {}

    def run_slow():
        try:
            with _engine.deadline(slow, 0.3):
                slow.execute("SELECT count(*) FROM range(100000000000) a, range(1000) b").fetchall()
        except _engine.SQLError as exc:
            outcome["slow"] = str(exc)

    thread = threading.Thread(target=run_slow)
    thread.start()
    with _engine.deadline(quick, 30):
        started = time.monotonic()
        while time.monotonic() - started < 0.6:  # keeps running past the other's deadline, untouched
            quick.execute("SELECT count(*) FROM range(100000)").fetchall()
    thread.join(10)
    assert outcome["slow"] == "cancelled: the statement ran longer than 0.3 s of CPU time"
    with _engine.deadline(quick, 0.1):
        pass
    time.sleep(0.2)  # a deadline disarmed in time never fires later
    assert quick.execute("SELECT 1").fetchall() == [(1,)]
    _engine.release(slow)
    _engine.release(quick)


def test_a_deadline_armed_after_a_later_one_still_fires_at_its_own_time():
    """The watch sleeps until the soonest deadline it knows; one armed later but due sooner wakes it
    (without that wake-up, the statement below would run on until the other's 60 s were up)."""
    waiting, busy = _engine.connect(), _engine.connect()
    try:
        with _engine.deadline(waiting, 60):
            started = time.monotonic()
            with pytest.raises(_engine.SQLError, match="ran longer than 0.2 s"), _engine.deadline(busy, 0.2):
                busy.execute("SELECT count(*) FROM range(100000000000) a, range(1000) b").fetchall()
            assert time.monotonic() - started < 30  # a bound on being woken at all, not on speed
    finally:
        _engine.release(waiting)
        _engine.release(busy)


def test_an_interrupted_write_leaves_the_state_and_the_database_as_they_were(monkeypatch, tools):
    monkeypatch.setattr(_engine, "STATEMENT_CPU_S", 0.2)
    before = tools.state
    with pytest.raises(ToolError, match="ran longer than 0.2 s"):
        tools.execute("UPDATE orders SET status = 'x'; "
                      "INSERT INTO \"order\"\"s\" SELECT count(*), 'n' FROM range(100000000000) a, range(1000) b")
    assert tools.state is before and tools.state.digest() == _engine.dump(tools.conn).digest()


def test_watchdog_survives_a_connection_closed_while_armed():
    conn = _engine.connect()
    with _engine.deadline(conn, 0.05):
        _engine.release(conn)
    time.sleep(0.1)
    fresh = _engine.connect()
    try:
        with pytest.raises(_engine.SQLError, match="ran longer"), _engine.deadline(fresh, 0.2):
            fresh.execute("SELECT count(*) FROM range(100000000000) a, range(1000) b").fetchall()
    finally:
        _engine.release(fresh)



def test_a_forked_child_gets_a_watchdog_and_engines_of_its_own():
    """A child forked while the parent's watch held its lock must not wait on it forever, and must not
    use an engine of its parent's (a DuckDB engine does not survive a fork: using one crashes the child)."""
    import os

    _engine.release(_engine.connect(), ran_ddl=False)
    assert _engine._ENGINES.idle() >= 1  # the parent keeps an idle engine for reuse
    with _engine._WATCHDOG._changed:  # the parent's watch holds its lock at the moment of the fork
        pid = os.fork()
        if pid == 0:  # the child
            code = 1
            try:
                assert _engine._ENGINES.idle() == 0
                conn = _engine.connect()
                with pytest.raises(_engine.SQLError, match="ran longer"), _engine.deadline(conn, 0.2):
                    conn.execute("SELECT count(*) FROM range(100000000000) a, range(1000) b").fetchall()
                _engine.release(conn)
                code = 0
            finally:
                os._exit(code)
    deadline = time.monotonic() + 20
    while (done := os.waitpid(pid, os.WNOHANG))[0] == 0 and time.monotonic() < deadline:
        time.sleep(0.05)
    if done[0] == 0:
        os.kill(pid, 9)
        os.waitpid(pid, 0)
        pytest.fail("the forked child hung")
    assert os.waitstatus_to_exitcode(done[1]) == 0
