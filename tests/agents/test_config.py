"""harness.toml loading: validation, env overrides, the key is never stored."""

from __future__ import annotations

from pathlib import Path

import pytest

from harness.agents.config import HarnessConfig, load_config, resolve_endpoint
from harness.errors import InputError

GOOD = """
[endpoint]
base_url = "http://127.0.0.1:9/v1"
api_key_env = "TEST_LLM_KEY"
default_model = "prover-7b"

[roles.prove]
mode = "completion"
temperature = 0.6
max_tokens = 4096

[roles.audit]
model = "big"
reasoning_effort = "high"

[prices.big]
input_per_mtok = 2.0
output_per_mtok = 8.0

[budgets]
per_node_usd = 0.5
per_node_attempts = 2

[run]
workers = 4

[somebody_else]
x = 1
"""


def test_load_and_roles(tmp_path: Path, clean_env):
    (tmp_path / "harness.toml").write_text(GOOD)
    cfg = load_config(workspace=tmp_path)
    assert cfg.role("prove").model == "prover-7b" and cfg.role("prove").mode == "completion"
    assert cfg.role("audit").model == "big" and cfg.role("audit").reasoning_effort == "high"
    assert cfg.role("repair").mode == "tools"  # defaults for an unconfigured role
    assert cfg.role("prove", model="override").model == "override"
    assert cfg.prices["big"].output_per_mtok == 8.0
    assert cfg.budgets.per_node_attempts == 2 and cfg.run == {"workers": 4}
    assert cfg.source == str(tmp_path / "harness.toml")


def test_defaults_without_file(tmp_path: Path):
    cfg = load_config(workspace=tmp_path)
    assert cfg == HarnessConfig() and "simp" in cfg.tactics.tactics


def test_env_overrides_and_key_hidden():
    cfg = HarnessConfig.model_validate(
        {"endpoint": {"base_url": "http://file/v1", "api_key_env": "TEST_LLM_KEY"}})
    ep = resolve_endpoint(cfg, {"TEST_LLM_KEY": "sk-secret-1"})
    assert ep.base_url == "http://file/v1" and ep.api_key == "sk-secret-1"
    assert "sk-secret-1" not in repr(ep) and "sk-secret-1" not in str(ep)
    ep = resolve_endpoint(cfg, {"TEST_LLM_KEY": "a", "OPENAI_API_KEY": "b",
                                "OPENAI_BASE_URL": "http://env/v1"})
    assert (ep.base_url, ep.api_key) == ("http://env/v1", "b")
    assert not resolve_endpoint(HarnessConfig(), {}).configured


@pytest.mark.parametrize("text, where, what", [
    ("[endpoint]\napi_key = \"sk-x\"\n", 2, "never store the API key"),
    ("[roles.prove]\nmode = \"chat\"\n", 2, "roles.prove.mode"),
    ("[roles.prove]\ntemprature = 0.5\n", 2, "temprature"),
    ("[roles.proof]\nmode = \"tools\"\n", 1, "roles.proof"),
    ("[budgets]\nper_node_usd = -1\n", 2, "per_node_usd"),
    ("[endpoint\nx=1\n", 1, "invalid TOML"),
])
def test_bad_config_is_one_located_line(tmp_path: Path, text: str, where: int, what: str):
    p = tmp_path / "harness.toml"
    p.write_text(text)
    with pytest.raises(InputError) as e:
        load_config(workspace=tmp_path)
    assert e.value.line().startswith(f"{p}:{where}:") and what in e.value.line()


@pytest.mark.parametrize("text, where, want", [
    ("[endpoint]\nbase_ur = \"http://x/v1\"\n", 2, "endpoint.base_ur: Extra inputs are not "
     "permitted (did you mean `base_url`?)"),
    ("[roles.prove]\ntemprature = 0.5\n", 2, "(did you mean `temperature`?)"),
    ("[roles.prove]\ntiers = [{ model = \"m\", after_failres = 2 }]\n", 1,
     "roles.prove.tiers.0.after_failres: Extra inputs are not permitted (did you mean "
     "`after_failures`?)"),
    ("[lean]\nsandbx = \"off\"\n", 2, "(did you mean `sandbox`?)"),
])
def test_a_mistyped_key_gets_a_did_you_mean(tmp_path: Path, text: str, where: int, want: str):
    p = tmp_path / "harness.toml"
    p.write_text(text)
    with pytest.raises(InputError) as e:
        load_config(workspace=tmp_path)
    assert e.value.line().startswith(f"{p}:{where}:0: config: ") and e.value.line().endswith(want)


def test_missing_explicit_config(tmp_path: Path):
    with pytest.raises(InputError, match="config file not found"):
        load_config(tmp_path / "nope.toml")
