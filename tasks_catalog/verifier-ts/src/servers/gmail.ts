/** Gmail primitives (tasks_catalog/predicates/gmail.py). Messages by id; addresses exact; subjects and
 * bodies by regex search. */

import { Name, Pattern, optional, required } from "../args";
import { arg, definePrimitives } from "../registry";
import { search } from "../pattern";
import { JsonObject, list, str, strings } from "../values";
import { listing, pattern, shown } from "../explain";

/** The system labels every mailbox has (servers/gmail/state.py SYSTEM_LABELS). */
export const SYSTEM_LABELS = new Set([
  "INBOX", "SENT", "DRAFT", "UNREAD", "STARRED", "IMPORTANT", "SPAM", "TRASH",
  "CATEGORY_PERSONAL", "CATEGORY_SOCIAL", "CATEGORY_PROMOTIONS", "CATEGORY_UPDATES", "CATEGORY_FORUMS",
]);

function wanted(what: string, args: JsonObject): string {
  const to = arg(args, "to");
  const subject = arg(args, "subject_pattern");
  const body = arg(args, "body_pattern");
  const parts = [to !== null ? `to ${to}` : "", subject !== null ? `subject matching ${pattern(subject)}` : "",
    body !== null ? `body matching ${pattern(body)}` : ""].filter((p) => p !== "");
  return parts.length > 0 ? `${what} with ${parts.join(", ")}` : what;
}

const mails = (items: JsonObject[]) =>
  items.map((m) => `to ${listing(strings(m, "to"), 3)}, subject ${shown(str(m, "subject"), 60)}`).join("; ") || "none";

function labelsOf(state: JsonObject, ids: string[]): string {
  const names = new Map(list(state, "labels").map((l) => [str(l, "id"), str(l, "name")]));
  return listing(ids.map((i) => names.get(i) ?? i), 10);
}

export default definePrimitives("gmail", {
  draftExists: [{ to: optional(Name), subject_pattern: optional(Pattern), body_pattern: optional(Pattern) }, (state, args) => {
    const to = arg(args, "to") as string | null;
    const subject = arg(args, "subject_pattern") as string | null;
    const body = arg(args, "body_pattern") as string | null;
    return list(state, "drafts").some((d) =>
      (to === null || strings(d, "to").includes(to))
      && (subject === null || search(subject, str(d, "subject")))
      && (body === null || search(body, str(d, "body"))));
  }],
  messageLabelApplied: [{ message: required(Name), label: required(Name) }, (state, args) => {
    const label = args.label as string;
    let labelId: string | null = label;
    if (!SYSTEM_LABELS.has(label)) {
      const user = list(state, "labels").find((l) => str(l, "name") === label || str(l, "id") === label);
      if (user === undefined) return false;
      labelId = str(user, "id");
    }
    return list(state, "messages").some((m) => str(m, "id") === args.message && strings(m, "label_ids").includes(labelId as string));
  }],
  labelExists: [{ label: required(Name) }, (state, args) =>
    SYSTEM_LABELS.has(args.label as string)
      || list(state, "labels").some((l) => str(l, "name") === args.label || str(l, "id") === args.label)],
  draftSent: [{ subject_pattern: optional(Pattern), to: optional(Name), body_pattern: optional(Pattern) }, (state, args) => {
    const subject = arg(args, "subject_pattern") as string | null;
    const to = arg(args, "to") as string | null;
    const body = arg(args, "body_pattern") as string | null;
    return list(state, "messages").some((m) =>
      strings(m, "label_ids").includes("SENT")
      && (subject === null || search(subject, str(m, "subject")))
      && (to === null || strings(m, "to").includes(to))
      && (body === null || search(body, str(m, "body"))));
  }],
  messageIsRead: [{ message: required(Name) }, (state, args) =>
    list(state, "messages").some((m) => str(m, "id") === args.message && !strings(m, "label_ids").includes("UNREAD"))],
}, {
  draftExists: (state, args) => {
    const drafts = list(state, "drafts");
    return [wanted("a draft", args), `${drafts.length} drafts; the last: ${mails(drafts.slice(-3))}`];
  },
  messageLabelApplied: (state, args) => {
    const expected = `message ${args.message} labelled ${args.label}`;
    const labels = list(state, "labels");
    if (!SYSTEM_LABELS.has(args.label as string) && !labels.some((l) => str(l, "name") === args.label || str(l, "id") === args.label)) {
      return [expected, `no label '${args.label}'; user labels: ${listing(labels.map((l) => str(l, "name")))}`];
    }
    const m = list(state, "messages").find((x) => str(x, "id") === args.message);
    if (m === undefined) return [expected, `no message ${args.message}`];
    return [expected, `message ${args.message} ${shown(str(m, "subject"), 60)} carries ${labelsOf(state, strings(m, "label_ids"))}`];
  },
  labelExists: (state, args) => {
    const expected = `a label '${args.label}'`;
    if (SYSTEM_LABELS.has(args.label as string)) return [expected, `${args.label} is a system label`];
    const labels = list(state, "labels");
    const found = labels.find((l) => str(l, "name") === args.label || str(l, "id") === args.label);
    if (found === undefined) return [expected, `no label '${args.label}'; user labels: ${listing(labels.map((l) => str(l, "name")))}`];
    return [expected, `label ${str(found, "id")} ${shown(str(found, "name"), 60)} exists`];
  },
  draftSent: (state, args) => {
    const sent = list(state, "messages").filter((m) => strings(m, "label_ids").includes("SENT"));
    return [wanted("a sent message", args), `${sent.length} sent messages; the last: ${mails(sent.slice(-3))}; ${list(state, "drafts").length} unsent drafts`];
  },
  messageIsRead: (state, args) => {
    const m = list(state, "messages").find((x) => str(x, "id") === args.message);
    const expected = `message ${args.message} read`;
    if (m === undefined) return [expected, `no message ${args.message}`];
    return [expected, `message ${args.message} ${shown(str(m, "subject"), 60)} carries ${labelsOf(state, strings(m, "label_ids"))}`];
  },
});
