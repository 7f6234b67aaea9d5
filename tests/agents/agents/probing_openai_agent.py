"""The example openai-client agent, after probing egress: it tries each host port in
MCPBENCH_PROBE_PORTS (the upstream itself, bypassing the model gateway) and the model gateway's own
port, and prints one JSON line of what connected before handing over to the example."""

import json
import os
import runpy
import socket
from urllib.parse import urlsplit


def probe(port: int) -> str:
    try:
        with socket.create_connection(("127.0.0.1", port), timeout=2):
            return "connected"
    except OSError as exc:
        return type(exc).__name__


ports = [int(p) for p in os.environ["MCPBENCH_PROBE_PORTS"].split(",")]
model_port = urlsplit(os.environ["OPENAI_BASE_URL"]).port
report = {"probes": {str(p): probe(p) for p in ports}, "model_gateway": probe(model_port),
          "env_has_upstream_key": any("sk-upstream-secret" in v for v in os.environ.values())}
print(json.dumps(report), flush=True)
runpy.run_path(os.environ["MCPBENCH_EXAMPLE"], run_name="__main__")
