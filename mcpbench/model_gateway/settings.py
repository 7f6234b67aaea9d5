"""The operator's model settings: where the upstream is, its key, prices, and the per-run budgets.

Read from the environment (``ModelSettings.from_env``); every value has a safe default except the
upstream, which falls back to ``OPENAI_BASE_URL`` and then to OpenAI's public endpoint:

=================================  ===========================================================
``MCPBENCH_MODEL_UPSTREAM``        the upstream's OpenAI-compatible base URL (…/v1); default
                                   ``OPENAI_BASE_URL`` (for ``anthropic``: https://api.anthropic.com/v1)
``MCPBENCH_MODEL_UPSTREAM_API``    ``openai`` (chat completions, the default) or ``anthropic`` (the
                                   Messages API, translated by the gateway: ``anthropic.py``)
``MCPBENCH_MODEL_UPSTREAM_KEY``    its key (a bearer token; ``x-api-key`` for ``anthropic``); default
                                   ``OPENAI_API_KEY`` (for ``anthropic``: ``ANTHROPIC_API_KEY``).
                                   Only the gateway holds it: agents never see it.
``MCPBENCH_MODEL``                 pin the model: the gateway rewrites every request's ``model``
``MCPBENCH_MODEL_PRICES``          a price table, inline JSON or a path to a JSON file:
                                   ``{"<model or *>": {"prompt": USD per 1M tokens,
                                   "completion": USD per 1M tokens}}``
``MCPBENCH_MODEL_MAX_REQUESTS``    per run: requests past this are refused (default 200)
``MCPBENCH_MODEL_MAX_TOKENS``      per run: prompt plus completion tokens (default: no limit)
``MCPBENCH_MODEL_RETRY_BUDGET_S``  per run: seconds spent waiting to retry the upstream (default 30)
``MCPBENCH_MODEL_MAX_ATTEMPTS``    per request: tries of the upstream (default 5)
``MCPBENCH_MODEL_REQUEUES``        times a run whose model stayed unavailable is run again (default 1)
=================================  ===========================================================
"""

from __future__ import annotations

import json
import os
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path

DEFAULT_UPSTREAM = "https://api.openai.com/v1"
ANTHROPIC_UPSTREAM = "https://api.anthropic.com/v1"
#: the upstream APIs the gateway speaks: OpenAI chat completions, or Anthropic Messages (translated)
UPSTREAM_APIS = ("openai", "anthropic")


class ModelSettingsError(ValueError):
    """A model setting is malformed; the message names the variable."""


@dataclass(frozen=True)
class Price:
    """USD per million tokens."""

    prompt: float = 0.0
    completion: float = 0.0

    def nanousd(self, prompt_tokens: int, completion_tokens: int) -> int:
        """The cost in billionths of a dollar (an integer, so sums are exact):
        tokens x USD per 1M tokens = micro-dollars, times 1000."""
        return round(prompt_tokens * self.prompt * 1000) + round(completion_tokens * self.completion * 1000)


@dataclass(frozen=True)
class PriceTable:
    """Prices by model name; ``*`` is the default; a model in neither costs nothing (reported as 0)."""

    prices: Mapping[str, Price] = field(default_factory=dict)

    def for_model(self, model: str) -> Price:
        return self.prices.get(model) or self.prices.get("*") or Price()

    @classmethod
    def parse(cls, text: str, *, where: str = "MCPBENCH_MODEL_PRICES") -> PriceTable:
        """From JSON (inline, or a path to a file holding it)."""
        text = text.strip()
        if text and not text.startswith("{"):
            path = Path(text)
            if not path.is_file():
                raise ModelSettingsError(f"{where}: {text!r} is neither inline JSON nor a readable file")
            text = path.read_text()
        try:
            raw = json.loads(text or "{}")
        except json.JSONDecodeError as exc:
            raise ModelSettingsError(f"{where}: not JSON: {exc}") from None
        if not isinstance(raw, dict):
            raise ModelSettingsError(f"{where}: expected an object of models, got {type(raw).__name__}")
        prices = {}
        for model, entry in raw.items():
            if not isinstance(entry, dict) or set(entry) - {"prompt", "completion"}:
                raise ModelSettingsError(f"{where}.{model}: expected {{\"prompt\": USD/1M, \"completion\": USD/1M}}")
            values = {}
            for key in ("prompt", "completion"):
                value = entry.get(key, 0)
                if isinstance(value, bool) or not isinstance(value, int | float) or value < 0:
                    raise ModelSettingsError(f"{where}.{model}.{key}: expected a non-negative number, got {value!r}")
                values[key] = float(value)
            prices[model] = Price(**values)
        return cls(prices)


@dataclass(frozen=True)
class ModelSettings:
    """Where the model gateway forwards to and the budgets it enforces per run."""

    upstream_url: str = DEFAULT_UPSTREAM
    upstream_key: str = ""
    model: str | None = None
    prices: PriceTable = field(default_factory=PriceTable)
    max_requests: int | None = 200
    max_tokens: int | None = None
    retry_budget_s: float = 30.0
    max_attempts: int = 5
    backoff_s: float = 0.5
    max_retry_after_s: float = 20.0
    requeues: int = 1
    #: seconds to wait for the upstream's next byte (a stream that stalls longer is broken)
    read_timeout_s: float = 300.0
    upstream_api: str = "openai"

    def __post_init__(self) -> None:
        if self.upstream_api not in UPSTREAM_APIS:
            raise ModelSettingsError(f"MCPBENCH_MODEL_UPSTREAM_API: expected one of {', '.join(UPSTREAM_APIS)}, "
                                     f"got {self.upstream_api!r}")
        if not self.upstream_url.startswith(("http://", "https://")):
            raise ModelSettingsError(f"MCPBENCH_MODEL_UPSTREAM: expected an http(s) URL, got {self.upstream_url!r}")
        if self.max_attempts < 1:
            raise ModelSettingsError("MCPBENCH_MODEL_MAX_ATTEMPTS: must be at least 1")
        if self.requeues < 0 or self.retry_budget_s < 0:
            raise ModelSettingsError("MCPBENCH_MODEL_REQUEUES and MCPBENCH_MODEL_RETRY_BUDGET_S must not be negative")

    @classmethod
    def from_env(cls, env: Mapping[str, str] | None = None, **overrides) -> ModelSettings:
        env = os.environ if env is None else env

        def number(name: str, kind: type, default):
            raw = env.get(name, "").strip()
            if not raw:
                return default
            if raw.lower() in ("none", "off", "unlimited"):
                return None
            try:
                return kind(raw)
            except ValueError:
                raise ModelSettingsError(f"{name}: expected a {kind.__name__}, got {raw!r}") from None

        api = env.get("MCPBENCH_MODEL_UPSTREAM_API", "").strip().lower() or "openai"
        if api == "anthropic":
            url = env.get("MCPBENCH_MODEL_UPSTREAM") or ANTHROPIC_UPSTREAM
            key = env.get("MCPBENCH_MODEL_UPSTREAM_KEY") or env.get("ANTHROPIC_API_KEY") or ""
        else:
            url = env.get("MCPBENCH_MODEL_UPSTREAM") or env.get("OPENAI_BASE_URL") or DEFAULT_UPSTREAM
            key = env.get("MCPBENCH_MODEL_UPSTREAM_KEY") or env.get("OPENAI_API_KEY") or ""
        values = dict(
            upstream_api=api, upstream_url=url.rstrip("/"), upstream_key=key,
            model=env.get("MCPBENCH_MODEL") or None,
            prices=PriceTable.parse(env.get("MCPBENCH_MODEL_PRICES", "")),
            max_requests=number("MCPBENCH_MODEL_MAX_REQUESTS", int, 200),
            max_tokens=number("MCPBENCH_MODEL_MAX_TOKENS", int, None),
            retry_budget_s=number("MCPBENCH_MODEL_RETRY_BUDGET_S", float, 30.0) or 0.0,
            max_attempts=number("MCPBENCH_MODEL_MAX_ATTEMPTS", int, 5) or 1,
            requeues=number("MCPBENCH_MODEL_REQUEUES", int, 1) or 0,
        )
        values.update(overrides)
        return cls(**values)

    @staticmethod
    def configured(env: Mapping[str, str] | None = None) -> bool:
        """Whether the operator named an upstream (a ``command:`` agent gets the model gateway only then)."""
        env = os.environ if env is None else env
        return bool(env.get("MCPBENCH_MODEL_UPSTREAM") or env.get("OPENAI_BASE_URL")
                    or env.get("MCPBENCH_MODEL_UPSTREAM_API", "").strip().lower() == "anthropic")


__all__ = ["ANTHROPIC_UPSTREAM", "DEFAULT_UPSTREAM", "UPSTREAM_APIS", "ModelSettings", "ModelSettingsError", "Price", "PriceTable"]
