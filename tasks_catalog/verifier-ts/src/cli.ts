#!/usr/bin/env node
/**
 * `node dist/cli.js`: read `[{"server", "state", "predicate"}, ...]` on stdin, write one verdict per
 * case on stdout (a JSON array of `true`/`false`, or `{"verdict": null, "error", "problems"?}` for a
 * case that cannot be decided, e.g. a malformed predicate, with each problem's JSON path).
 * Exit 0; exit 2 with a message on stderr when the input itself is malformed.
 *
 * With `--explain`, a false verdict is `{"verdict": false, "failing": [ids], "clauses": [{clause, primitive,
 * negated, args, expected, found}], "clauses_omitted"}`: the ids of the clauses that decided it (the ids
 * the Python verifier gives) and the first of them described (src/explain.ts).
 *
 * `node dist/cli.js --primitives` lists every primitive's arguments and whether each is required
 * (the conformance test compares it with the Python registry). `--timing` adds one line of JSON on
 * stderr, `{"parse_ms", "evaluate_ms"}`, for bench/verifier_bench.py.
 *
 * `node dist/cli.js --frames`: read `[{"server", "initial", "final", "frame"}, ...]` (two dumped states
 * and a frame, docs/frames.md) and answer, per case, `{"violations": [{entity, id, change, fields,
 * reason}, ...]}`, or `{"error": ...}` for a case it cannot judge.
 *
 * `node dist/cli.js --judge`: both at once, each dumped state sent once: read `{"states": [...],
 * "verdicts": [{server, state, predicate}], "frames": [{server, initial, final, frame}]}`, where `state`,
 * `initial` and `final` index `states` (or, past its end, `derived`: states sent as their changes to
 * another), and answer `{"verdicts": [...], "frames": [...]}` (src/joint.ts).
 *
 * `node dist/cli.js --serve`: `--judge` for as long as stdin stays open, one request a line: each line is a
 * `--judge` input, each answered by one line, its `--judge` answer or `{"error": ...}` where `--judge`
 * would exit 2 (the process then reads the next line). One process judges a whole gate's batches: a
 * process started per call paid its start, its module loads and a cold JIT each time, more than half of
 * what the verifier cost a month's gate (tasks_catalog/ts_verifier.py keeps one per Python process).
 *
 * MCPBENCH_TS_BREAK=<server.name> inverts that primitive's verdicts; MCPBENCH_TS_BREAK=frame:<server.kind>
 * makes the frame blind to that entity kind: test hooks that prove the conformance run catches a broken
 * verifier. Never set them elsewhere.
 */

import { readFileSync } from "node:fs";
import { performance } from "node:perf_hooks";
import { createInterface } from "node:readline";

import { InputError, parseCases, verdicts } from "./verdicts";
import { frameAnswers } from "./frameCases";
import { jointAnswers } from "./joint";
import { PRIMITIVES } from "./predicate";

function main(argv: string[]): number {
  if (argv.includes("--primitives")) {
    const listing = Object.fromEntries([...PRIMITIVES].map(([name, p]) =>
      [name, Object.fromEntries(Object.entries(p.args).map(([arg, field]) => [arg, { required: field.required }]))]));
    process.stdout.write(JSON.stringify(listing) + "\n");
    return 0;
  }
  const broken = process.env.MCPBENCH_TS_BREAK || null;
  if (argv.includes("--serve")) {
    serve(broken);
    return 0;
  }
  const text = readFileSync(0, "utf8");
  if (argv.includes("--judge")) {
    try {
      process.stdout.write(JSON.stringify(jointAnswers(JSON.parse(text), broken)) + "\n");
      return 0;
    } catch (exc) {
      process.stderr.write(`${(exc as Error).message}\n`);
      return 2;
    }
  }
  if (argv.includes("--frames")) {
    try {
      const answers = frameAnswers(JSON.parse(text), broken !== null && broken.startsWith("frame:") ? broken.slice(6) : null);
      process.stdout.write(JSON.stringify(answers) + "\n");
      return 0;
    } catch (exc) {
      process.stderr.write(`${(exc as Error).message}\n`);
      return 2;
    }
  }
  if (broken !== null && !PRIMITIVES.has(broken)) {
    process.stderr.write(`MCPBENCH_TS_BREAK names no primitive: ${broken}\n`);
    return 2;
  }
  let input;
  const t0 = performance.now();
  try {
    input = JSON.parse(text);
  } catch (exc) {
    process.stderr.write(`input is not valid JSON: ${(exc as Error).message}\n`);
    return 2;
  }
  try {
    const cases = parseCases(input);
    const t1 = performance.now();
    const answers = verdicts(cases, broken, argv.includes("--explain"));
    const t2 = performance.now();
    process.stdout.write(JSON.stringify(answers) + "\n");
    if (argv.includes("--timing")) process.stderr.write(JSON.stringify({ parse_ms: t1 - t0, evaluate_ms: t2 - t1 }) + "\n");
  } catch (exc) {
    if (exc instanceof InputError) {
      process.stderr.write(`${exc.message}\n`);
      return 2;
    }
    throw exc;
  }
  return 0;
}

/** `--serve`: each line of stdin a `--judge` input, each answered on one line of stdout, in order. */
function serve(broken: string | null): void {
  const lines = createInterface({ input: process.stdin, crlfDelay: Infinity });
  lines.on("line", (line) => {
    if (line.trim() === "") return;
    let answer: string;
    try {
      answer = JSON.stringify(jointAnswers(JSON.parse(line), broken));
    } catch (exc) {
      answer = JSON.stringify({ error: (exc as Error).message });
    }
    process.stdout.write(answer + "\n");
  });
}

process.exitCode = main(process.argv.slice(2));
