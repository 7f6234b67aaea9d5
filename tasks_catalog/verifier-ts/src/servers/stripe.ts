/** Stripe primitives (tasks_catalog/predicates/stripe.py). A customer argument matches a customer's id
 * or email exactly (possibly several customers); amounts in the smallest currency unit, numerically. */

import { Name, Num, optional, required } from "../args";
import { arg, definePrimitives } from "../registry";
import { get, has, JsonObject, list, same, str } from "../values";

const matching = (state: JsonObject, ref: string) =>
  list(state, "customers").filter((c) => str(c, "id") === ref || str(c, "email") === ref);

/** An invoice's total: the sum of its line amounts (a Python property, so not in the dump). */
const total = (invoice: JsonObject) => list(invoice, "lines").reduce((sum, line) => sum + (get(line, "amount") as number), 0);

export default definePrimitives("stripe", {
  customerExists: [{ email: required(Name) }, (state, args) => list(state, "customers").some((c) => str(c, "email") === args.email)],
  invoiceExists: [{ customer: required(Name), amount: optional(Num()), status: optional(Name) }, (state, args) => {
    const ids = new Set(matching(state, args.customer as string).map((c) => str(c, "id")));
    const amount = arg(args, "amount");
    const status = arg(args, "status");
    return list(state, "invoices").some((inv) =>
      ids.has(str(inv, "customer"))
      && (amount === null || same(amount, total(inv)))
      && (status === null || str(inv, "status") === status));
  }],
  customerHasMetadata: [{ customer: required(Name), key: required(Name), value: required(Name) }, (state, args) =>
    matching(state, args.customer as string).some((c) => {
      const metadata = get(c, "metadata");
      return has(metadata, args.key as string) && get(metadata, args.key as string) === args.value;
    })],
  refundIssued: [{ charge: required(Name), amount: optional(Num()) }, (state, args) => {
    const amounts = list(state, "refunds")
      .filter((r) => str(r, "charge") === args.charge && str(r, "status") === "succeeded")
      .map((r) => get(r, "amount") as number);
    if (amounts.length === 0) return false;
    const amount = arg(args, "amount");
    return amount === null || same(amount, amounts.reduce((a, b) => a + b, 0));
  }],
});
