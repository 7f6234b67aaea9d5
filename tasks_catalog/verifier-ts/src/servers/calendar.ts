/** Calendar primitives (tasks_catalog/predicates/calendar.py). Calendars by name or id, events by title
 * or id; times as the state's canonical strings; a cancelled event (status "cancelled") counts as none. */

import { Name, Num, Pattern, optional, required } from "../args";
import { arg, definePrimitives } from "../registry";
import { search } from "../pattern";
import { JsonObject, list, same, str } from "../values";

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
});
