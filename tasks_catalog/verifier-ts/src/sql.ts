/**
 * The SQL that `postgres.queryReturnsCount` runs, for a verifier without the SQL engine.
 *
 * The Python verifier runs the query on DuckDB. This module evaluates the subset of SELECT that
 * tasks use, over the dumped tables, and answers in one of three ways:
 * - a row count, when the query is inside the subset and DuckDB would run it;
 * - `SqlFailure`, when DuckDB would surely refuse or fail it (not one statement, not a SELECT, a
 *   statement that cannot parse as any SQL, an unknown table or column, an ambiguous column, a state
 *   that cannot load): the primitive is then false, as in Python;
 * - `Undecidable`, for anything else (a feature outside the subset, a comparison whose implicit cast
 *   DuckDB would decide): reported per case, never guessed.
 *
 * The subset: `SELECT [DISTINCT] items FROM t [alias] {[INNER|LEFT [OUTER]|CROSS] JOIN t [alias] [ON e]
 * | , t [alias]} [WHERE e] [GROUP BY columns] [HAVING e] [ORDER BY ...] [LIMIT n] [OFFSET n]`, where
 * items are `*`, `t.*` or expressions with optional aliases; expressions are columns, literals
 * (numbers, 'strings', NULL, TRUE, FALSE, DATE '...', TIMESTAMP '...', TIME '...'), comparisons,
 * AND/OR/NOT, IS [NOT] NULL, [NOT] BETWEEN, [NOT] IN (list), [NOT] LIKE, and the aggregates
 * count(*), count([DISTINCT] e), sum, min, max. SQL's three-valued logic applies.
 *
 * Column defaults are not parsed: a state dumped by the engine always loads, and a hand-written one
 * whose default DuckDB rejects would make the Python verifier false where this one may not be.
 */

import { fold, get, isObject, Json, JsonObject, Undecidable } from "./values";

/** DuckDB would refuse or fail this query: `queryReturnsCount` is false. */
export class SqlFailure extends Error {
  override name = "SqlFailure";
}

const outside = (what: string): never => {
  throw new Undecidable(`postgres.queryReturnsCount: ${what} is outside the SQL subset the TypeScript verifier evaluates`);
};
const fail = (why: string): never => {
  throw new SqlFailure(why);
};

// -- tokens -------------------------------------------------------------------------------------

type Tok = { k: "id" | "qid" | "str" | "num" | "op"; v: string };

function tokenize(sql: string): Tok[] {
  const out: Tok[] = [];
  let i = 0;
  while (i < sql.length) {
    const c = sql[i] as string;
    if (/\s/.test(c)) { i++; continue; }
    if (sql.startsWith("--", i)) { const j = sql.indexOf("\n", i); i = j < 0 ? sql.length : j + 1; continue; }
    if (sql.startsWith("/*", i)) { const j = sql.indexOf("*/", i + 2); if (j < 0) fail("unterminated comment"); i = j + 2; continue; }
    if (c === "'" || c === '"') {
      let j = i + 1;
      let text = "";
      for (;;) {
        if (j >= sql.length) fail("unterminated quoted text");
        if (sql[j] === c) {
          if (sql[j + 1] === c) { text += c; j += 2; continue; }
          break;
        }
        text += sql[j];
        j++;
      }
      out.push({ k: c === "'" ? "str" : "qid", v: text });
      i = j + 1;
      continue;
    }
    const num = /^(\d+(\.\d*)?|\.\d+)([eE][+-]?\d+)?/.exec(sql.slice(i));
    if (num) { out.push({ k: "num", v: num[0] }); i += num[0].length; continue; }
    const word = /^[A-Za-z_][A-Za-z0-9_]*/.exec(sql.slice(i));
    if (word) { out.push({ k: "id", v: word[0] }); i += word[0].length; continue; }
    const op = /^(<=|>=|<>|!=|==|[=<>(),.*;+\-/])/.exec(sql.slice(i));
    if (op) { out.push({ k: "op", v: op[0] }); i += op[0].length; continue; }
    outside(`the character ${JSON.stringify(c)}`);
  }
  return out;
}

// -- syntax -------------------------------------------------------------------------------------

type Expr =
  | { t: "col"; q: string | null; name: string }
  | { t: "lit"; v: number | string | boolean | null; ty: "num" | "strlit" | "bool" | "null" | "date" | "time" | "timestamp" }
  | { t: "cmp"; op: string; a: Expr; b: Expr }
  | { t: "and" | "or"; a: Expr; b: Expr }
  | { t: "not"; a: Expr }
  | { t: "isnull"; a: Expr; neg: boolean }
  | { t: "between"; a: Expr; lo: Expr; hi: Expr; neg: boolean }
  | { t: "in"; a: Expr; items: Expr[]; neg: boolean }
  | { t: "like"; a: Expr; pattern: Expr; neg: boolean }
  | { t: "agg"; fn: string; arg: Expr | null; distinct: boolean };

type Item = { star: true; q: string | null } | { star: false; expr: Expr; alias: string | null };
type Source = { table: string; alias: string | null; join: "first" | "inner" | "left" | "cross"; on: Expr | null };
interface Select {
  distinct: boolean;
  items: Item[];
  from: Source[];
  where: Expr | null;
  groupBy: Expr[];
  having: Expr | null;
  orderBy: Expr[];
  limit: number | null;
  offset: number | null;
}

const RESERVED = new Set(`SELECT FROM WHERE GROUP BY HAVING ORDER LIMIT OFFSET JOIN INNER LEFT RIGHT FULL OUTER
  CROSS NATURAL ON USING AS AND OR NOT IS NULL BETWEEN IN LIKE ILIKE GLOB SIMILAR DISTINCT ALL TRUE FALSE ASC
  DESC NULLS UNION INTERSECT EXCEPT WINDOW QUALIFY FETCH CASE WHEN THEN ELSE END SEMI ANTI ASOF POSITIONAL
  LATERAL SAMPLE COLLATE ESCAPE FILTER OVER`.split(/\s+/));
const NOT_SELECT = new Set(`INSERT UPDATE DELETE CREATE DROP ALTER COPY ATTACH DETACH SET RESET PRAGMA BEGIN
  START COMMIT ROLLBACK ABORT END INSTALL LOAD EXPORT IMPORT CHECKPOINT FORCE VACUUM CALL TRUNCATE USE PREPARE
  EXECUTE DEALLOCATE ANALYZE MERGE EXPLAIN COMMENT`.split(/\s+/));
/** DuckDB's reserved and type/function keywords (`duckdb_keywords()`, DuckDB 2.0): unquoted, they
 * cannot name a table or column (a parser error), though any word may follow `AS` or a dot. */
const KEYWORDS = new Set(`ALL ANALYSE ANALYZE AND ANY ARRAY AS ASC ASYMMETRIC BOTH CASE CAST CHECK COLLATE COLUMN
  CONSTRAINT CREATE DEFAULT DEFERRABLE DESC DESCRIBE DISTINCT DO ELSE END EXCEPT FALSE FETCH FOR FOREIGN FROM GROUP
  HAVING IN INITIALLY INTERSECT INTO LAMBDA LATERAL LEADING LIMIT NOT NULL OFFSET ON ONLY OR ORDER PIVOT
  PIVOT_LONGER PIVOT_WIDER PLACING PRIMARY QUALIFY REFERENCES RETURNING SELECT SHOW SOME SUMMARIZE SYMMETRIC TABLE
  THEN TO TRAILING TRUE UNION UNIQUE UNPIVOT USING VARIADIC WHEN WHERE WINDOW WITH
  ANTI ASOF AT AUTHORIZATION BINARY BY COLLATION COLUMNS CONCURRENTLY CROSS FREEZE FULL GENERATED GLOB ILIKE INNER
  IS ISNULL JOIN LEFT LIKE MAP NATURAL NOTNULL OUTER OVERLAPS POSITIONAL RIGHT SEMI SIMILAR STRUCT TABLESAMPLE
  TRY_CAST TUPLE UNPACK VERBOSE`.split(/\s+/));
const MAYBE_SELECT = new Set("WITH FROM VALUES TABLE SUMMARIZE DESCRIBE SHOW PIVOT UNPIVOT".split(" "));
const AGGREGATES = new Set(["count", "sum", "min", "max", "avg"]);

class Parser {
  i = 0;
  constructor(private toks: Tok[]) {}
  peek(offset = 0): Tok | undefined { return this.toks[this.i + offset]; }
  isKw(word: string, offset = 0): boolean {
    const t = this.peek(offset);
    return t !== undefined && t.k === "id" && t.v.toUpperCase() === word;
  }
  isOp(op: string): boolean { const t = this.peek(); return t !== undefined && t.k === "op" && t.v === op; }
  kw(word: string): boolean { if (this.isKw(word)) { this.i++; return true; } return false; }
  op(op: string): boolean { if (this.isOp(op)) { this.i++; return true; } return false; }
  expectKw(word: string): void { if (!this.kw(word)) this.unexpected(); }
  expectOp(op: string): void { if (!this.op(op)) this.unexpected(); }
  unexpected(): never {
    const t = this.peek();
    return outside(t === undefined ? "the end of the query here" : `${JSON.stringify(t.v)} here`);
  }
  /** A table or column name; `label` (after AS or a dot) accepts any word, as DuckDB's grammar does. */
  name(label = false): string {
    const t = this.peek();
    if (t !== undefined && t.k === "qid") { this.i++; return t.v; }
    if (t !== undefined && t.k === "id") {
      const upper = t.v.toUpperCase();
      if (label) { this.i++; return t.v; }
      if (RESERVED.has(upper)) return this.unexpected();
      if (KEYWORDS.has(upper)) return fail(`syntax error at or near "${t.v}"`);
      this.i++;
      return t.v;
    }
    return this.unexpected();
  }
  alias(): string | null {
    if (this.kw("AS")) return this.name(true);
    const t = this.peek();
    const upper = t?.v.toUpperCase() ?? "";
    if (t !== undefined && (t.k === "qid" || (t.k === "id" && !RESERVED.has(upper) && !KEYWORDS.has(upper)))) { this.i++; return t.v; }
    return null;
  }
  integer(): number {
    const t = this.peek();
    if (t === undefined || t.k !== "num" || !/^\d+$/.test(t.v) || !Number.isSafeInteger(Number(t.v))) return this.unexpected();
    this.i++;
    return Number(t.v);
  }

  select(): Select {
    this.expectKw("SELECT");
    const distinct = this.kw("DISTINCT");
    if (this.isKw("ALL") || this.isKw("ON")) this.unexpected();
    const items: Item[] = [];
    do {
      if (this.op("*")) { items.push({ star: true, q: null }); continue; }
      const t0 = this.peek(); const t1 = this.peek(1); const t2 = this.peek(2);
      if (t0 && (t0.k === "id" || t0.k === "qid") && t1?.k === "op" && t1.v === "." && t2?.k === "op" && t2.v === "*") {
        this.i += 3;
        items.push({ star: true, q: t0.v });
        continue;
      }
      const expr = this.expr();
      items.push({ star: false, expr, alias: this.alias() });
    } while (this.op(","));
    if (!this.kw("FROM")) outside("SELECT without FROM");
    const from: Source[] = [this.source("first")];
    for (;;) {
      if (this.op(",")) { from.push(this.source("cross")); continue; }
      if (this.kw("CROSS")) { this.expectKw("JOIN"); from.push(this.source("cross")); continue; }
      if (this.kw("JOIN")) { from.push(this.source("inner")); continue; }
      if (this.kw("INNER")) { this.expectKw("JOIN"); from.push(this.source("inner")); continue; }
      if (this.kw("LEFT")) { this.kw("OUTER"); this.expectKw("JOIN"); from.push(this.source("left")); continue; }
      break;
    }
    const where = this.kw("WHERE") ? this.expr() : null;
    const groupBy: Expr[] = [];
    if (this.kw("GROUP")) { this.expectKw("BY"); do groupBy.push(this.expr()); while (this.op(",")); }
    const having = this.kw("HAVING") ? this.expr() : null;
    const orderBy: Expr[] = [];
    if (this.kw("ORDER")) {
      this.expectKw("BY");
      do {
        orderBy.push(this.expr());
        if (!this.kw("ASC")) this.kw("DESC");
        if (this.kw("NULLS")) { if (!this.kw("FIRST")) this.expectKw("LAST"); }
      } while (this.op(","));
    }
    let limit: number | null = null;
    let offset: number | null = null;
    if (this.kw("LIMIT")) limit = this.integer();
    if (this.kw("OFFSET")) offset = this.integer();
    if (this.peek() !== undefined) this.unexpected();
    return { distinct, items, from, where, groupBy, having, orderBy, limit, offset };
  }

  source(join: Source["join"]): Source {
    if (this.isOp("(")) outside("a subquery");
    let table = this.name();
    if (this.op(".")) outside(`a schema-qualified table (${table}.${this.name()})`);
    if (this.isOp("(")) outside(`the table function ${table}()`);
    const alias = this.alias();
    let on: Expr | null = null;
    if (join === "inner" || join === "left") {
      if (this.isKw("USING")) outside("JOIN ... USING");
      this.expectKw("ON");
      on = this.expr();
    }
    table = table.toString();
    return { table, alias, join, on };
  }

  expr(): Expr { return this.or(); }
  or(): Expr { let a = this.and(); while (this.kw("OR")) a = { t: "or", a, b: this.and() }; return a; }
  and(): Expr { let a = this.not(); while (this.kw("AND")) a = { t: "and", a, b: this.not() }; return a; }
  not(): Expr { return this.kw("NOT") ? { t: "not", a: this.not() } : this.predicate(); }
  predicate(): Expr {
    const a = this.primary();
    const t = this.peek();
    if (t?.k === "op" && ["=", "==", "<>", "!=", "<", "<=", ">", ">="].includes(t.v)) {
      this.i++;
      return { t: "cmp", op: t.v === "==" ? "=" : t.v === "!=" ? "<>" : t.v, a, b: this.primary() };
    }
    if (this.kw("IS")) {
      const neg = this.kw("NOT");
      if (!this.kw("NULL")) outside("IS other than IS [NOT] NULL");
      return { t: "isnull", a, neg };
    }
    const neg = this.kw("NOT");
    if (this.kw("BETWEEN")) {
      const lo = this.primary();
      this.expectKw("AND");
      return { t: "between", a, lo, hi: this.primary(), neg };
    }
    if (this.kw("IN")) {
      this.expectOp("(");
      if (this.isKw("SELECT")) outside("a subquery");
      const items: Expr[] = [];
      do items.push(this.primary()); while (this.op(","));
      this.expectOp(")");
      return { t: "in", a, items, neg };
    }
    if (this.kw("LIKE")) {
      const pattern = this.primary();
      if (this.isKw("ESCAPE")) outside("LIKE ... ESCAPE");
      return { t: "like", a, pattern, neg };
    }
    if (neg) this.unexpected();
    return a;
  }
  primary(): Expr {
    const t = this.peek();
    if (t === undefined) return this.unexpected();
    if (t.k === "num" || (t.k === "op" && t.v === "-" && this.peek(1)?.k === "num")) {
      const negative = t.k === "op";
      if (negative) this.i++;
      const text = (this.peek() as Tok).v;
      this.i++;
      const v = Number(text) * (negative ? -1 : 1);
      if (/^\d+$/.test(text) && !Number.isSafeInteger(v)) outside("an integer beyond 2^53");
      return { t: "lit", v, ty: "num" };
    }
    if (t.k === "str") { this.i++; return { t: "lit", v: t.v, ty: "strlit" }; }
    if (this.op("(")) {
      if (this.isKw("SELECT")) outside("a subquery");
      const e = this.expr();
      this.expectOp(")");
      return e;
    }
    if (t.k === "id") {
      const upper = t.v.toUpperCase();
      if (upper === "NULL") { this.i++; return { t: "lit", v: null, ty: "null" }; }
      if (upper === "TRUE" || upper === "FALSE") { this.i++; return { t: "lit", v: upper === "TRUE", ty: "bool" }; }
      if ((upper === "DATE" || upper === "TIMESTAMP" || upper === "TIME") && this.peek(1)?.k === "str") {
        this.i += 2;
        const text = (this.toks[this.i - 1] as Tok).v;
        return { t: "lit", v: typedLiteral(upper.toLowerCase() as "date" | "time" | "timestamp", text), ty: upper.toLowerCase() as "date" };
      }
      if (this.peek(1)?.k === "op" && this.peek(1)?.v === "(") {
        const fn = t.v.toLowerCase();
        if (!AGGREGATES.has(fn)) outside(`the function ${t.v}()`);
        this.i += 2;
        if (fn === "count" && this.op("*")) { this.expectOp(")"); return { t: "agg", fn, arg: null, distinct: false }; }
        const distinct = this.kw("DISTINCT");
        const arg = this.expr();
        this.expectOp(")");
        if (this.isKw("FILTER") || this.isKw("OVER")) this.unexpected();
        return { t: "agg", fn, arg, distinct };
      }
    }
    if (t.k === "id" && RESERVED.has(t.v.toUpperCase())) return this.unexpected();
    if (t.k === "id" && KEYWORDS.has(t.v.toUpperCase())) {
      if (this.peek(1)?.k === "op" && this.peek(1)?.v === "(") outside(`${t.v}(...)`);
      fail(`syntax error at or near "${t.v}"`);
    }
    if (t.k === "id" || t.k === "qid") {
      this.i++;
      if (this.op(".")) return { t: "col", q: t.v, name: this.name(true) };
      return { t: "col", q: null, name: t.v };
    }
    return this.unexpected();
  }
}

// -- types and values ---------------------------------------------------------------------------

type Ty = "num" | "str" | "strlit" | "bool" | "null" | "date" | "time" | "timestamp" | "uuid";
type Val = number | string | boolean | null;

const DATE_RE = /^(\d{4})-(\d{2})-(\d{2})$/;
const TIME_RE = /^(\d{2}):(\d{2}):(\d{2})(\.\d{6})?$/;
const UUID_RE = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

function validDate(text: string): boolean {
  const m = DATE_RE.exec(text);
  if (!m) return false;
  const [y, mo, d] = [Number(m[1]), Number(m[2]), Number(m[3])];
  const probe = new Date(Date.UTC(2000, mo - 1, d));
  probe.setUTCFullYear(y);
  return mo >= 1 && mo <= 12 && probe.getUTCMonth() === mo - 1 && probe.getUTCDate() === d;
}
function validTime(text: string): boolean {
  const m = TIME_RE.exec(text);
  return m !== null && Number(m[1]) < 24 && Number(m[2]) < 60 && Number(m[3]) < 60 && m[4] !== ".000000";
}
function validTimestamp(text: string): boolean {
  const [d, t] = text.split(" ");
  return text.split(" ").length === 2 && validDate(d as string) && validTime(t as string);
}

/** A DATE/TIME/TIMESTAMP literal in the state's canonical text, or `outside` when DuckDB's reading of it
 * is not obviously that text. */
function typedLiteral(ty: "date" | "time" | "timestamp", text: string): string {
  let canonical = text;
  if (ty === "timestamp") {
    if (validDate(text)) canonical = `${text} 00:00:00`;
    else if (/^\d{4}-\d{2}-\d{2}T/.test(text)) canonical = text.replace("T", " ");
    const frac = /^(.* \d{2}:\d{2}:\d{2})\.(\d{1,6})$/.exec(canonical);
    if (frac) canonical = /^0+$/.test(frac[2] as string) ? (frac[1] as string) : `${frac[1]}.${(frac[2] as string).padEnd(6, "0")}`;
  }
  const ok = ty === "date" ? validDate(canonical) : ty === "time" ? validTime(canonical) : validTimestamp(canonical);
  if (!ok) outside(`the ${ty.toUpperCase()} literal '${text}' (write it canonically, e.g. '2026-03-14 09:30:00')`);
  return canonical;
}

function columnTy(type: string): Ty {
  if (type === "BOOLEAN") return "bool";
  if (type === "VARCHAR") return "str";
  if (type === "DATE") return "date";
  if (type === "TIME") return "time";
  if (type === "TIMESTAMP") return "timestamp";
  if (type === "UUID") return "uuid";
  return "num";
}

/** Compare two code point sequences as UTF-8 bytes compare (DuckDB's binary collation). */
function cmpText(a: string, b: string): number {
  const x = Array.from(a);
  const y = Array.from(b);
  for (let i = 0; i < Math.min(x.length, y.length); i++) {
    const p = (x[i] as string).codePointAt(0) as number;
    const q = (y[i] as string).codePointAt(0) as number;
    if (p !== q) return p < q ? -1 : 1;
  }
  return x.length - y.length;
}

function cmp(a: Val, b: Val): number {
  if (typeof a === "number" && typeof b === "number") return a === b ? 0 : a < b ? -1 : 1;
  if (typeof a === "boolean" && typeof b === "boolean") return Number(a) - Number(b);
  return cmpText(String(a), String(b));
}

/** The type two operands are compared as, deciding string literals the way DuckDB casts them. */
function unify(a: Ty, b: Ty, ea: Expr, eb: Expr): Ty {
  if (a === "null" || b === "null") return "null";
  if (a === b) return a === "strlit" ? "str" : a;
  if ((a === "str" && b === "strlit") || (a === "strlit" && b === "str")) return "str";
  const typed = a === "strlit" ? b : b === "strlit" ? a : null;
  if (typed === "date" || typed === "time" || typed === "timestamp" || typed === "uuid") {
    const lit = (a === "strlit" ? ea : eb) as Extract<Expr, { t: "lit" }>;
    if (typed === "uuid") {
      if (!UUID_RE.test(String(lit.v))) outside(`comparing a UUID with '${lit.v}'`);
    } else {
      lit.v = typedLiteral(typed, String(lit.v));
    }
    lit.ty = typed === "uuid" ? "strlit" : typed;
    return typed;
  }
  return outside(`comparing ${a === "strlit" ? "a string literal" : a} with ${b === "strlit" ? "a string literal" : b}`);
}

// -- binding and evaluation ----------------------------------------------------------------------

interface Binding { name: string; table: JsonObject; columns: { name: string; ty: Ty }[] }
type Row = (Val[] | null)[];

interface Scope { bindings: Binding[]; aliases: Set<string>; aggregates: boolean; grouped: Set<string> | null }

const SPECIAL_NAMES = new Set(["rowid", "current_date", "current_time", "current_timestamp", "localtime",
  "localtimestamp", "current_user", "user", "session_user", "current_schema", "current_catalog", "current_role",
  "current_database", "current_query"]);

type Bound =
  | { t: "col"; b: number; c: number; ty: Ty }
  | { t: "lit"; v: Val; ty: Ty }
  | { t: "cmp"; op: string; a: Bound; b: Bound; ty: Ty }
  | { t: "and" | "or"; a: Bound; b: Bound; ty: Ty }
  | { t: "not"; a: Bound; ty: Ty }
  | { t: "isnull"; a: Bound; neg: boolean; ty: Ty }
  | { t: "like"; a: Bound; re: RegExp | null; neg: boolean; ty: Ty }
  | { t: "agg"; fn: string; arg: Bound | null; distinct: boolean; ty: Ty };

function resolve(e: Extract<Expr, { t: "col" }>, scope: Scope): { b: number; c: number; ty: Ty } {
  const name = fold(e.name);
  if (e.q !== null) {
    const q = fold(e.q);
    const b = scope.bindings.findIndex((x) => x.name === q);
    if (b < 0) {
      if (scope.bindings.some((x) => x.columns.some((c) => fold(c.name) === q))) outside("a struct field access");
      return fail(`Referenced table "${e.q}" not found`);
    }
    const c = (scope.bindings[b] as Binding).columns.findIndex((x) => fold(x.name) === name);
    if (c < 0) fail(`table "${e.q}" has no column "${e.name}"`);
    return { b, c, ty: ((scope.bindings[b] as Binding).columns[c] as { ty: Ty }).ty };
  }
  const hits: { b: number; c: number; ty: Ty }[] = [];
  scope.bindings.forEach((binding, b) => binding.columns.forEach((col, c) => {
    if (fold(col.name) === name) hits.push({ b, c, ty: col.ty });
  }));
  if (hits.length === 1) return hits[0] as { b: number; c: number; ty: Ty };
  if (hits.length > 1) return fail(`ambiguous column reference "${e.name}"`);
  if (scope.aliases.has(name) || scope.bindings.some((x) => x.name === name) || SPECIAL_NAMES.has(name)) {
    return outside(`the name "${e.name}" (a select alias, a whole-row reference or a special name)`);
  }
  return fail(`Referenced column "${e.name}" not found`);
}

function bind(e: Expr, scope: Scope, inAggregate = false): Bound {
  switch (e.t) {
    case "col": {
      const r = resolve(e, scope);
      if (scope.aggregates && !inAggregate) {
        if (scope.grouped === null || !scope.grouped.has(`${r.b}.${r.c}`)) {
          fail(`column "${e.name}" must appear in the GROUP BY clause or be used in an aggregate function`);
        }
      }
      return { t: "col", ...r };
    }
    case "lit": return { t: "lit", v: e.v, ty: e.ty };
    case "cmp": case "between": case "in": {
      // unify may rewrite a string literal on either side into its canonical typed value, so the
      // operands are bound again after it.
      const pair = (other: Expr, op: string): Bound => {
        unify(bind(e.a, scope, inAggregate).ty, bind(other, scope, inAggregate).ty, e.a, other);
        return { t: "cmp", op, a: bind(e.a, scope, inAggregate), b: bind(other, scope, inAggregate), ty: "bool" };
      };
      if (e.t === "cmp") return pair(e.b, e.op);
      if (e.t === "between") {
        const lo = pair(e.lo, ">=");
        const hi = pair(e.hi, "<=");
        const both: Bound = { t: "and", a: lo, b: hi, ty: "bool" };
        return e.neg ? { t: "not", a: both, ty: "bool" } : both;
      }
      if (e.items.length === 0) outside("an empty IN list");
      let any: Bound = pair(e.items[0] as Expr, "=");
      for (const item of e.items.slice(1)) any = { t: "or", a: any, b: pair(item, "="), ty: "bool" };
      return e.neg ? { t: "not", a: any, ty: "bool" } : any;
    }
    case "and": case "or": {
      const a = bind(e.a, scope, inAggregate);
      const b = bind(e.b, scope, inAggregate);
      for (const x of [a, b]) if (x.ty !== "bool" && x.ty !== "null") outside(`${e.t.toUpperCase()} over a ${x.ty} value`);
      return { t: e.t, a, b, ty: "bool" };
    }
    case "not": {
      const a = bind(e.a, scope, inAggregate);
      if (a.ty !== "bool" && a.ty !== "null") outside(`NOT over a ${a.ty} value`);
      return { t: "not", a, ty: "bool" };
    }
    case "isnull": return { t: "isnull", a: bind(e.a, scope, inAggregate), neg: e.neg, ty: "bool" };
    case "like": {
      const a = bind(e.a, scope, inAggregate);
      const p = bind(e.pattern, scope, inAggregate);
      if (a.ty !== "str" && a.ty !== "strlit" && a.ty !== "null") outside(`LIKE over a ${a.ty} value`);
      if (p.t !== "lit" || (p.ty !== "strlit" && p.ty !== "null")) return outside("LIKE with a pattern that is not a string literal");
      if (p.v === null) return { t: "like", a, re: null, neg: e.neg, ty: "bool" };
      const text = String(p.v);
      if (text.includes("\\")) outside("a LIKE pattern with a backslash");
      const source = Array.from(text).map((ch) => ch === "%" ? "[^]*" : ch === "_" ? "[^]" : ch.replace(/[\\^$.*+?()[\]{}|/]/g, "\\$&")).join("");
      return { t: "like", a, re: new RegExp(`^${source}$`, "u"), neg: e.neg, ty: "bool" };
    }
    case "agg": {
      if (inAggregate) outside("an aggregate inside an aggregate");
      if (!scope.aggregates) fail("aggregate functions are not allowed here");
      const arg = e.arg === null ? null : bind(e.arg, scope, true);
      if (e.fn === "avg") outside("avg()");
      if (e.fn === "sum" && arg !== null && arg.ty !== "num" && arg.ty !== "null") outside(`sum() over ${arg.ty} values`);
      const ty: Ty = e.fn === "count" ? "num" : e.fn === "sum" ? "num" : (arg as Bound).ty;
      return { t: "agg", fn: e.fn, arg, distinct: e.distinct, ty };
    }
  }
}

function hasAggregate(e: Expr): boolean {
  switch (e.t) {
    case "agg": return true;
    case "col": case "lit": return false;
    case "cmp": case "and": case "or": return hasAggregate(e.a) || hasAggregate(e.b);
    case "not": case "isnull": return hasAggregate(e.a);
    case "between": return hasAggregate(e.a) || hasAggregate(e.lo) || hasAggregate(e.hi);
    case "in": return hasAggregate(e.a) || e.items.some(hasAggregate);
    case "like": return hasAggregate(e.a) || hasAggregate(e.pattern);
  }
}

function evaluate(e: Bound, row: Row, group: Row[] | null): Val {
  switch (e.t) {
    case "col": { const r = row[e.b]; return r === null || r === undefined ? null : (r[e.c] as Val); }
    case "lit": return e.v;
    case "cmp": {
      const a = evaluate(e.a, row, group);
      const b = evaluate(e.b, row, group);
      if (a === null || b === null) return null;
      const c = cmp(a, b);
      switch (e.op) {
        case "=": return c === 0;
        case "<>": return c !== 0;
        case "<": return c < 0;
        case "<=": return c <= 0;
        case ">": return c > 0;
        default: return c >= 0;
      }
    }
    case "and": {
      const a = evaluate(e.a, row, group);
      const b = evaluate(e.b, row, group);
      if (a === false || b === false) return false;
      return a === null || b === null ? null : true;
    }
    case "or": {
      const a = evaluate(e.a, row, group);
      const b = evaluate(e.b, row, group);
      if (a === true || b === true) return true;
      return a === null || b === null ? null : false;
    }
    case "not": { const a = evaluate(e.a, row, group); return a === null ? null : !a; }
    case "isnull": { const a = evaluate(e.a, row, group); return (a === null) !== e.neg; }
    case "like": {
      const a = evaluate(e.a, row, group);
      if (a === null || e.re === null) return null;
      return e.re.test(String(a)) !== e.neg;
    }
    case "agg": {
      const rows = group ?? [];
      if (e.arg === null) return rows.length;
      let values = rows.map((r) => evaluate(e.arg as Bound, r, null)).filter((v): v is Exclude<Val, null> => v !== null);
      if (e.distinct) values = [...new Map(values.map((v) => [JSON.stringify(v), v])).values()];
      if (e.fn === "count") return values.length;
      if (values.length === 0) return null;
      if (e.fn === "sum") {
        if (!values.every((v) => Number.isInteger(v))) outside("sum() over fractional values");
        return (values as number[]).reduce((x, y) => x + y, 0);
      }
      return values.reduce((x, y) => ((cmp(x, y) <= 0) === (e.fn === "min") ? x : y));
    }
  }
}

// -- the state as tables ----------------------------------------------------------------------------

function tableColumns(table: JsonObject): { name: string; ty: Ty; type: string }[] {
  const columns = get(table, "columns");
  return (Array.isArray(columns) ? columns.filter(isObject) : []).map((c) => ({
    name: String(get(c, "name")), type: String(get(c, "type")), ty: columnTy(String(get(c, "type"))),
  }));
}

/** What `checkLoadable` found for a table it has seen: nothing, or what it threw. A state is judged
 * several times (every predicate of a task, the frame), and checking thousands of rows is the bulk. */
const loadable = new WeakMap<JsonObject, { thrown: unknown } | null>();

/** What `open_database` would make of the tables a query names (only those are loaded for a verdict:
 * servers/postgres query_state): fail on what DuckDB refuses to load, and be undecided on text DuckDB
 * would read differently than the state writes it. */
function checkLoadable(tables: JsonObject[]): void {
  for (const table of tables) {
    const known = loadable.get(table);
    if (known === undefined) {
      try {
        checkTable(table);
        loadable.set(table, null);
      } catch (exc) {
        loadable.set(table, { thrown: exc });
        throw exc;
      }
    } else if (known !== null) {
      throw known.thrown;
    }
  }
}

function checkTable(table: JsonObject): void {
  const columns = tableColumns(table).map((col) => {
    const decimal = /^DECIMAL\(\d+,(\d+)\)$/.exec(col.type);
    return { ...col, scale: decimal ? 10 ** Number(decimal[1]) : null };
  });
  const rows = (get(table, "rows") as Json[] | undefined) ?? [];
  for (const row of rows) {
    if (!Array.isArray(row)) continue;
    for (let i = 0; i < columns.length; i++) {
      const col = columns[i] as (typeof columns)[number];
      const v = row[i];
      if (v === null || v === undefined) continue;
      if (col.ty === "date" || col.ty === "time" || col.ty === "timestamp" || col.ty === "uuid") {
        const text = String(v);
        if (col.ty === "date" && !validDate(text)) (DATE_RE.test(text) ? fail : outside)(`the DATE value '${text}'`);
        if (col.ty === "time" && !validTime(text)) outside(`the TIME value '${text}'`);
        if (col.ty === "timestamp" && !validTimestamp(text)) outside(`the TIMESTAMP value '${text}'`);
        if (col.ty === "uuid" && !UUID_RE.test(text)) outside(`the UUID value '${text}'`);
      }
      if (col.scale !== null && typeof v === "number" && Math.round(v * col.scale) / col.scale !== v) {
        outside(`the DECIMAL value ${v} with more digits than its scale`);
      }
    }
  }
  const pk = get(table, "primary_key");
  if (Array.isArray(pk) && pk.length > 0) {
    const idx = pk.map((k) => columns.findIndex((c) => fold(c.name) === fold(String(k))));
    const seen = new Set<string>();
    for (const row of rows) {
      if (!Array.isArray(row)) continue;
      const keyValues = idx.map((i) => row[i] ?? null);
      if (keyValues.some((v) => v === null)) fail("a primary key column holds NULL");
      const k = JSON.stringify(keyValues);
      if (seen.has(k)) fail(`duplicate primary key ${k} in table ${String(get(table, "name"))}`);
      seen.add(k);
    }
  }
}

/** The number of rows `sql` returns on the dumped postgres `state`. Throws `SqlFailure` where DuckDB
 * would fail (the primitive is then false) and `Undecidable` outside the subset. */
export function countRows(state: JsonObject, sql: string): number {
  const statements: Tok[][] = [[]];
  for (const t of tokenize(sql)) {
    if (t.k === "op" && t.v === ";") statements.push([]);
    else (statements[statements.length - 1] as Tok[]).push(t);
  }
  const nonEmpty = statements.filter((s) => s.length > 0);
  if (nonEmpty.length !== 1) fail(nonEmpty.length === 0 ? "no SQL statement given" : "more than one statement");
  const toks = nonEmpty[0] as Tok[];
  const first = toks[0] as Tok;
  const word = first.k === "id" ? first.v.toUpperCase() : "";
  if (word !== "SELECT") {
    if (MAYBE_SELECT.has(word) || (first.k === "op" && first.v === "(")) outside(`a query starting with ${first.v}`);
    fail(NOT_SELECT.has(word) ? `only SELECT is allowed (got ${word})` : "syntax error");
  }
  const q = new Parser(toks).select();

  const tablesJson = get(state, "tables");
  const tables = (Array.isArray(tablesJson) ? tablesJson : []).filter(isObject);
  const named = new Set(q.from.map((s) => fold(s.table)));
  checkLoadable(tables.filter((t) => named.has(fold(String(get(t, "name"))))));
  const bindings: Binding[] = q.from.map((s) => {
    const table = tables.find((t) => fold(String(get(t, "name"))) === fold(s.table));
    if (table === undefined) return fail(`Table with name ${s.table} does not exist`);
    return { name: fold(s.alias ?? s.table), table, columns: tableColumns(table) };
  });
  if (new Set(bindings.map((b) => b.name)).size !== bindings.length) outside("two sources with the same name");
  const aliases = new Set(q.items.flatMap((it) => (!it.star && it.alias !== null ? [fold(it.alias)] : [])));

  // Joins: each ON sees the sources before it and its own.
  let rows: Row[] = [[]];
  q.from.forEach((source, k) => {
    const scope: Scope = { bindings: bindings.slice(0, k + 1), aliases, aggregates: false, grouped: null };
    const on = source.on === null ? null : bind(source.on, scope);
    if (on !== null && on.ty !== "bool" && on.ty !== "null") outside("an ON condition that is not a comparison");
    if (source.on !== null && hasAggregate(source.on)) fail("aggregates are not allowed in ON");
    const tableRows = ((get((bindings[k] as Binding).table, "rows") as Json[] | undefined) ?? []).filter(Array.isArray) as Val[][];
    const next: Row[] = [];
    for (const left of rows) {
      let matched = false;
      for (const right of tableRows) {
        const row = [...left, right];
        if (on === null || evaluate(on, row, null) === true) { next.push(row); matched = true; }
      }
      if (source.join === "left" && !matched) next.push([...left, null]);
    }
    rows = next;
  });

  const plain: Scope = { bindings, aliases, aggregates: false, grouped: null };
  if (q.where !== null) {
    if (hasAggregate(q.where)) fail("WHERE clause cannot contain aggregates");
    const where = bind(q.where, plain);
    if (where.ty !== "bool" && where.ty !== "null") outside(`a WHERE condition of type ${where.ty}`);
    rows = rows.filter((r) => evaluate(where, r, null) === true);
  }

  const aggregated = q.groupBy.length > 0 || q.having !== null
    || q.items.some((it) => !it.star && hasAggregate(it.expr));
  let count: number;
  if (aggregated) {
    if (q.items.some((it) => it.star)) outside("SELECT * with aggregates or GROUP BY");
    if (q.orderBy.length > 0) outside("ORDER BY in an aggregate query");
    const keys = q.groupBy.map((g) => {
      if (g.t !== "col") return outside("GROUP BY of something other than a column");
      if (hasAggregate(g)) fail("GROUP BY cannot contain aggregates");
      return resolve(g, plain);
    });
    const scope: Scope = { bindings, aliases, aggregates: true, grouped: new Set(keys.map((k) => `${k.b}.${k.c}`)) };
    q.items.forEach((it) => { if (!it.star) bind(it.expr, scope); });
    const having = q.having === null ? null : bind(q.having, scope);
    if (having !== null && having.ty !== "bool" && having.ty !== "null") outside(`a HAVING condition of type ${having.ty}`);
    let groups: Row[][];
    if (keys.length === 0) {
      groups = [rows];
    } else {
      const byKey = new Map<string, Row[]>();
      for (const r of rows) {
        const k = JSON.stringify(keys.map((key) => (r[key.b] ?? null)?.[key.c] ?? null));
        (byKey.get(k) ?? byKey.set(k, []).get(k) as Row[]).push(r);
      }
      groups = [...byKey.values()];
    }
    count = groups.filter((g) => having === null || evaluate(having, g[0] ?? [], g) === true).length;
    if (q.distinct) outside("SELECT DISTINCT with aggregates");
  } else {
    const projections = q.items.map((it) => {
      if (it.star) {
        if (it.q !== null) {
          const b = bindings.findIndex((x) => x.name === fold(it.q as string));
          if (b < 0) fail(`Referenced table "${it.q}" not found`);
          return { star: b };
        }
        return { star: -1 };
      }
      return { expr: bind(it.expr, plain) };
    });
    for (const o of q.orderBy) {
      if (o.t === "lit" && typeof o.v === "number") {
        if (!Number.isInteger(o.v) || o.v < 1 || o.v > q.items.length) fail("ORDER BY position out of range");
        continue;
      }
      if (o.t === "col" && o.q === null && aliases.has(fold(o.name))) continue;
      if (q.distinct) outside("ORDER BY with SELECT DISTINCT");
      bind(o, plain);
    }
    count = rows.length;
    if (q.distinct) {
      const project = (r: Row): Val[] => projections.flatMap((p) => {
        if ("expr" in p) return [evaluate(p.expr as Bound, r, null)];
        const sources = p.star === -1 ? r : [r[p.star] ?? null];
        return sources.flatMap((s, i) => s ?? (bindings[p.star === -1 ? i : p.star] as Binding).columns.map(() => null));
      });
      count = new Set(rows.map((r) => JSON.stringify(project(r)))).size;
    }
  }
  if (q.offset !== null) count = Math.max(0, count - q.offset);
  if (q.limit !== null) count = Math.min(count, q.limit);
  return count;
}
