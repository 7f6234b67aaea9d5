/** Slack primitives (tasks_catalog/predicates/slack.py). Channels by exact name or id, users by exact
 * handle or id; a missing channel or user makes a primitive false. */

import { ListOf, Name, Pattern, optional, required } from "../args";
import { arg, definePrimitives } from "../registry";
import { search } from "../pattern";
import { get, JsonObject, list, str, strings } from "../values";
import { listing, pattern, quoted, shown } from "../explain";

const byRef = (items: JsonObject[], ref: string) => items.find((x) => str(x, "id") === ref || str(x, "name") === ref);
const noChannel = (state: JsonObject, ref: string) =>
  `no channel named or with id ${quoted(ref)}; channels: ${listing(list(state, "channels").map((c) => `#${str(c, "name")}`))}`;
const handle = (state: JsonObject, id: string) => str(byRef(list(state, "users"), id), "name") ?? id;

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
  channelTopicMatches: [{ channel: required(Name), pattern: required(Pattern) }, (state, args) => {
    const channel = byRef(list(state, "channels"), args.channel as string);
    return channel !== undefined && search(args.pattern as string, str(channel, "topic") ?? "");
  }],
}, {
  channelExists: (state, args) => {
    const c = byRef(list(state, "channels"), args.channel as string);
    return [`a channel ${quoted(args.channel)}`, c === undefined ? noChannel(state, args.channel as string) : `#${str(c, "name")} (${str(c, "id")}) exists`];
  },
  messagePosted: (state, args) => {
    const user = arg(args, "user") as string | null;
    const by = user !== null ? ` by ${user}` : "";
    const expected = `a message in ${quoted(args.channel)}${by} matching ${pattern(args.pattern)}`;
    const c = byRef(list(state, "channels"), args.channel as string);
    if (c === undefined) return [expected, noChannel(state, args.channel as string)];
    const author = user !== null ? byRef(list(state, "users"), user) : undefined;
    if (user !== null && author === undefined) return [expected, `no user named or with id ${quoted(user)}`];
    const messages = list(c, "messages");
    const mine = messages.filter((m) => author === undefined || str(m, "user") === str(author, "id"));
    const matching = mine.filter((m) => search(args.pattern as string, str(m, "text")));
    const last = messages.slice(-3).map((m) => `${handle(state, str(m, "user") ?? "")}: ${shown(str(m, "text"))}`).join("; ") || "none";
    return [expected, `${matching.length} of the ${mine.length} messages${by} in #${str(c, "name")} (${str(c, "id")}) match `
      + `${pattern(args.pattern)}; its last ${Math.min(3, messages.length)} messages: ${last}`];
  },
  channelHasMembers: (state, args) => {
    const expected = `${listing(args.members as string[], 20)} members of ${quoted(args.channel)}`;
    const c = byRef(list(state, "channels"), args.channel as string);
    if (c === undefined) return [expected, noChannel(state, args.channel as string)];
    const members = strings(c, "members");
    const missing = (args.members as string[]).filter((ref) => {
      const u = byRef(list(state, "users"), ref);
      return u === undefined || !members.includes(str(u, "id") as string);
    });
    return [expected, `#${str(c, "name")} (${str(c, "id")}) has members ${listing(members.map((m) => handle(state, m)))}; not members: ${listing(missing)}`];
  },
  channelArchived: (state, args) => {
    const c = byRef(list(state, "channels"), args.channel as string);
    const expected = `${quoted(args.channel)} archived`;
    if (c === undefined) return [expected, noChannel(state, args.channel as string)];
    return [expected, `#${str(c, "name")} (${str(c, "id")}) is ${get(c, "is_archived") === true ? "" : "not "}archived`];
  },
  channelTopicMatches: (state, args) => {
    const c = byRef(list(state, "channels"), args.channel as string);
    const expected = `the topic of ${quoted(args.channel)} matching ${pattern(args.pattern)}`;
    if (c === undefined) return [expected, noChannel(state, args.channel as string)];
    const topic = str(c, "topic") ?? "";
    return [expected, `#${str(c, "name")} (${str(c, "id")}) has the topic ${topic ? shown(topic) : "none"}`];
  },
});
