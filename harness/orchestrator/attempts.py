"""The attempt runner of a run: the tactic portfolio first, then the prove role; repair.

A runner is a function of the job alone (harness/orchestrator/executor.py), so the same one runs
on the head's threads (LocalExecutor) and on a Ray worker (harness/cluster/worker.py). Its Lean
verdict only makes a candidate *accepted for the gate*; the gate decides what is merged.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from harness.agents.config import Budgets, HarnessConfig, resolve_endpoint
from harness.blueprint.parse import parse_text
from harness.orchestrator.executor import AttemptJob, AttemptResult, Runner


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

