import { test } from "node:test";
import * as assert from "node:assert/strict";

import { explain, PRIMITIVES } from "../predicate";

const state = {
  users: [{ id: "U1", name: "maria.santos" }],
  channels: [{ id: "C05INC2052", name: "inc-2052", members: ["U1"], is_archived: false,
    messages: [{ ts: "1.1", user: "U1", text: "investigating" }, { ts: "1.2", user: "U1", text: "rolled back" }] }],
};

test("every primitive has an explainer", () => {
  for (const [name, prim] of PRIMITIVES) assert.equal(typeof prim.explain, "function", name);
});

test("a true predicate has no explanation", () => {
  assert.equal(explain({ "slack.channelExists": { channel: "inc-2052" } }, state), null);
});

test("the failing clauses are named by their JSON paths, a not's body negated", () => {
  const why = explain({ all: [
    { "slack.channelExists": { channel: "inc-2052" } },
    { any: [{ "slack.messagePosted": { channel: "inc-2052", pattern: "mitigated" } }, { "slack.channelArchived": { channel: "inc-2052" } }] },
    { not: { "slack.channelHasMembers": { channel: "inc-2052", members: ["maria.santos"] } } },
  ] }, state);
  assert.deepEqual(why?.failing, ["$.all[1].any[0]", "$.all[1].any[1]", "$.all[2].not"]);
  const [posted, archived, members] = why?.clauses ?? [];
  assert.equal(posted?.found, '0 of the 2 messages in #inc-2052 (C05INC2052) match /mitigated/; its last 2 messages: maria.santos: "investigating"; maria.santos: "rolled back"');
  assert.equal(archived?.found, "#inc-2052 (C05INC2052) is not archived");
  assert.equal(members?.negated, true);
  assert.match(members?.expected ?? "", /^not \(/);
});

test("past the cap the failing clauses are counted, and every id is still given", () => {
  const missing = Array.from({ length: 11 }, (_, i) => ({ "slack.channelExists": { channel: `nope-${i}` } }));
  const why = explain({ all: missing }, state);
  assert.equal(why?.clauses.length, 8);
  assert.equal(why?.clauses_omitted, 3);
  assert.equal(why?.failing.length, 11);
});
