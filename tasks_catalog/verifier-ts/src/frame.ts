/**
 * The frame (docs/frames.md): diff two dumped states entity by entity, keyed by the stable ids that
 * tasks_catalog/frames/entities.json declares, and judge the changes against a task's allowances.
 * Written to agree with tasks_catalog/frames (Python) on every case of the conformance corpus.
 */

import { readFileSync } from "node:fs";
import { join } from "node:path";

import { search } from "./pattern";
import { isObject, Json, JsonObject } from "./values";

export interface KindDeclaration {
  path: string[];
  id: string;
  fields: string[] | null;
  value?: string;
  extra?: { [name: string]: string };
  row?: { columns: string; primary_key: string };
  /** The kind this one lives in, and its id as a template over this entity's own fields. */
  parent?: { kind: string; id: string };
  /** The fields that only place a copy: a created entity equal to an initial one in every other field is a copy. */
  copy?: string[];
  /** The fields whose list holds members in no meaningful order: compared by their members in any order in `where`
   * and `values`, and a change of their order alone is no change. */
  sets?: string[];
}

export interface ServerDeclaration {
  benign?: string[];
  kinds: { [name: string]: KindDeclaration };
}

export interface Declaration {
  version: number;
  servers: { [server: string]: ServerDeclaration };
}

export type ChangeKind = "create" | "copy" | "update" | "delete";

export interface Change {
  entity: string;
  id: string;
  change: ChangeKind;
  /** For an update, the units that differ (sorted): fields, or keys of object fields as "field.key". */
  fields: string[];
  before: JsonObject | null;
  after: JsonObject | null;
  /** The entity it lives in, as "<server>.<kind>" and id, for kinds that declare a parent. */
  parent: [string, string] | null;
}

export interface Violation {
  entity: string;
  id: string;
  change: ChangeKind;
  fields: string[];
  reason: string;
}

/** Where the one declaration lives, relative to the built `dist/` (tasks_catalog/frames/entities.json). */
export const DECLARATION_PATH = join(__dirname, "..", "..", "frames", "entities.json");
let cached: Declaration | null = null;

export function declaration(): Declaration {
  if (cached === null) cached = JSON.parse(readFileSync(DECLARATION_PATH, "utf8")) as Declaration;
  return cached;
}

export class FrameError extends Error {
  override name = "FrameError";
}

/** Number.prototype.toString for numbers; the text of every other scalar (tasks_catalog/frames render_scalar). */
export function renderScalar(value: Json | undefined): string {
  if (value === null || value === undefined) return "null";
  if (typeof value === "boolean") return value ? "true" : "false";
  if (typeof value === "number") return String(value);
  if (typeof value === "string") return value;
  return JSON.stringify(value);
}

/** JSON equality: `1` equals `1.0`, `true` never equals `1`, object key order is ignored. */
export function jsonEqual(a: Json | undefined, b: Json | undefined): boolean {
  if (a === b) return true;
  if (Array.isArray(a)) {
    return Array.isArray(b) && a.length === b.length && a.every((x, i) => jsonEqual(x, b[i]));
  }
  if (isObject(a)) {
    if (!isObject(b)) return false;
    const keys = Object.keys(a);
    if (keys.length !== Object.keys(b).length) return false;
    return keys.every((k) => Object.prototype.hasOwnProperty.call(b, k) && jsonEqual(a[k], b[k]));
  }
  return false;
}

interface Scope {
  items: Json[];
  keys: (string | null)[];
  positions: number[];
}

const PLACEHOLDER = /\{([^{}]+)\}/g;
const LONE = /^\{([^{}]+)\}$/;

/** A placeholder's reference `level.name` as [level, name]; the level is null when there is none
 * (as tasks_catalog/frames reads it: `name` and `.name` alike). */
function parseRef(ref: string): [number | null, string] {
  const dot = ref.lastIndexOf(".");
  const level = dot < 0 ? "" : ref.slice(0, dot);
  return [level === "" ? null : Number(level), ref.slice(dot + 1)];
}

function lookup(scope: Scope, [level, name]: [number | null, string], rowKey: string | null): Json {
  const depth = level === null ? scope.items.length - 1 : level + 1; // items[0] is the state itself
  if (name === "$key") return rowKey !== null ? rowKey : (scope.keys[depth] ?? null);
  if (name === "$value") return scope.items[depth] ?? null;
  if (name === "$n") return scope.positions[depth] ?? null;
  const item = scope.items[depth];
  return isObject(item) && Object.prototype.hasOwnProperty.call(item, name) ? (item[name] as Json) : null;
}

/** A template read once: its one placeholder when it is nothing else (whose value is taken as it is),
 * else its literal texts and references in order (each value rendered as text). */
interface Compiled {
  lone: [number | null, string] | null;
  parts: (string | [number | null, string])[];
}

const COMPILED = new Map<string, Compiled>();

function compiled(template: string): Compiled {
  let out = COMPILED.get(template);
  if (out === undefined) {
    const whole = LONE.exec(template);
    out = { lone: whole === null ? null : parseRef(whole[1] as string), parts: templateParts(template) };
    COMPILED.set(template, out);
  }
  return out;
}

function fill(template: string, scope: Scope, rowKey: string | null): Json {
  const { lone, parts } = compiled(template);
  if (lone !== null) return lookup(scope, lone, rowKey);
  let text = "";
  for (const part of parts) text += typeof part === "string" ? part : renderScalar(lookup(scope, part, rowKey));
  return text;
}

function* walk(node: Json, path: string[], scope: Scope, only: Set<number> | null = null): Generator<Scope> {
  if (path.length === 0) {
    yield scope;
    return;
  }
  const [head, ...rest] = path as [string, ...string[]];
  const coll = isObject(node) && Object.prototype.hasOwnProperty.call(node, head) ? node[head] : undefined;
  if (Array.isArray(coll)) {
    for (let i = 0; i < coll.length; i++) {
      if (only !== null && !only.has(i)) continue;
      const item = coll[i] as Json;
      yield* walk(item, rest, { items: [...scope.items, item], keys: [...scope.keys, null], positions: [...scope.positions, i + 1] });
    }
  } else if (isObject(coll)) {
    let i = 0;
    for (const [key, item] of Object.entries(coll)) {
      i += 1;
      if (only !== null && !only.has(i - 1)) continue;
      yield* walk(item, rest, { items: [...scope.items, item], keys: [...scope.keys, key], positions: [...scope.positions, i] });
    }
  }
}

const foldAscii = (name: string) => name.replace(/[A-Z]/g, (c) => c.toLowerCase());

/** How the rows of one table (with `length` values) become fields and a key: the field names in the
 * order a row's fields object holds them, with the position of each one's value, and the field names
 * of the primary key (or null without one). Made once per table, not per row. */
interface RowLayout {
  names: string[];
  at: number[];
  key: { name: string; present: boolean }[] | null;
}

const ROW_LAYOUTS = new WeakMap<JsonObject, Map<string, RowLayout>>();

function rowLayout(row: { columns: string; primary_key: string }, table: Json | undefined, length: number): RowLayout {
  const cacheable = isObject(table);
  const cacheKey = `${row.columns}\u0000${row.primary_key}\u0000${length}`;
  let byShape = cacheable ? ROW_LAYOUTS.get(table) : undefined;
  const found = byShape?.get(cacheKey);
  if (found !== undefined) return found;
  const rawColumns = isObject(table) && Array.isArray(table[row.columns]) ? (table[row.columns] as Json[]) : [];
  const columns = rawColumns.map((c) => (isObject(c) ? c.name : c));
  // the positions as a row's own fields object holds them: assigned in column order, a later column of
  // the same name winning, in the order the object keeps its keys
  const positions: Record<string, number> = {};
  columns.forEach((c, i) => {
    if (i < length) positions[renderScalar(c as Json)] = i;
  });
  const names = Object.keys(positions);
  const keys = isObject(table) && Array.isArray(table[row.primary_key]) ? (table[row.primary_key] as Json[]) : [];
  let key: RowLayout["key"] = null;
  if (keys.length > 0) {
    const folded = new Map(names.map((c) => [foldAscii(c), c]));
    key = keys.map((k) => {
      const name = folded.get(foldAscii(renderScalar(k))) ?? renderScalar(k);
      return { name, present: Object.prototype.hasOwnProperty.call(positions, name) };
    });
  }
  const layout = { names, at: names.map((n) => positions[n] as number), key };
  if (cacheable) {
    if (byShape === undefined) ROW_LAYOUTS.set(table, (byShape = new Map()));
    byShape.set(cacheKey, layout);
  }
  return layout;
}

function rowFields(row: { columns: string; primary_key: string }, scope: Scope): [JsonObject, string] {
  const table = scope.items[scope.items.length - 2];
  const item = scope.items[scope.items.length - 1];
  const values = Array.isArray(item) ? item : [];
  const layout = rowLayout(row, table, values.length);
  const fields: JsonObject = {};
  layout.names.forEach((name, i) => {
    fields[name] = values[layout.at[i] as number] as Json;
  });
  if (layout.key !== null) {
    return [fields, layout.key.map(({ name, present }) => renderScalar(present ? fields[name] : null)).join(",")];
  }
  const cells = Object.values(fields).map((v) => (typeof v === "string" ? JSON.stringify(v) : renderScalar(v)));
  return [fields, "~[" + cells.join(",") + "]"];
}

/** What `extract` found, per kind and state object (states are not changed while they are judged):
 * a task's initial state is compared with each of its final states, and is extracted once. */
const EXTRACTED = new WeakMap<KindDeclaration, WeakMap<JsonObject, Map<string, Map<string, JsonObject>>>>();

/** The entities of one kind in `state`: stable id -> judged fields (a `#2`, `#3`... suffix tells apart ids
 * that collide). `only`: the entities under these positions (0-based) of the top-level collection alone.
 * The answer is shared between calls on the same state object: read it, never change it. */
export function extract(kind: KindDeclaration, state: JsonObject, only: Set<number> | null = null): Map<string, JsonObject> {
  let byState = EXTRACTED.get(kind);
  if (byState === undefined) EXTRACTED.set(kind, (byState = new WeakMap()));
  let byOnly = byState.get(state);
  if (byOnly === undefined) byState.set(state, (byOnly = new Map()));
  const key = only === null ? "*" : [...only].sort((a, b) => a - b).join(",");
  let out = byOnly.get(key);
  if (out === undefined) byOnly.set(key, (out = extractEntities(kind, state, only)));
  return out;
}

function extractEntities(kind: KindDeclaration, state: JsonObject, only: Set<number> | null): Map<string, JsonObject> {
  const out = new Map<string, JsonObject>();
  for (const scope of walk(state, kind.path, { items: [state], keys: [null], positions: [1] }, only)) {
    let rowKey: string | null = null;
    let fields: JsonObject;
    const item = scope.items[scope.items.length - 1] as Json;
    if (kind.row !== undefined) {
      [fields, rowKey] = rowFields(kind.row, scope);
    } else if (kind.value !== undefined) {
      fields = { [kind.value]: item };
    } else {
      if (!isObject(item)) continue;
      fields = {};
      for (const f of kind.fields ?? []) {
        if (Object.prototype.hasOwnProperty.call(item, f)) fields[f] = item[f] as Json;
      }
    }
    for (const [name, template] of Object.entries(kind.extra ?? {})) fields[name] = fill(template, scope, rowKey);
    let ident = renderScalar(fill(kind.id, scope, rowKey));
    if (out.has(ident)) {
      let n = 2;
      while (out.has(`${ident}#${n}`)) n += 1;
      ident = `${ident}#${n}`;
    }
    out.set(ident, fields);
  }
  return out;
}

function serverDeclaration(server: string, decl: Declaration): ServerDeclaration {
  const found = Object.prototype.hasOwnProperty.call(decl.servers, server) ? decl.servers[server] : undefined;
  if (found === undefined) throw new FrameError(`entities.json declares no server ${JSON.stringify(server)}`);
  return found;
}

const byId = (a: Change, b: Change) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);

/** The references (level, name) and literal texts of a template, in order. */
function templateParts(template: string): (string | [number | null, string])[] {
  const parts: (string | [number | null, string])[] = [];
  let last = 0;
  for (const m of template.matchAll(PLACEHOLDER)) {
    const at = m.index as number;
    if (at > last) parts.push(template.slice(last, at));
    parts.push(parseRef(m[1] as string));
    last = at + m[0].length;
  }
  if (last < template.length) parts.push(template.slice(last));
  return parts;
}

/** Whether everything `kind`'s entities are made of lies under the state's field `kind.path[0]` (no
 * template reaches up to the state itself): then equal fields mean equal entities. */
function isLocal(kind: KindDeclaration): boolean {
  return [kind.id, ...Object.values(kind.extra ?? {})].every((template) =>
    templateParts(template).every((p) => typeof p === "string" || p[0] === null || p[0] >= 0));
}

/** How a top-level item of `kind` is told apart from the others, where the entities under (or of) items
 * told apart never share an id (tasks_catalog/frames: `item_key`, `item_prefix`): the item's rendered key
 * and the characters it must not hold; null where there is no such key. */
interface ItemKey {
  render: (key: string | number, item: Json) => string | null;
  forbidden: string;
}

function itemKey(kind: KindDeclaration): ItemKey | null {
  if (kind.path.length === 0 || !isLocal(kind)) return null;
  const parts = templateParts(kind.id);
  const field = (name: string) => (_: string | number, item: Json) =>
    isObject(item) && Object.prototype.hasOwnProperty.call(item, name) ? renderScalar(item[name] as Json) : null;
  if (kind.path.length === 1) {
    const whole = LONE.exec(kind.id);
    if (whole === null) return null;
    const [level, name] = parseRef(whole[1] as string);
    if ((level !== null && level !== 0) || name === "$n") return null;
    if (name === "$key") return { render: (key) => (typeof key === "string" ? key : null), forbidden: "" };
    if (name === "$value") return { render: (_, item) => (isObject(item) || Array.isArray(item) ? null : renderScalar(item)), forbidden: "" };
    return { render: field(name), forbidden: "" };
  }
  // a start made of the item's own fields, then a separator: "{0.owner}/{0.name}:..." or "{0.id}/..."
  const names: string[] = [];
  let template = "";
  for (const [i, part] of parts.entries()) {
    if (typeof part === "string") {
      if (i === 0) return null;
      const next = parts[i + 1];
      if (next !== undefined && typeof next !== "string" && next[0] === 0) {
        template += part;
        continue;
      }
      if (names.length === 1 && !part.startsWith("/")) return null;
      const separator = part[0] as string;
      return {
        render: (_, item) => {
          if (!isObject(item)) return null;
          return templateParts(template).map((p) => (typeof p === "string" ? p : renderScalar(
            Object.prototype.hasOwnProperty.call(item, p[1]) ? (item[p[1]] as Json) : null))).join("");
        },
        forbidden: separator,
      };
    }
    const [level, name] = part;
    if (level !== 0 || name.startsWith("$")) return null;
    names.push(name);
    template += `{${name}}`;
  }
  return null;
}

/** The positions of the top-level items whose entities may differ (before's, after's), or null where
 * skipping the others could change an id (tasks_catalog/frames: `_changed_parents`): the items' keys must
 * be distinct in each state and free of the separator that follows them in an id. */
function changedParents(kind: KindDeclaration, before: JsonObject, after: JsonObject): [Set<number>, Set<number>] | null {
  const key = itemKey(kind);
  if (key === null) return null;
  const top = kind.path[0] as string;
  const own = (o: JsonObject) => (Object.prototype.hasOwnProperty.call(o, top) ? o[top] : undefined);
  const old = own(before);
  const now = own(after);
  const entries = (c: Json | undefined): [string | number, Json][] | null =>
    Array.isArray(c) ? c.map((v, i) => [i, v as Json]) : isObject(c) ? Object.entries(c) : null;
  const olds = entries(old);
  const news = entries(now);
  if (olds === null || news === null || Array.isArray(old) !== Array.isArray(now)) return null;
  for (const items of [olds, news]) {
    const keys = items.map(([k, item]) => key.render(k, item));
    if (keys.some((k) => k === null || (key.forbidden !== "" && k.includes(key.forbidden)))) return null;
    if (new Set(keys).size !== keys.length) return null;
  }
  const same = new Set<number>();
  for (let i = 0; i < Math.min(olds.length, news.length); i++) {
    const [k, a] = olds[i] as [string | number, Json];
    const [k2, b] = news[i] as [string | number, Json];
    if (k === k2 && jsonEqual(a, b)) same.add(i);
  }
  const rest = (n: number) => new Set([...Array(n).keys()].filter((i) => !same.has(i)));
  return [rest(olds.length), rest(news.length)];
}

/** Every entity created, deleted or changed between two dumped states, by kind (declaration order) then
 * id. A kind whose entities all lie under one top-level field that is equal in both states is not
 * extracted, nor are the entities under equal top-level items where ids cannot meet across items (as
 * the Python verifier does: the same answers, without walking what a run did not touch). */
export function diff(server: string, initial: JsonObject, final: JsonObject, decl: Declaration = declaration(),
                     skipKind: string | null = null): Change[] {
  const out: Change[] = [];
  const unchanged = new Map<string, boolean>();
  for (const [name, kind] of Object.entries(serverDeclaration(server, decl).kinds)) {
    const entity = `${server}.${name}`;
    if (entity === skipKind) continue;
    if (kind.path.length > 0 && isLocal(kind)) {
      const top = kind.path[0] as string;
      if (!unchanged.has(top)) {
        const field = (o: JsonObject) => (Object.prototype.hasOwnProperty.call(o, top) ? o[top] : undefined);
        unchanged.set(top, jsonEqual(field(initial), field(final)));
      }
      if (unchanged.get(top)) continue;
    }
    const changed = changedParents(kind, initial, final);
    const before = extract(kind, initial, changed === null ? null : changed[0]);
    const after = extract(kind, final, changed === null ? null : changed[1]);
    const parentKind = kind.parent === undefined ? null : `${server}.${kind.parent.kind}`;
    const sets = new Set(kind.sets ?? []);
    const made = (id: string, change: ChangeKind, units: string[], old: JsonObject | null, now: JsonObject | null): Change => ({
      entity, id, change, fields: units, before: old, after: now,
      parent: parentKind === null ? null : [parentKind, parentId(kind, (old ?? now) as JsonObject)],
    });
    const changes: Change[] = [];
    for (const [id, old] of before) {
      const now = after.get(id);
      if (now === undefined) {
        changes.push(made(id, "delete", [], old, null));
      } else if (!jsonEqual(old, now)) {
        const units = changedUnits(old, now, sets);
        // none: only the order of a set field's members changed, which is no change
        if (units.length > 0) changes.push(made(id, "update", units, old, now));
      }
    }
    const created = [...after].filter(([id]) => !before.has(id));
    const copies = (kind.copy ?? []).length > 0 && created.length > 0
      ? copiesOf(kind, extract(kind, initial), created.map(([, now]) => now)) : new Set<number>();
    created.forEach(([id, now], n) => changes.push(made(id, copies.has(n) ? "copy" : "create", [], null, now)));
    out.push(...changes.sort(byId));
  }
  return out;
}

const own = (o: JsonObject, k: string) => Object.prototype.hasOwnProperty.call(o, k);
const FIELD_REF = /\{([^{}]+)\}/g;

/** The id of the entity a `kind` entity with these fields lives in (tasks_catalog/frames: `parent_id`). */
function parentId(kind: KindDeclaration, fields: JsonObject): string {
  const template = (kind.parent as { id: string }).id;
  return template.replace(FIELD_REF, (_, name: string) => renderScalar(own(fields, name) ? fields[name] : null));
}

/** Python's sorted() on strings: by code point (JavaScript's default sort compares UTF-16 units). */
export function byCodePoint(a: string, b: string): number {
  const x = [...a];
  const y = [...b];
  for (let i = 0; i < Math.min(x.length, y.length); i++) {
    const d = (x[i] as string).codePointAt(0)! - (y[i] as string).codePointAt(0)!;
    if (d !== 0) return d;
  }
  return x.length - y.length;
}

/** The units that differ between two versions of one entity, sorted: each field that differs, except that a
 * field holding an object in both is compared key by key, and a field of `sets` (the kind's set fields) by its
 * members in any order (tasks_catalog/frames/_values.py `changed_units`). */
function changedUnits(old: JsonObject, now: JsonObject, sets: Set<string>): string[] {
  const out: string[] = [];
  for (const name of new Set([...Object.keys(old), ...Object.keys(now)])) {
    if (own(old, name) && own(now, name)) {
      const a = old[name] as Json;
      const b = now[name] as Json;
      if (jsonEqual(a, b) || (sets.has(name) && membersEqual(a, b))) continue;
      if (isObject(a) && isObject(b)) {
        for (const k of new Set([...Object.keys(a), ...Object.keys(b)])) {
          if (!own(a, k) || !own(b, k) || !jsonEqual(a[k], b[k])) out.push(`${name}.${k}`);
        }
        continue;
      }
    }
    out.push(name);
  }
  return out.sort(byCodePoint);
}

/** The positions of `created` entities of `kind` that are copies of an entity of the initial state (equal as
 * JSON in every field but `kind.copy`). */
function copiesOf(kind: KindDeclaration, initial: Map<string, JsonObject>, created: JsonObject[]): Set<number> {
  const placing = new Set(kind.copy ?? []);
  const rest = (fields: JsonObject): JsonObject =>
    Object.fromEntries(Object.entries(fields).filter(([k]) => !placing.has(k)));
  const coarse = (fields: JsonObject): string =>
    JSON.stringify(Object.entries(fields).filter(([, v]) => typeof v === "string").sort(([a], [b]) => byCodePoint(a, b)));
  const index = new Map<string, JsonObject[]>();
  for (const old of initial.values()) {
    const mine = rest(old);
    const key = coarse(mine);
    const list = index.get(key);
    if (list === undefined) index.set(key, [mine]);
    else list.push(mine);
  }
  const out = new Set<number>();
  created.forEach((now, n) => {
    const mine = rest(now);
    if ((index.get(coarse(mine)) ?? []).some((old) => jsonEqual(mine, old))) out.add(n);
  });
  return out;
}

/** `[present, value]` of a unit ("field" or "field.key") in an entity's fields (tasks_catalog/frames `unit_value`). */
export function unitValue(fields: JsonObject | null, unit: string): [boolean, Json] {
  if (fields === null) return [false, null];
  const [field, key] = splitUnit(unit, fields);
  if (!own(fields, field)) return [false, null];
  const value = fields[field] as Json;
  if (key === null) return [true, value];
  if (!isObject(value) || !own(value, key)) return [false, null];
  return [true, value[key] as Json];
}

/** [field, key] of a unit: "properties.Status" is key Status of properties; a unit that is itself a field of
 * `fields`, or has no dot, is that whole field. */
export function splitUnit(unit: string, fields: JsonObject | null): [string, string | null] {
  const dot = unit.indexOf(".");
  if (dot < 0 || (fields !== null && own(fields, unit))) return [unit, null];
  return [unit.slice(0, dot), unit.slice(dot + 1)];
}

type Form = "eq" | "in" | "matches" | "items" | "keys";
/** How two values of a unit are compared (`jsonEqual`, or `membersEqual` for a set field: `unitEqual`). */
type Equal = (a: Json | undefined, b: Json | undefined) => boolean;
const FORM_KEYS: [Form, string[]][] = [
  ["eq", ["eq"]], ["in", ["in"]], ["matches", ["matches"]], ["keys", ["keys"]], ["items", ["add", "remove", "key"]],
];

function formOf(constraint: Json): Form | null {
  if (!isObject(constraint) || Object.keys(constraint).length === 0) return null;
  for (const [form, keys] of FORM_KEYS) {
    if (Object.keys(constraint).every((k) => keys.includes(k))) return form;
  }
  return null;
}

/** The items of `a` left after taking out, one for one, the items of `b`. */
function minus(a: Json[], b: Json[], equal: Equal): Json[] {
  const rest = [...b];
  const out: Json[] = [];
  for (const x of a) {
    const i = rest.findIndex((y) => equal(x, y));
    if (i < 0) out.push(x);
    else rest.splice(i, 1);
  }
  return out;
}

/** Whether a change taking a unit from `before` to `after` keeps `constraint`, values compared by `equal`
 * (tasks_catalog/frames `holds`). */
function holds(constraint: JsonObject, before: [boolean, Json], after: [boolean, Json], equal: Equal): boolean {
  const form = formOf(constraint);
  const [present, value] = after;
  if (form === "eq") return present && equal(value, constraint.eq);
  if (form === "in") return present && Array.isArray(constraint.in) && constraint.in.some((v) => equal(value, v));
  if (form === "matches") return present && typeof value === "string" && search(constraint.matches as string, value);
  if (form === "keys") {
    const keys = Array.isArray(constraint.keys) ? constraint.keys : [];
    return present && isObject(value) && Object.keys(value).every((k) => keys.includes(k));
  }
  if (form !== "items") return false;
  const old = before[0] ? before[1] : [];
  const now = present ? value : [];
  if (!Array.isArray(old) || !Array.isArray(now)) return false;
  const add = Array.isArray(constraint.add) ? constraint.add : [];
  const remove = Array.isArray(constraint.remove) ? constraint.remove : [];
  const key = typeof constraint.key === "string" ? constraint.key : null;
  if (key === null) {
    return minus(now, old, equal).every((x) => add.some((y) => equal(x, y)))
      && minus(old, now, equal).every((x) => remove.some((y) => equal(x, y)));
  }
  if (![...old, ...now].every((x) => isObject(x) && own(x, key))) return false;
  const of = (x: Json) => (x as JsonObject)[key] as Json;
  for (const x of now) {
    const same = old.filter((y) => equal(of(y), of(x)));
    if (!(same.length > 0 && equal(same[0] as Json, x)) && !add.some((y) => equal(of(x), y))) return false;
  }
  return old.every((y) => now.some((x) => equal(of(y), of(x))) || remove.some((z) => equal(of(y), z)));
}

/** Whether the allowance is about this kind of entity and change (its `entity` and `change`). */
function about(a: JsonObject, c: Change): boolean {
  const change = Array.isArray(a.change) ? a.change : ["update"];
  return a.entity === c.entity && change.includes(c.change);
}

/** Whether the allowance is about this change: its entity kind, change, ids, `where` and `parent` (the
 * first miss decides: the words of the others are made only to explain a violation). */
function selects(a: JsonObject, c: Change, created: Set<string>): boolean {
  return about(a, c) && misses(a, c, created).next().done === true;
}

/** Whether two lists hold the same members, each as many times, in any order, members compared by
 * `jsonEqual` (tasks_catalog/frames `same_members`): how a field the kind declares a set is compared, in `where`,
 * in `values` and between two versions of an entity (`unitEqual`, `changedUnits`). */
export function sameMembers(a: Json[], b: Json[]): boolean {
  if (a.length !== b.length) return false;
  const left = [...b];
  for (const member of a) {
    const at = left.findIndex((other) => jsonEqual(member, other));
    if (at < 0) return false;
    left.splice(at, 1);
  }
  return true;
}

const setFields = new Map<string, Set<string>>();

/** How a value of `c`'s `unit` is compared with what an allowance names (its `where`, a `values` constraint):
 * JSON-equal, and for a field the kind declares a set, two lists with the same members in any order
 * (tasks_catalog/frames `_unit_equal`). */
function unitEqual(c: Change, unit: string): Equal {
  let sets = setFields.get(c.entity);
  if (sets === undefined) {
    const dot = c.entity.indexOf(".");
    const kind = declaration().servers[c.entity.slice(0, dot)]?.kinds[c.entity.slice(dot + 1)];
    sets = new Set(kind?.sets ?? []);
    setFields.set(c.entity, sets);
  }
  return sets.has(unit) ? membersEqual : jsonEqual;
}

function membersEqual(a: Json | undefined, b: Json | undefined): boolean {
  return Array.isArray(a) && Array.isArray(b) ? sameMembers(a, b) : jsonEqual(a, b);
}

/** Why an allowance about this kind of entity and change does not select this one, in words, one at a
 * time: its `ids`, each unit of its `where` (in code-point order) and its `parent`; none when it selects it
 * (tasks_catalog/frames `_misses`). */
function* misses(a: JsonObject, c: Change, created: Set<string>): Generator<string> {
  if (Array.isArray(a.ids) && !a.ids.includes(c.id)) yield "whose ids do not include it";
  if (isObject(a.where)) {
    const where = a.where;
    const values = c.change === "delete" ? c.before : c.after;
    for (const unit of Object.keys(where).sort(byCodePoint)) {
      const [present, value] = unitValue(values, unit);
      if (!present) yield `whose where.${unit} it lacks`;
      else if (!unitEqual(c, unit)(value, where[unit] as Json)) yield `whose where.${unit} it does not match`;
    }
  }
  if (typeof a.parent === "string"
      && (c.parent === null || created.has(JSON.stringify(c.parent)) !== (a.parent === "created"))) {
    yield `which selects entities in ${a.parent === "created" ? "a created" : "an existing"} parent`;
  }
}

/** What of `c` an allowance names and `c` has: "ids" when they hold its id, and each unit of its `where`
 * that `c` matches (tasks_catalog/frames `_matched`). */
function* matched(a: JsonObject, c: Change): Generator<string> {
  if (Array.isArray(a.ids) && a.ids.includes(c.id)) yield "ids";
  if (isObject(a.where)) {
    const where = a.where;
    const values = c.change === "delete" ? c.before : c.after;
    for (const unit of Object.keys(where).sort(byCodePoint)) {
      const [present, value] = unitValue(values, unit);
      if (present && unitEqual(c, unit)(value, where[unit] as Json)) yield `where.${unit}`;
    }
  }
}

/** How many equally near allowances a reason names (tasks_catalog/frames `NEAREST_SHOWN`). */
const NEAREST_SHOWN = 3;

/** Why no allowance selects `c`: "outside the frame", and when allowances are about its kind of entity
 * and change, the nearest of them (the fewest misses; the first NEAREST_SHOWN when several are as near,
 * the one matching `c` where fewer of them do first) and what each misses first (tasks_catalog/frames
 * `_nearest`). */
function nearest(frame: JsonObject[], c: Change, created: Set<string>): string {
  let near: [number, string[]][] = [];
  frame.forEach((a, i) => {
    if (!about(a, c)) return;
    const mine = [...misses(a, c, created)];
    if (mine.length === 0) return;
    const least = near.length > 0 ? (near[0] as [number, string[]])[1].length : Infinity;
    if (mine.length < least) near = [[i, mine]];
    else if (mine.length === least) near.push([i, mine]);
  });
  if (near.length === 0) return "outside the frame";
  if (near.length > 1) {
    // Of allowances as near, the one that matches `c` where fewer of them do comes first; otherwise the
    // frame's order (tasks_catalog/frames `_nearest`).
    const units = new Map(near.map(([i]) => [i, new Set(matched(frame[i] as JsonObject, c))]));
    const shared = new Map<string, number>();
    for (const set of units.values()) for (const u of set) shared.set(u, (shared.get(u) ?? 0) + 1);
    const rank = (i: number): number =>
      Math.min(near.length + 1, ...[...(units.get(i) as Set<string>)].map((u) => shared.get(u) as number));
    near.sort((x, y) => rank(x[0]) - rank(y[0]) || x[0] - y[0]);
  }
  const words = near.slice(0, NEAREST_SHOWN).map(([i, found]) => {
    const more = found.length > 1 ? `, and ${found.length - 1} more condition${found.length > 2 ? "s" : ""}` : "";
    return `frame[${i}], ${found[0]}${more}`;
  });
  const rest = near.length > NEAREST_SHOWN ? `; ${near.length - NEAREST_SHOWN} more as near` : "";
  return `outside the frame (nearest: ${words.join("; ")}${rest})`;
}

/** Why an allowance that selects a change still does not allow it (`fields`, `values`), or null. */
function refusal(a: JsonObject, c: Change): string | null {
  if (Array.isArray(a.fields) && c.change === "update") {
    const allowed = a.fields;
    for (const unit of c.fields) {
      const [field, key] = splitUnit(unit, c.before);
      if (!allowed.includes(unit) && !(key !== null && allowed.includes(field))) return `does not allow ${unit} to change`;
    }
  }
  if (isObject(a.values) && c.change !== "delete") {
    for (const unit of Object.keys(a.values).sort(byCodePoint)) {
      const after = unitValue(c.after, unit);
      const before: [boolean, Json] = c.change === "update" ? unitValue(c.before, unit) : [false, null];
      const equal = unitEqual(c, unit);
      // left as it was (a set field: the same members): nothing to judge
      if (c.change === "update" && before[0] === after[0] && (!after[0] || equal(before[1], after[1]))) continue;
      if (!holds(a.values[unit] as JsonObject, before, after, equal)) return `does not allow this value of ${unit}`;
    }
  }
  return null;
}

/** The changes no allowance allows. A change is allowed by an allowance that selects it and whose `fields`
 * and `values` it keeps; an allowance that allows more changes than its `max` allows none of them. */
export function judge(frame: JsonObject[], changes: Change[]): Violation[] {
  const created = new Set(changes.filter((c) => c.change === "create" || c.change === "copy")
    .map((c) => JSON.stringify([c.entity, c.id])));
  const hits: number[][] = [];
  const refused: (string | null)[] = [];
  for (const c of changes) {
    const mine: number[] = [];
    let why: string | null = null;
    let chosen = false;
    frame.forEach((a, i) => {
      if (!selects(a, c, created)) return;
      chosen = true;
      const problem = refusal(a, c);
      if (problem === null) mine.push(i);
      else if (why === null) why = `frame[${i}] ${problem}`;
    });
    hits.push(mine);
    refused.push(chosen ? why : nearest(frame, c, created));
  }
  const counts = frame.map((_, i) => hits.filter((h) => h.includes(i)).length);
  const over = frame.map((a, i) => typeof a.max === "number" && (counts[i] as number) > a.max);
  const violations: Violation[] = [];
  changes.forEach((c, j) => {
    const mine = hits[j] as number[];
    if (mine.some((i) => !over[i])) return;
    let reason = refused[j] ?? "outside the frame";
    if (mine.length > 0) {
      const i = mine[0] as number;
      reason = `frame[${i}] allows at most ${(frame[i] as JsonObject).max}, ${counts[i]} matched`;
    }
    violations.push({ entity: c.entity, id: c.id, change: c.change, fields: c.fields, reason });
  });
  return violations;
}

export function frameViolations(server: string, frame: JsonObject[], initial: JsonObject, final: JsonObject,
                                skipKind: string | null = null): Violation[] {
  return judge(frame, diff(server, initial, final, declaration(), skipKind));
}

/** A cross-server task's frame judged on its servers' states (keyed by server): each server's changes,
 * in the order of `servers`, judged together (a `max` counts the changes of every server). */
export function frameViolationsAcross(servers: readonly string[], frame: JsonObject[],
                                      initial: { [server: string]: JsonObject },
                                      final: { [server: string]: JsonObject },
                                      skipKind: string | null = null): Violation[] {
  const changes = servers.flatMap((server) =>
    diff(server, initial[server] as JsonObject, final[server] as JsonObject, declaration(), skipKind));
  return judge(frame, changes);
}

const PAST: { [k in ChangeKind]: string } = { create: "created", copy: "copied", update: "updated", delete: "deleted" };

/** The text the Python verifier's `Violation.describe()` gives. */
export function describe(v: Violation): string {
  const head = `${v.entity} ${v.id} ${PAST[v.change]}`;
  return `${v.fields.length > 0 ? `${head} (${v.fields.join(", ")})` : head}: ${v.reason}`;
}
