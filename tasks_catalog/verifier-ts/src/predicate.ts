/**
 * Predicates: JSON trees of `all`/`any`/`not` over per-server primitives (docs/predicates.md).
 * `check` finds every static problem, each with its JSON path, as tasks_catalog/predicates does;
 * `evaluate` decides a well-formed predicate on a server's dumped final state, `evaluateAcross` on a
 * cross-server task's final states (each primitive `<server>.<name>` on its server's).
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

/** Every static problem of `pred` for a task on `server`, or on each of `servers` (a cross-server
 * task's: a primitive of any of them is allowed) (empty when it is well formed). */
export function check(pred: Json, server: string | readonly string[], path = "$"): Problem[] {
  const out: Problem[] = [];
  walk(pred, typeof server === "string" ? [server] : server, path, out);
  return out;
}

function walk(pred: Json, servers: readonly string[], path: string, out: Problem[]): void {
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
    body.forEach((sub, i) => walk(sub, servers, `${here}[${i}]`, out));
    return;
  }
  if (name === "not") {
    walk(body, servers, here, out);
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
  if (!servers.includes(prim.server)) {
    out.push({
      path: here,
      message: servers.length === 1
        ? `primitive '${name}' belongs to server '${prim.server}', not '${servers[0]}'`
        : `primitive '${name}' belongs to server '${prim.server}', which this task does not name (its servers: ${servers.join(", ")})`,
    });
    return;
  }
  out.push(...checkArgs(body, prim.args, here));
}

/** Decide `pred` on `state` (the server's `model_dump(mode="json")`). The predicate must pass `check`.
 *
 * `breakPrimitive` names one primitive key whose verdict is inverted. It exists only so the
 * conformance test can prove that a broken primitive is caught (env MCPBENCH_TS_BREAK in the CLI). */
export function evaluate(pred: Json, state: JsonObject, breakPrimitive: string | null = null): boolean {
  return decide(pred, () => state, breakPrimitive);
}

/** Decide `pred` on a cross-server task's final states, keyed by server: each primitive on its own
 * server's state. The predicate must pass `check` for those servers. */
export function evaluateAcross(pred: Json, states: { [server: string]: JsonObject },
                               breakPrimitive: string | null = null): boolean {
  return decide(pred, (server) => {
    const state = Object.prototype.hasOwnProperty.call(states, server) ? states[server] : undefined;
    if (state === undefined) {
      throw new InvalidPredicate([{ path: "$", message: `no state of server '${server}' (the states are ${Object.keys(states).join(", ")})` }]);
    }
    return state;
  }, breakPrimitive);
}

function decide(pred: Json, stateOf: (server: string) => JsonObject, breakPrimitive: string | null): boolean {
  const [name, body] = Object.entries(pred as JsonObject)[0] as [string, Json];
  if (name === "all") return (body as Json[]).every((p) => decide(p, stateOf, breakPrimitive));
  if (name === "any") return (body as Json[]).some((p) => decide(p, stateOf, breakPrimitive));
  if (name === "not") return !decide(body, stateOf, breakPrimitive);
  const prim = PRIMITIVES.get(name);
  if (prim === undefined) throw new InvalidPredicate([{ path: "$", message: `unknown primitive '${name}'` }]);
  const verdict = prim.fn(stateOf(prim.server), body as JsonObject);
  return name === breakPrimitive ? !verdict : verdict;
}

/** Why `pred` is false on `state` (null when it holds): its failing clauses, described (src/explain.ts).
 * `breakPrimitive` as in `evaluate`. */
export function explain(pred: Json, state: JsonObject, breakPrimitive: string | null = null): Explanation | null {
  const decide = (p: Json, s: JsonObject) => evaluate(p, s, breakPrimitive);
  return decide(pred, state) ? null : explainFalse(pred, state, decide, PRIMITIVES);
}

/** `explain` for a cross-server task's final states, keyed by server: each clause described on its
 * primitive's server's state. */
export function explainAcross(pred: Json, states: { [server: string]: JsonObject },
                              breakPrimitive: string | null = null): Explanation | null {
  const decide = (p: Json, s: JsonObject) => evaluateAcross(p, s as { [server: string]: JsonObject }, breakPrimitive);
  return decide(pred, states) ? null
    : explainFalse(pred, states, decide, PRIMITIVES, (server) => states[server] as JsonObject);
}
