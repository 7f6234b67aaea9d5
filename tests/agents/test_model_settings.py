"""The operator's model settings: bad values are refused naming the variable; prices and Retry-After
are read as documented."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from email.utils import format_datetime

import pytest

from mcpbench.model_gateway import ModelSettings, ModelSettingsError, Price, PriceTable, retry_after


def test_the_upstream_and_its_key_fall_back_to_the_openai_variables():
    s = ModelSettings.from_env({"OPENAI_BASE_URL": "http://127.0.0.1:8080/v1/", "OPENAI_API_KEY": "k"})
    assert (s.upstream_url, s.upstream_key) == ("http://127.0.0.1:8080/v1", "k")
    s = ModelSettings.from_env({"OPENAI_BASE_URL": "http://a/v1", "MCPBENCH_MODEL_UPSTREAM": "http://b/v1"})
    assert s.upstream_url == "http://b/v1"
    unlimited = ModelSettings.from_env({"OPENAI_BASE_URL": "http://a/v1", "MCPBENCH_MODEL_MAX_TOKENS": "none"})
    assert unlimited.max_tokens is None


@pytest.mark.parametrize("env, named", [
    ({"MCPBENCH_MODEL_UPSTREAM": "ftp://x"}, "MCPBENCH_MODEL_UPSTREAM"),
    ({"MCPBENCH_MODEL_MAX_REQUESTS": "many"}, "MCPBENCH_MODEL_MAX_REQUESTS"),
    ({"MCPBENCH_MODEL_PRICES": "{not json"}, "MCPBENCH_MODEL_PRICES"),
    ({"MCPBENCH_MODEL_PRICES": '{"m": {"prompt": -1}}'}, "MCPBENCH_MODEL_PRICES.m.prompt"),
    ({"MCPBENCH_MODEL_PRICES": '{"m": {"input": 1}}'}, "MCPBENCH_MODEL_PRICES.m"),
    ({"MCPBENCH_MODEL_PRICES": "/no/such/prices.json"}, "MCPBENCH_MODEL_PRICES"),
    ({}, "MCPBENCH_MODEL_UPSTREAM: no model upstream is named"),
    ({"OPENAI_API_KEY": "sk-x"}, "MCPBENCH_MODEL_UPSTREAM: no model upstream is named"),
    ({"OPENAI_BASE_URL": "http://a/v1", "MCPBENCH_MODEL_MAX_CHOICES": "0"}, "MCPBENCH_MODEL_MAX_CHOICES"),
    ({"OPENAI_BASE_URL": "http://a/v1", "MCPBENCH_MODEL_MAX_COMPLETION_TOKENS": "none"},
     "MCPBENCH_MODEL_MAX_COMPLETION_TOKENS"),
    ({"OPENAI_BASE_URL": "http://a/v1", "MCPBENCH_MODEL_MAX_TOKENS": "-5"}, "MCPBENCH_MODEL_MAX_TOKENS"),
    ({"OPENAI_BASE_URL": "http://a/v1", "MCPBENCH_MODEL_MAX_TOKENS_FIELD": "max_output_tokens"},
     "MCPBENCH_MODEL_MAX_TOKENS_FIELD"),
    ({"OPENAI_BASE_URL": "http://a/v1", "MCPBENCH_MODEL_AGENT_CHOOSES": "maybe"}, "MCPBENCH_MODEL_AGENT_CHOOSES"),
])
def test_a_malformed_setting_is_refused_naming_the_variable(env, named):
    with pytest.raises(ModelSettingsError, match=named.replace(".", r"\.")):
        ModelSettings.from_env(env)


def test_the_admission_settings_are_read_from_the_environment():
    s = ModelSettings.from_env({"OPENAI_BASE_URL": "http://a/v1", "MCPBENCH_MODEL_MAX_COMPLETION_TOKENS": "512",
                                "MCPBENCH_MODEL_MAX_CHOICES": "3", "MCPBENCH_MODEL_AGENT_CHOOSES": "1",
                                "MCPBENCH_MODEL_MAX_TOKENS_FIELD": "max_completion_tokens"})
    assert (s.max_completion_tokens, s.max_choices, s.agent_chooses_model, s.tokens_field) == (
        512, 3, True, "max_completion_tokens")
    d = ModelSettings.from_env({"OPENAI_BASE_URL": "http://a/v1"})
    assert (d.max_completion_tokens, d.max_choices, d.agent_chooses_model, d.tokens_field) == (
        4096, 1, False, "max_tokens")


def test_prices_are_per_million_tokens_with_a_default_and_cost_is_integer_nanodollars(tmp_path):
    path = tmp_path / "prices.json"
    path.write_text('{"big": {"prompt": 2.5, "completion": 10}, "*": {"prompt": 0.1}}')
    table = PriceTable.parse(str(path))
    assert table.for_model("big").nanousd(1_000_000, 1000) == 2_500_000_000 + 10_000_000
    assert table.for_model("other") == Price(prompt=0.1) and PriceTable().for_model("x").nanousd(10, 10) == 0


def test_retry_after_is_read_as_seconds_or_an_http_date():
    assert retry_after("3") == 3.0 and retry_after("0.25") == 0.25
    assert retry_after(None) is None and retry_after("soon") is None
    later = format_datetime(datetime.now(UTC) + timedelta(seconds=30), usegmt=True)
    assert 25 < retry_after(later) <= 30
