/** The primitive registry: each primitive is a key `server.name`, an argument spec and a pure function. */

import type { ArgSpec } from "./args";
import type { Json, JsonObject } from "./values";

export const SERVERS = [
  "filesystem", "github", "postgres", "slack", "gmail", "browser", "calendar", "linear", "stripe", "notion",
] as const;
export type Server = (typeof SERVERS)[number];

/** A primitive's function: the dumped state (`model_dump(mode="json")`) and its checked arguments. */
export type PrimitiveFn = (state: JsonObject, args: JsonObject) => boolean;

/** A primitive's explainer: `[expected, found]`, what a clause of it asks and what the state holds around
 * it (tasks_catalog/predicates' explainers; the words may differ, the clause ids may not). */
export type ExplainFn = (state: JsonObject, args: JsonObject) => [string, string];

export interface Primitive {
  server: Server;
  name: string;
  args: ArgSpec;
  fn: PrimitiveFn;
  explain: ExplainFn;
}

export const key = (p: Primitive): string => `${p.server}.${p.name}`;

/** Build a server's primitives table (keyed `server.name`) from `name -> [args, fn]` and `name ->
 * explainer`; every primitive needs its explainer. */
export function definePrimitives(server: Server, defs: Record<string, [ArgSpec, PrimitiveFn]>,
                                 explainers: Record<string, ExplainFn>): Primitive[] {
  return Object.entries(defs).map(([name, [args, fn]]) => {
    const explain = explainers[name];
    if (explain === undefined) throw new Error(`${server}.${name} has no explainer`);
    return { server, name, args, fn, explain };
  });
}

/** The argument as given, with an absent optional argument read as null (Python's default None). */
export function arg(args: JsonObject, name: string): Json {
  return Object.prototype.hasOwnProperty.call(args, name) ? (args[name] as Json) : null;
}
