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

test("--judge answers verdicts and frames over states sent once, as the separate modes answer them", () => {
  const full = { files: { "a.txt": "x", "b.txt": "y" }, directories: [] };
  const emptied = { files: { "b.txt": "y" }, directories: [] };
  const exists = { "filesystem.fileExists": { path: "a.txt" } };
  const frame = [{ entity: "filesystem.file", ids: ["a.txt"], change: ["delete"] }];
  const judge = (input: unknown, env: Record<string, string> = {}) =>
    spawnSync(process.execPath, [CLI, "--judge"], { input: JSON.stringify(input), encoding: "utf8", env: { ...process.env, ...env } });
  const input = {
    states: [full, emptied],
    verdicts: [{ server: "filesystem", state: 0, predicate: exists }, { server: "filesystem", state: 1, predicate: exists }],
    frames: [{ server: "filesystem", initial: 0, final: 1, frame }, { server: "filesystem", initial: 0, final: 1, frame: [] }],
  };
  const proc = judge(input);
  assert.equal(proc.status, 0, proc.stderr);
  const answer = JSON.parse(proc.stdout);
  const separate = spawnSync(process.execPath, [CLI, "--frames"], {
    input: JSON.stringify(input.frames.map((c) => ({ ...c, initial: full, final: emptied }))), encoding: "utf8" });
  assert.deepEqual(answer, { verdicts: [true, false], frames: JSON.parse(separate.stdout) });
  assert.deepEqual(answer.frames[0], { violations: [] });
  assert.equal(answer.frames[1].violations[0].id, "a.txt");
  // the break hooks reach each half: a primitive's verdicts, a kind's frame judgements
  assert.deepEqual(JSON.parse(judge(input, { MCPBENCH_TS_BREAK: "filesystem.fileExists" }).stdout).verdicts, [false, true]);
  assert.deepEqual(JSON.parse(judge(input, { MCPBENCH_TS_BREAK: "frame:filesystem.file" }).stdout).frames[1], { violations: [] });
});

test("--serve answers each line as --judge answers it, an error line where --judge exits 2, and serves on", () => {
  const full = { files: { "a.txt": "x" }, directories: [] };
  const exists = { "filesystem.fileExists": { path: "a.txt" } };
  const good = JSON.stringify({ states: [full, { files: {}, directories: [] }], frames: [],
    verdicts: [{ server: "filesystem", state: 0, predicate: exists }, { server: "filesystem", state: 1, predicate: exists }] });
  const bad = JSON.stringify({ states: [], verdicts: [{ server: "filesystem", state: 3, predicate: exists }], frames: [] });
  const once = spawnSync(process.execPath, [CLI, "--judge"], { input: good, encoding: "utf8" });
  const refused = spawnSync(process.execPath, [CLI, "--judge"], { input: bad, encoding: "utf8" });
  assert.equal(refused.status, 2);
  const served = spawnSync(process.execPath, [CLI, "--serve"], { input: [good, bad, "", "not json", good].join("\n") + "\n", encoding: "utf8" });
  assert.equal(served.status, 0, served.stderr);
  const lines = served.stdout.trimEnd().split("\n");
  assert.equal(lines.length, 4);  // the empty line is skipped
  assert.deepEqual(JSON.parse(lines[0] as string), JSON.parse(once.stdout));
  assert.deepEqual(JSON.parse(lines[1] as string), { error: refused.stderr.trim() });
  assert.match(JSON.parse(lines[2] as string).error, /JSON/);
  assert.equal(lines[3], lines[0]);
});

test("--judge refuses a state index that is not in $.states, naming the case", () => {
  const proc = spawnSync(process.execPath, [CLI, "--judge"], {
    input: JSON.stringify({ states: [{}], verdicts: [], frames: [{ server: "filesystem", initial: 0, final: 1, frame: [] }] }),
    encoding: "utf8" });
  assert.equal(proc.status, 2);
  assert.match(proc.stderr, /\$\.frames\[0\]\.final: expected the index of a state in \$\.states \(0 to 0\)/);
  for (const input of ["[]", "{}", JSON.stringify({ states: [], verdicts: [{}], frames: [] })]) {
    assert.equal(spawnSync(process.execPath, [CLI, "--judge"], { input, encoding: "utf8" }).status, 2, input);
  }
});

test("--judge rebuilds derived states from their base's copy: set, splice, a __proto__ key, and the base kept", () => {
  // parsed, not a literal: in a literal "__proto__" sets the prototype instead of making a key
  const full = JSON.parse('{"files": {"a.txt": "x", "__proto__": "p"}, "directories": ["d", "e"]}');
  const exists = (path: string) => ({ "filesystem.fileExists": { path } });
  const judge = (input: unknown) => spawnSync(process.execPath, [CLI, "--judge"], { input: JSON.stringify(input), encoding: "utf8" });
  const input = {
    states: [full],
    derived: [
      { base: 0, ops: [[["files", "__proto__"], "q"], [["directories"], 1, 1, ["f", "g"]]] },
      { base: 1, ops: [[["files", "a.txt"], "y"]] },
      { base: 0, ops: [] },
    ],
    verdicts: [0, 1, 2, 3].map((state) => ({ server: "filesystem", state, predicate: exists("__proto__") })),
    frames: [1, 2, 3].map((final) => ({ server: "filesystem", initial: 0, final, frame: [] })),
  };
  const proc = judge(input);
  assert.equal(proc.status, 0, proc.stderr);
  const answer = JSON.parse(proc.stdout);
  assert.deepEqual(answer.verdicts, [true, true, true, true]);
  const changes = answer.frames.map((f: { violations: { id: string; change: string }[] }) =>
    f.violations.map((v) => `${v.change} ${v.id}`));
  // derived[0] changed the "__proto__" file (a key, not the prototype) and the directories; derived[1]
  // builds on it; derived[2] is the base unchanged, so the base was never written to
  assert.ok(["update __proto__", "delete e", "create f", "create g"].every((c) => changes[0].includes(c)), JSON.stringify(changes));
  assert.ok(changes[1].includes("update a.txt") && changes[1].includes("update __proto__"), JSON.stringify(changes));
  assert.deepEqual(changes[2], []);
});

test("--judge names what is wrong with a derived state", () => {
  const judge = (derived: unknown) => spawnSync(process.execPath, [CLI, "--judge"], {
    input: JSON.stringify({ states: [{ files: {}, directories: [] }], derived, frames: [],
      verdicts: [{ server: "filesystem", state: 1, predicate: { "filesystem.fileExists": { path: "a" } } }] }),
    encoding: "utf8" });
  const cases: [unknown, RegExp][] = [
    [{}, /\$\.derived: expected a list/],
    [[{ base: 1, ops: [] }], /\$\.derived\[0\]\.base: expected the reference of a state before this one \(0 to 0\)/],
    [[{ base: 0, ops: [[[], 1]] }], /\$\.derived\[0\]\.ops\[0\]: expected \[path, value\]/],
    [[{ base: 0, ops: [[["nope"], 1]] }], /\$\.derived\[0\]\.ops\[0\]\[0\]\[0\]: "nope" is not a member of the object there/],
    [[{ base: 0, ops: [[["files", "a", "b"], 1]] }], /\$\.derived\[0\]\.ops\[0\]\[0\]\[1\]: "a" is not a member/],
    [[{ base: 0, ops: [[["directories"], 0, 1, []]] }], /\$\.derived\[0\]\.ops\[0\]: a splice needs/],
  ];
  for (const [derived, message] of cases) {
    const proc = judge(derived);
    assert.equal(proc.status, 2, JSON.stringify(derived));
    assert.match(proc.stderr, message);
  }
});
