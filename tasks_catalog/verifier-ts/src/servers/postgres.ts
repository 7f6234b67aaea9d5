/** Postgres primitives (tasks_catalog/predicates/postgres.py). Table and column names match
 * case-insensitively (ASCII folding); cells compare by `same`; a missing table or column is false. */

import { DictOf, Int, Name, Refine, Scalar, optional, required } from "../args";
import { arg, definePrimitives } from "../registry";
import { countRows, SqlFailure } from "../sql";
import { fold, get, Json, JsonObject, list, same, str } from "../values";
import { closest, listing, value } from "../explain";

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

const rowsOf = (t: JsonObject) => (get(t, "rows") as Json[] | undefined ?? []).filter(Array.isArray) as Json[][];
const noTable = (state: JsonObject, name: string) =>
  `no table ${name}; tables: ${listing(list(state, "tables").map((t) => str(t, "name")))}`;
const whereText = (where: JsonObject) => Object.entries(where).map(([k, v]) => `${k} = ${value(v)}`).join(", ") || "any values";

function tableOrWhy(state: JsonObject, name: string, where: JsonObject): [JsonObject | undefined, string] {
  const t = table(state, name);
  if (t === undefined) return [undefined, noTable(state, name)];
  const unknown = Object.keys(where).filter((c) => columnIndex(t, c) < 0);
  if (unknown.length > 0) {
    return [undefined, `${str(t, "name")} has no column ${listing(unknown)}; columns: ${listing(list(t, "columns").map((c) => str(c, "name")), 12)}`];
  }
  return [t, ""];
}

function asDicts(t: JsonObject, names: string[]): JsonObject[] {
  const at = names.map((n) => [n, columnIndex(t, n)] as [string, number]);
  return rowsOf(t).map((row) => Object.fromEntries(at.map(([n, i]) => [n, row[i] as Json])));
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
}, {
  rowExists: (state, args) => {
    const where = args.where as JsonObject;
    const expected = `a row of ${args.table} with ${whereText(where)}`;
    const [t, why] = tableOrWhy(state, args.table as string, where);
    if (t === undefined) return [expected, why];
    return [expected, `${str(t, "name")} has ${rowsOf(t).length} rows; the nearest: ${closest(asDicts(t, Object.keys(where)), where, same)}`];
  },
  tableExists: (state, args) => {
    const t = table(state, args.table as string);
    return [`a table ${args.table}`, t === undefined ? noTable(state, args.table as string) : `table ${str(t, "name")} exists (${rowsOf(t).length} rows)`];
  },
  queryReturnsCount: (state, args) => {
    const expected = `the query to return ${args.count} rows`;
    try {
      return [expected, `it returns ${countRows(state, args.query as string)} rows`];
    } catch (exc) {
      if (exc instanceof SqlFailure) return [expected, `the query fails: ${exc.message.split("\n")[0]?.slice(0, 200)}`];
      throw exc;
    }
  },
  tableHasColumn: (state, args) => {
    const type = arg(args, "type");
    const expected = `a column ${args.column}${type !== null ? ` of type ${type}` : ""} in ${args.table}`;
    const t = table(state, args.table as string);
    if (t === undefined) return [expected, noTable(state, args.table as string)];
    return [expected, `${str(t, "name")} has columns ${listing(list(t, "columns").map((c) => `${str(c, "name")} ${str(c, "type")}`), 12)}`];
  },
  columnEquals: (state, args) => {
    const where = args.where as JsonObject;
    const expected = `${args.column} = ${value(args.value)} in every row of ${args.table} with ${whereText(where)}`;
    const [t, why] = tableOrWhy(state, args.table as string, { ...where, [args.column as string]: args.value as Json });
    if (t === undefined) return [expected, why];
    const rows = matchingRows(t, where) ?? [];
    if (rows.length === 0) {
      return [expected, `no row of ${str(t, "name")} has ${whereText(where)}; the nearest: ${closest(asDicts(t, Object.keys(where)), where, same)}`];
    }
    const i = columnIndex(t, args.column as string);
    return [expected, `${rows.length} rows have ${whereText(where)}; their ${args.column}: ${listing(rows.map((r) => value(r[i])))}`];
  },
});
