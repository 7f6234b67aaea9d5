/** Filesystem primitives (tasks_catalog/predicates/filesystem.py). Paths are workspace-relative and canonical. */

import { ListOf, Name, Pattern, required } from "../args";
import { definePrimitives } from "../registry";
import { search } from "../pattern";
import { get, has, strings } from "../values";

/** Python's `posixpath.join(prefix, name)` for one component. */
function join(prefix: string, name: string): string {
  if (name.startsWith("/") || prefix === "") return name;
  return prefix.endsWith("/") ? prefix + name : `${prefix}/${name}`;
}

export default definePrimitives("filesystem", {
  fileExists: [{ path: required(Name) }, (state, args) => has(get(state, "files"), args.path as string)],
  fileContentMatches: [{ path: required(Name), pattern: required(Pattern) }, (state, args) => {
    const files = get(state, "files");
    const text = has(files, args.path as string) ? get(files, args.path as string) : null;
    return search(args.pattern as string, typeof text === "string" ? text : null);
  }],
  directoryHasFiles: [{ path: required(Name), files: required(ListOf(Name)) }, (state, args) => {
    const path = args.path as string;
    if (path !== "." && !strings(state, "directories").includes(path)) return false;
    const prefix = path === "." ? "" : path;
    const files = get(state, "files");
    return (args.files as string[]).every((name) => has(files, join(prefix, name)));
  }],
});
