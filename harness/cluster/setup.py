"""Setting up the Ray executor for a session, without importing Ray until it is asked for (the
choice of Ray or local threads is the run's assembly's: harness/assemble.py).

``require_ray`` is the one check `harness run` makes before anything else when ``--executor ray``
/ ``[run] executor = "ray"`` is set (ray missing: one line, exit 2). ``make_ray_executor``
connects (or starts a Ray instance on this machine), checks that some node can hold a Lean and
that every node sees the workspace, and returns the executor — all before any work starts.
"""

from __future__ import annotations

import importlib.util
import os
from pathlib import Path
from typing import Any, Callable

from harness.errors import UsageError

RUNTIME_ENV_EXCLUDES = [".lake/", ".harness/", ".git/", "**/__pycache__/"]


def require_ray() -> None:
    try:
        found = importlib.util.find_spec("ray") is not None
    except (ImportError, ValueError):  # a broken or blocked installation counts as missing
        found = False
    if not found:
        raise UsageError("run: --executor ray needs Ray: pip install -e '.[ray]' "
                         "(or set [run] executor = \"local\")")


def worker_spec(settings: Any, cfg: Any, workspace: Path, lake: str | None) -> Any:
    """What every worker gets: no key — only the name of the variable that must hold it."""
    from harness.agents.config import resolve_endpoint
    from harness.cluster.worker import WorkerSpec

    endpoint = resolve_endpoint(cfg)
    data = cfg.model_dump()
    if endpoint.base_url:  # the head's endpoint, also when it came from OPENAI_BASE_URL
        data["endpoint"]["base_url"] = endpoint.base_url
    model, env_model = cfg.model_overrides()
    return WorkerSpec(workspace=str(workspace), lake=lake or os.environ.get("HARNESS_LAKE"),
                      config=data, model=model, env_model=env_model,
                      key_env=cfg.endpoint.api_key_env if endpoint.api_key else None,
                      lean_memory_gb=settings.lean_memory_gb,
                      workspace_mode=settings.ray_workspace)


def make_ray_executor(settings: Any, cfg: Any, workspace: Path, lake: str | None,
                      notify: Callable[[str, dict[str, Any]], None] | None = None) -> Any:
    require_ray()
    from harness.cluster.connect import check_capacity, connect
    from harness.cluster.executor import RayExecutor

    runtime_env = None
    if settings.ray_workspace == "runtime_env":
        runtime_env = {"working_dir": str(workspace), "excludes": RUNTIME_ENV_EXCLUDES}
    started = connect(settings.ray_address, workers=settings.workers, runtime_env=runtime_env)
    try:
        check_capacity(settings.lean_memory_gb)
        return RayExecutor(worker_spec(settings, cfg, workspace, lake), started=started,
                           notify=notify)
    except BaseException:
        if started:
            import ray

            ray.shutdown()
        raise
