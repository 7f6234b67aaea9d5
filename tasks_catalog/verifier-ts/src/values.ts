/**
 * The value semantics every primitive shares (docs/predicates.md, "Common semantics"), written to
 * agree with `same` and `search` in tasks_catalog/predicates/_registry.py.
 */

export type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
export type JsonObject = { [key: string]: Json };

/** Thrown when this verifier cannot decide a primitive the way the Python verifier would (e.g. SQL
 * outside the subset it evaluates). It is reported per case, never turned into a verdict. */
export class Undecidable extends Error {
  override name = "Undecidable";
}

/** Value equality of predicates: exact for strings and booleans, numeric for numbers, no coercion
 * between kinds (`1` equals `1.0`; `"1"` never equals `1`; `true` never equals `1`); `null` equals
 * only `null`. Lists and objects are never equal to anything here (see notion's `equal`). */
export function same(expected: unknown, actual: unknown): boolean {
  if (typeof expected === "boolean" || typeof actual === "boolean") {
    return typeof expected === "boolean" && typeof actual === "boolean" && expected === actual;
  }
  if (typeof expected === "number" && typeof actual === "number") return expected === actual;
  if (expected === null || actual === null) return expected === null && actual === null;
  if (typeof expected === "string" && typeof actual === "string") return expected === actual;
  return false;
}

/** `key in obj` for a JSON object's own keys (never the prototype's `constructor`, `__proto__`, ...). */
export function has(obj: unknown, key: string): boolean {
  return isObject(obj) && Object.prototype.hasOwnProperty.call(obj, key);
}

/** `obj.get(key)` in Python: the own value, or undefined. */
export function get(obj: unknown, key: string): Json | undefined {
  return has(obj, key) ? (obj as JsonObject)[key] : undefined;
}

export function isObject(value: unknown): value is JsonObject {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** A list field of the dumped state (the Python models default them to []). */
export function list(obj: unknown, key: string): JsonObject[] {
  const value = get(obj, key);
  return Array.isArray(value) ? (value.filter(isObject) as JsonObject[]) : [];
}

/** A list of strings field of the dumped state. */
export function strings(obj: unknown, key: string): string[] {
  const value = get(obj, key);
  return Array.isArray(value) ? value.filter((v): v is string => typeof v === "string") : [];
}

/** A string field of the dumped state, or null. */
export function str(obj: unknown, key: string): string | null {
  const value = get(obj, key);
  return typeof value === "string" ? value : null;
}

/** Identifier folding of the SQL engine: ASCII letters lower-cased, nothing else. */
export function fold(name: string): string {
  return name.replace(/[A-Z]/g, (c) => c.toLowerCase());
}
