"""The LLM side of the preflight: a model for every role that will be used, and an endpoint that
answers — ``GET /v1/models`` (is the key accepted, which models are served), then exactly one
minimal chat call (one output token) with the first role's model. The key is never shown: only
whether it is set, and in which variable."""

from __future__ import annotations

import os
from collections.abc import Mapping

from harness.agents.config import MODEL_ENV, Endpoint, HarnessConfig, resolve_endpoint
from harness.preflight.report import Check

SET_MODEL = ("set endpoint.default_model (or roles.{role}.model) in {where}, or "
             + " / ".join(f"{k}=…" for k in MODEL_ENV) + ", or pass --model")
PROBE_TIMEOUT_S = 60.0


def endpoint_check(cfg: HarnessConfig, env: Mapping[str, str] | None = None) -> tuple[Check,
                                                                                      Endpoint]:
    env = os.environ if env is None else env
    ep = resolve_endpoint(cfg, env)
    var = "OPENAI_API_KEY" if env.get("OPENAI_API_KEY") else cfg.endpoint.api_key_env
    key = f"key in {var}" if ep.api_key else "no API key"
    if not ep.configured:
        return Check(name="endpoint", status="skipped",
                     found="no LLM endpoint configured (the tactic portfolio only)",
                     fix="set OPENAI_BASE_URL / OPENAI_API_KEY, or write a harness.toml with "
                         "`python -m harness init`"), ep
    url = ep.base_url or "https://api.openai.com/v1 (the SDK's default)"
    return Check(name="endpoint", status="ok", found=f"{url}; {key}"), ep


def model_checks(cfg: HarnessConfig, roles: tuple[str, ...], model: str | None = None
                 ) -> list[Check]:
    """One check per role: which model it will use and where that came from."""
    where = cfg.source or "harness.toml"
    out = []
    for role in roles:
        chosen, src = cfg.model_source(role, model)
        if chosen:
            out.append(Check(name=f"model:{role}", status="ok", found=f"{chosen} (from {src})"))
        else:
            out.append(Check(name=f"model:{role}", status="missing", blocking=True,
                             found=f"no model for the {role} role",
                             fix=SET_MODEL.format(role=role, where=where)))
    return out


def probe(cfg: HarnessConfig, ep: Endpoint, models: list[str]) -> list[Check]:
    """``GET /models``, then one minimal call with ``models[0]``. Blocking failures: a rejected
    key, no such route or model, a host that does not answer."""
    from harness.agents.llm import EndpointConfigError, LLMClient, LLMError

    quick = cfg.model_copy(update={
        "retries": cfg.retries.model_copy(update={"max_attempts": 2, "backoff_base_s": 0.5,
                                                  "backoff_max_s": 2.0}),
        "timeouts": cfg.timeouts.model_copy(update={
            "request_s": min(cfg.timeouts.request_s, PROBE_TIMEOUT_S)})})
    client = LLMClient(ep, quick)
    out: list[Check] = []
    try:
        listed = client.list_models()
    except EndpointConfigError as err:
        return [Check(name="endpoint:models", status="missing", blocking=True, found=str(err))]
    except LLMError as err:
        return [Check(name="endpoint:models", status="missing", blocking=True,
                      found=f"GET /models failed: {err.reason}",
                      fix="check OPENAI_BASE_URL / endpoint.base_url (with its /v1)")]
    if listed is None:
        out.append(Check(name="endpoint:models", status="warn",
                         found="the endpoint has no /models route (models not confirmed)"))
    else:
        shown = ", ".join(listed[:5]) + (f" (+{len(listed) - 5} more)" if len(listed) > 5 else "")
        out.append(Check(name="endpoint:models", status="ok",
                         found=f"{len(listed)} model(s) listed: {shown or 'none'}"))
        for m in dict.fromkeys(models):
            if listed and m not in listed:
                out.append(Check(name="endpoint:models", status="warn",
                                 found=f"{m} is not among the models the endpoint lists",
                                 fix="check the model name (vLLM serves the name given to "
                                     "`vllm serve`, or --served-model-name)"))
    if not models:
        return out
    try:
        resp = client.ping(models[0])
        out.append(Check(name="endpoint:chat", status="ok",
                         found=f"{models[0]} answered a 1-token request "
                               f"({resp.usage.prompt_tokens}+{resp.usage.completion_tokens} "
                               "tokens)"))
    except EndpointConfigError as err:
        out.append(Check(name="endpoint:chat", status="missing", blocking=True, found=str(err)))
    except LLMError as err:
        if err.status in (400, 422):  # it answered: the tiny request itself was refused
            out.append(Check(name="endpoint:chat", status="warn",
                             found=f"{models[0]} refused the 1-token request: {err.reason}"))
        else:
            out.append(Check(name="endpoint:chat", status="missing", blocking=True,
                             found=f"{models[0]} did not answer a minimal request: {err.reason}",
                             fix="check the endpoint's logs, OPENAI_BASE_URL and the model"))
    return out


def llm_checks(cfg: HarnessConfig, roles: tuple[str, ...], *, model: str | None = None,
               network: bool = True, env: Mapping[str, str] | None = None) -> list[Check]:
    """The endpoint, one model per role, and (``network``) the probe when those are fine."""
    ep_check, ep = endpoint_check(cfg, env)
    checks = [ep_check]
    if not ep.configured:
        return checks
    checks += model_checks(cfg, roles, model)
    if network and not any(c.status == "missing" for c in checks):
        models = [cfg.model_source(r, model)[0] for r in roles]
        checks += probe(cfg, ep, [m for m in models if m])
    return checks
