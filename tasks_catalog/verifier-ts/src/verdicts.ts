/** Verdicts for a batch of cases: what the CLI answers, one entry per case. */

import { PatternError } from "./pattern";
import { check, evaluate, explain, isServer } from "./predicate";
import type { FailedClause } from "./explain";
import { Problem } from "./args";
import { isObject, Json, Undecidable } from "./values";

export interface Case {
  server: string;
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

/** Validate the CLI's input: a JSON array of `{server, state, predicate}`. */
export function parseCases(input: Json): Case[] {
  if (!Array.isArray(input)) throw new InputError("input must be a JSON array of {server, state, predicate}");
  return input.map((item, i) => {
    if (!isObject(item)) throw new InputError(`$[${i}]: expected an object {server, state, predicate}`);
    for (const field of ["server", "state", "predicate"]) {
      if (!Object.prototype.hasOwnProperty.call(item, field)) throw new InputError(`$[${i}].${field}: missing`);
    }
    if (!isServer(item.server)) throw new InputError(`$[${i}].server: unknown server ${JSON.stringify(item.server)}`);
    if (!isObject(item.state)) throw new InputError(`$[${i}].state: expected an object (the dumped state)`);
    return { server: item.server as string, state: item.state as Json, predicate: item.predicate as Json };
  });
}

export function verdicts(cases: Case[], breakPrimitive: string | null = null, explained = false): Verdict[] {
  return cases.map((c) => {
    const problems = check(c.predicate, c.server);
    if (problems.length > 0) {
      return { verdict: null, error: problems.map((p) => `${p.path}: ${p.message}`).join("; "), problems };
    }
    try {
      const state = c.state as { [k: string]: Json };
      if (explained) {
        const why = explain(c.predicate, state, breakPrimitive);
        return why === null ? true : { verdict: false, ...why };
      }
      return evaluate(c.predicate, state, breakPrimitive);
    } catch (exc) {
      if (exc instanceof Undecidable || exc instanceof PatternError) return { verdict: null, error: exc.message };
      throw exc;
    }
  });
}
