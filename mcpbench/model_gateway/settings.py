"""The operator's model settings: where the upstream is, its key, prices, and the per-run budgets.

Read from the environment (``ModelSettings.from_env``); every value has a safe default except the
upstream, which the operator must name: there is no public default endpoint, so a run that needs a
model and names none fails before it starts.

=========================================  ===================================================
``MCPBENCH_MODEL_UPSTREAM``                the upstream's OpenAI-compatible base URL (…/v1); default
                                           ``OPENAI_BASE_URL``; no default beyond that (for
                                           ``anthropic``: https://api.anthropic.com/v1)
``MCPBENCH_MODEL_UPSTREAM_API``            ``openai`` (chat completions, the default) or ``anthropic``
                                           (the Messages API, translated by the gateway: ``anthropic.py``)
``MCPBENCH_MODEL_UPSTREAM_KEY``            its key (a bearer token; ``x-api-key`` for ``anthropic``);
                                           default ``OPENAI_API_KEY`` (for ``anthropic``:
                                           ``ANTHROPIC_API_KEY``). Only the gateway holds it.
``MCPBENCH_MODEL``                         the model: the gateway rewrites every request's ``model`` to
                                           it. Unset, ``--agent openai:<model>`` pins ``<model>``; a
                                           ``command:`` agent then needs it (or the next setting)
``MCPBENCH_MODEL_AGENT_CHOOSES``           ``1``: the agent's ``model`` is forwarded as it asked, when
                                           ``MCPBENCH_MODEL`` is unset (default 0: pinned)
``MCPBENCH_MODEL_PRICES``                  a price table, inline JSON or a path to a JSON file:
                                           ``{"<model or *>": {"prompt": USD per 1M tokens,
                                           "completion": USD per 1M tokens}}``
``MCPBENCH_MODEL_MAX_REQUESTS``            per run: requests past this are refused (default 200)
``MCPBENCH_MODEL_MAX_TOKENS``              per run: prompt plus completion tokens (default: no limit)
``MCPBENCH_MODEL_MAX_COMPLETION_TOKENS``   per request and choice: the most completion tokens it may
                                           ask for; one that names none is given this (default 4096)
``MCPBENCH_MODEL_MAX_CHOICES``             per request: the most choices (``n``) it may ask for (default 1)
``MCPBENCH_MODEL_MAX_TOKENS_FIELD``        the field the upstream reads the completion cap from:
                                           ``max_tokens`` (default) or ``max_completion_tokens``
``MCPBENCH_MODEL_RETRY_BUDGET_S``          per run: seconds spent waiting to retry the upstream (default 30)
``MCPBENCH_MODEL_MAX_ATTEMPTS``            per request: tries of the upstream (default 5)
``MCPBENCH_MODEL_REQUEUES``                times a run whose model stayed unavailable is run again (default 1)
=========================================  ===================================================
"""

from __future__ import annotations

import json
import os
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path

ANTHROPIC_UPSTREAM = "https://api.anthropic.com/v1"
#: the upstream APIs the gateway speaks: OpenAI chat completions, or Anthropic Messages (translated)
UPSTREAM_APIS = ("openai", "anthropic")
#: the request fields an upstream may read its completion cap from
TOKENS_FIELDS = ("max_tokens", "max_completion_tokens")
NO_UPSTREAM = ("MCPBENCH_MODEL_UPSTREAM: no model upstream is named: set it (or OPENAI_BASE_URL) to your server's "
               "OpenAI-compatible …/v1 URL, or MCPBENCH_MODEL_UPSTREAM_API=anthropic; there is no public default")


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

    upstream_url: str = ""
    upstream_key: str = ""
    #: the model every request is rewritten to (see ``pinned``)
    model: str | None = None
    #: with no ``model``, forward the model the agent asked for (off: the gateway refuses to start)
    agent_chooses_model: bool = False
    prices: PriceTable = field(default_factory=PriceTable)
    max_requests: int | None = 200
    max_tokens: int | None = None
    #: per request and choice: the cap on completion tokens, and what a request naming none is given
    max_completion_tokens: int = 4096
    #: per request: the most choices (``n``)
    max_choices: int = 1
    #: the field the upstream reads the completion cap from; the gateway writes it and drops the other
    tokens_field: str = "max_tokens"
    retry_budget_s: float = 30.0
    max_attempts: int = 5
    backoff_s: float = 0.5
    max_retry_after_s: float = 20.0
    requeues: int = 1
    #: seconds to wait for the upstream's next byte (a stream that stalls longer is broken)
    read_timeout_s: float = 300.0
    upstream_api: str = "openai"

    def __post_init__(self) -> None:
        if not self.upstream_url:
            raise ModelSettingsError(NO_UPSTREAM)
        if self.upstream_api not in UPSTREAM_APIS:
            raise ModelSettingsError(f"MCPBENCH_MODEL_UPSTREAM_API: expected one of {', '.join(UPSTREAM_APIS)}, "
                                     f"got {self.upstream_api!r}")
        if not self.upstream_url.startswith(("http://", "https://")):
            raise ModelSettingsError(f"MCPBENCH_MODEL_UPSTREAM: expected an http(s) URL, got {self.upstream_url!r}")
        if self.max_attempts < 1:
            raise ModelSettingsError("MCPBENCH_MODEL_MAX_ATTEMPTS: must be at least 1")
        if self.requeues < 0 or self.retry_budget_s < 0:
            raise ModelSettingsError("MCPBENCH_MODEL_REQUEUES and MCPBENCH_MODEL_RETRY_BUDGET_S must not be negative")
        for name, value in (("MAX_REQUESTS", self.max_requests), ("MAX_TOKENS", self.max_tokens)):
            if value is not None and value < 0:
                raise ModelSettingsError(f"MCPBENCH_MODEL_{name}: must not be negative, got {value}")
        for name, value in (("MAX_COMPLETION_TOKENS", self.max_completion_tokens), ("MAX_CHOICES", self.max_choices)):
            if value is None or value < 1:
                raise ModelSettingsError(f"MCPBENCH_MODEL_{name}: expected a positive integer, got {value!r}")
        if self.tokens_field not in TOKENS_FIELDS:
            raise ModelSettingsError(f"MCPBENCH_MODEL_MAX_TOKENS_FIELD: expected one of {', '.join(TOKENS_FIELDS)}, "
                                     f"got {self.tokens_field!r}")

    def pinned(self, agent_model: str | None = None) -> ModelSettings:
        """These settings with the model every request is rewritten to: the operator's ``MCPBENCH_MODEL``,
        else ``agent_model`` (the model the operator named in ``--agent openai:<model>``). With neither,
        the agent may choose only if the operator said so (``MCPBENCH_MODEL_AGENT_CHOOSES``); otherwise
        ``ModelSettingsError``, before any run."""
        model = self.model or agent_model or None
        if model is None and not self.agent_chooses_model:
            raise ModelSettingsError(
                "MCPBENCH_MODEL: the agent reaches the model gateway and no model is pinned: name the model it "
                "may use (MCPBENCH_MODEL=<model>), or let it choose (MCPBENCH_MODEL_AGENT_CHOOSES=1)")
        return replace(self, model=model)

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

        chooses = env.get("MCPBENCH_MODEL_AGENT_CHOOSES", "").strip().lower() or "0"
        if chooses not in ("1", "0", "true", "false", "yes", "no"):
            raise ModelSettingsError(f"MCPBENCH_MODEL_AGENT_CHOOSES: expected 1 or 0, got {chooses!r}")

        api = env.get("MCPBENCH_MODEL_UPSTREAM_API", "").strip().lower() or "openai"
        if api == "anthropic":
            url = env.get("MCPBENCH_MODEL_UPSTREAM") or ANTHROPIC_UPSTREAM
            key = env.get("MCPBENCH_MODEL_UPSTREAM_KEY") or env.get("ANTHROPIC_API_KEY") or ""
        else:
            url = env.get("MCPBENCH_MODEL_UPSTREAM") or env.get("OPENAI_BASE_URL") or ""
            key = env.get("MCPBENCH_MODEL_UPSTREAM_KEY") or env.get("OPENAI_API_KEY") or ""
        values = dict(
            upstream_api=api, upstream_url=url.rstrip("/"), upstream_key=key,
            model=env.get("MCPBENCH_MODEL") or None, agent_chooses_model=chooses in ("1", "true", "yes"),
            prices=PriceTable.parse(env.get("MCPBENCH_MODEL_PRICES", "")),
            max_requests=number("MCPBENCH_MODEL_MAX_REQUESTS", int, 200),
            max_tokens=number("MCPBENCH_MODEL_MAX_TOKENS", int, None),
            max_completion_tokens=number("MCPBENCH_MODEL_MAX_COMPLETION_TOKENS", int, 4096),
            max_choices=number("MCPBENCH_MODEL_MAX_CHOICES", int, 1),
            tokens_field=env.get("MCPBENCH_MODEL_MAX_TOKENS_FIELD", "").strip() or "max_tokens",
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


__all__ = ["ANTHROPIC_UPSTREAM", "TOKENS_FIELDS", "UPSTREAM_APIS", "ModelSettings", "ModelSettingsError", "Price",
           "PriceTable"]
