"""Frame judging cost on a large state: the seeded Slack world (2,000 messages), initial vs a final
state with one channel archived and one message posted. Prints the median of repeated diffs, in
Python and in the TypeScript verifier (its in-process time, without node's start). Record them by
hand: the write-up at the end of bench/history/verifiers.md, the figure in the frame-judging row of
bench/RESULTS.md.

    PYTHONPATH=. python bench/frame_bench.py
"""

from __future__ import annotations

import copy
import json
import statistics
import subprocess
import time

from servers import get_spec
from tasks_catalog import ts_verifier
from tasks_catalog.frames import diff, frame_violations

REFERENCE = {"world": {"generator": "slack", "version": 1, "seed": 7, "size": "default"}}
ROUNDS = 30


def states() -> tuple[dict, dict]:
    with get_spec("slack").open(REFERENCE) as tools:
        initial = tools.snapshot().dump()
    final = copy.deepcopy(initial)
    channel = final["channels"][0]
    channel["is_archived"] = True
    final["channels"][1]["messages"].append({"ts": "1799999999.000100", "user": final["viewer"], "text": "done"})
    return initial, final


def main() -> None:
    initial, final = states()
    messages = sum(len(c["messages"]) for c in initial["channels"])
    frame = [{"entity": "slack.channel", "ids": [initial["channels"][0]["id"]], "fields": ["is_archived"]}]
    times, cpu = [], []
    for _ in range(ROUNDS):
        t0, c0 = time.perf_counter(), time.process_time()
        violations = frame_violations("slack", frame, initial, final)
        times.append((time.perf_counter() - t0) * 1000)
        cpu.append((time.process_time() - c0) * 1000)
    print(f"slack world: {len(initial['channels'])} channels, {messages} messages; "
          f"{len(diff('slack', initial, final))} changes, {len(violations)} violation(s)")
    print(f"python diff + judge: wall median {statistics.median(times):.1f} ms, min {min(times):.1f} ms; "
          f"CPU median {statistics.median(cpu):.1f} ms, min {min(cpu):.1f} ms over {ROUNDS}")
    if ts_verifier.available():
        code = ("const {frameViolations}=require(process.argv[1]);const fs=require('fs');"
                "const c=JSON.parse(fs.readFileSync(0,'utf8'));const t=[];"
                f"for(let i=0;i<{ROUNDS};i++){{const a=performance.now();frameViolations('slack',c.frame,c.initial,c.final);"
                "t.push(performance.now()-a);}t.sort((x,y)=>x-y);console.log(t[t.length>>1].toFixed(1),t[0].toFixed(1));")
        payload = json.dumps({"initial": initial, "final": final, "frame": frame})
        out = subprocess.run(["node", "-e", code, str(ts_verifier.PACKAGE / "dist" / "frame.js")], input=payload,
                             capture_output=True, text=True, check=True).stdout.split()
        print(f"typescript diff + judge: median {out[0]} ms, min {out[1]} ms over {ROUNDS}")


if __name__ == "__main__":
    main()
