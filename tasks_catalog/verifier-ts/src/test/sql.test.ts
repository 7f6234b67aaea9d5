import { test } from "node:test";
import * as assert from "node:assert/strict";

import { countRows, SqlFailure } from "../sql";
import { Undecidable } from "../values";

const state = {
  tables: [
    {
      name: "orders",
      columns: [
        { name: "id", type: "INTEGER", nullable: false },
        { name: "status", type: "VARCHAR", nullable: true },
        { name: "placed_on", type: "DATE", nullable: true },
        { name: "at", type: "TIMESTAMP", nullable: true },
      ],
      primary_key: ["id"],
      rows: [
        [1, "shipped", "2026-03-01", "2026-03-01 09:30:00"],
        [2, "pending", "2026-02-01", null],
        [3, null, null, "2026-03-02 10:00:00.500000"],
      ],
    },
  ],
};

test("counts rows of a filtered select", () => {
  assert.equal(countRows(state, "SELECT id FROM orders WHERE status = 'shipped'"), 1);
  assert.equal(countRows(state, "SELECT id FROM orders WHERE status <> 'shipped'"), 1);
  assert.equal(countRows(state, "SELECT id FROM orders WHERE placed_on < DATE '2026-03-01'"), 1);
  assert.equal(countRows(state, "SELECT id FROM orders WHERE \"at\" > TIMESTAMP '2026-03-02 10:00:00'"), 1);
  assert.equal(countRows(state, "SELECT count(*) FROM orders HAVING count(*) > 5"), 0);
});

test("what DuckDB refuses is a failure", () => {
  for (const sql of ["DELETE FROM orders", "SELEC id FROM orders", "SELECT id FROM nope", "SELECT nope FROM orders",
    "SELECT 1 FROM orders; SELECT 2 FROM orders", "SELECT id, count(*) FROM orders", "SELECT * FROM orders WHERE at IS NULL", ""]) {
    assert.throws(() => countRows(state, sql), SqlFailure, sql);
  }
});

test("what the subset cannot decide is undecidable, never a guess", () => {
  for (const sql of ["SELECT id FROM orders WHERE id = '1'", "WITH x AS (SELECT 1) SELECT * FROM x",
    "SELECT id FROM orders WHERE lower(status) = 'shipped'", "SELECT id FROM orders WHERE placed_on = DATE '2026-3-1'",
    "SELECT id FROM (SELECT id FROM orders) t", "SELECT avg(id) FROM orders"]) {
    assert.throws(() => countRows(state, sql), Undecidable, sql);
  }
});
