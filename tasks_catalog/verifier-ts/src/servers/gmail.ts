/** Gmail primitives (tasks_catalog/predicates/gmail.py). Messages by id; addresses exact; subjects and
 * bodies by regex search. */

import { Name, Pattern, optional, required } from "../args";
import { arg, definePrimitives } from "../registry";
import { search } from "../pattern";
import { list, str, strings } from "../values";

/** The system labels every mailbox has (servers/gmail/state.py SYSTEM_LABELS). */
export const SYSTEM_LABELS = new Set([
  "INBOX", "SENT", "DRAFT", "UNREAD", "STARRED", "IMPORTANT", "SPAM", "TRASH",
  "CATEGORY_PERSONAL", "CATEGORY_SOCIAL", "CATEGORY_PROMOTIONS", "CATEGORY_UPDATES", "CATEGORY_FORUMS",
]);

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
  draftSent: [{ subject_pattern: required(Pattern), to: optional(Name), body_pattern: optional(Pattern) }, (state, args) => {
    const to = arg(args, "to") as string | null;
    const body = arg(args, "body_pattern") as string | null;
    return list(state, "messages").some((m) =>
      strings(m, "label_ids").includes("SENT")
      && search(args.subject_pattern as string, str(m, "subject"))
      && (to === null || strings(m, "to").includes(to))
      && (body === null || search(body, str(m, "body"))));
  }],
  messageIsRead: [{ message: required(Name) }, (state, args) =>
    list(state, "messages").some((m) => str(m, "id") === args.message && !strings(m, "label_ids").includes("UNREAD"))],
});
