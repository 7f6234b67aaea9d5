/** Linear primitives (tasks_catalog/predicates/linear.py). Issues by identifier (`ENG-142`), exact. */

import { Int, Name, Null, OneOf, Pattern, optional, required } from "../args";
import { arg, definePrimitives } from "../registry";
import { search } from "../pattern";
import { get, JsonObject, list, same, str, strings } from "../values";

/** Linear's priority scale (servers/linear/state.py PRIORITY_NAMES). */
export const PRIORITY_NAMES: Record<number, string> = { 0: "No priority", 1: "Urgent", 2: "High", 3: "Medium", 4: "Low" };

const issue = (state: JsonObject, id: string) => list(state, "issues").find((i) => str(i, "id") === id);

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
});
