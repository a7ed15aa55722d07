"""`run`, `prove` and `lock` call :func:`require_ready` before any work: configuration first (no
subprocess, no network), then Lean, then the endpoint probe. Every blocking problem is reported at
once, as `harness doctor` does (a UsageError, exit 2, one line each saying what to set); nothing
has been attempted or written yet."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from harness.agents.config import HarnessConfig
from harness.preflight.endpoint import llm_checks, probe
from harness.preflight.lean import lean_checks
from harness.preflight.report import Check, enforce, roles_for


def require_ready(command: str, workspace: Path, cfg: HarnessConfig | None, *,
                  lake: str | None, stage: str = "all", model: str | None = None,
                  use_llm: bool = True, lean: bool = True, source: bool = False
                  ) -> tuple[list[Check], Any]:
    """All checks that passed or warned, and the Toolchain (None when no Lean was found: the
    command's own no-Lean behaviour applies). Raises UsageError listing the blocking problems."""
    checks: list[Check] = []
    roles = roles_for(command, stage, source=source) if (use_llm and cfg is not None) else ()
    if cfg is not None and roles:
        checks += llm_checks(cfg, roles, model=model, network=False)
    tc = None
    if lean:
        found, tc = lean_checks(workspace, lake)
        checks += found
    ep = next((c for c in checks if c.name == "endpoint"), None)
    models_ok = not any(c.status == "missing" for c in checks if c.name.startswith("model:"))
    # the endpoint is probed whatever Lean says, so `run` and `prove` report the same problems
    # (a missing model: nothing to probe with, and no request is sent)
    if cfg is not None and ep is not None and ep.status == "ok" and roles and models_ok:
        from harness.agents.config import resolve_endpoint

        models = [m for m in (cfg.model_source(r, model)[0] for r in roles) if m]
        checks += probe(cfg, resolve_endpoint(cfg), models)
    enforce(checks)  # every blocking problem at once, one line each
    return checks, tc
