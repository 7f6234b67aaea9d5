/** Calendar primitives (tasks_catalog/predicates/calendar.py). Calendars by name or id, events by title
 * or id; times as the state's canonical strings; a cancelled event (status "cancelled") counts as none. */

import { Name, Num, Pattern, optional, required } from "../args";
import { arg, definePrimitives } from "../registry";
import { search } from "../pattern";
import { JsonObject, list, same, str } from "../values";
import { listing, pattern as shownPattern, quoted, shown } from "../explain";

function calendarId(state: JsonObject, ref: string): string | null {
  const found = list(state, "calendars").find((c) => str(c, "name") === ref || str(c, "id") === ref);
  return found === undefined ? null : str(found, "id");
}

/** The events that count: every one but the cancelled (a missing status is "confirmed"). */
function live(state: JsonObject): JsonObject[] {
  return list(state, "events").filter((e) => e.status !== "cancelled");
}

function inCalendar(state: JsonObject, event: JsonObject, name: string | null): boolean {
  return name === null || str(event, "calendar_id") === calendarId(state, name);
}

const noCalendar = (state: JsonObject, ref: string) =>
  `no calendar named or with id ${quoted(ref)}; calendars: ${listing(list(state, "calendars").map((c) => str(c, "name")))}`;

function events(state: JsonObject, items: JsonObject[]): string {
  const names = new Map(list(state, "calendars").map((c) => [str(c, "id"), str(c, "name")]));
  return items.slice(0, 3).map((e) => `${shown(str(e, "title"), 50)} at ${str(e, "start")} in ${names.get(str(e, "calendar_id")) ?? str(e, "calendar_id")}`
    + (e.status === "cancelled" ? " (cancelled)" : "")).join("; ") || "none";
}

export default definePrimitives("calendar", {
  eventExists: [{ title: required(Name), calendar: optional(Name), start: optional(Name) }, (state, args) => {
    const calendar = arg(args, "calendar") as string | null;
    const start = arg(args, "start") as string | null;
    return live(state).some((e) =>
      (str(e, "title") === args.title || str(e, "id") === args.title) && inCalendar(state, e, calendar) && (start === null || str(e, "start") === start));
  }],
  eventHasAttendee: [{ event: required(Name), attendee: required(Name) }, (state, args) =>
    live(state).some((e) =>
      (str(e, "id") === args.event || str(e, "title") === args.event)
      && list(e, "attendees").some((a) => str(a, "email") === args.attendee))],
  calendarExists: [{ calendar: required(Name) }, (state, args) => calendarId(state, args.calendar as string) !== null],
  eventCount: [{ count: required(Num(0)), calendar: optional(Name), title_pattern: optional(Pattern) }, (state, args) => {
    const calendar = arg(args, "calendar") as string | null;
    const pattern = arg(args, "title_pattern") as string | null;
    if (calendar !== null && calendarId(state, calendar) === null) return false;
    const n = live(state).filter((e) =>
      inCalendar(state, e, calendar) && (pattern === null || search(pattern, str(e, "title")))).length;
    return same(args.count, n);
  }],
}, {
  eventExists: (state, args) => {
    const calendar = arg(args, "calendar") as string | null;
    const start = arg(args, "start");
    const expected = `an event ${quoted(args.title)}${calendar !== null ? ` in ${quoted(calendar)}` : ""}${start !== null ? ` at ${start}` : ""}`;
    if (calendar !== null && calendarId(state, calendar) === null) return [expected, noCalendar(state, calendar)];
    const named = list(state, "events").filter((e) => str(e, "title") === args.title || str(e, "id") === args.title);
    return [expected, `${named.length} events titled or with id ${quoted(args.title)}: ${events(state, named)}`];
  },
  eventHasAttendee: (state, args) => {
    const expected = `${args.attendee} invited to ${quoted(args.event)}`;
    const named = live(state).filter((e) => str(e, "id") === args.event || str(e, "title") === args.event);
    if (named.length === 0) return [expected, `no live event titled or with id ${quoted(args.event)}`];
    return [expected, named.slice(0, 3).map((e) =>
      `${shown(str(e, "title"), 50)} at ${str(e, "start")} invites ${listing(list(e, "attendees").map((a) => str(a, "email")), 8)}`).join("; ")];
  },
  calendarExists: (state, args) => [`a calendar ${quoted(args.calendar)}`,
    calendarId(state, args.calendar as string) === null ? noCalendar(state, args.calendar as string) : `calendar ${quoted(args.calendar)} exists`],
  eventCount: (state, args) => {
    const calendar = arg(args, "calendar") as string | null;
    const titlePattern = arg(args, "title_pattern") as string | null;
    const where = calendar !== null ? ` in ${quoted(calendar)}` : "";
    const titled = titlePattern !== null ? ` titled ${shownPattern(titlePattern)}` : "";
    const expected = `${args.count} events${where}${titled}`;
    if (calendar !== null && calendarId(state, calendar) === null) return [expected, noCalendar(state, calendar)];
    const counted = live(state).filter((e) => inCalendar(state, e, calendar) && (titlePattern === null || search(titlePattern, str(e, "title"))));
    return [expected, `${counted.length} live events${where}${titled}: ${events(state, counted)}`];
  },
});
