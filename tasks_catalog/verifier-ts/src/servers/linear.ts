/** Linear primitives (tasks_catalog/predicates/linear.py). Issues by identifier (`ENG-142`), exact. */

import { Int, Name, Null, OneOf, Pattern, optional, required } from "../args";
import { arg, definePrimitives } from "../registry";
import { search } from "../pattern";
import { get, JsonObject, list, same, str, strings } from "../values";
import { listing, pattern, quoted, shown } from "../explain";

/** Linear's priority scale (servers/linear/state.py PRIORITY_NAMES). */
export const PRIORITY_NAMES: Record<number, string> = { 0: "No priority", 1: "Urgent", 2: "High", 3: "Medium", 4: "Low" };

const issue = (state: JsonObject, id: string) => list(state, "issues").find((i) => str(i, "id") === id);

function who(state: JsonObject, userId: string | null): string {
  if (userId === null) return "nobody";
  const user = list(state, "users").find((u) => str(u, "id") === userId);
  return user === undefined ? userId : `${str(user, "name")} <${str(user, "email")}> (${userId})`;
}

export default definePrimitives("linear", {
  issueState: [{ issue: required(Name), state: required(Name) }, (state, args) => {
    const found = issue(state, args.issue as string);
    return found !== undefined && str(found, "state") === args.state;
  }],
  issueHasLabel: [{ issue: required(Name), label: required(Name) }, (state, args) => {
    const found = issue(state, args.issue as string);
    return found !== undefined && strings(found, "labels").includes(args.label as string);
  }],
  issueAssignee: [{ issue: required(Name), assignee: required(OneOf(Name, Null)) }, (state, args) => {
    const found = issue(state, args.issue as string);
    if (found === undefined) return false;
    const assignee = str(found, "assignee");
    if (args.assignee === null) return assignee === null;
    const user = assignee === null ? undefined : list(state, "users").find((u) => str(u, "id") === assignee);
    return user !== undefined && [str(user, "id"), str(user, "name"), str(user, "email")].includes(args.assignee as string);
  }],
  issuePriority: [{ issue: required(Name), priority: required(OneOf(Int(), Name)) }, (state, args) => {
    const found = issue(state, args.issue as string);
    if (found === undefined) return false;
    const priority = get(found, "priority");
    if (typeof args.priority === "string") {
      return typeof priority === "number" && Object.prototype.hasOwnProperty.call(PRIORITY_NAMES, priority)
        && PRIORITY_NAMES[priority] === args.priority;
    }
    return same(args.priority, priority);
  }],
  issueHasComment: [{ issue: required(Name), pattern: required(Pattern), author: optional(Name) }, (state, args) => {
    const found = issue(state, args.issue as string);
    if (found === undefined) return false;
    const author = arg(args, "author") as string | null;
    return list(found, "comments").some((c) => {
      if (author !== null) {
        const user = list(state, "users").find((u) => str(u, "id") === str(c, "author"));
        if (user === undefined || ![str(user, "id"), str(user, "name"), str(user, "email")].includes(author)) return false;
      }
      return search(args.pattern as string, str(c, "body") ?? "");
    });
  }],
  issueInCycle: [{ issue: required(Name), cycle: required(OneOf(Name, Null)) }, (state, args) => {
    const found = issue(state, args.issue as string);
    if (found === undefined) return false;
    const cycleId = get(found, "cycle");
    if (args.cycle === null) return cycleId === null || cycleId === undefined;
    const cycle = list(state, "cycles").find((c) => str(c, "id") === cycleId);
    return cycle !== undefined && str(cycle, "team") === str(found, "id")?.split("-")[0] && str(cycle, "id") === args.cycle;
  }],
}, {
  issueState: (state, args) => {
    const found = issue(state, args.issue as string);
    return [`${args.issue} in state ${quoted(args.state)}`, found === undefined ? `no issue ${args.issue}` : `${args.issue} ${shown(str(found, "title"), 60)} is in ${quoted(str(found, "state"))}`];
  },
  issueHasLabel: (state, args) => {
    const found = issue(state, args.issue as string);
    return [`${args.issue} labelled ${quoted(args.label)}`, found === undefined ? `no issue ${args.issue}` : `${args.issue} carries ${listing(strings(found, "labels"))}`];
  },
  issueAssignee: (state, args) => {
    const found = issue(state, args.issue as string);
    const expected = `${args.issue} assigned to ${args.assignee ?? "nobody"}`;
    return [expected, found === undefined ? `no issue ${args.issue}` : `${args.issue} is assigned to ${who(state, str(found, "assignee"))}`];
  },
  issuePriority: (state, args) => {
    const found = issue(state, args.issue as string);
    const expected = `${args.issue} at priority ${typeof args.priority === "string" ? quoted(args.priority) : args.priority}`;
    if (found === undefined) return [expected, `no issue ${args.issue}`];
    const p = get(found, "priority") as number;
    return [expected, `${args.issue} has priority ${p} (${PRIORITY_NAMES[p] ?? "unknown"})`];
  },
  issueHasComment: (state, args) => {
    const author = arg(args, "author");
    const expected = `a comment${author !== null ? ` by ${author}` : ""} on ${args.issue} matching ${pattern(args.pattern)}`;
    const found = issue(state, args.issue as string);
    if (found === undefined) return [expected, `no issue ${args.issue}`];
    const comments = list(found, "comments");
    const last = comments.slice(-3).map((c) => `${who(state, str(c, "author"))}: ${shown(str(c, "body"))}`).join("; ") || "none";
    return [expected, `${args.issue} has ${comments.length} comments; the last: ${last}`];
  },
  issueInCycle: (state, args) => {
    const expected = `${args.issue} in cycle ${args.cycle ?? "none"}`;
    const found = issue(state, args.issue as string);
    if (found === undefined) return [expected, `no issue ${args.issue}`];
    const cycleId = str(found, "cycle");
    return [expected, `${args.issue} is in ${cycleId === null ? "no cycle" : `cycle ${cycleId}`}`];
  },
});
