"""The agents' configuration: `harness.toml` (workspace root, or ``--config``), pydantic-checked.

Only the *name* of the environment variable holding the API key is ever stored
(``endpoint.api_key_env``); the key itself is read from the environment when a client is built.
``OPENAI_BASE_URL`` / ``OPENAI_API_KEY`` override the file. A role's model is, in this order:
``--model`` (``prove``, ``run``: every role) > ``roles.<role>.model`` > ``HARNESS_MODEL`` >
``OPENAI_MODEL`` > ``endpoint.default_model`` (see :meth:`HarnessConfig.model_source`).
Unknown top-level sections are ignored
so other parts of the harness can add their own (the orchestrator's ``[run]`` is kept as a dict).

Example::

    [endpoint]
    base_url = "http://localhost:8000/v1"      # vLLM; omit for api.openai.com
    api_key_env = "OPENAI_API_KEY"
    default_model = "deepseek-ai/DeepSeek-Prover-V2-7B"

    [roles.prove]
    mode = "completion"          # prover models answer with a fenced ```lean block
    temperature = 0.6
    max_tokens = 8192

    [roles.audit]
    model = "gpt-5"
    reasoning_effort = "high"

    [prices."gpt-5"]
    input_per_mtok = 1.25
    output_per_mtok = 10.0

    [budgets]
    per_node_usd = 0.50
    per_run_usd = 20.0
    per_node_attempts = 3

    [lean]
    memory_mb = 16384            # RLIMIT_AS of every Lean process (0: no cap; docs/lean-backend.md)
    sandbox = "required"         # "off" = run prover code unboxed (as --unsafe-no-sandbox)
"""

from __future__ import annotations

import os
import re
import tomllib
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from types import UnionType
from typing import Any, Literal, Union, get_args, get_origin

from pydantic import BaseModel, ConfigDict, Field, PrivateAttr, ValidationError

from harness.didyoumean import hint
from harness.errors import InputError

CONFIG_NAME = "harness.toml"
ROLES = ("construct", "audit", "prove", "repair")
MODEL_ENV = ("HARNESS_MODEL", "OPENAI_MODEL")  # default model for every role, over the file's

# The LLM-free prover's default list, cheapest first. `exact?` last: slow, and its answer is a
# suggestion that is re-checked as an ordinary body (see tactics.py).
DEFAULT_TACTICS = [
    "rfl", "decide", "simp", "omega", "norm_num", "linarith", "nlinarith", "positivity",
    "simp_all", "tauto", "aesop", "grind", "exact?",
]


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid")


class EndpointConfig(_Strict):
    base_url: str | None = None  # None: the SDK default (api.openai.com)
    api_key_env: str = "OPENAI_API_KEY"
    default_model: str | None = None
    # OpenAI's reasoning models take `max_completion_tokens`; vLLM and most servers `max_tokens`
    max_tokens_param: Literal["max_tokens", "max_completion_tokens"] = "max_tokens"


class Tier(_Strict):
    """One rung of a role's model ladder: this model from the attempt after ``after_failures``
    failed attempts on the node (cheap first, stronger later)."""
    model: str = Field(min_length=1)
    after_failures: int = Field(default=0, ge=0)


class RoleConfig(_Strict):
    model: str | None = None  # None: endpoint.default_model
    tiers: list[Tier] = Field(default_factory=list)  # prove/repair: models by failures so far
    mode: Literal["tools", "completion"] = "tools"
    temperature: float | None = Field(default=None, ge=0, le=2)
    max_tokens: int | None = Field(default=None, gt=0)
    reasoning_effort: Literal["minimal", "low", "medium", "high"] | None = None
    max_tool_rounds: int = Field(default=12, ge=1, le=200)
    max_reprompts: int = Field(default=2, ge=0, le=20)  # construct: re-prompts with parse findings


class Price(_Strict):
    input_per_mtok: float = Field(ge=0)
    output_per_mtok: float = Field(ge=0)


class Budgets(_Strict):
    per_node_usd: float | None = Field(default=None, ge=0)
    per_role_usd: float | None = Field(default=None, ge=0)
    per_run_usd: float | None = Field(default=None, ge=0)
    per_node_attempts: int = Field(default=3, ge=1)


class Timeouts(_Strict):
    request_s: float = Field(default=300.0, gt=0)  # one HTTP request to the endpoint
    lean_s: float = Field(default=300.0, gt=0)  # one Lean check of a candidate


class Retries(_Strict):
    max_attempts: int = Field(default=4, ge=1, le=20)  # per request, counting the first
    backoff_base_s: float = Field(default=1.0, ge=0)
    backoff_max_s: float = Field(default=30.0, ge=0)


class TacticsConfig(_Strict):
    tactics: list[str] = Field(default_factory=lambda: list(DEFAULT_TACTICS))
    max_tries: int = Field(default=20, ge=1)


class LeanConfig(_Strict):
    """``[lean]``: applied to the process environment by :func:`apply_lean` (so Lean runs in
    worker processes see it too); an explicit HARNESS_LEAN_MEM_MB / HARNESS_UNSAFE_NO_SANDBOX
    in the environment wins."""

    memory_mb: int = Field(default=16384, ge=0)
    sandbox: Literal["required", "off"] = "required"


def apply_lean(cfg: LeanConfig) -> None:
    from harness.lean.run import MEM_ENV
    from harness.lean.sandbox import UNSAFE_ENV

    os.environ.setdefault(MEM_ENV, str(cfg.memory_mb))
    if cfg.sandbox == "off":
        os.environ.setdefault(UNSAFE_ENV, "1")


class HarnessConfig(BaseModel):
    model_config = ConfigDict(extra="ignore")  # other sections belong to other parts

    endpoint: EndpointConfig = Field(default_factory=EndpointConfig)
    roles: dict[Literal["construct", "audit", "prove", "repair"], RoleConfig] = Field(
        default_factory=dict)
    prices: dict[str, Price] = Field(default_factory=dict)
    budgets: Budgets = Field(default_factory=Budgets)
    timeouts: Timeouts = Field(default_factory=Timeouts)
    retries: Retries = Field(default_factory=Retries)
    tactics: TacticsConfig = Field(default_factory=TacticsConfig)
    lean: LeanConfig = Field(default_factory=LeanConfig)
    run: dict[str, Any] = Field(default_factory=dict)  # the orchestrator's section, passed through
    source: str | None = None  # where the config came from (not read from the file)
    # never read from the file: `--model` on `run` (every role) and HARNESS_MODEL / OPENAI_MODEL
    _override: str | None = PrivateAttr(default=None)
    _env_model: tuple[str, str] | None = PrivateAttr(default=None)

    def role(self, name: str, model: str | None = None) -> RoleConfig:
        """The settings of one role, with the default model filled in (``model`` overrides)."""
        rc = self.roles.get(name, RoleConfig())  # type: ignore[call-overload]
        return rc.model_copy(update={"model": self.model_source(name, model)[0]})

    def model_source(self, name: str, model: str | None = None) -> tuple[str | None, str]:
        """(the model of role ``name``, where it came from) — for `doctor` and error lines."""
        rc = self.roles.get(name, RoleConfig())  # type: ignore[call-overload]
        for value, where in ((model, "--model"), (self._override, "--model"),
                             (rc.model, f"roles.{name}.model"),
                             (self._env_model[1] if self._env_model else None,
                              self._env_model[0] if self._env_model else ""),
                             (self.endpoint.default_model, "endpoint.default_model")):
            if value:
                return value, where
        return None, "not set"

    def with_model(self, model: str | None) -> HarnessConfig:
        """A copy in which every role uses ``model`` (``run --model``); unchanged for None."""
        if not model:
            return self
        out = self.model_copy(deep=True)
        out._override, out._env_model = model, self._env_model
        return out

    def model_overrides(self) -> tuple[str | None, tuple[str, str] | None]:
        """(--model, (variable, model) from the environment): what a dump leaves out, for a
        process that rebuilds this config elsewhere (a Ray worker, see :meth:`with_overrides`)."""
        return self._override, self._env_model

    def with_overrides(self, model: str | None, env_model: tuple[str, str] | list[str] | None
                       ) -> HarnessConfig:
        """This config with :meth:`model_overrides`'s values put back."""
        out = self.model_copy(deep=True)
        out._override = model
        out._env_model = tuple(env_model) if env_model else None  # type: ignore[assignment]
        return out

    def read_env(self, env: Mapping[str, str] | None = None) -> HarnessConfig:
        """Take the default model from HARNESS_MODEL / OPENAI_MODEL (first set one wins)."""
        env = os.environ if env is None else env
        self._env_model = next(((k, env[k].strip()) for k in MODEL_ENV
                                if env.get(k, "").strip()), None)
        return self


@dataclass(frozen=True)
class Endpoint:
    """A resolved endpoint. ``api_key`` is held in memory only; ``repr`` never shows it."""

    base_url: str | None
    api_key: str | None

    def __repr__(self) -> str:
        return f"Endpoint(base_url={self.base_url!r}, api_key={'***' if self.api_key else None})"

    __str__ = __repr__

    @property
    def configured(self) -> bool:
        """An LLM is usable: a key (OpenAI) or an explicit base URL (vLLM needs no key)."""
        return bool(self.api_key or self.base_url)


def resolve_endpoint(cfg: HarnessConfig, env: Mapping[str, str] | None = None) -> Endpoint:
    env = os.environ if env is None else env
    base = env.get("OPENAI_BASE_URL") or cfg.endpoint.base_url
    key = env.get("OPENAI_API_KEY") or env.get(cfg.endpoint.api_key_env) or None
    return Endpoint(base_url=base or None, api_key=key)


def load_config(path: str | Path | None = None, workspace: Path | None = None) -> HarnessConfig:
    """``path`` if given (must exist), else ``workspace/harness.toml`` if present, else defaults."""
    if path is not None:
        p = Path(path)
        if not p.is_file():
            raise InputError(p, 1, 0, "config file not found")
    elif workspace is not None and (workspace / CONFIG_NAME).is_file():
        p = workspace / CONFIG_NAME
    else:
        return HarnessConfig().read_env()
    try:
        data = tomllib.loads(p.read_text(encoding="utf-8"))
    except UnicodeDecodeError as err:
        raise InputError(p, 1, 0, f"config is not UTF-8: {err.reason}") from None
    except tomllib.TOMLDecodeError as err:
        m = re.search(r"\(at line (\d+), column (\d+)\)", str(err))
        line, col = (int(m.group(1)), int(m.group(2)) - 1) if m else (1, 0)
        msg = re.sub(r"\s*\(at line \d+, column \d+\)", "", str(err))
        raise InputError(p, line, max(col, 0), f"invalid TOML: {msg}") from None
    cfg = parse_config(data, p).read_env()
    if "lean" in data:  # only a file that says so changes the process's Lean settings
        apply_lean(cfg.lean)
    return cfg


def parse_config(data: dict[str, Any], path: Path | None = None) -> HarnessConfig:
    endpoint = data.get("endpoint")
    if isinstance(endpoint, dict) and "api_key" in endpoint:
        raise InputError(path, _line_of(path, ("endpoint", "api_key")), 0,
                         "config: never store the API key in a file; name its variable in "
                         "endpoint.api_key_env")
    try:
        cfg = HarnessConfig.model_validate(data)
    except ValidationError as err:
        first = err.errors()[0]
        where = ".".join(str(x) for x in first["loc"])
        near = hint(str(first["loc"][-1]), _keys_at(first["loc"])) \
            if first["type"] == "extra_forbidden" else ""
        raise InputError(path, _line_of(path, first["loc"]), 0,
                         f"config: {where}: {first['msg']}{near}") from None
    cfg.source = str(path) if path else None
    return cfg


def _keys_at(loc: tuple[Any, ...]) -> list[str]:
    """The keys the table holding ``loc``'s last part may have (for a did-you-mean)."""
    t: Any = HarnessConfig
    for k in loc[:-1]:
        model = _model_in(t)
        if model is not None:
            field = model.model_fields.get(str(k))
            if field is None:
                return []
            t = field.annotation
        elif get_args(t):  # dict[str, X] / list[X]: the key or index picks an X
            t = get_args(t)[-1]
        else:
            return []
    t = _model_in(t)
    return [f.alias or name for name, f in t.model_fields.items()] if t is not None else []


def _model_in(t: Any) -> type[BaseModel] | None:
    """``t`` itself, or the model in ``X | None``."""
    for c in (t, *(get_args(t) if get_origin(t) in (Union, UnionType) else ())):
        if isinstance(c, type) and issubclass(c, BaseModel):
            return c
    return None


def _line_of(path: Path | None, loc: tuple[Any, ...]) -> int:
    """Best-effort line of the offending key (the first line naming its last string part)."""
    if path is None:
        return 1
    keys = [k for k in loc if isinstance(k, str)]
    if not keys:
        return 1
    try:
        lines = path.read_text(encoding="utf-8").splitlines()
    except OSError:
        return 1
    for i, line in enumerate(lines, 1):
        if re.match(rf"\s*\"?{re.escape(keys[-1])}\"?\s*=", line):
            return i
    for i, line in enumerate(lines, 1):
        if keys[0] in line:
            return i
    return 1
