/** GitHub primitives (tasks_catalog/predicates/github.py). A missing repository, branch, issue or
 * pull request makes a primitive false. */

import { Int, Name, Pattern, Refine, optional, required } from "../args";
import { arg, definePrimitives } from "../registry";
import { search } from "../pattern";
import { get, has, JsonObject, list, str } from "../values";
import { listing, pattern, shown } from "../explain";

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

function noRepo(state: JsonObject, fullName: string): string {
  return `no repository ${fullName}; repositories: ${listing(list(state, "repos").map((r) => `${str(r, "owner")}/${str(r, "name")}`))}`;
}

function issueOrWhy(state: JsonObject, fullName: string, n: number): [JsonObject | undefined, string] {
  const r = repo(state, fullName);
  if (r === undefined) return [undefined, noRepo(state, fullName)];
  const issue = list(r, "issues").find((i) => get(i, "number") === n);
  if (issue !== undefined) return [issue, ""];
  const pr = list(r, "pull_requests").some((p) => get(p, "number") === n);
  return [undefined, `${fullName} has no issue #${n}${pr ? ` (#${n} is a pull request)` : ""}`];
}

function branchOrWhy(state: JsonObject, fullName: string, name: string | null): [JsonObject | undefined, string] {
  const r = repo(state, fullName);
  if (r === undefined) return [undefined, noRepo(state, fullName)];
  const b = branch(state, fullName, name);
  const wanted = name ?? str(r, "default_branch");
  return [b, b !== undefined ? "" : `${fullName} has no branch ${wanted}; branches: ${listing(list(r, "branches").map((x) => str(x, "name")))}`];
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
}, {
  issueClosed: (state, args) => {
    const expected = `issue #${args.issue} of ${args.repo} closed`;
    const [issue, why] = issueOrWhy(state, args.repo as string, args.issue as number);
    if (issue === undefined) return [expected, why];
    const reason = str(issue, "state_reason");
    return [expected, `issue #${args.issue} ${shown(str(issue, "title"))} is ${str(issue, "state")}${reason ? ` (${reason})` : ""}`];
  },
  prMerged: (state, args) => {
    const expected = `pull request #${args.pr} of ${args.repo} merged`;
    const r = repo(state, args.repo as string);
    if (r === undefined) return [expected, noRepo(state, args.repo as string)];
    const pr = list(r, "pull_requests").find((p) => get(p, "number") === args.pr);
    if (pr === undefined) return [expected, `${args.repo} has no pull request #${args.pr}`];
    return [expected, `pull request #${args.pr} ${shown(str(pr, "title"))} (${str(pr, "head")} -> ${str(pr, "base")}) is ${str(pr, "state")}, ${get(pr, "merged") === true ? "merged" : "not merged"}`];
  },
  issueHasComment: (state, args) => {
    const author = arg(args, "author");
    const expected = `a comment${author !== null ? ` by ${author}` : ""} on issue #${args.issue} of ${args.repo} matching ${pattern(args.pattern)}`;
    const [issue, why] = issueOrWhy(state, args.repo as string, args.issue as number);
    if (issue === undefined) return [expected, why];
    const comments = list(issue, "comments");
    const last = comments.slice(-3).map((c) => `${str(c, "author")}: ${shown(str(c, "body"))}`).join("; ") || "none";
    return [expected, `issue #${args.issue} has ${comments.length} comments; the last: ${last}`];
  },
  repoHasFile: (state, args) => {
    const wanted = arg(args, "branch") as string | null;
    const p = arg(args, "pattern");
    const expected = `${args.path} on ${wanted ?? "the default branch"} of ${args.repo}${p !== null ? ` matching ${pattern(p)}` : ""}`;
    const [b, why] = branchOrWhy(state, args.repo as string, wanted);
    if (b === undefined) return [expected, why];
    const files = (get(b, "files") ?? {}) as JsonObject;
    if (!has(files, args.path as string)) return [expected, `no ${args.path} on ${str(b, "name")}; files there: ${listing(Object.keys(files).sort(), 8)}`];
    return [expected, `${args.path} on ${str(b, "name")} reads ${shown(str(files, args.path as string), 240)}`];
  },
  commitMatchesPattern: (state, args) => {
    const wanted = arg(args, "branch") as string | null;
    const expected = `a commit on ${wanted ?? "the default branch"} of ${args.repo} whose message matches ${pattern(args.pattern)}`;
    const [b, why] = branchOrWhy(state, args.repo as string, wanted);
    if (b === undefined) return [expected, why];
    const commits = list(b, "commits");
    const newest = commits.slice(0, 3).map((c) => `${(str(c, "sha") ?? "").slice(0, 7)} ${shown(str(c, "message"))}`).join("; ") || "none";
    return [expected, `${commits.length} commits on ${str(b, "name")}; the newest: ${newest}`];
  },
});
