"""The real services of a run: Lean toolchain, the gate over the merged text, the attempt runner
(tactic portfolio first, then the prove role), repair, and the statement lock.

Nothing here decides acceptance by itself: the runner's Lean verdict only makes a candidate
*accepted for the gate*; :func:`make_gate` (``harness.gate.verify`` on the merged file, lock and
compile included) decides what enters the record.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from harness.agents.config import Budgets, HarnessConfig, load_config, resolve_endpoint
from harness.blueprint.parse import parse_text

from harness.errors import CannotCertify, HarnessError, InputError, UsageError
from harness.orchestrator.executor import AttemptJob, AttemptResult, LocalExecutor, Runner
from harness.orchestrator.batchmerge import Gate, GateOutcome
from harness.orchestrator.record import Record
from harness.orchestrator.run import RunSettings, Services, Session, no_lean
from harness.orchestrator.breakage import make_record_repair
from harness.orchestrator.stage1 import StepResult


def find_lean(workspace: Path, lake: str | None) -> Any:
    """The toolchain, or the run stops cleanly with exit 3 before anything is merged."""
    from harness.lean.toolchain import find_toolchain

    try:
        return find_toolchain(workspace, lake)
    except HarnessError as err:
        raise no_lean(err.line()) from None


# ---- the statement lock --------------------------------------------------------------------
def lock_path(session: Session) -> Path:
    return session.dir / "statements.lock.json"


def make_run_lock(text: str, record: Record, tc: Any, timeout_s: float | None = None) -> Any:
    """The statement lock of ``text``, with the elaborated type of every declaration (one Lean
    compile): the gate then also catches meaning changes that leave the source text alone. A
    file Lean rejects cannot be locked (CannotCertify: the run stops with exit 3)."""
    from harness.gate.elaborated import elaborated_hashes
    from harness.gate.lock import make_lock

    bp = parse_text(text, record.file)
    hashes = None
    if tc is not None:
        workspace = Path(record.repo.working_tree_dir or record.file.parent)
        hashes = elaborated_hashes(bp, [d.key for d in bp.decls if d.name], tc,
                                   workspace=workspace, timeout_s=timeout_s)
    return make_lock(bp, elaborated=hashes)


def ensure_lock(session: Session, record: Record, log: Any, tc: Any = None,
                timeout_s: float | None = None) -> tuple[Any, str | None]:
    """Load the run's lock; without one (stage 2 alone), lock the record's current statements."""
    from harness.gate.lock import load_lock

    path = lock_path(session)
    if path.exists():
        return load_lock(path), None  # a corrupt lock is an InputError: never trusted
    if session.state.locked:
        raise UsageError(f"{path}: the statement lock of this run is missing (it was written "
                         "when the statements were locked); restore it or start a new run")
    lock = make_run_lock(record.head_text(), record, tc, timeout_s)
    lock.save(path)
    log.append("locked", path=str(path), commit=record.head())
    return lock, "no statement lock yet: locked the record's current statements"


# ---- the gate ------------------------------------------------------------------------------
class LockedGate:
    """harness.gate.verify on the merged text: lock, forbidden tokens, scope (only the batch's
    nodes and helpers directly before them changed) and the whole-file Lean compile.

    A repair split adds placeholder nodes: the split nodes are checked in the scope step's split
    mode (new placeholder nodes directly before the node, its body a `sorry_using` naming them;
    harness.gate.scope) — the lock still pins every existing statement — and once merged the
    lock is extended to the new nodes (:meth:`relock`), so from then on they are pinned too."""

    def __init__(self, record: Record, lock: Any, tc: Any, timeout_s: float,
                 lock_file: Path | None = None) -> None:
        self.record, self.lock, self.tc, self.timeout_s = record, lock, tc, timeout_s
        self.lock_file = lock_file
        self.workspace = Path(record.repo.working_tree_dir or record.file.parent)

    def __call__(self, text: str, base_text: str, labels: list[str], *,
                 structural: bool = False, splits: list[str] | None = None) -> GateOutcome:
        from harness.gate.verify import verify

        split_labels = set(labels if splits is None else splits) if structural else set()
        try:
            rep = verify(text, self.record.file, self.lock, base_text=base_text,
                         allow=set(labels), allow_splits=split_labels, lean=self.tc,
                         workspace=self.workspace, timeout_s=self.timeout_s)
        except CannotCertify as err:
            return GateOutcome(False, False, [err.line()])
        except HarnessError as err:  # the merged text does not parse, a node vanished
            return GateOutcome(False, True, [err.line()])
        msgs = [f.render() for f in rep.failures]
        if rep.exit_code == 3:
            return GateOutcome(False, False, msgs or [rep.lean_detail or "cannot certify"])
        return GateOutcome(rep.exit_code == 0 and rep.passed, True, msgs)

    def relock(self, text: str) -> None:
        """After a split merged: pin the new nodes' statements as well."""
        self.lock = make_run_lock(text, self.record, self.tc, self.timeout_s)
        if self.lock_file is not None:
            self.lock.save(self.lock_file)


def make_gate(record: Record, lock: Any, tc: Any, timeout_s: float,
              lock_file: Path | None = None) -> LockedGate:
    return LockedGate(record, lock, tc, timeout_s, lock_file)


# ---- attempts ------------------------------------------------------------------------------
def make_runner(cfg: HarnessConfig, tc: Any, *, budget_left: float | None,
                pool: Any | None = None) -> tuple[Runner, Any]:
    """The attempt runner and the LLM client it uses (None without an endpoint); ``pool``: a
    warm REPL pool for the prove role's goal queries (the Ray executor's per-node Lean)."""
    from harness.agents.llm import EndpointConfigError, Ledger, LLMClient
    from harness.agents.prover import prove_with_llm, prove_with_tactics

    endpoint = resolve_endpoint(cfg)
    client = None
    if endpoint.configured:
        budgets = cfg.budgets
        if budget_left is not None:
            budgets = Budgets(**{**cfg.budgets.model_dump(), "per_run_usd": budget_left})
        client = LLMClient(endpoint, cfg, Ledger(budgets, cfg.prices))

    def run(job: AttemptJob) -> AttemptResult:
        bp = parse_text(job.text, job.file)
        ws = Path(job.workspace)
        if job.kind == "repair":
            try:
                return _repair(job, bp, cfg, client)
            except EndpointConfigError as err:
                return _fail(job, [f"repair: {err.line()}"], fatal=err.line())
        tried: list[str] = []
        if job.attempt == 1 or client is None:  # the portfolio is deterministic: once
            t = prove_with_tactics(bp, job.node, workspace=ws, cfg=cfg, toolchain=tc)
            if t.proved and t.body:
                return AttemptResult(aid=job.aid, node=job.node, ok=True, body=t.body,
                                     helpers=t.helpers, role="tactics")
            tried.append(f"tactics: {t.reason or t.status}")
            if t.status == "cannot_certify":
                return _fail(job, tried)
        if client is None:
            return _fail(job, tried or ["no LLM endpoint configured"])
        try:  # the node's earlier failures and gate rejections go to the next attempt
            r = prove_with_llm(bp, job.node, workspace=ws, cfg=cfg, client=client, toolchain=tc,
                               feedback=job.feedback, pool=pool, memory=job.memory,
                               model=job.model)
        except EndpointConfigError as err:  # bad key / URL: no attempt can succeed; stop the run
            tried.append(f"prove: {err.line()}")
            return _fail(job, tried, fatal=err.line())
        usage = r.usage
        tokens = (usage.prompt_tokens + usage.completion_tokens) if usage else 0
        cost = usage.cost_usd if usage else 0.0
        model = cfg.role("prove", job.model).model or ""
        if r.proved and r.body:
            return AttemptResult(aid=job.aid, node=job.node, ok=True, body=r.body,
                                 helpers=r.helpers, role="prove", tokens=tokens, cost=cost,
                                 model=model)
        if r.status == "escalated" and r.escalation is not None:
            return AttemptResult(aid=job.aid, node=job.node, ok=False, role="prove",
                                 reason=r.reason, tokens=tokens, cost=cost, model=model,
                                 escalation=r.escalation.model_copy(update={"aid": job.aid}))
        tried.append(f"prove: {r.reason or r.status}")
        return _fail(job, tried, tokens=tokens, cost=cost, model=model,
                     body=r.last_candidate)

    return run, client


def _fail(job: AttemptJob, tried: list[str], **kw: Any) -> AttemptResult:
    return AttemptResult(aid=job.aid, node=job.node, kind=job.kind, ok=False,
                         reason="; ".join(tried)[:4000], **kw)


def _repair(job: AttemptJob, bp: Any, cfg: HarnessConfig, client: Any) -> AttemptResult:
    """Split the node (new helper nodes + `sorry_using` body) or record a blocker (the repair
    role). Without an LLM there is nobody to split it: a blocker with the attempts' reasons."""
    why = " | ".join(job.feedback[-2:]) or "no attempt succeeded"
    if client is None:
        return AttemptResult(aid=job.aid, node=job.node, kind="repair", ok=True,
                             repair="blocker", role="repair",
                             reason=f"{job.attempt - 1} attempts failed; last: {why}"[:2000])
    from harness.agents.blueprinting import repair
    from harness.agents.schemas import RepairResult

    out = repair(bp, job.node, job.feedback or [why], client=client, cfg=cfg)
    usage = out.outcome.transcript.usage if out.outcome.transcript else None
    tokens = (usage.prompt_tokens + usage.completion_tokens) if usage else 0
    cost = usage.cost_usd if usage else 0.0
    res = out.outcome.output
    if not out.outcome.ok or not isinstance(res, RepairResult):
        return AttemptResult(aid=job.aid, node=job.node, kind="repair", ok=False, role="repair",
                             reason=f"repair failed: {out.outcome.reason}", tokens=tokens,
                             cost=cost)
    if res.kind == "split" and out.new_text is None:
        return AttemptResult(aid=job.aid, node=job.node, kind="repair", ok=False, role="repair",
                             reason="repair split rejected", tokens=tokens, cost=cost)
    return AttemptResult(aid=job.aid, node=job.node, kind="repair", ok=True, role="repair",
                         repair=res.kind, body=res.body or "by\n  sorry", helpers=res.helpers,
                         reason=res.reason, tokens=tokens, cost=cost)


# ---- stage 1 -------------------------------------------------------------------------------
class LLMStage1:
    """construct / audit / refine from harness.agents.blueprinting (refine: the construct role's
    settings and output contract, its own prompt, given the current file and the blocking
    findings). A configuration the endpoint refuses raises (a UsageError: exit 2)."""

    def __init__(self, client: Any, cfg: HarnessConfig) -> None:
        self.client, self.cfg = client, cfg

    def _step(self, out: Any, **kw: Any) -> StepResult:
        usage = out.transcript.usage if out.transcript else None
        return StepResult(ok=out.ok, reason=out.reason,
                          tokens=(usage.prompt_tokens + usage.completion_tokens) if usage else 0,
                          cost=usage.cost_usd if usage else 0.0, **kw)

    def missing_models(self) -> list[str]:
        """The stage-1 roles (construct: also refine/restate; audit) that have no model."""
        return [r for r in ("construct", "audit") if not self.cfg.role(r).model]

    def construct(self, source: str) -> StepResult:
        from harness.agents.blueprinting import construct

        out = construct(source, client=self.client, cfg=self.cfg)
        new = out.output.lean if out.ok else None
        if new is not None and not new.endswith("\n"):
            new += "\n"  # a fenced block loses the final newline; a Lean file ends with one
        return self._step(out, text=new)

    def audit(self, text: str, source: str | None,
              changed: dict[str, str] | None = None) -> StepResult:
        from harness.agents.blueprinting import audit

        out = audit(parse_text(text, "<blueprint>"), source, client=self.client, cfg=self.cfg,
                    changed=changed)
        found = [f.model_dump() for f in out.output.findings] if out.ok else None
        return self._step(out, findings=found)

    def refine(self, text: str, source: str | None, findings: list[dict[str, Any]]
               ) -> StepResult:
        from harness.agents.blueprinting import refine

        out = refine(text, source, findings, client=self.client, cfg=self.cfg)
        return self._step(out, text=out.output.lean if out.ok else None)

    def restate(self, text: str, source: str | None, findings: list[dict[str, Any]]
                ) -> StepResult:
        from harness.agents.blueprinting import restate

        out = restate(text, source, findings, client=self.client, cfg=self.cfg)
        new = out.output.lean if out.ok else None
        if new is not None and text.endswith("\n") and not new.endswith("\n"):
            new += "\n"  # a fenced block loses the final newline; the file keeps it
        return self._step(out, text=new)


def make_diagnose(record: Record, tc: Any, timeout_s: float) -> Any:
    """Stage 1's compile: the Lean errors of a text (harness.orchestrator.diagnose)."""
    from harness.orchestrator.diagnose import diagnose_text

    workspace = Path(record.repo.working_tree_dir or record.file.parent)

    def diagnose(text: str) -> Any:
        return diagnose_text(text, record.file, tc, workspace, timeout_s,
                             display=str(record.rel))

    return diagnose


def make_check(record: Record, tc: Any, timeout_s: float) -> Any:
    """Stage 1's check of a whole new text: forbidden constructs and the Lean compile (the
    statements are not locked yet, so the lock is the text's own)."""
    from harness.gate.lock import make_lock

    workspace = Path(record.repo.working_tree_dir or record.file.parent)

    def check(text: str) -> GateOutcome:
        from harness.gate.verify import verify

        try:
            bp = parse_text(text, record.file)
            rep = verify(text, record.file, make_lock(bp), lean=tc, workspace=workspace,
                         timeout_s=timeout_s)
        except CannotCertify as err:
            return GateOutcome(False, False, [err.line()])
        except HarnessError as err:
            return GateOutcome(False, True, [err.line()])
        if rep.exit_code == 3:
            return GateOutcome(False, False, [rep.lean_detail or "cannot certify"])
        return GateOutcome(rep.exit_code == 0, True, [f.render() for f in rep.failures])

    return check


# ---- the factory ---------------------------------------------------------------------------
def real_services(lake: str | None, config: Path | None, *, model: str | None = None,
                  toolchain: Any = None):
    """(preflight, factory) for :meth:`Session.run`: Lean is looked for before anything else
    (``toolchain``: already found by harness.preflight). ``model``: `run --model`."""
    found: dict[str, Any] = {}

    def preflight(session: Session) -> None:
        found["tc"] = toolchain if toolchain is not None else find_lean(
            session.workspace, lake or os.environ.get("HARNESS_LAKE"))
        if session.settings.executor == "ray":  # connect and check the nodes before any work
            from harness.orchestrator.ray_setup import make_ray_executor

            found["executor"] = make_ray_executor(session.settings,
                                                  load_config(config, session.workspace),
                                                  session.workspace, lake, session.notify)

    def factory(session: Session, record: Record) -> Services:
        cfg = load_config(config, session.workspace).with_model(model)
        tc = found["tc"]
        spent = session.state.cost
        left = None if session.settings.budget is None else max(0.0,
                                                                session.settings.budget - spent)
        runner, client = make_runner(cfg, tc, budget_left=left)

        def make_gate_now() -> Gate:
            lock, note = ensure_lock(session, record, session.log, tc, cfg.timeouts.lean_s)
            if note:
                session.notify("note", {"message": note})
            return make_gate(record, lock, tc, cfg.timeouts.lean_s, lock_path(session))

        def write_lock(text: str) -> None:
            make_run_lock(text, record, tc, cfg.timeouts.lean_s).save(lock_path(session))

        from harness.orchestrator.certify import Certifier

        workspace = Path(record.repo.working_tree_dir or record.file.parent)
        agents = LLMStage1(client, cfg) if client is not None else None
        check = make_check(record, tc, cfg.timeouts.lean_s)
        diagnose = make_diagnose(record, tc, cfg.timeouts.lean_s)
        ray_executor = found.get("executor")
        return Services(runner=runner, make_gate=make_gate_now,
                        make_executor=(lambda r, n: ray_executor) if ray_executor is not None
                        else LocalExecutor,
                        stage1=agents,
                        certifier=Certifier(record.file, tc, workspace, cfg.timeouts.lean_s),
                        check=check, lock=write_lock, diagnose=diagnose,
                        repair_record=make_record_repair(session, record, agents, check,
                                                         diagnose),
                        notes=list(getattr(tc, "warnings", ())))

    return preflight, factory


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
        raise InputError(cfg.source or "harness.toml", _key_line(cfg.source, where), 0,
                         f"config: run.{where}: {e['msg']}") from None


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
