import pytest

from servers.kit import StateError
from servers.postgres import PostgresState

STATE = {
    "tables": [
        {
            "name": "customers",
            "columns": [
                {"name": "id", "type": "INTEGER", "nullable": False},
                {"name": "name", "type": "VARCHAR"},
                {"name": "email", "type": "VARCHAR"},
            ],
            "primary_key": ["id"],
            "rows": [[301, "Ingrid Halvorsen", "ingrid.halvorsen@fjordline.no"], [302, "Mateo Quispe", None]],
        },
        {
            "name": "invoices",
            "columns": [
                {"name": "id", "type": "INTEGER", "nullable": False},
                {"name": "customer_id", "type": "INTEGER"},
                {"name": "amount", "type": "DECIMAL(10,2)"},
                {"name": "issued_on", "type": "DATE"},
                {"name": "status", "type": "VARCHAR", "default": "'open'"},
            ],
            "primary_key": ["id"],
            "rows": [[2291, 301, 149.5, "2026-03-03", "paid"], [2292, 302, 80, "2026-03-09", "open"]],
        },
    ]
}


def rows_of(state, name):
    return state.table(name).rows


def test_query_returns_columns_and_json_rows(live):
    pg = live("postgres", STATE)
    result = pg.ok_json("query", sql="SELECT id, amount, issued_on FROM invoices ORDER BY id")
    assert result == {
        "columns": ["id", "amount", "issued_on"],
        "rows": [[2291, 149.5, "2026-03-03"], [2292, 80.0, "2026-03-09"]],
        "row_count": 2,
    }


def test_query_refuses_writes_and_leaves_the_state_alone(live):
    pg = live("postgres", STATE)
    before = pg.state().digest()
    assert "only SELECT" in pg.error("query", sql="DELETE FROM invoices")
    assert "exactly one statement" in pg.error("query", sql="SELECT 1; SELECT 2")
    assert pg.state().digest() == before


@pytest.mark.parametrize("sql", [
    "WITH gone AS (DELETE FROM invoices RETURNING *) SELECT count(*) FROM gone",
    "with/**/gone as (DeLeTe/**/from invoices returning id) select count(*) from gone",
    "WITH moved AS (UPDATE invoices SET status = 'void' RETURNING *) SELECT count(*) FROM moved",
    "WITH added AS (INSERT INTO invoices (id) VALUES (1), (2) RETURNING *) SELECT count(*) FROM added",
])
def test_a_select_that_writes_in_its_with_clause_changes_nothing(live, sql):
    """Such a SELECT runs (the engine allows DML in a top-level WITH clause), and is rolled back."""
    pg = live("postgres", STATE)
    before = pg.state().digest()
    assert pg.ok_json("query", sql=sql)["rows"] == [[2]]
    after = pg.ok_json("query", sql="SELECT count(*), count(*) FILTER (WHERE status = 'void') FROM invoices")
    assert after["rows"] == [[2, 0]] and pg.state().digest() == before


def test_a_long_result_is_cut_and_says_so(live):
    pg = live("postgres", STATE)
    result = pg.ok_json("query", sql="SELECT * FROM range(700)")
    assert result["row_count"] == 700 and len(result["rows"]) == 500 and "first 500" in result["truncated"]


def test_execute_changes_rows_and_reports_what_it_did(live):
    pg = live("postgres", STATE)
    report = pg.ok_json(
        "execute",
        sql="UPDATE invoices SET status = 'refunded' WHERE id = 2291; "
        "INSERT INTO invoices (id, customer_id, amount, issued_on) VALUES (2293, 302, 12.75, '2026-04-01')",
    )
    assert report["results"] == [
        {"statement": "UPDATE", "rows_affected": 1},
        {"statement": "INSERT", "rows_affected": 1},
    ]
    rows = rows_of(pg.state(), "invoices")
    assert rows[0][4] == "refunded"
    assert rows[2] == [2293, 302, 12.75, "2026-04-01", "open"]


def test_execute_creates_alters_and_drops_tables(live):
    pg = live("postgres", STATE)
    pg.ok("execute", sql="CREATE TABLE refunds (id INT PRIMARY KEY, invoice_id INT NOT NULL, amount NUMERIC(10,2), reason TEXT)")
    pg.ok("execute", sql="ALTER TABLE customers ADD COLUMN loyalty_points BIGINT DEFAULT 0")
    state = pg.state()
    refunds = state.table("refunds")
    assert [(c.name, c.type, c.nullable) for c in refunds.columns] == [
        ("id", "INTEGER", False), ("invoice_id", "INTEGER", False), ("amount", "DECIMAL(10,2)", True),
        ("reason", "VARCHAR", True),
    ]
    assert refunds.primary_key == ["id"]
    assert rows_of(state, "customers")[0] == [301, "Ingrid Halvorsen", "ingrid.halvorsen@fjordline.no", 0]
    pg.ok("execute", sql="DROP TABLE refunds")
    assert pg.state().table("refunds") is None


def test_a_failing_statement_rolls_back_the_whole_call(live):
    pg = live("postgres", STATE)
    before = pg.state().digest()
    msg = pg.error("execute", sql="UPDATE invoices SET status = 'void'; INSERT INTO invoices (id) VALUES (2291)")
    assert "SQL error" in msg and "rolled back" in msg
    assert pg.state().digest() == before
    assert pg.ok_json("query", sql="SELECT count(*) FROM invoices WHERE status = 'void'")["rows"] == [[0]]


def test_sql_errors_come_back_as_tool_errors(live):
    pg = live("postgres", STATE)
    assert "syntax error" in pg.error("query", sql="SELEC * FROM invoices")
    assert "refunds" in pg.error("query", sql="SELECT * FROM refunds")
    assert "no SQL statement" in pg.error("execute", sql=";")


@pytest.mark.parametrize(
    "sql",
    [
        "SELECT * FROM read_csv('/etc/passwd')",
        "SELECT * FROM read_text('/etc/hostname')",
        "SELECT * FROM glob('/etc/*')",
    ],
)
def test_host_files_cannot_be_read(live, sql):
    pg = live("postgres", STATE)
    assert "disabled by configuration" in pg.error("query", sql=sql)


def test_host_files_cannot_be_written_or_attached(live, tmp_path):
    pg = live("postgres", STATE)
    target = tmp_path / "dump.csv"
    assert "COPY" in pg.error("execute", sql=f"COPY invoices TO '{target}'")
    assert "disabled by configuration" in pg.error(
        "execute", sql=f"CREATE TABLE leak AS SELECT * FROM read_csv('{tmp_path}/x.csv')"
    )
    assert "ATTACH" in pg.error("execute", sql=f"ATTACH '{tmp_path}/other.db'")
    assert "SET" in pg.error("execute", sql="SET enable_external_access = true")
    assert not target.exists()


def test_the_locked_configuration_cannot_be_reopened_from_a_select(live):
    pg = live("postgres", STATE)
    result = pg.ok_json("query", sql="SELECT current_setting('enable_external_access')")
    assert result["rows"] == [[False]]


def test_objects_the_state_cannot_hold_are_refused_and_rolled_back(live):
    pg = live("postgres", STATE)
    before = pg.state().digest()
    assert "views are not supported" in pg.error("execute", sql="CREATE VIEW v AS SELECT * FROM invoices")
    assert "temporary tables" in pg.error("execute", sql="CREATE TEMP TABLE scratch (a INT)")
    assert "does not store" in pg.error("execute", sql="CREATE TABLE tags (labels VARCHAR[])")
    assert "constraints" in pg.error("execute", sql="CREATE TABLE u (email VARCHAR UNIQUE)")
    assert "TRANSACTION" in pg.error("execute", sql="BEGIN; DELETE FROM invoices; COMMIT")
    assert pg.state().digest() == before


def test_a_runaway_statement_is_cancelled(live, monkeypatch):
    from servers.postgres import _engine

    monkeypatch.setattr(_engine, "STATEMENT_CPU_S", 0.2)
    pg = live("postgres", STATE)
    assert "cancelled" in pg.error("query", sql="SELECT count(*) FROM range(100000000000) a, range(1000) b")


def test_listing_and_describing_tables(live):
    pg = live("postgres", STATE)
    assert pg.ok_json("list_schemas") == [{"schema": "main", "tables": 2}]
    assert pg.ok_json("list_tables") == [
        {"table": "customers", "columns": 3, "rows": 2},
        {"table": "invoices", "columns": 5, "rows": 2},
    ]
    described = pg.ok_json("describe_table", table="INVOICES")
    assert described["table"] == "invoices" and described["rows"] == 2
    assert described["columns"][4] == {
        "name": "status", "type": "VARCHAR", "nullable": True, "default": "'open'", "primary_key": False,
    }
    assert described["columns"][0]["primary_key"] is True
    assert "unknown table 'refunds'" in pg.error("describe_table", table="refunds")


def test_explain_shows_a_plan_without_running_writes(live):
    pg = live("postgres", STATE)
    assert "invoices" in pg.ok("explain_query", sql="SELECT * FROM invoices WHERE amount > 100")
    assert "exactly one SELECT" in pg.error("explain_query", sql="DELETE FROM invoices")


def test_dump_and_reload_keep_the_digest(live):
    pg = live("postgres", STATE)
    pg.ok("execute", sql="CREATE TABLE notes (noted_at TIMESTAMP, body VARCHAR, score DOUBLE, ok BOOLEAN, t TIME)")
    pg.ok("execute", sql="INSERT INTO notes VALUES ('2026-03-14 09:30:00', 'Übergabe ✓', 0.1, true, '08:15:00')")
    state = pg.state()
    again = live("postgres", state.dump())
    again.ok("execute", sql="UPDATE notes SET ok = ok")
    assert again.state().digest() == state.digest()
    assert PostgresState.load(state.dump()).digest() == state.digest()
    assert PostgresState.load(STATE).digest() != state.digest()


def test_a_bad_state_names_the_field():
    with pytest.raises(StateError, match="type"):
        PostgresState.load({"tables": [{"name": "t", "columns": [{"name": "a", "type": "JSONB"}]}]})
    with pytest.raises(StateError, match="rows"):
        PostgresState.load({"tables": [{"name": "t", "columns": [{"name": "a", "type": "INTEGER"}], "rows": [["x"]]}]})
    with pytest.raises(StateError, match="same name"):
        PostgresState.load({"tables": [{"name": "t", "columns": [{"name": "a", "type": "DATE"}, {"name": "A", "type": "DATE"}]}]})


PG_WORLD = {"world": {"generator": "postgres", "version": 1, "seed": 1, "size": "default"}}


def test_the_world_has_eight_tables_joined_by_foreign_keys_and_ten_thousand_rows(live):
    pg = live("postgres", PG_WORLD)
    tables = pg.ok_json("list_tables")
    assert len(tables) == 8 and sum(t["rows"] for t in tables) >= 10_000
    orders = pg.ok_json("describe_table", table="orders")
    assert {fk["references"] for fk in orders["foreign_keys"]} == {"customers", "warehouses"}
    joined = pg.ok_json("query", sql="select count(*) from orders o join customers c on c.id = o.customer_id")
    assert joined["rows"] == [[2200]]


def test_a_row_that_breaks_a_foreign_key_is_refused_and_nothing_changes(live):
    pg = live("postgres", PG_WORLD)
    before = pg.state().digest()
    message = pg.error("execute", sql="insert into refunds values (999, 999999, 10.0, 'duplicate', '2026-03-01 10:00:00')")
    assert "foreign key" in message.lower() and "rolled back" in message
    assert "foreign key" in pg.error("execute", sql="delete from customers").lower()
    assert pg.state().digest() == before


def test_a_write_rereads_only_what_changed_and_the_state_matches_a_fresh_dump(live):
    from servers.postgres import _engine

    pg = live("postgres", PG_WORLD)
    pg.ok("execute", sql="update orders set status = 'cancelled' where id = 5; delete from refunds where id = 1")
    pg.ok("execute", sql="alter table shipments add column signed_by varchar")
    state = pg.state()
    assert state.table("orders").rows[4][3] == "cancelled" and 1 not in [r[0] for r in state.table("refunds").rows]
    assert state.digest() == _engine.dump(pg.tools.conn).digest()
    reloaded = live("postgres", state.dump()).state()
    assert reloaded.digest() == state.digest()
    assert [fk.references for fk in reloaded.table("order_items").foreign_keys] == ["orders", "products"]


def test_a_write_reuses_the_tables_it_did_not_change_and_reads_back_the_one_it_did(live):
    pg = live("postgres", STATE)
    before = pg.tools.state
    pg.ok("execute", sql="UPDATE invoices SET status = 'void' WHERE id = 2292")
    after = pg.tools.state
    assert after.table("customers") is before.table("customers")  # unchanged: not read back, not revalidated
    assert rows_of(after, "invoices")[1][-1] == "void" and after.table("invoices") is not before.table("invoices")
    assert PostgresState.model_validate(after.dump()).dump() == after.dump()  # what the model itself accepts


def test_a_write_whose_result_the_state_cannot_hold_is_refused_naming_the_table(live):
    pg = live("postgres", STATE)
    pg.ok("execute", sql="CREATE TABLE big (n BIGINT)")
    before = pg.state().digest()
    message = pg.error("execute", sql="INSERT INTO big VALUES (9007199254740993)")  # DuckDB holds it; JSON cannot
    assert "cannot be stored: tables[0]" in message and "rows[0] of 'big', column 'n'" in message
    assert "integer beyond" in message
    assert "rolled back" in message and pg.state().digest() == before


def test_a_table_loaded_row_by_row_between_batched_ones_loads_in_order(monkeypatch):
    """Where Arrow cannot hold a table's values, its rows go in one by one, after the CREATE statements
    scripted before it and before the tables that reference it."""
    from servers import get_spec
    from servers.postgres import _engine

    world = get_spec("postgres").load_state(PG_WORLD)
    batched = _engine._columnar
    monkeypatch.setattr(_engine, "_columnar", lambda t: None if t.name == "customers" else batched(t))
    conn = _engine.open_database(world)
    try:
        assert _engine.dump(conn).digest() == world.digest()
    finally:
        _engine.release(conn)



def test_the_column_at_a_time_row_check_never_passes_a_row_that_row_problem_refuses():
    """``Table._rows_fit`` (the fast path of validating rows) is True only when ``row_problem`` finds nothing
    in any row; when it is False the rows are checked one by one and the first problem is named."""
    import math
    import random

    from servers.postgres.state import MAX_SAFE_INTEGER, Table

    pool = [None, True, False, 0, 1, -7, MAX_SAFE_INTEGER, -MAX_SAFE_INTEGER, MAX_SAFE_INTEGER + 1,
            -MAX_SAFE_INTEGER - 1, 0.5, -2.25, math.inf, -math.inf, math.nan, "", "x", "2026-03-01"]
    types = ["INTEGER", "BIGINT", "BOOLEAN", "VARCHAR", "DATE", "DOUBLE", "DECIMAL(10,2)"]
    rng = random.Random(5)
    agreed = {True: 0, False: 0}
    for _ in range(3000):
        width = rng.randint(1, 3)
        columns = [{"name": f"c{i}", "type": rng.choice(types), "nullable": rng.random() < 0.5} for i in range(width)]
        table = Table.model_validate({"name": "t", "columns": columns})
        rows = [[rng.choice(pool[:10] if rng.random() < 0.5 else pool) for _ in range(width)]
                for _ in range(rng.randint(1, 3))]
        if rng.random() < 0.03:
            rows[0] = rows[0][:-1]
        table.__dict__["rows"] = rows  # unvalidated (the model validates an assignment)
        clean = all(table.row_problem(row) is None for row in rows)
        fits = table._rows_fit()
        assert not fits or clean, (columns, rows)
        agreed[clean] += fits == clean
        with pytest.raises(ValueError) if not clean else _nothing():
            Table.model_validate({"name": "t", "columns": columns, "rows": rows})
    assert agreed[True] > 100 and agreed[False] > 1000  # both outcomes were met


class _nothing:
    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False
