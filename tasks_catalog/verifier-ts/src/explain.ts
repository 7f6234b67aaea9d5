/**
 * Why a predicate is false: its failing clauses, each with what it asks and what the state held, as
 * `explain` in tasks_catalog/predicates does. The clause ids are the same in both verifiers (the
 * conformance corpus and the gate hold them to it); the words of `expected` and `found` may differ.
 *
 * A clause id is the clause's JSON path in the predicate: `$` for the whole, `$.all[2]`,
 * `$.any[0].all[1]`, `$.all[1].not` for the body of a `not`. The failing clauses of a false predicate:
 * a false primitive is the clause; `all`: the failing clauses of each false member; `any`: those of
 * every member; `not`: its body (which holds) as one clause, `negated`, whatever its shape.
 */

import type { Primitive } from "./registry";
import { isObject, Json, JsonObject } from "./values";

export interface FailedClause {
  clause: string;
  primitive: string;
  negated: boolean;
  args?: JsonObject;
  expected: string;
  found: string;
}

/** How many failing clauses are described (the rest are counted), and the most of a `found` text. */
export const EXPLAINED_CLAUSES = 8;
export const FOUND_KEPT = 600;

export interface Explanation {
  /** the id of every failing clause, in predicate order (what the two verifiers must agree on) */
  failing: string[];
  /** the first EXPLAINED_CLAUSES of them, described */
  clauses: FailedClause[];
  clauses_omitted: number;
}

type Evaluate = (pred: Json, state: JsonObject) => boolean;

/** `[clause id, clause, negated]` of every clause that decides `pred`'s false verdict, in predicate order. */
export function failingClauses(pred: Json, state: JsonObject, evaluate: Evaluate, path = "$"): [string, Json, boolean][] {
  const [name, body] = Object.entries(pred as JsonObject)[0] as [string, Json];
  if (name === "all") {
    return (body as Json[]).flatMap((sub, i) =>
      evaluate(sub, state) ? [] : failingClauses(sub, state, evaluate, `${path}.all[${i}]`));
  }
  if (name === "any") return (body as Json[]).flatMap((sub, i) => failingClauses(sub, state, evaluate, `${path}.any[${i}]`));
  if (name === "not") return [[`${path}.not`, body, true]];
  return [[path, pred, false]];
}

/** The first EXPLAINED_CLAUSES failing clauses of `pred` (false on `state`), described. */
export function explainFalse(pred: Json, state: JsonObject, evaluate: Evaluate,
                             primitives: ReadonlyMap<string, Primitive>,
                             stateOf: (server: string) => JsonObject = () => state): Explanation {
  const found = failingClauses(pred, state, evaluate);
  return {
    failing: found.map(([clause]) => clause),
    clauses: found.slice(0, EXPLAINED_CLAUSES).map(([clause, node, negated]) => described(clause, node, negated, stateOf, primitives)),
    clauses_omitted: Math.max(0, found.length - EXPLAINED_CLAUSES),
  };
}

function described(clause: string, node: Json, negated: boolean, stateOf: (server: string) => JsonObject,
                   primitives: ReadonlyMap<string, Primitive>): FailedClause {
  const [name, body] = Object.entries(node as JsonObject)[0] as [string, Json];
  const prim = primitives.get(name);
  if (prim === undefined) {  // the body of a not, itself a compound: it holds
    const size = name === "not" ? 1 : (body as Json[]).length;
    return { clause, primitive: name, negated, expected: `not (${name} of ${size} clauses)`, found: "it holds" };
  }
  let expected: string;
  let found: string;
  try {
    [expected, found] = prim.explain(stateOf(prim.server), body as JsonObject);
  } catch (exc) {  // an explainer's bug must never cost the verdict
    [expected, found] = [name, `(the state could not be described: ${(exc as Error).name})`];
  }
  return { clause, primitive: name, negated, args: isObject(body) ? body : {},
           expected: negated ? `not (${expected})` : expected, found: found.slice(0, FOUND_KEPT) };
}

// -- helpers of the explainers: short, one-line renderings of what a state holds ---------------------

/** `text` on one line, quoted, cut at `limit` characters (`…` says it was cut). */
export function shown(text: string | null | undefined, limit = 80): string {
  if (text === null || text === undefined) return "null";
  const line = text.split(/\s+/).filter((w) => w !== "").join(" ");
  return JSON.stringify(line.length > limit ? `${line.slice(0, limit)}…` : line);
}

/** The first `limit` items, comma-separated, and how many more; `none` for no item. */
export function listing(items: Iterable<unknown>, limit = 6): string {
  const all = [...items].map(String);
  if (all.length === 0) return "none";
  return all.slice(0, limit).join(", ") + (all.length > limit ? ` and ${all.length - limit} more` : "");
}

/** A state value as JSON. */
export function value(v: unknown): string {
  return v === undefined ? "absent" : JSON.stringify(v);
}

/** A regex argument, as shown in an explanation. */
export function pattern(p: unknown): string {
  return `/${String(p)}/`;
}

/** A name argument, quoted as the Python explainers quote it. */
export function quoted(v: unknown): string {
  return `'${String(v)}'`;
}

/** The rows matching the most pairs of `where`, shown by `where`'s keys: what comes nearest to a row the
 * clause asks for. */
export function closest(rows: JsonObject[], where: JsonObject, equal: (a: Json, b: Json) => boolean, limit = 2): string {
  const keys = Object.keys(where);
  if (rows.length === 0 || keys.length === 0) return "none";
  const scored = rows.map((row) => keys.filter((k) => Object.prototype.hasOwnProperty.call(row, k) && equal(where[k] as Json, row[k] as Json)).length);
  const best = Math.max(...scored);
  const near = rows.filter((_, i) => scored[i] === best).slice(0, limit);
  return near.map((row) => `{${keys.map((k) => `${k}: ${Object.prototype.hasOwnProperty.call(row, k) ? value(row[k]) : "absent"}`).join(", ")}}`).join("; ")
    + ` (${best} of ${keys.length} conditions hold)`;
}
