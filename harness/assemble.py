"""One place that puts a run together: `harness run`'s options + the config -> everything a
session needs; and `harness prove`'s one attempt (:func:`assemble_prove`), from the same config
checks and the same preflight.

:func:`assemble` loads the config (harness.toml), takes the settings from its ``[run]`` section
and the flags, checks Ray when it is asked for, and runs the preflight (harness/preflight) once,
before any work: every problem at once — the ``[run]`` section's, Ray's, the preflight's — one
line each, exit 2 (a config file that does not parse is its one line: nothing else can be read). It returns a :class:`RunAssembly`:
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
from typing import TYPE_CHECKING, Any, Callable

from pydantic import ValidationError

from harness.agents.config import HarnessConfig, load_config
from harness.didyoumean import hint
from harness.errors import CannotCertify, HarnessError, InputError, UsageError
from harness.orchestrator.executor import LocalExecutor
from harness.orchestrator.runmodels import RunSettings, Services

if TYPE_CHECKING:  # the session and its git record: imported when a run is put together
    from harness.orchestrator.batchmerge import Gate  # (`prove` needs no git)
    from harness.orchestrator.record import Record
    from harness.orchestrator.run import Notify, Session


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
    on_phase: Callable[[str], None] | None = None  # told what assembling does now (the record
    # of an interrupt says where it hit)


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
        from harness.orchestrator.run import Session

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
        # connect and check the nodes before any work; once per run (a project's files and
        # their stage-1 sessions share it)
        if session.settings.executor == "ray" and "executor" not in self._found:
            from harness.cluster.setup import make_ray_executor

            self._found["executor"] = make_ray_executor(session.settings, self.cfg,
                                                        session.workspace, lake, session.notify)

    def close(self) -> None:
        """The Ray connection preflight() made, whatever stage the run stopped in (stage 2
        shuts it down itself; a run that stopped before it did not). Idempotent."""
        ray_executor = self._found.pop("executor", None)
        if ray_executor is not None:
            ray_executor.shutdown()

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
    """Config -> settings -> Ray (when asked) -> preflight: every problem at once (one line
    each, exit 2) before any work; then, with Lean, LeanArchitect's edges."""
    o = options
    config = load_config(o.config, o.workspace)  # unreadable: its one line (nothing to check)
    settings, problems = _settings(config, o.overrides)
    asked = {**config.run, **{k: v for k, v in o.overrides.items() if v is not None}}
    if asked.get("executor") == "ray":  # Ray missing: one line (with the others)
        from harness.cluster.setup import require_ray

        try:
            require_ray()
        except UsageError as err:
            problems.append(err)
    stage = settings.stage if settings is not None else o.overrides.get("stage") or "all"
    # a model for every role, Lean as pinned, the oleans, the endpoint answers
    checks, tc = _ready(problems, "run", o.workspace, config.with_model(o.model), lake=o.lake,
                        stage=stage, model=o.model,
                        source=o.source is not None or not o.target.exists())
    assert settings is not None
    # --model names every role's model: it wins over the tiers, as over roles.<r>.model
    tiers = [] if o.model else [(t.after_failures, t.model) for t in config.role("prove").tiers]
    out = RunAssembly(o, config, settings, tc, checks=checks, tiers=tiers)
    if (o.target.is_file() or o.project) and tc is not None:
        if o.on_phase is not None:
            o.on_phase("reading LeanArchitect's dependencies (lake build :blueprintJson)")
        out.adjust, note = exact_adjust(o.target, o.workspace, o.lake)
        out.notes.append(note)
    return out


@dataclass(frozen=True)
class ProveOptions:
    """`prove`'s options (its node was found before: a bad label is not a config problem)."""

    workspace: Path
    config: Path | None = None
    lake: str | None = None
    model: str | None = None  # --model: the prove role's model
    tactics: bool = False  # --tactics: the LLM-free portfolio even with an endpoint
    preflight: bool = True  # False: nothing will be attempted (an --apply with nothing to do)


@dataclass
class ProveAssembly:
    """One attempt, put together as a run is: the config (its [run] section checked as for
    `run`), LLM or tactics, the preflight's toolchain (None: ``lean_missing`` says why)."""

    config: HarnessConfig
    endpoint: Any
    use_llm: bool
    toolchain: Any = None
    lean_missing: str | None = None
    checks: list[Any] = field(default_factory=list)

    @property
    def method(self) -> str:
        return "llm" if self.use_llm else "tactics"

    def client(self) -> Any:
        from harness.agents.llm import LLMClient

        return LLMClient(self.endpoint, self.config) if self.use_llm else None


def assemble_prove(options: ProveOptions) -> ProveAssembly:
    """The config (the same checks as `run`'s), then the preflight of the prove role: every
    problem at once, exit 2, before any work."""
    from harness.agents.config import resolve_endpoint

    o = options
    config = load_config(o.config, o.workspace)
    _, problems = _settings(config, {})
    endpoint = resolve_endpoint(config)
    use_llm = endpoint.configured and not o.tactics
    if o.model and not use_llm:
        problems.append(UsageError("--model needs an LLM endpoint (set OPENAI_BASE_URL / "
                                   "OPENAI_API_KEY or endpoint.base_url in harness.toml)"))
    out = ProveAssembly(config, endpoint, use_llm)
    if not o.preflight:
        _raise(problems)
        return out
    # a model for the prove role, Lean as pinned, its oleans, the endpoint answers
    out.checks, found = _ready(problems, "prove", o.workspace, config, lake=o.lake,
                               model=o.model, use_llm=use_llm)
    if found is not None:
        out.toolchain = found
        return out
    from harness.lean.toolchain import find_toolchain

    try:
        out.toolchain = find_toolchain(o.workspace, o.lake)
    except HarnessError as err:
        if o.lake or os.environ.get("HARNESS_LAKE"):
            raise  # an explicit toolchain that does not work is a usage error, not "no Lean"
        out.lean_missing = f"no Lean toolchain ({err.line()})"
    return out


def _ready(problems: list[HarnessError], command: str, workspace: Path, cfg: HarnessConfig,
           **kw: Any) -> tuple[list[Any], Any]:
    """The preflight (harness/preflight), its problems reported with the config's."""
    from harness.preflight.require import require_ready

    try:
        checks, tc = require_ready(command, workspace, cfg, **kw)
    except UsageError as err:
        problems.append(err)
        checks, tc = [], None
    _raise(problems)
    return checks, tc


def _raise(problems: list[HarnessError]) -> None:
    """Every problem at once: one alone as it is (``FILE:LINE:COL: …``), several one a line."""
    if len(problems) == 1:
        raise problems[0]
    if problems:
        raise UsageError("\n".join(p.line() for p in problems))


def _settings(cfg: HarnessConfig, overrides: dict[str, Any]
              ) -> tuple[RunSettings | None, list[HarnessError]]:
    """The settings, or None and every problem of ``[run]`` and the flags (one line each)."""
    data = dict(cfg.run)
    data.update({k: v for k, v in overrides.items() if v is not None})
    try:
        return RunSettings.model_validate(data), []
    except ValidationError as err:
        out: list[HarnessError] = []
        names = [f.alias or k for k, f in RunSettings.model_fields.items()]
        for e in err.errors():
            where = ".".join(str(x) for x in e["loc"])
            if where in overrides and overrides[where] is not None:
                out.append(UsageError(f"run: --{where.replace('_', '-')}: {e['msg']}"))
            else:
                near = hint(where, names) if e["type"] == "extra_forbidden" else ""
                out.append(InputError(cfg.source or "harness.toml",
                                      _key_line(cfg.source, where), 0,
                                      f"config: run.{where}: {e['msg']}{near}"))
        return None, out


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
