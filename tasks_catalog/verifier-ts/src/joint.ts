/**
 * The CLI's `--judge` mode: verdicts and frame judgements in one call, each dumped state sent once.
 *
 * Input `{"states": [state, ...], "verdicts": [{server, state, predicate}], "frames": [{server, initial,
 * final, frame}]}`, where `state`, `initial` and `final` are indexes into `states`; a cross-server case
 * names `servers` instead of `server`, and its `state`, `initial` and `final` are objects keyed by its
 * servers, each holding the index of that server's state. The gate judges
 * every task's initial state and each final state, and compares each final state with the initial one:
 * sent case by case, a task's initial state went out once per case, each final state twice, and a
 * world's state is some hundreds of kilobytes of JSON. Answers `{"verdicts": [...], "frames": [...]}`,
 * each as the plain and `--frames` modes answer it.
 *
 * A final state differs from its task's initial state in a few places, and the initial states of one
 * server's tasks share most of their world: optional `"derived": [{"base": ref, "ops": [...]}, ...]`
 * sends such a state as its changes to another. References count `states` first, then `derived`; a
 * derived state's `base` is a smaller reference. Each op is `[path, value]` (set what `path` names, an
 * existing key or index, to `value`) or `[path, start, deleteCount, items]` (replace `deleteCount`
 * items of the list `path` names, from `start`, with `items`); a path is a non-empty list of object
 * keys and list indexes. The base is never changed: what an op changes is copied first.
 *
 * With `"explain": true`, a false verdict comes with its failing clauses, as `--explain` gives them.
 */

import { FrameAnswer, frameAnswers } from "./frameCases";
import { InputError, parseCases, Verdict, verdicts } from "./verdicts";
import { has, isObject, Json, JsonObject } from "./values";

export interface JointAnswer {
  verdicts: Verdict[];
  frames: FrameAnswer[];
}

export function jointAnswers(input: Json, broken: string | null = null): JointAnswer {
  if (!isObject(input) || !Array.isArray(input.states) || !Array.isArray(input.verdicts) || !Array.isArray(input.frames)) {
    throw new InputError("input must be an object {states: [...], verdicts: [...], frames: [...]}");
  }
  const states = input.states;
  const derived = input.derived === undefined ? [] : input.derived;
  if (!Array.isArray(derived)) throw new InputError("$.derived: expected a list of derived states");
  const total = states.length + derived.length;
  const resolved = new Map<number, Json>();
  const resolve = (ref: number): Json => {
    if (ref < states.length) return states[ref] as Json;
    let out = resolved.get(ref);
    if (out === undefined) {
      const at = `$.derived[${ref - states.length}]`;
      const entry = derived[ref - states.length];
      if (!isObject(entry) || !Array.isArray(entry.ops)) throw new InputError(`${at}: expected {base, ops: [...]}`);
      const base = entry.base;
      if (typeof base !== "number" || !Number.isInteger(base) || base < 0 || base >= ref) {
        throw new InputError(`${at}.base: expected the reference of a state before this one (0 to ${ref - 1})`);
      }
      out = applyOps(resolve(base), entry.ops, `${at}.ops`);
      resolved.set(ref, out);
    }
    return out;
  };
  const one = (where: string, ref: Json | undefined): Json => {
    if (typeof ref !== "number" || !Number.isInteger(ref) || ref < 0 || ref >= total) {
      const range = total === 0 ? "$.states is empty" : `0 to ${total - 1}`;
      throw new InputError(`${where}: expected the index of a state in $.states (${range})`);
    }
    return resolve(ref);
  };
  // a cross-server case's states: an object of indexes keyed by server (what it holds is checked with the case)
  const state = (where: string, ref: Json | undefined): Json => {
    if (!isObject(ref)) return one(where, ref);
    const out: JsonObject = {};
    for (const [server, at] of Object.entries(ref)) {
      Object.defineProperty(out, server, { value: one(`${where}.${server}`, at), writable: true, enumerable: true, configurable: true });
    }
    return out;
  };
  const verdictCases = input.verdicts.map((c, i) =>
    isObject(c) ? { ...c, state: state(`$.verdicts[${i}].state`, c.state) } : c);
  const frameCases = input.frames.map((c, i) =>
    isObject(c) ? { ...c, initial: state(`$.frames[${i}].initial`, c.initial), final: state(`$.frames[${i}].final`, c.final) } : c);
  const frameBreak = broken !== null && broken.startsWith("frame:") ? broken.slice(6) : null;
  return {
    verdicts: verdicts(parseCases(verdictCases), frameBreak === null ? broken : null, input.explain === true),
    frames: frameAnswers(frameCases, frameBreak),
  };
}

/** `base` with `ops` applied (see the module's comment); `base` itself is left as it is: every object
 * and list an op changes, or goes through, is copied once. */
export function applyOps(base: Json, ops: Json[], where: string): Json {
  const copies = new Set<Json>();
  const writable = (value: Json | undefined, at: string): Json[] | JsonObject => {
    if (value !== undefined && copies.has(value)) return value as Json[] | JsonObject;
    const copy = Array.isArray(value) ? value.slice() : isObject(value) ? { ...value } : null;
    if (copy === null) throw new InputError(`${at}: the path goes through ${JSON.stringify(value) ?? "nothing"}, not an object or a list`);
    copies.add(copy);
    return copy;
  };
  const root = writable(base, where);
  ops.forEach((op, i) => {
    const at = `${where}[${i}]`;
    if (!Array.isArray(op) || (op.length !== 2 && op.length !== 4) || !Array.isArray(op[0]) || op[0].length === 0) {
      throw new InputError(`${at}: expected [path, value] or [path, start, deleteCount, items] with a non-empty path`);
    }
    const path = op[0] as Json[];
    let node = root;
    for (let depth = 0; depth < path.length - 1; depth++) {
      const key = path[depth] as Json;
      const child = writable(member(node, key, `${at}[0][${depth}]`), `${at}[0][${depth}]`);
      put(node, key, child);
      node = child;
    }
    const last = path[path.length - 1] as Json;
    const lastAt = `${at}[0][${path.length - 1}]`;
    if (op.length === 2) {
      member(node, last, lastAt);
      put(node, last, op[1] as Json);
      return;
    }
    const list = member(node, last, lastAt);
    const [start, count, items] = [op[1] as Json, op[2] as Json, op[3] as Json];
    if (!Array.isArray(list) || !Array.isArray(items) || !isCount(start) || !isCount(count) || start + count > list.length) {
      throw new InputError(`${at}: a splice needs a list at its path, a start and a count within it, and a list of items`);
    }
    put(node, last, list.slice(0, start).concat(items, list.slice(start + count)));
  });
  return root;
}

function isCount(value: Json): value is number {
  return typeof value === "number" && Number.isInteger(value) && value >= 0;
}

/** The member `key` of `node` (an own key of an object, an index of a list), which must exist. */
function member(node: Json[] | JsonObject, key: Json, at: string): Json {
  if (Array.isArray(node) ? isCount(key) && key < node.length : typeof key === "string" && has(node, key)) {
    return (node as Record<string | number, Json>)[key as string | number] as Json;
  }
  throw new InputError(`${at}: ${JSON.stringify(key)} is not a member of the ${Array.isArray(node) ? "list" : "object"} there`);
}

function put(node: Json[] | JsonObject, key: Json, value: Json): void {
  // defineProperty, not assignment: a key named "__proto__" stays a key
  Object.defineProperty(node, key as string | number, { value, writable: true, enumerable: true, configurable: true });
}
