"""The postgres server's engine never writes a query's intermediates to disk: a query too big for its
memory fails instead of spilling task values to `.tmp` under the working directory."""

import os

import duckdb
import pytest

from servers.postgres._engine import connect, release

HEAVY = "select count(*) from (select i, repeat('x', 100) || i::varchar s from range(3000000) t(i) order by s)"


def test_a_query_past_the_memory_limit_leaves_no_file_in_the_working_directory(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    conn = connect()
    try:
        with pytest.raises(duckdb.OutOfMemoryException):
            conn.execute(HEAVY).fetchall()
        assert os.listdir(tmp_path) == []  # checked while the connection is open, as a crash would leave it
    finally:
        release(conn)
    assert os.listdir(tmp_path) == []
