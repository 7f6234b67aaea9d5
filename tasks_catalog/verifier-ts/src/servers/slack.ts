/** Slack primitives (tasks_catalog/predicates/slack.py). Channels by exact name or id, users by exact
 * handle or id; a missing channel or user makes a primitive false. */

import { ListOf, Name, Pattern, optional, required } from "../args";
import { arg, definePrimitives } from "../registry";
import { search } from "../pattern";
import { get, JsonObject, list, str, strings } from "../values";

const byRef = (items: JsonObject[], ref: string) => items.find((x) => str(x, "id") === ref || str(x, "name") === ref);

export default definePrimitives("slack", {
  channelExists: [{ channel: required(Name) }, (state, args) => byRef(list(state, "channels"), args.channel as string) !== undefined],
  messagePosted: [{ channel: required(Name), pattern: required(Pattern), user: optional(Name) }, (state, args) => {
    const channel = byRef(list(state, "channels"), args.channel as string);
    if (channel === undefined) return false;
    let author: string | null = null;
    const user = arg(args, "user");
    if (user !== null) {
      const found = byRef(list(state, "users"), user as string);
      if (found === undefined) return false;
      author = str(found, "id");
    }
    return list(channel, "messages").some(
      (m) => (author === null || str(m, "user") === author) && search(args.pattern as string, str(m, "text")));
  }],
  channelHasMembers: [{ channel: required(Name), members: required(ListOf(Name)) }, (state, args) => {
    const channel = byRef(list(state, "channels"), args.channel as string);
    if (channel === undefined) return false;
    const members = strings(channel, "members");
    return (args.members as string[]).every((ref) => {
      const user = byRef(list(state, "users"), ref);
      return user !== undefined && members.includes(str(user, "id") as string);
    });
  }],
  channelArchived: [{ channel: required(Name) }, (state, args) => {
    const channel = byRef(list(state, "channels"), args.channel as string);
    return channel !== undefined && get(channel, "is_archived") === true;
  }],
});
