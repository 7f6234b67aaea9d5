/** Filesystem primitives (tasks_catalog/predicates/filesystem.py). Paths are workspace-relative and canonical. */

import { ListOf, Name, Pattern, required } from "../args";
import { definePrimitives } from "../registry";
import { search } from "../pattern";
import { get, has, JsonObject, strings } from "../values";
import { listing, pattern, shown } from "../explain";

/** Python's `posixpath.join(prefix, name)` for one component. */
function join(prefix: string, name: string): string {
  if (name.startsWith("/") || prefix === "") return name;
  return prefix.endsWith("/") ? prefix + name : `${prefix}/${name}`;
}

function dirname(path: string): string {
  const i = path.lastIndexOf("/");
  return i < 0 ? "" : path.slice(0, i);
}

/** The base names of the files directly in `folder` ("" or "." for the workspace root). */
function namesIn(state: JsonObject, folder: string): string[] {
  const where = folder === "." ? "" : folder;
  return Object.keys((get(state, "files") ?? {}) as JsonObject).filter((p) => dirname(p) === where).map((p) => p.slice(p.lastIndexOf("/") + 1));
}

function noFile(state: JsonObject, path: string): string {
  const dirs = strings(state, "directories");
  if (dirs.includes(path)) return `${path} is a directory, not a file`;
  const folder = dirname(path);
  if (folder !== "" && !dirs.includes(folder)) return `no file at ${path}, and no directory ${folder}`;
  return `no file at ${path}; files in ${folder || "the workspace root"}: ${listing(namesIn(state, folder))}`;
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
}, {
  fileExists: (state, args) => {
    const text = get(get(state, "files"), args.path as string);
    return [`a file at ${args.path}`, typeof text === "string" ? `${args.path} is a file of ${[...text].length} characters` : noFile(state, args.path as string)];
  },
  fileContentMatches: (state, args) => {
    const expected = `the file ${args.path} matching ${pattern(args.pattern)}`;
    const text = get(get(state, "files"), args.path as string);
    if (typeof text !== "string") return [expected, noFile(state, args.path as string)];
    return [expected, `${args.path} (${[...text].length} characters) reads ${shown(text, 240)}`];
  },
  directoryHasFiles: (state, args) => {
    const path = args.path as string;
    const expected = `directory ${path} holding ${listing(args.files as string[], 20)}`;
    if (path !== "." && !strings(state, "directories").includes(path)) return [expected, `no directory ${path}`];
    const names = namesIn(state, path);
    return [expected, `${path} holds ${listing([...names].sort(), 10)}; missing: ${listing((args.files as string[]).filter((n) => !names.includes(n)))}`];
  },
});
