/** Verdicts for a batch of cases: what the CLI answers, one entry per case. */

import { PatternError } from "./pattern";
import { check, evaluate, evaluateAcross, explain, explainAcross, isServer } from "./predicate";
import type { FailedClause } from "./explain";
import { Problem } from "./args";
import { isObject, Json, JsonObject, Undecidable } from "./values";

export interface Case {
  /** The server, or a cross-server case's servers (2 to 4), whose `state` is then keyed by them. */
  server: string | string[];
  state: Json;
  predicate: Json;
}

/** `true`/`false`, or `{verdict: null, error, problems?}` when the case cannot be decided: a malformed
 * predicate (`problems` names each JSON path) or a primitive this verifier cannot decide. Asked to
 * explain, a false verdict is `{verdict: false, failing, clauses, clauses_omitted}`: the ids of its failing
 * clauses, and the first of them described. */
export type Verdict = boolean | { verdict: null; error: string; problems?: Problem[] }
  | { verdict: false; failing: string[]; clauses: FailedClause[]; clauses_omitted: number };

export class InputError extends Error {
  override name = "InputError";
}

const MIN_SERVERS = 2;
const MAX_SERVERS = 4;

/** The server a case names (`server`), or a cross-server case's servers (`servers`: 2 to 4 distinct
 * servers); `at` is where the case is, for the error. */
export function caseServer(item: JsonObject, at: string): string | string[] {
  const has = (field: string) => Object.prototype.hasOwnProperty.call(item, field);
  if (has("server") === has("servers")) throw new InputError(`${at}: a case names its server or its servers, exactly one of the two`);
  if (has("server")) {
    if (!isServer(item.server)) throw new InputError(`${at}.server: unknown server ${JSON.stringify(item.server)}`);
    return item.server as string;
  }
  const servers = item.servers;
  if (!Array.isArray(servers) || servers.length < MIN_SERVERS || servers.length > MAX_SERVERS) {
    throw new InputError(`${at}.servers: expected a list of ${MIN_SERVERS} to ${MAX_SERVERS} servers`);
  }
  servers.forEach((s, j) => {
    if (!isServer(s)) throw new InputError(`${at}.servers[${j}]: unknown server ${JSON.stringify(s)}`);
  });
  if (new Set(servers).size !== servers.length) throw new InputError(`${at}.servers: names a server twice`);
  return servers as string[];
}

/** Whether `state` is what a case on `server` judges: a dumped state, or for a cross-server case an
 * object holding a dumped state for each of its servers (and nothing else). */
export function isStateOf(server: string | string[], state: Json | undefined): boolean {
  if (!isObject(state)) return false;
  if (typeof server === "string") return true;
  const keys = Object.keys(state);
  return keys.length === server.length && server.every((s) => Object.prototype.hasOwnProperty.call(state, s) && isObject(state[s]));
}

/** Validate the CLI's input: a JSON array of `{server, state, predicate}`, or of `{servers, state,
 * predicate}` with `state` keyed by the servers. */
export function parseCases(input: Json): Case[] {
  if (!Array.isArray(input)) throw new InputError("input must be a JSON array of {server, state, predicate}");
  return input.map((item, i) => {
    if (!isObject(item)) throw new InputError(`$[${i}]: expected an object {server, state, predicate}`);
    for (const field of ["state", "predicate"]) {
      if (!Object.prototype.hasOwnProperty.call(item, field)) throw new InputError(`$[${i}].${field}: missing`);
    }
    const server = caseServer(item, `$[${i}]`);
    if (!isStateOf(server, item.state)) {
      throw new InputError(typeof server === "string" ? `$[${i}].state: expected an object (the dumped state)`
        : `$[${i}].state: expected an object holding a dumped state for each of ${server.join(", ")}`);
    }
    return { server, state: item.state as Json, predicate: item.predicate as Json };
  });
}

export function verdicts(cases: Case[], breakPrimitive: string | null = null, explained = false): Verdict[] {
  return cases.map((c) => {
    const problems = check(c.predicate, c.server);
    if (problems.length > 0) {
      return { verdict: null, error: problems.map((p) => `${p.path}: ${p.message}`).join("; "), problems };
    }
    try {
      const across = typeof c.server !== "string";
      if (explained) {
        const why = across
          ? explainAcross(c.predicate, c.state as { [k: string]: JsonObject }, breakPrimitive)
          : explain(c.predicate, c.state as { [k: string]: Json }, breakPrimitive);
        return why === null ? true : { verdict: false, ...why };
      }
      if (across) return evaluateAcross(c.predicate, c.state as { [k: string]: JsonObject }, breakPrimitive);
      return evaluate(c.predicate, c.state as { [k: string]: Json }, breakPrimitive);
    } catch (exc) {
      if (exc instanceof Undecidable || exc instanceof PatternError) return { verdict: null, error: exc.message };
      throw exc;
    }
  });
}
