"""One place that puts a run together: `harness run`'s options + the config -> everything a
session needs.

:func:`assemble` loads the config (harness.toml), takes the settings from its ``[run]`` section
and the flags, checks Ray when it is asked for, and runs the preflight (harness/preflight) once,
before any work: every blocking problem at once, exit 2. It returns a :class:`RunAssembly`:
settings, the toolchain found, the model tiers, LeanArchitect's edges (with Lean), and the two
hooks :meth:`Session.run` calls — ``preflight(session)`` (inside the session, so a missing Lean
is exit 3 with a result.json; Ray connected and its nodes checked) and ``services(session,
record)`` (runner, gate and lock factories, stage-1 agents, certifier, executor). Ray or local
threads is chosen here, never in the orchestrator. Config, preflight and services do not call
one another: only this module calls them.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable

from pydantic import ValidationError

from harness.agents.config import HarnessConfig, load_config
from harness.didyoumean import hint
from harness.errors import CannotCertify, HarnessError, InputError, UsageError
from harness.orchestrator.executor import LocalExecutor
from harness.orchestrator.batchmerge import Gate
from harness.orchestrator.record import Record
from harness.orchestrator.run import Notify, Session
from harness.orchestrator.runmodels import RunSettings, Services


@dataclass(frozen=True)
class RunOptions:
    """The command's options (None: not given, the config or the default applies)."""

    target: Path  # a blueprint file, or a directory / root module (``project``)
    workspace: Path
    project: bool = False
    source: Path | None = None  # stage 1's informal source (--source)
    config: Path | None = None
    lake: str | None = None
    model: str | None = None  # --model: every role's model, over the tiers too
    overrides: dict[str, Any] = field(default_factory=dict)  # RunSettings fields from flags


@dataclass
class RunAssembly:
    options: RunOptions
    config: HarnessConfig  # as loaded; ``cfg`` has --model applied
    settings: RunSettings
    toolchain: Any  # None: no Lean here (the session stops with exit 3, nothing merged)
    checks: list[Any] = field(default_factory=list)  # the preflight's passed/warned checks
    tiers: list[tuple[int, str]] = field(default_factory=list)
    adjust: Callable[[dict], None] | None = None  # LeanArchitect's edges (with Lean)
    notes: list[str] = field(default_factory=list)
    _found: dict[str, Any] = field(default_factory=dict)  # set by preflight(): tc, executor

    @property
    def cfg(self) -> HarnessConfig:
        return self.config.with_model(self.options.model)

    def session(self, notify: Notify | None = None) -> Session:
        from harness.orchestrator.project_session import ProjectSession

        o = self.options
        s = (ProjectSession if o.project else Session)(o.target, self.settings,
                                                       workspace=o.workspace, notify=notify)
        s.tiers, s.source, s.adjust = list(self.tiers), o.source, self.adjust
        s.notes.extend(self.notes)
        return s

    def preflight(self, session: Session) -> None:
        """In the session, before its record is touched: Lean (none: exit 3), then Ray."""
        lake = self.options.lake
        self._found["tc"] = self.toolchain if self.toolchain is not None else find_lean(
            session.workspace, lake or os.environ.get("HARNESS_LAKE"))
        if session.settings.executor == "ray":  # connect and check the nodes before any work
            from harness.cluster.setup import make_ray_executor

            self._found["executor"] = make_ray_executor(session.settings, self.cfg,
                                                        session.workspace, lake, session.notify)

    def services(self, session: Session, record: Record) -> Services:
        from harness.orchestrator.attempts import make_runner
        from harness.orchestrator.breakage import make_record_repair
        from harness.orchestrator.certify import Certifier
        from harness.orchestrator.services import (
            LLMStage1, ensure_lock, lock_path, make_check, make_diagnose, make_gate,
            make_run_lock,
        )

        cfg, tc = self.cfg, self._found["tc"]
        timeout = cfg.timeouts.lean_s
        budget = session.settings.budget
        left = None if budget is None else max(0.0, budget - session.state.cost)
        runner, client = make_runner(cfg, tc, budget_left=left)

        def make_gate_now() -> Gate:  # stage 2 starts: load (or make) the statement lock
            lock, note = ensure_lock(session, record, session.log, tc, timeout)
            if note:
                session.notify("note", {"message": note})
            return make_gate(record, lock, tc, timeout, lock_path(session))

        def write_lock(text: str) -> None:
            make_run_lock(text, record, tc, timeout).save(lock_path(session))

        workspace = Path(record.repo.working_tree_dir or record.file.parent)
        agents = LLMStage1(client, cfg) if client is not None else None
        check = make_check(record, tc, timeout)
        diagnose = make_diagnose(record, tc, timeout)
        return Services(runner=runner, make_gate=make_gate_now,
                        make_executor=self._executor_factory(), stage1=agents,
                        certifier=Certifier(record.file, tc, workspace, timeout),
                        check=check, lock=write_lock, diagnose=diagnose,
                        repair_record=make_record_repair(session, record, agents, check,
                                                         diagnose),
                        notes=list(getattr(tc, "warnings", ())))

    def _executor_factory(self) -> Callable[[Any, int], Any]:
        """Where attempts run: the Ray executor preflight() connected, else local threads."""
        ray_executor = self._found.get("executor")
        return (lambda r, n: ray_executor) if ray_executor is not None else LocalExecutor


def assemble(options: RunOptions) -> RunAssembly:
    """Config -> settings -> Ray (when asked) -> preflight, each a one-line exit 2 before any
    work; then, with Lean, LeanArchitect's edges."""
    o = options
    config = load_config(o.config, o.workspace)
    settings = settings_from(config, o.overrides)
    if settings.executor == "ray":  # before anything else: Ray missing is one line, exit 2
        from harness.cluster.setup import require_ray

        require_ray()
    from harness.preflight.require import require_ready

    # a model for every role, Lean as pinned, the oleans, the endpoint answers
    checks, tc = require_ready("run", o.workspace, config.with_model(o.model), lake=o.lake,
                               stage=settings.stage, model=o.model,
                               source=o.source is not None or not o.target.exists())
    # --model names every role's model: it wins over the tiers, as over roles.<r>.model
    tiers = [] if o.model else [(t.after_failures, t.model) for t in config.role("prove").tiers]
    out = RunAssembly(o, config, settings, tc, checks=checks, tiers=tiers)
    if (o.target.is_file() or o.project) and tc is not None:
        out.adjust, note = exact_adjust(o.target, o.workspace, o.lake)
        out.notes.append(note)
    return out


def settings_from(cfg: HarnessConfig, overrides: dict[str, Any]) -> RunSettings:
    """``[run]`` from the config, then CLI flags that were given."""
    data = dict(cfg.run)
    data.update({k: v for k, v in overrides.items() if v is not None})
    try:
        return RunSettings.model_validate(data)
    except ValidationError as err:
        e = err.errors()[0]
        where = ".".join(str(x) for x in e["loc"])
        if where in overrides and overrides[where] is not None:
            raise UsageError(f"run: --{where.replace('_', '-')}: {e['msg']}") from None
        near = hint(where, [f.alias or k for k, f in RunSettings.model_fields.items()]) \
            if e["type"] == "extra_forbidden" else ""
        raise InputError(cfg.source or "harness.toml", _key_line(cfg.source, where), 0,
                         f"config: run.{where}: {e['msg']}{near}") from None


def _key_line(source: str | None, key: str) -> int:
    """The line of ``key = …`` in the config's [run] section (1 when not found)."""
    if not source:
        return 1
    try:
        lines = Path(source).read_text(encoding="utf-8").splitlines()
    except OSError:
        return 1
    in_run = False
    for i, line in enumerate(lines, 1):
        t = line.strip()
        if t.startswith("["):
            in_run = t == "[run]"
        elif in_run and t.split("=", 1)[0].strip() == key:
            return i
    return 1


def find_lean(workspace: Path, lake: str | None) -> Any:
    """The toolchain, or the run stops cleanly with exit 3 before anything is merged."""
    from harness.lean.toolchain import find_toolchain

    try:
        return find_toolchain(workspace, lake)
    except HarnessError as err:
        raise no_lean(err.line()) from None


def no_lean(message: str) -> CannotCertify:
    if not message.lower().startswith("no lean toolchain"):
        message = f"no Lean toolchain: {message}"
    return CannotCertify(f"{message}; nothing was merged")


def exact_adjust(file: Path, workspace: Path, lake: str | None):
    """With Lean, the DAG's node-to-node edges are LeanArchitect's (`lake build
    :blueprintJson`), edges the text infers after later edits kept too (fail closed). A failed
    build only costs the exactness: the text-inferred DAG is used and the gate still decides."""
    from harness.blueprint.exact import adjuster, compare
    from harness.blueprint.project import load
    from harness.lean.architect import exact_dependencies
    from harness.lean.toolchain import find_lake

    try:
        exact = exact_dependencies(find_lake(lake), workspace)
    except (CannotCertify, UsageError) as err:
        return None, f"LeanArchitect's dependencies unavailable ({err}); using the text DAG"
    try:
        text = load(file, workspace)
    except HarnessError:
        return None, "LeanArchitect's dependencies not used: the blueprint does not parse"
    nodes = {k for k in text.graph.nodes if text.decl(k).is_node}
    items, _, _ = compare(text.deps, nodes, exact, only=set(text.own) & nodes)
    note = (f"dependencies from LeanArchitect ({len(exact.nodes)} nodes); the text inference "
            f"disagreed on {len(items)} node part(s)" + (": " + ", ".join(
                f"{d.label} ({d.kind})" for d in items[:10]) if items else ""))
    return adjuster(exact, nodes, baseline=text.deps), note
