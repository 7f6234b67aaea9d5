"""The harness's model gateway: an OpenAI-compatible, metering, retrying proxy to the operator's
upstream model, one per evaluation (or worker process), mounted per run (see ``server``)."""

from mcpbench.model_gateway.completion import Completion, EmittedCall, EventStream, estimate_tokens
from mcpbench.model_gateway.meter import RunMeter, record_emitted_calls
from mcpbench.model_gateway.server import ModelGatewayHost, ModelRoute, retry_after
from mcpbench.model_gateway.settings import ModelSettings, ModelSettingsError, Price, PriceTable

#: the run's model gateway base URL, as the agent reaches it (also set as OPENAI_BASE_URL)
MODEL_URL_ENV = "MCPBENCH_MODEL_URL"
#: what agents are given as OPENAI_API_KEY: a placeholder (clients insist on one); the gateway ignores it
PLACEHOLDER_KEY = "mcpbench-model-gateway"

__all__ = ["MODEL_URL_ENV", "PLACEHOLDER_KEY", "Completion", "EmittedCall", "EventStream", "ModelGatewayHost",
           "ModelRoute", "ModelSettings", "ModelSettingsError", "Price", "PriceTable", "RunMeter",
           "estimate_tokens", "record_emitted_calls", "retry_after"]
