import { test } from "node:test";
import * as assert from "node:assert/strict";

import { check, evaluate, evaluateAcross, PRIMITIVES } from "../predicate";

const paths = (pred: unknown, server = "slack") => check(pred as never, server).map((p) => p.path);

test("there are the 46 primitives: the design table's and the extensions docs/predicates.md lists", () => {
  assert.equal(PRIMITIVES.size, 46);
});

test("an unknown primitive is named with its JSON path and the server's primitives", () => {
  const [problem] = check({ all: [{ "slack.channelExists": { channel: "a" } }, { "slack.nope": {} }] }, "slack");
  assert.equal(problem?.path, '$.all[1]["slack.nope"]');
  assert.match(problem?.message ?? "", /channelArchived/);
});

test("missing, extra and mistyped arguments are each named", () => {
  assert.deepEqual(paths({ "slack.messagePosted": { channel: "a" } }), ['$["slack.messagePosted"].pattern']);
  assert.deepEqual(paths({ "slack.channelExists": { channel: "a", extra: 1 } }), ['$["slack.channelExists"].extra']);
  assert.deepEqual(paths({ "slack.channelExists": { channel: 1 } }), ['$["slack.channelExists"].channel']);
  assert.deepEqual(paths({ "github.issueClosed": { repo: "a/b", issue: "1" } }, "github"), ['$["github.issueClosed"].issue']);
  assert.deepEqual(paths({ "stripe.refundIssued": { charge: "ch_1", amount: true } }, "stripe"), ['$["stripe.refundIssued"].amount']);
  assert.deepEqual(paths({ "slack.channelHasMembers": { channel: "a", members: ["x", ""] } }), ['$["slack.channelHasMembers"].members[1]']);
});

test("empty all and any, and objects with two keys, are malformed", () => {
  assert.deepEqual(paths({ any: [] }), ["$.any"]);
  assert.deepEqual(paths({ not: { all: [] } }), ["$.not.all"]);
  assert.deepEqual(paths({ all: [{ a: 1, b: 2 }] }), ["$.all[0]"]);
});

test("a primitive of another server is malformed", () => {
  assert.deepEqual(paths({ "github.issueClosed": { repo: "a/b", issue: 1 } }), ['$["github.issueClosed"]']);
});

test("an invalid or non-portable pattern is malformed", () => {
  assert.deepEqual(paths({ "slack.messagePosted": { channel: "a", pattern: "(?<=x)y" } }), ['$["slack.messagePosted"].pattern']);
});

test("optional arguments may be null, required nullable ones must be present", () => {
  assert.deepEqual(paths({ "slack.messagePosted": { channel: "a", pattern: "x", user: null } }), []);
  assert.deepEqual(paths({ "linear.issueAssignee": { issue: "ENG-1" } }, "linear"), ['$["linear.issueAssignee"].assignee']);
});

test("object-property names are never found in state maps", () => {
  const state = { files: { "a.txt": "x" }, directories: [] };
  assert.equal(evaluate({ "filesystem.fileExists": { path: "constructor" } }, state), false);
  assert.equal(evaluate({ "filesystem.fileExists": { path: "a.txt" } }, state), true);
});

test("a broken primitive is inverted only when asked", () => {
  const state = { files: { "a.txt": "x" }, directories: [] };
  const pred = { "filesystem.fileExists": { path: "a.txt" } };
  assert.equal(evaluate(pred, state, "filesystem.fileExists"), false);
  assert.equal(evaluate(pred, state, "filesystem.directoryHasFiles"), true);
});

test("a cross-server predicate may use each of its servers and no other", () => {
  const servers = ["linear", "slack"];
  assert.deepEqual(check({ all: [{ "slack.channelExists": { channel: "a" } }, { "linear.issueState": { issue: "ENG-1", state: "Done" } }] } as never, servers), []);
  const [problem] = check({ any: [{ "github.issueClosed": { repo: "a/b", issue: 1 } }] } as never, servers);
  assert.equal(problem?.path, '$.any[0]["github.issueClosed"]');
  assert.equal(problem?.message, "primitive 'github.issueClosed' belongs to server 'github', which this task does not name (its servers: linear, slack)");
});

test("a cross-server predicate decides each primitive on its own server's state", () => {
  const states: never = {
    slack: { channels: [{ id: "C1", name: "release-train", members: [], messages: [] }], users: [] },
    linear: { teams: [], users: [], issues: [{ id: "ENG-1", title: "t", state: "Done" }] },
  } as never;
  const pred = { all: [{ "slack.channelExists": { channel: "release-train" } }, { "linear.issueState": { issue: "ENG-1", state: "Done" } }] } as never;
  assert.equal(evaluateAcross(pred, states), true);
  assert.equal(evaluateAcross({ "linear.issueState": { issue: "ENG-1", state: "Todo" } }, states), false);
  assert.equal(evaluateAcross(pred, states, "linear.issueState"), false);
  assert.throws(() => evaluateAcross({ "github.issueClosed": { repo: "a/b", issue: 1 } }, states), /no state of server 'github'/);
});
