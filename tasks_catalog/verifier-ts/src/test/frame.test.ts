import { test } from "node:test";
import * as assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { join } from "node:path";

import { describe, frameViolations, frameViolationsAcross, jsonEqual, renderScalar } from "../frame";

const CLI = join(__dirname, "..", "cli.js");

const slack = (archived: boolean, name = "incident-2047") => ({
  viewer: "UBOT0001",
  users: [{ id: "UBOT0001", name: "bot" }],
  channels: [{ id: "C05INC2047", name, is_archived: archived, members: [], messages: [] }],
});

test("a renamed and archived channel is one update under its id", () => {
  const frame = [{ entity: "slack.channel", ids: ["C05INC2047"], fields: ["is_archived"] }];
  assert.deepEqual(frameViolations("slack", frame, slack(false), slack(true)), []);
  const [v] = frameViolations("slack", frame, slack(false), slack(true, "old"));
  assert.ok(v);
  assert.equal(describe(v), "slack.channel C05INC2047 updated (is_archived, name): frame[0] does not allow name to change");
});

test("units are sorted by code point, as Python sorts them, not by UTF-16 unit", () => {
  const stripe = (metadata: { [k: string]: string }) => ({ customers: [{ id: "cus_1", email: "a@b.c", metadata }] });
  const [v] = frameViolations("stripe", [], stripe({ "\uffff": "1", "\u{1F600}": "1" }), stripe({ "\uffff": "2", "\u{1F600}": "2" }));
  assert.ok(v);
  assert.deepEqual(v.fields, ["metadata.\uffff", "metadata.\u{1F600}"]);
});

test("numbers in ids print as JavaScript prints them and booleans never equal numbers", () => {
  assert.equal(renderScalar(30.0), "30");
  assert.equal(renderScalar(1e-7), "1e-7");
  assert.equal(jsonEqual(true, 1), false);
  assert.equal(jsonEqual({ a: [1, 2] }, { a: [1.0, 2] }), true);
});

test("the CLI judges frame cases and refuses malformed input", () => {
  const input = JSON.stringify([{ server: "slack", initial: slack(false), final: slack(true), frame: [] }]);
  const proc = spawnSync(process.execPath, [CLI, "--frames"], { input, encoding: "utf8" });
  assert.equal(proc.status, 0, proc.stderr);
  const [answer] = JSON.parse(proc.stdout);
  assert.equal(answer.violations[0].id, "C05INC2047");
  const bad = spawnSync(process.execPath, [CLI, "--frames"], { input: "{}", encoding: "utf8" });
  assert.equal(bad.status, 2);
});

test("a cross-server frame judges every server's changes together, server by server", () => {
  const linear = (state: string) => ({ teams: [], users: [], issues: [{ id: "ENG-1", title: "t", state }] });
  const servers = ["slack", "linear"];
  const frame = [{ entity: "linear.issue", ids: ["ENG-1"], fields: ["state"] }];
  const initial = { slack: slack(false), linear: linear("Todo") };
  assert.deepEqual(frameViolationsAcross(servers, frame, initial, { slack: slack(false), linear: linear("Done") }), []);
  const found = frameViolationsAcross(servers, frame, initial, { slack: slack(true), linear: linear("Done") });
  assert.deepEqual(found.map(describe), ["slack.channel C05INC2047 updated (is_archived): outside the frame"]);
  const input = JSON.stringify([{ servers, initial, final: { slack: slack(true), linear: linear("Done") }, frame }]);
  const proc = spawnSync(process.execPath, [CLI, "--frames"], { input, encoding: "utf8" });
  assert.equal(proc.status, 0, proc.stderr);
  assert.equal(JSON.parse(proc.stdout)[0].violations[0].entity, "slack.channel");
  const missing = JSON.stringify([{ servers, initial, final: { slack: slack(true) }, frame }]);
  const bad = spawnSync(process.execPath, [CLI, "--frames"], { input: missing, encoding: "utf8" });
  assert.equal(bad.status, 2);
  assert.match(bad.stderr, /initial and final must each hold a dumped state for each of slack, linear/);
});
