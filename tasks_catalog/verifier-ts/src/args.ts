/**
 * Argument types of primitives, checked strictly like the Python side's `Args` models
 * (pydantic, strict, extra="forbid"): no coercion, no unknown keys, every required key present.
 *
 * One difference cannot be removed: `JSON.parse` reads `3.0` as `3`, so an integer argument written
 * `3.0` passes here while Python rejects it. Tasks are checked by Python when they load, so such a
 * predicate never reaches a verdict.
 */

import { compile, PatternError } from "./pattern";
import { isObject, Json } from "./values";

export interface Problem {
  path: string;
  message: string;
}

export type ArgType =
  | { kind: "name" }
  | { kind: "text" }
  | { kind: "pattern" }
  | { kind: "int"; min?: number }
  | { kind: "number"; min?: number }
  | { kind: "bool" }
  | { kind: "null" }
  | { kind: "list"; of: ArgType }
  | { kind: "dict"; of: ArgType }
  | { kind: "union"; of: ArgType[] }
  | { kind: "refine"; base: ArgType; rule: (value: Json) => string | null };

export interface Field {
  type: ArgType;
  required: boolean;
}

export type ArgSpec = Record<string, Field>;

export const Name: ArgType = { kind: "name" };
export const Text: ArgType = { kind: "text" };
export const Pattern: ArgType = { kind: "pattern" };
export const Int = (min?: number): ArgType => (min === undefined ? { kind: "int" } : { kind: "int", min });
export const Num = (min?: number): ArgType => (min === undefined ? { kind: "number" } : { kind: "number", min });
export const Null: ArgType = { kind: "null" };
export const ListOf = (of: ArgType): ArgType => ({ kind: "list", of });
export const DictOf = (of: ArgType): ArgType => ({ kind: "dict", of });
export const OneOf = (...of: ArgType[]): ArgType => ({ kind: "union", of });
export const Refine = (base: ArgType, rule: (value: Json) => string | null): ArgType => ({ kind: "refine", base, rule });
/** A JSON scalar: a string (possibly empty), number, boolean or null. */
export const Scalar: ArgType = OneOf(Text, Num(), { kind: "bool" }, Null);

export const required = (type: ArgType): Field => ({ type, required: true });
/** An optional argument; absent or `null` means "not given" (Python's `X | None = None`). */
export const optional = (type: ArgType): Field => ({ type: OneOf(type, Null), required: false });

function describe(type: ArgType): string {
  switch (type.kind) {
    case "name": return "a non-empty string";
    case "text": return "a string";
    case "pattern": return "a regular expression (a non-empty string)";
    case "int": return type.min === undefined ? "an integer" : `an integer >= ${type.min}`;
    case "number": return type.min === undefined ? "a number" : `a number >= ${type.min}`;
    case "bool": return "a boolean";
    case "null": return "null";
    case "list": return `a list of ${describe(type.of).replace(/^an? /, "")}s`;
    case "dict": return "an object";
    case "union": return type.of.map(describe).join(" or ");
    case "refine": return describe(type.base);
  }
}

/** Problems of `value` against `type`, each with a JSON path under `path`. */
export function checkValue(value: Json, type: ArgType, path: string, out: Problem[]): void {
  const bad = (message: string): void => {
    out.push({ path, message });
  };
  switch (type.kind) {
    case "name":
      if (typeof value !== "string") return bad(`expected ${describe(type)}`);
      if (value.length === 0) return bad("expected a non-empty string");
      return;
    case "text":
      if (typeof value !== "string") bad(`expected ${describe(type)}`);
      return;
    case "pattern":
      if (typeof value !== "string" || value.length === 0) return bad(`expected ${describe(type)}`);
      try {
        compile(value);
      } catch (exc) {
        if (exc instanceof PatternError) return bad(exc.message);
        throw exc;
      }
      return;
    case "int":
      if (typeof value !== "number" || !Number.isInteger(value)) return bad(`expected ${describe(type)}`);
      if (type.min !== undefined && value < type.min) bad(`expected ${describe(type)}`);
      return;
    case "number":
      if (typeof value !== "number" || !Number.isFinite(value)) return bad(`expected ${describe(type)}`);
      if (type.min !== undefined && value < type.min) bad(`expected ${describe(type)}`);
      return;
    case "bool":
      if (typeof value !== "boolean") bad("expected a boolean");
      return;
    case "null":
      if (value !== null) bad("expected null");
      return;
    case "list":
      if (!Array.isArray(value)) return bad(`expected ${describe(type)}`);
      value.forEach((item, i) => checkValue(item, type.of, `${path}[${i}]`, out));
      return;
    case "dict":
      if (!isObject(value)) return bad(`expected ${describe(type)}`);
      for (const [key, item] of Object.entries(value)) checkValue(item, type.of, `${path}.${key}`, out);
      return;
    case "union": {
      for (const member of type.of) {
        const trial: Problem[] = [];
        checkValue(value, member, path, trial);
        if (trial.length === 0) return;
      }
      // Report the most specific member's problems when the value's JSON kind fits one member.
      for (const member of type.of) {
        const trial: Problem[] = [];
        checkValue(value, member, path, trial);
        if (trial.every((p) => p.path !== path || !p.message.startsWith("expected "))) {
          out.push(...trial);
          return;
        }
      }
      return bad(`expected ${describe(type)}`);
    }
    case "refine": {
      const before = out.length;
      checkValue(value, type.base, path, out);
      if (out.length === before) {
        const problem = type.rule(value);
        if (problem !== null) bad(problem);
      }
      return;
    }
  }
}

/** Problems of a primitive's argument object against its spec: unknown, missing and mistyped keys. */
export function checkArgs(body: Json, spec: ArgSpec, path: string): Problem[] {
  const out: Problem[] = [];
  if (!isObject(body)) return [{ path, message: "a primitive's arguments are an object" }];
  for (const key of Object.keys(body)) {
    if (!Object.prototype.hasOwnProperty.call(spec, key)) out.push({ path: `${path}.${key}`, message: "unknown argument (extra arguments are not permitted)" });
  }
  for (const [key, field] of Object.entries(spec)) {
    if (!Object.prototype.hasOwnProperty.call(body, key)) {
      if (field.required) out.push({ path: `${path}.${key}`, message: "missing required argument" });
      continue;
    }
    checkValue(body[key] as Json, field.type, `${path}.${key}`, out);
  }
  return out;
}
