import { test } from "node:test";
import * as assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { join } from "node:path";

const CLI = join(__dirname, "..", "cli.js");
const run = (input: string, env: Record<string, string> = {}) =>
  spawnSync(process.execPath, [CLI], { input, encoding: "utf8", env: { ...process.env, ...env } });

test("answers one verdict per case", () => {
  const cases = [
    { server: "filesystem", state: { files: { "a.txt": "x" }, directories: [] }, predicate: { "filesystem.fileExists": { path: "a.txt" } } },
    { server: "filesystem", state: { files: {}, directories: [] }, predicate: { "filesystem.fileExists": { path: "a.txt" } } },
  ];
  const proc = run(JSON.stringify(cases));
  assert.equal(proc.status, 0, proc.stderr);
  assert.deepEqual(JSON.parse(proc.stdout), [true, false]);
});

test("a malformed predicate gets no verdict and its problems name the JSON path", () => {
  const proc = run(JSON.stringify([{ server: "slack", state: {}, predicate: { "slack.channelExists": {} } }]));
  assert.equal(proc.status, 0, proc.stderr);
  const [answer] = JSON.parse(proc.stdout);
  assert.equal(answer.verdict, null);
  assert.equal(answer.problems[0].path, '$["slack.channelExists"].channel');
});

test("malformed input exits 2 with a message", () => {
  for (const input of ["not json", "{}", JSON.stringify([{ server: "nope", state: {}, predicate: {} }])]) {
    const proc = run(input);
    assert.equal(proc.status, 2, input);
    assert.notEqual(proc.stderr, "");
  }
});

test("the break hook names an existing primitive or refuses", () => {
  assert.equal(run("[]", { MCPBENCH_TS_BREAK: "slack.nope" }).status, 2);
  assert.equal(run("[]", { MCPBENCH_TS_BREAK: "slack.channelExists" }).status, 0);
});
