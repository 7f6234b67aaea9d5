/** Browser primitives (tasks_catalog/predicates/browser.py). URLs by exact string equality; form
 * values are strings. */

import { DictOf, Name, Pattern, Text, optional, required } from "../args";
import { search } from "../pattern";
import { definePrimitives } from "../registry";
import { get, has, JsonObject, list, str, strings } from "../values";

export default definePrimitives("browser", {
  pageVisited: [{ url: required(Name) }, (state, args) => strings(state, "visited").includes(args.url as string)],
  urlIs: [{ url: required(Name) }, (state, args) => str(state, "current_url") === args.url],
  formSubmitted: [{ form: required(Name), fields: required(DictOf(Text)), matches: optional(DictOf(Pattern)) }, (state, args) => {
    const wanted = Object.entries(args.fields as JsonObject);
    const patterns = Object.entries((args.matches ?? {}) as JsonObject);
    return list(state, "submissions").some((s) => {
      const fields = get(s, "fields");
      return str(s, "form") === args.form && wanted.every(([name, value]) => has(fields, name) && get(fields, name) === value)
        && patterns.every(([name, pattern]) => has(fields, name) && search(pattern as string, str(fields, name)));
    });
  }],
});
