/** Stripe primitives (tasks_catalog/predicates/stripe.py). A customer argument matches a customer's id
 * or email exactly (possibly several customers); amounts in the smallest currency unit, numerically. */

import { Name, Num, optional, required } from "../args";
import { arg, definePrimitives } from "../registry";
import { get, has, JsonObject, list, same, str } from "../values";
import { listing, quoted, value } from "../explain";

const matching = (state: JsonObject, ref: string) =>
  list(state, "customers").filter((c) => str(c, "id") === ref || str(c, "email") === ref);

/** An invoice's total: the sum of its line amounts (a Python property, so not in the dump). */
const total = (invoice: JsonObject) => list(invoice, "lines").reduce((sum, line) => sum + (get(line, "amount") as number), 0);

const noCustomer = (state: JsonObject, ref: string) =>
  `no customer with id or email ${quoted(ref)} (${list(state, "customers").length} customers)`;

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
}, {
  customerExists: (state, args) => {
    const email = args.email as string;
    const customers = list(state, "customers");
    const domain = email.slice(email.lastIndexOf("@") + 1);
    const exact = customers.filter((c) => str(c, "email") === email);
    const found = exact.length > 0 ? `customers with that email: ${listing(exact.map((c) => str(c, "id")))}`
      : `no customer with email ${quoted(email)}; emails at its domain: ${listing(customers.map((c) => str(c, "email") ?? "").filter((e) => e.slice(e.lastIndexOf("@") + 1) === domain))}`;
    return [`a customer with email ${quoted(email)}`, found];
  },
  invoiceExists: (state, args) => {
    const amount = arg(args, "amount");
    const status = arg(args, "status");
    const parts = [amount !== null ? `total ${value(amount)}` : "", status !== null ? `status ${quoted(status)}` : ""].filter((p) => p !== "");
    const expected = `an invoice of ${quoted(args.customer)}${parts.length > 0 ? ` with ${parts.join(", ")}` : ""}`;
    const matched = matching(state, args.customer as string);
    if (matched.length === 0) return [expected, noCustomer(state, args.customer as string)];
    const ids = new Set(matched.map((c) => str(c, "id")));
    const invoices = list(state, "invoices").filter((i) => ids.has(str(i, "customer")));
    const last = invoices.slice(-4).map((i) => `${str(i, "id")} total ${total(i)} ${str(i, "status")}`).join("; ") || "none";
    return [expected, `${listing([...ids])}: ${invoices.length} invoices; the last: ${last}`];
  },
  customerHasMetadata: (state, args) => {
    const expected = `${quoted(args.customer)} with metadata ${args.key} = ${value(args.value)}`;
    const matched = matching(state, args.customer as string);
    if (matched.length === 0) return [expected, noCustomer(state, args.customer as string)];
    return [expected, matched.slice(0, 4).map((c) => {
      const metadata = get(c, "metadata");
      return `${str(c, "id")}: ${args.key} = ${has(metadata, args.key as string) ? value(get(metadata, args.key as string)) : "null"}`;
    }).join("; ")];
  },
  refundIssued: (state, args) => {
    const amount = arg(args, "amount");
    const expected = `a refund of charge ${args.charge}${amount !== null ? ` totalling ${value(amount)}` : ""}`;
    const refunds = list(state, "refunds").filter((r) => str(r, "charge") === args.charge);
    if (refunds.length === 0 && !list(state, "charges").some((c) => str(c, "id") === args.charge)) return [expected, `no charge ${args.charge}`];
    const succeeded = refunds.filter((r) => str(r, "status") === "succeeded").reduce((sum, r) => sum + (get(r, "amount") as number), 0);
    return [expected, `${refunds.length} refunds of ${args.charge}: ${listing(refunds.map((r) => `${str(r, "id")} ${get(r, "amount")} ${str(r, "status")}`))}; succeeded total ${succeeded}`];
  },
});
