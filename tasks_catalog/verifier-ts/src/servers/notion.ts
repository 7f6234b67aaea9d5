/** Notion primitives (tasks_catalog/predicates/notion.py). Pages and databases by exact title or id;
 * only objects that are not archived count. */

import { DictOf, ListOf, Name, OneOf, Pattern, Scalar, Text, optional, required } from "../args";
import { search } from "../pattern";
import { arg, definePrimitives } from "../registry";
import { get, Json, JsonObject, list, same, str } from "../values";
import { closest, listing, pattern, quoted, shown, value } from "../explain";

const Value = OneOf(Scalar, ListOf(Text));

/** Property value equality: `same` for scalars; lists have the same members in any order. */
export function equal(expected: Json | undefined, actual: Json | undefined): boolean {
  if (Array.isArray(expected) || Array.isArray(actual)) {
    if (!Array.isArray(expected) || !Array.isArray(actual) || expected.length !== actual.length) return false;
    const order = (x: Json, y: Json) => (String(x) < String(y) ? -1 : String(x) > String(y) ? 1 : 0);
    const a = [...expected].sort(order);
    const b = [...actual].sort(order);
    return a.every((x, i) => same(x, b[i]));
  }
  return same(expected, actual);
}

const live = (state: JsonObject, title: string) =>
  list(state, "pages").filter((p) => (str(p, "title") === title || str(p, "id") === title) && get(p, "archived") !== true);
const named = (x: JsonObject, ref: unknown) => str(x, "title") === ref || str(x, "id") === ref;
const byId = (items: JsonObject[], id: string) => items.find((x) => str(x, "id") === id);

/** A page's property values: its `properties` plus its title under its title property's name. */
function valuesOf(state: JsonObject, page: JsonObject): Map<string, Json> {
  const parentId = str(page, "parent_id");
  const db = parentId ? byId(list(state, "databases"), parentId) : undefined;
  let titleProperty = "title";
  if (db !== undefined) {
    const schema = get(db, "properties");
    const found = schema && typeof schema === "object" && !Array.isArray(schema)
      ? Object.entries(schema).find(([, p]) => str(p, "type") === "title") : undefined;
    if (found !== undefined) titleProperty = found[0];
  }
  const values = new Map<string, Json>([[titleProperty, str(page, "title")]]);
  const props = get(page, "properties");
  if (props && typeof props === "object" && !Array.isArray(props)) {
    for (const [name, value] of Object.entries(props)) values.set(name, value);
  }
  return values;
}

const holds = (values: Map<string, Json>, name: string, expected: Json) => values.has(name) && equal(expected, values.get(name));

function noPage(state: JsonObject, ref: string): string {
  const archived = list(state, "pages").filter((p) => named(p, ref) && get(p, "archived") === true).length;
  return `no live page titled or with id ${quoted(ref)}${archived > 0 ? ` (${archived} archived)` : ""}`;
}

export default definePrimitives("notion", {
  pageExists: [{ title: required(Name), parent: optional(Name) }, (state, args) => {
    const parent = arg(args, "parent");
    for (const page of live(state, args.title as string)) {
      if (parent === null) return true;
      const parentId = str(page, "parent_id");
      if (parentId === null) continue;
      const owner = byId(list(state, "pages"), parentId) ?? byId(list(state, "databases"), parentId);
      if (owner !== undefined && named(owner, parent) && get(owner, "archived") !== true) return true;
    }
    return false;
  }],
  databaseHasRow: [{ database: required(Name), where: required(DictOf(Value)) }, (state, args) => {
    const where = Object.entries(args.where as JsonObject);
    for (const db of list(state, "databases")) {
      if (!named(db, args.database) || get(db, "archived") === true) continue;
      for (const row of list(state, "pages")) {
        if (str(row, "parent_id") !== str(db, "id") || get(row, "archived") === true) continue;
        const values = valuesOf(state, row);
        if (where.every(([name, expected]) => holds(values, name, expected))) return true;
      }
    }
    return false;
  }],
  pagePropertyEquals: [{ page: required(Name), property: required(Name), value: required(Value) }, (state, args) =>
    live(state, args.page as string).some((p) => holds(valuesOf(state, p), args.property as string, args.value as Json))],
  databaseExists: [{ title: required(Name) }, (state, args) =>
    list(state, "databases").some((db) => named(db, args.title) && get(db, "archived") !== true)],
  pageContentMatches: [{ page: required(Name), pattern: required(Pattern), type: optional(Name) }, (state, args) => {
    const type = arg(args, "type");
    return live(state, args.page as string).some((p) => list(p, "content").some((b) =>
      (type === null || str(b, "type") === type) && search(args.pattern as string, str(b, "text"))));
  }],
  commentPosted: [{ page: required(Name), pattern: required(Pattern), author: optional(Name) }, (state, args) => {
    const author = arg(args, "author");
    const pages = new Set(live(state, args.page as string).map((p) => str(p, "id")));
    return list(state, "comments").some((c) => pages.has(str(c, "page_id") as string)
      && search(args.pattern as string, str(c, "text")) && (author === null || str(c, "author") === author));
  }],
}, {
  pageExists: (state, args) => {
    const parent = arg(args, "parent");
    const expected = `a page ${quoted(args.title)}${parent !== null ? ` under ${quoted(parent)}` : ""}`;
    const pages = live(state, args.title as string);
    if (pages.length === 0) return [expected, noPage(state, args.title as string)];
    return [expected, pages.slice(0, 4).map((p) => {
      const parentId = str(p, "parent_id");
      if (parentId === null) return `${str(p, "id")} under the top of the workspace`;
      const owner = byId(list(state, "pages"), parentId) ?? byId(list(state, "databases"), parentId);
      return `${str(p, "id")} under ${owner === undefined ? parentId : `${quoted(str(owner, "title"))}${get(owner, "archived") === true ? " (archived)" : ""}`}`;
    }).join("; ")];
  },
  databaseHasRow: (state, args) => {
    const where = args.where as JsonObject;
    const expected = `a row of ${quoted(args.database)} with ${value(where)}`;
    const dbs = new Set(list(state, "databases").filter((db) => named(db, args.database) && get(db, "archived") !== true).map((db) => str(db, "id")));
    if (dbs.size === 0) return [expected, `no live database titled or with id ${quoted(args.database)}`];
    const rows = list(state, "pages").filter((r) => get(r, "archived") !== true && dbs.has(str(r, "parent_id")))
      .map((r) => Object.fromEntries(valuesOf(state, r)) as JsonObject);
    return [expected, `${rows.length} rows; the nearest: ${closest(rows, where, (a, b) => equal(a, b))}`];
  },
  pagePropertyEquals: (state, args) => {
    const prop = args.property as string;
    const expected = `${prop} = ${value(args.value)} on ${quoted(args.page)}`;
    const pages = live(state, args.page as string);
    if (pages.length === 0) return [expected, noPage(state, args.page as string)];
    return [expected, pages.slice(0, 4).map((p) => {
      const values = valuesOf(state, p);
      return `${str(p, "id")}: ${prop} ${values.has(prop) ? `= ${value(values.get(prop))}` : `absent (it has ${listing([...values.keys()])})`}`;
    }).join("; ")];
  },
  databaseExists: (state, args) => {
    const dbs = list(state, "databases");
    const found = dbs.filter((db) => named(db, args.title)).map((db) => `${str(db, "id")}${get(db, "archived") === true ? " (archived)" : ""}`).join("; ")
      || `none; databases: ${listing(dbs.filter((db) => get(db, "archived") !== true).map((db) => str(db, "title")))}`;
    return [`a live database ${quoted(args.title)}`, `databases titled or with id ${quoted(args.title)}: ${found}`];
  },
  pageContentMatches: (state, args) => {
    const type = arg(args, "type");
    const expected = `a${type !== null ? ` ${type}` : ""} block of ${quoted(args.page)} matching ${pattern(args.pattern)}`;
    const pages = live(state, args.page as string);
    if (pages.length === 0) return [expected, noPage(state, args.page as string)];
    const blocks = pages.flatMap((p) => list(p, "content"));
    return [expected, `${blocks.length} blocks; the last: ${blocks.slice(-4).map((b) => `${str(b, "type")} ${shown(str(b, "text"), 60)}`).join("; ") || "none"}`];
  },
  commentPosted: (state, args) => {
    const author = arg(args, "author");
    const expected = `a comment${author !== null ? ` by ${author}` : ""} on ${quoted(args.page)} matching ${pattern(args.pattern)}`;
    const pages = new Set(live(state, args.page as string).map((p) => str(p, "id")));
    if (pages.size === 0) return [expected, noPage(state, args.page as string)];
    const comments = list(state, "comments").filter((c) => pages.has(str(c, "page_id")));
    return [expected, `${comments.length} comments; the last: ${comments.slice(-3).map((c) => `${str(c, "author")}: ${shown(str(c, "text"))}`).join("; ") || "none"}`];
  },
});
