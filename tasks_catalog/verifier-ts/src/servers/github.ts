/** GitHub primitives (tasks_catalog/predicates/github.py). A missing repository, branch, issue or
 * pull request makes a primitive false. */

import { Int, Name, Pattern, Refine, optional, required } from "../args";
import { arg, definePrimitives } from "../registry";
import { search } from "../pattern";
import { get, has, JsonObject, list, str } from "../values";

const RepoRef = Refine(Name, (v) =>
  typeof v === "string" && v.length >= 3 && /^[^/]+\/[^/]+$/.test(v) ? null : "expected 'owner/name'");
const Number1 = Int(1);

function repo(state: JsonObject, fullName: string): JsonObject | undefined {
  return list(state, "repos").find((r) => `${str(r, "owner")}/${str(r, "name")}` === fullName);
}

function branch(state: JsonObject, fullName: string, name: string | null): JsonObject | undefined {
  const r = repo(state, fullName);
  if (r === undefined) return undefined;
  const wanted = name !== null ? name : str(r, "default_branch");
  return list(r, "branches").find((b) => str(b, "name") === wanted);
}

export default definePrimitives("github", {
  issueClosed: [{ repo: required(RepoRef), issue: required(Number1) }, (state, args) => {
    const r = repo(state, args.repo as string);
    const issue = r && list(r, "issues").find((i) => get(i, "number") === args.issue);
    return issue !== undefined && str(issue, "state") === "closed";
  }],
  prMerged: [{ repo: required(RepoRef), pr: required(Number1) }, (state, args) => {
    const r = repo(state, args.repo as string);
    const pr = r && list(r, "pull_requests").find((p) => get(p, "number") === args.pr);
    return pr !== undefined && get(pr, "merged") === true;
  }],
  issueHasComment: [{ repo: required(RepoRef), issue: required(Number1), pattern: required(Pattern), author: optional(Name) }, (state, args) => {
    const r = repo(state, args.repo as string);
    const issue = r && list(r, "issues").find((i) => get(i, "number") === args.issue);
    if (issue === undefined) return false;
    const author = arg(args, "author") as string | null;
    return list(issue, "comments").some((c) =>
      search(args.pattern as string, str(c, "body")) && (author === null || str(c, "author") === author));
  }],
  repoHasFile: [{ repo: required(RepoRef), path: required(Name), branch: optional(Name), pattern: optional(Pattern) }, (state, args) => {
    const b = branch(state, args.repo as string, arg(args, "branch") as string | null);
    if (b === undefined || !has(get(b, "files"), args.path as string)) return false;
    const pattern = arg(args, "pattern") as string | null;
    return pattern === null || search(pattern, str(get(b, "files"), args.path as string));
  }],
  commitMatchesPattern: [{ repo: required(RepoRef), pattern: required(Pattern), branch: optional(Name) }, (state, args) => {
    const b = branch(state, args.repo as string, arg(args, "branch") as string | null);
    return b !== undefined && list(b, "commits").some((c) => search(args.pattern as string, str(c, "message")));
  }],
});
