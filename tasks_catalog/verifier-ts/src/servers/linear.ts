/** Linear primitives (tasks_catalog/predicates/linear.py). Issues by identifier (`ENG-142`), exact. */

import { Int, Name, Null, OneOf, required } from "../args";
import { definePrimitives } from "../registry";
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
});
