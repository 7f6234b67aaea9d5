/**
 * Predicates: JSON trees of `all`/`any`/`not` over per-server primitives (docs/predicates.md).
 * `check` finds every static problem, each with its JSON path, as tasks_catalog/predicates does;
 * `evaluate` decides a well-formed predicate on a server's dumped final state.
 */

import { checkArgs, Problem } from "./args";
import { explainFalse, Explanation } from "./explain";
import { key, Primitive, Server, SERVERS } from "./registry";
import { isObject, Json, JsonObject } from "./values";
import browser from "./servers/browser";
import calendar from "./servers/calendar";
import filesystem from "./servers/filesystem";
import github from "./servers/github";
import gmail from "./servers/gmail";
import linear from "./servers/linear";
import notion from "./servers/notion";
import postgres from "./servers/postgres";
import slack from "./servers/slack";
import stripe from "./servers/stripe";

export type { Problem } from "./args";

/** Every primitive, keyed `server.name`. */
export const PRIMITIVES: ReadonlyMap<string, Primitive> = new Map(
  [filesystem, github, postgres, slack, gmail, browser, calendar, linear, stripe, notion].flat().map((p) => [key(p), p]),
);

export class InvalidPredicate extends Error {
  override name = "InvalidPredicate";
  constructor(readonly problems: Problem[]) {
    super(problems.map((p) => `${p.path}: ${p.message}`).join("; "));
  }
}

export function isServer(name: unknown): name is Server {
  return typeof name === "string" && (SERVERS as readonly string[]).includes(name);
}

const IDENTIFIER = /^[\p{L}\p{Nl}_][\p{L}\p{N}\p{Mn}\p{Mc}\p{Pc}]*$/u;

/** Every static problem of `pred` for a task on `server` (empty when it is well formed). */
export function check(pred: Json, server: string, path = "$"): Problem[] {
  const out: Problem[] = [];
  walk(pred, server, path, out);
  return out;
}

function walk(pred: Json, server: string, path: string, out: Problem[]): void {
  if (!isObject(pred) || Object.keys(pred).length !== 1) {
    out.push({ path, message: "a predicate is an object with exactly one key" });
    return;
  }
  const [name, body] = Object.entries(pred)[0] as [string, Json];
  const here = IDENTIFIER.test(name) ? `${path}.${name}` : `${path}["${name}"]`;
  if (name === "all" || name === "any") {
    if (!Array.isArray(body) || body.length === 0) {
      out.push({ path: here, message: `'${name}' takes a non-empty list of predicates` });
      return;
    }
    body.forEach((sub, i) => walk(sub, server, `${here}[${i}]`, out));
    return;
  }
  if (name === "not") {
    walk(body, server, here, out);
    return;
  }
  const prim = PRIMITIVES.get(name);
  if (prim === undefined) {
    const prefix = name.includes(".") ? name.slice(0, name.indexOf(".")) : "";
    const names = [...PRIMITIVES.values()].filter((p) => p.server === prefix).map((p) => p.name).sort();
    out.push({
      path: here,
      message: names.length > 0
        ? `unknown primitive '${name}'; ${prefix} has: ${names.join(", ")}`
        : `unknown primitive '${name}'; expected all/any/not or <server>.<name>`,
    });
    return;
  }
  if (prim.server !== server) {
    out.push({ path: here, message: `primitive '${name}' belongs to server '${prim.server}', not '${server}'` });
    return;
  }
  out.push(...checkArgs(body, prim.args, here));
}

/** Decide `pred` on `state` (the server's `model_dump(mode="json")`). The predicate must pass `check`.
 *
 * `breakPrimitive` names one primitive key whose verdict is inverted. It exists only so the
 * conformance test can prove that a broken primitive is caught (env MCPBENCH_TS_BREAK in the CLI). */
export function evaluate(pred: Json, state: JsonObject, breakPrimitive: string | null = null): boolean {
  const [name, body] = Object.entries(pred as JsonObject)[0] as [string, Json];
  if (name === "all") return (body as Json[]).every((p) => evaluate(p, state, breakPrimitive));
  if (name === "any") return (body as Json[]).some((p) => evaluate(p, state, breakPrimitive));
  if (name === "not") return !evaluate(body, state, breakPrimitive);
  const prim = PRIMITIVES.get(name);
  if (prim === undefined) throw new InvalidPredicate([{ path: "$", message: `unknown primitive '${name}'` }]);
  const verdict = prim.fn(state, body as JsonObject);
  return name === breakPrimitive ? !verdict : verdict;
}

/** Why `pred` is false on `state` (null when it holds): its failing clauses, described (src/explain.ts).
 * `breakPrimitive` as in `evaluate`. */
export function explain(pred: Json, state: JsonObject, breakPrimitive: string | null = null): Explanation | null {
  const decide = (p: Json, s: JsonObject) => evaluate(p, s, breakPrimitive);
  return decide(pred, state) ? null : explainFalse(pred, state, decide, PRIMITIVES);
}
