"""The worker side of the Ray executor, without Ray: what a worker needs to run attempts.

A :class:`WorkerSpec` is everything a worker is sent besides the job: the workspace path, the
``lake`` path, the configuration (which *names* the key's variable, never holds it) and the
memory one Lean needs. The model endpoint's key reaches a worker only through its environment
(the one ``ray start`` / ``ray.init`` was run in), so it is never part of a task's arguments and
never in Ray's logs. The runner is built once per worker process and spec (``runner_for``); the
node-level check (:func:`node_problem`) runs once per node, in the node's service actor.
"""

from __future__ import annotations

import hashlib
import importlib
import json
import os
import threading
from pathlib import Path
from typing import Any, Callable, Literal

from pydantic import BaseModel, Field

from harness.orchestrator.executor import AttemptJob, AttemptResult, Runner

GIB = 1024 ** 3


class WorkerSpec(BaseModel):
    workspace: str  # on a shared filesystem: the same path on every node
    lake: str | None = None
    config: dict[str, Any] = Field(default_factory=dict)  # HarnessConfig.model_dump()
    # what the dump leaves out: `--model`, and the head's HARNESS_MODEL/OPENAI_MODEL (variable,
    # value) — a worker's own environment may differ
    model: str | None = None
    env_model: tuple[str, str] | None = None
    key_env: str | None = None  # the variable a worker must have (None: no key needed)
    lean_memory_gb: float = 8.0
    workspace_mode: Literal["shared", "runtime_env"] = "shared"
    # "module:function" taking (spec, pool) -> Runner; the real one by default (tests name theirs)
    factory: str = "harness.cluster.worker:real_runner"
    needs_lean: bool = True  # False only for synthetic runners (the executor benchmark)

    def digest(self) -> str:
        return hashlib.sha256(self.model_dump_json().encode()).hexdigest()[:12]


def worker_workspace(spec: WorkerSpec) -> Path:
    """Where the workspace is on this worker: the shared path, or the runtime environment's
    unpacked copy (the worker's working directory), with ``.lake`` linked from
    ``HARNESS_NODE_LAKE`` (a node-local copy of the workspace's ``.lake``: toolchain packages and
    the Mathlib build) when that is set."""
    if spec.workspace_mode == "shared":
        return Path(spec.workspace)
    ws = Path.cwd()
    local = os.environ.get("HARNESS_NODE_LAKE")
    if local and not (ws / ".lake").exists():
        (ws / ".lake").symlink_to(Path(local), target_is_directory=True)
    return ws


def node_problem(spec: WorkerSpec) -> str | None:
    """Why this node cannot run attempts (one line), or None. Checked once per node: the
    workspace is visible, lake and Lean answer there, the Lake packages are built, and the key's
    variable is set when the head has one."""
    try:
        ws = worker_workspace(spec)
    except OSError as err:
        return f"cannot link HARNESS_NODE_LAKE into the runtime environment: {err}"
    if not (ws / "lakefile.lean").is_file() and not (ws / "lakefile.toml").is_file():
        how = ("mount it at the same path on every node (docs/cluster.md)"
               if spec.workspace_mode == "shared" else "the runtime environment carries no "
               "lakefile")
        return f"the workspace {ws} is not visible here (no lakefile): {how}"
    missing = _missing_packages(ws)
    if missing:
        return (f"the workspace's Lake packages are not built here: {', '.join(missing)} missing "
                f"under {ws / '.lake' / 'packages'} (run `lake exe cache get` / `lake build` on "
                "the shared filesystem, or set HARNESS_NODE_LAKE)")
    from harness.errors import HarnessError
    from harness.lean.toolchain import find_toolchain

    if not spec.needs_lean:
        return None
    try:
        find_toolchain(ws, spec.lake)
    except HarnessError as err:
        return f"no usable Lean toolchain here: {err.line()}"
    if spec.key_env and not (os.environ.get(spec.key_env) or os.environ.get("OPENAI_API_KEY")):
        return (f"{spec.key_env} is not set in this worker's environment (export it before "
                "`ray start` on every node; it is never sent with the tasks)")
    return None


def _missing_packages(ws: Path) -> list[str]:
    """Packages lake-manifest.json requires that have no directory under .lake/packages."""
    manifest = ws / "lake-manifest.json"
    if not manifest.is_file():
        return []
    try:
        pkgs = json.loads(manifest.read_text(encoding="utf-8")).get("packages", [])
    except (OSError, ValueError):
        return ["lake-manifest.json (unreadable)"]
    root = ws / ".lake" / "packages"
    return [p["name"] for p in pkgs if isinstance(p, dict) and p.get("name")
            and p.get("type", "git") == "git" and not (root / p["name"]).is_dir()]


# ---- runners -------------------------------------------------------------------------------
_cache: dict[str, Runner] = {}
_cache_lock = threading.Lock()


def runner_for(spec: WorkerSpec, pool: Any | None = None) -> Runner:
    """The spec's runner, built once per worker process (toolchain found, client made)."""
    key = spec.digest()
    with _cache_lock:
        if key not in _cache:
            mod, _, fn = spec.factory.partition(":")
            make: Callable[[WorkerSpec, Any], Runner] = getattr(importlib.import_module(mod), fn)
            _cache[key] = make(spec, pool)
        return _cache[key]


def real_runner(spec: WorkerSpec, pool: Any | None) -> Runner:
    """attempts.make_runner on this worker: the key from this process's environment, each
    attempt with its own ledger capped at the job's ``budget_usd`` (the run's budget is kept by
    the head, which bounds what is in flight)."""
    from harness.agents.config import Budgets, HarnessConfig
    from harness.agents.llm import Ledger
    from harness.lean.toolchain import find_toolchain
    from harness.orchestrator.attempts import make_runner

    cfg = HarnessConfig.model_validate(spec.config).with_overrides(spec.model, spec.env_model)
    ws = worker_workspace(spec)
    tc = find_toolchain(ws, spec.lake)
    run, client = make_runner(cfg, tc, budget_left=None, pool=pool)

    def attempt(job: AttemptJob) -> AttemptResult:
        if spec.workspace_mode == "runtime_env":  # the unpacked copy, not the head's path
            job = job.model_copy(update={"workspace": str(ws),
                                         "file": worker_file(spec, job.file, ws)})
        if client is not None:  # one attempt at a time per worker process: safe to swap
            attempts = client.ledger.attempts
            budgets = Budgets(**{**cfg.budgets.model_dump(), "per_run_usd": job.budget_usd})
            client.ledger = Ledger(budgets, cfg.prices)
            client.ledger.attempts = attempts
        return run(job)

    return attempt


def worker_file(spec: WorkerSpec, file: str, ws: Path) -> str:
    """The job's file in this worker's copy of the workspace (a project's jobs name their own
    files): its module — the lakefile's options for it, library context — is then found here.
    A file outside the head's workspace stays as it is."""
    try:
        return str(ws / Path(file).relative_to(spec.workspace))
    except ValueError:
        return file


# ---- orphans -------------------------------------------------------------------------------
OWNER_VAR = "HARNESS_ATTEMPT_OWNER"


def reap_orphans() -> int:
    """Kill the Lean process groups whose attempt's worker process died (a killed Ray worker
    cannot kill its children; they carry ``HARNESS_ATTEMPT_OWNER=<worker pid>`` in their
    environment). Returns how many groups were killed."""
    import signal

    needle = f"{OWNER_VAR}=".encode()
    groups: set[int] = set()
    try:
        entries = [e for e in os.listdir("/proc") if e.isdigit()]
    except OSError:
        return 0
    for e in entries:
        try:
            env = Path(f"/proc/{e}/environ").read_bytes()
            if needle not in env:
                continue
            owner = next(int(v.split(b"=", 1)[1]) for v in env.split(b"\0")
                         if v.startswith(needle))
            stat = Path(f"/proc/{e}/stat").read_text().rsplit(")", 1)[1].split()
        except (OSError, ValueError, StopIteration, IndexError):
            continue
        pgid, sid = int(stat[2]), int(stat[3])
        # only the groups Lean runs lead (own session, harness.lean.run.spawn), never the
        # worker's own group
        if stat[0] == "Z" or pgid != sid or pgid == owner or pid_alive(owner):
            continue
        groups.add(pgid)
    n = 0
    for g in groups:
        try:
            os.killpg(g, signal.SIGKILL)
            n += 1
        except OSError:
            pass
    return n


def pid_alive(pid: int) -> bool:
    """Is process ``pid`` still there (someone else's counts as alive)?"""
    try:
        os.kill(pid, 0)
        return True
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
