/** Browser primitives (tasks_catalog/predicates/browser.py). URLs by exact string equality; form
 * values are strings. */

import { DictOf, Name, Pattern, Text, optional, required } from "../args";
import { search } from "../pattern";
import { arg, definePrimitives } from "../registry";
import { get, has, JsonObject, list, str, strings } from "../values";
import { listing, value } from "../explain";

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
}, {
  pageVisited: (state, args) => {
    const visited = strings(state, "visited");
    return [`${args.url} visited`, `${visited.length} pages visited; the last: ${listing(visited.slice(-5), 5)}`];
  },
  urlIs: (state, args) => [`the current page ${args.url}`, `the current page is ${str(state, "current_url") ?? "none (nothing opened)"}`],
  formSubmitted: (state, args) => {
    const matches = arg(args, "matches");
    const expected = `form ${args.form} submitted with ${value(args.fields)}${matches !== null && Object.keys(matches as JsonObject).length > 0 ? ` and values matching ${value(matches)}` : ""}`;
    const all = list(state, "submissions");
    const sent = all.filter((s) => str(s, "form") === args.form);
    if (sent.length === 0) {
      return [expected, `form ${args.form} was never submitted; forms submitted: ${listing([...new Set(all.map((s) => str(s, "form")))].sort())}`];
    }
    return [expected, `${sent.length} submissions of ${args.form}; the last sent ${value(get(sent[sent.length - 1], "fields"))}`];
  },
});
