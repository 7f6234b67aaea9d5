"""What the model gateway's admission costs a request: reading it against the allow-list (types, nesting
depth, caps) and holding and releasing its budget, against the bare ``json.loads`` it replaced; and a
whole request through the gateway to a local upstream, for scale.

    python bench/model_admission.py [--repeat 300] [--no-write]

Bodies: the built-in ``openai`` loop's first request on a dev task (its tools and goal), the same
conversation after 40 tool-calling turns, and one of about 1 MB. Prints a section and appends it to
bench/history/model-gateway.md (bench/record.py); the model gateway rows of bench/RESULTS.md are then
updated by hand.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import statistics
import sys
import time
from datetime import UTC, datetime
from pathlib import Path

import anyio
import httpx

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from record import record  # noqa: E402

from mcpbench.agents.openai_loop import SYSTEM_PROMPT  # noqa: E402
from mcpbench.model_gateway import ModelGatewayHost, ModelSettings, RunMeter  # noqa: E402
from mcpbench.model_gateway.admission import read_request  # noqa: E402
from tasks_catalog.loader import DEV_DIR, load_valid_tasks  # noqa: E402
from tests.agents.upstream import Reply, ScriptedUpstream, completion  # noqa: E402


def bodies() -> dict[str, bytes]:
    task = next(t for t in load_valid_tasks([DEV_DIR]) if t.category == "standard")
    tools = [{"type": "function", "function": {"name": name, "description": f"The {name} tool.",
                                               "parameters": {"type": "object", "properties": {
                                                   "channel": {"type": "string"}, "limit": {"type": "integer"}}}}}
             for name in task.available_tools]
    first = [{"role": "system", "content": SYSTEM_PROMPT}, {"role": "user", "content": task.goal}]
    turns = list(first)
    for i in range(40):
        turns.append({"role": "assistant", "content": "", "tool_calls": [
            {"id": f"call_{i}", "type": "function", "function": {"name": task.available_tools[0],
                                                                 "arguments": json.dumps({"limit": i})}}]})
        turns.append({"role": "tool", "tool_call_id": f"call_{i}", "content": json.dumps(
            {"messages": [{"id": j, "text": "a message of some length " * 3} for j in range(5)]})})
    big = first + [{"role": "user", "content": "x" * 1_000_000}]

    def body(messages):
        return json.dumps({"model": "m", "messages": messages, "tools": tools, "tool_choice": "auto",
                           "max_tokens": 1024, "stream": True}, separators=(",", ":")).encode()

    return {"first turn": body(first), "after 40 turns": body(turns), "1 MB prompt": body(big)}


def per_call_us(fn, repeat: int) -> float:
    fn()
    times = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn()
        times.append((time.perf_counter() - t0) * 1e6)
    return statistics.median(times)


def admission_rows(repeat: int) -> list[tuple[str, int, float, float]]:
    settings = ModelSettings(upstream_url="http://127.0.0.1:9/v1", model="m", max_tokens=10**9)
    rows = []
    for name, body in bodies().items():
        meter = RunMeter()

        def admit(body=body, meter=meter):
            _, ask = read_request(body, settings)
            meter.release(meter.admit(settings, ask))

        rows.append((name, len(body), per_call_us(lambda body=body: json.loads(body), repeat),
                     per_call_us(admit, repeat)))
    return rows


def round_trip_ms(repeat: int) -> float:
    body = bodies()["first turn"].replace(b',"stream":true', b"")
    with ScriptedUpstream(lambda b, n: Reply(body=completion("ok", usage=(1000, 10)))) as upstream:
        settings = ModelSettings(upstream_url=upstream.url, model="m", max_tokens=10**9, max_requests=None)

        async def go():
            host = ModelGatewayHost(settings)
            async with host.running(), host.serve() as route, httpx.AsyncClient(base_url=host.url(route)) as http:
                times = []
                for _ in range(repeat + 1):
                    t0 = time.perf_counter()
                    response = await http.post("/chat/completions", content=body)
                    assert response.status_code == 200, response.text
                    times.append((time.perf_counter() - t0) * 1000)
                return statistics.median(times[1:])

        return anyio.run(go)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=300)
    parser.add_argument("--no-write", action="store_true", help="print the section, do not append it")
    args = parser.parse_args()
    rows = admission_rows(args.repeat)
    trip = round_trip_ms(args.repeat)
    load = os.getloadavg()[0]
    lines = [f"## Model gateway admission ({datetime.now(UTC):%Y-%m-%d %H:%M} UTC, "
             f"`python bench/model_admission.py --repeat {args.repeat}`)", "",
             f"{platform.processor() or platform.machine()}, {os.cpu_count()} cores, load average {load:.1f} "
             "(shared machine). Medians of each body read alone; *admission* is `read_request` (the allow-list, "
             "types, nesting depth, caps) plus `RunMeter.admit` and `release`; *json.loads* is what the gateway "
             "did before.", "",
             "| body | bytes | json.loads (µs) | admission (µs) | added (µs) |", "|---|---:|---:|---:|---:|"]
    lines += [f"| {name} | {size:,} | {loads:.0f} | {admit:.0f} | {admit - loads:.0f} |"
              for name, size, loads, admit in rows]
    lines += ["", f"A whole request through the gateway (the first-turn body, a scripted upstream on loopback "
              f"answering at once): median {trip:.2f} ms.", ""]
    record("model-gateway", "\n".join(lines), write=not args.no_write)


if __name__ == "__main__":
    main()
