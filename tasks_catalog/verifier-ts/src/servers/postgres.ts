/** Postgres primitives (tasks_catalog/predicates/postgres.py). Table and column names match
 * case-insensitively (ASCII folding); cells compare by `same`; a missing table or column is false. */

import { DictOf, Int, Name, Refine, Scalar, optional, required } from "../args";
import { arg, definePrimitives } from "../registry";
import { countRows, SqlFailure } from "../sql";
import { fold, get, Json, JsonObject, list, same, str } from "../values";

const SCALAR_TYPES = new Set(["TINYINT", "SMALLINT", "INTEGER", "BIGINT", "UTINYINT", "USMALLINT", "UINTEGER",
  "FLOAT", "DOUBLE", "VARCHAR", "DATE", "TIME", "TIMESTAMP", "UUID", "BOOLEAN"]);
const DECIMAL = /^DECIMAL\(([1-9]|[1-3][0-9]),([0-9]|[1-3][0-9])\)$/;

/** servers/postgres/state.py is_supported_type: the canonical type names the state stores. */
export function isSupportedType(name: string): boolean {
  const m = DECIMAL.exec(name);
  if (m) return Number(m[2]) <= Number(m[1]) && Number(m[1]) <= 38;
  return SCALAR_TYPES.has(name);
}

const ColumnType = Refine(Name, (v) => (isSupportedType(v as string) ? null : "not a canonical column type (upper case, no spaces)"));
const Where = DictOf(Scalar);

const table = (state: JsonObject, name: string) => list(state, "tables").find((t) => fold(str(t, "name") ?? "") === fold(name));
const columnIndex = (t: JsonObject, name: string) => list(t, "columns").findIndex((c) => fold(str(c, "name") ?? "") === fold(name));

/** The rows of `t` matching every `where` pair, or null when a `where` column is missing. A later key
 * naming the same column (in another case) replaces an earlier one, as in Python's dict. */
function matchingRows(t: JsonObject, where: JsonObject): Json[][] | null {
  const positions = new Map<number, Json>();
  for (const [name, value] of Object.entries(where)) {
    const i = columnIndex(t, name);
    if (i < 0) return null;
    positions.set(i, value);
  }
  const rows = (get(t, "rows") as Json[] | undefined ?? []).filter(Array.isArray) as Json[][];
  return rows.filter((row) => [...positions].every(([i, v]) => same(v, row[i])));
}

export default definePrimitives("postgres", {
  rowExists: [{ table: required(Name), where: required(Where) }, (state, args) => {
    const t = table(state, args.table as string);
    const rows = t && matchingRows(t, args.where as JsonObject);
    return rows !== undefined && rows !== null && rows.length > 0;
  }],
  tableExists: [{ table: required(Name) }, (state, args) => table(state, args.table as string) !== undefined],
  queryReturnsCount: [{ query: required(Name), count: required(Int(0)) }, (state, args) => {
    try {
      return countRows(state, args.query as string) === args.count;
    } catch (exc) {
      if (exc instanceof SqlFailure) return false;
      throw exc;
    }
  }],
  tableHasColumn: [{ table: required(Name), column: required(Name), type: optional(ColumnType) }, (state, args) => {
    const t = table(state, args.table as string);
    if (t === undefined) return false;
    const i = columnIndex(t, args.column as string);
    if (i < 0) return false;
    const type = arg(args, "type");
    return type === null || str(list(t, "columns")[i], "type") === type;
  }],
  columnEquals: [{ table: required(Name), where: required(Where), column: required(Name), value: required(Scalar) }, (state, args) => {
    const t = table(state, args.table as string);
    if (t === undefined) return false;
    const rows = matchingRows(t, args.where as JsonObject);
    const i = columnIndex(t, args.column as string);
    if (rows === null || rows.length === 0 || i < 0) return false;
    return rows.every((row) => same(args.value, row[i]));
  }],
});


