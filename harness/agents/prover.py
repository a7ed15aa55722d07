"""One proof attempt on one node: the tactic portfolio, or the prove role on an LLM.

The attempt's verdict comes from Lean (``check_node``) on the final candidate; it is advisory.
Only the gate accepts anything into the record (``harness prove --apply`` / the orchestrator).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import networkx as nx
from pydantic import BaseModel

from harness.agents.config import HarnessConfig
from harness.agents.context import build_context
from harness.agents.contracts import proof_violations
from harness.agents.extract import json_payload, last_lean_block, split_proof_answer
from harness.agents.llm import BudgetExceeded, LLMClient
from harness.agents.llmrecords import Transcript, Usage
from harness.agents.roles import run_role
from harness.agents.schemas import ProveResult
from harness.agents.tactics import TacticRun, run_portfolio
from harness.agents.tools import CheckFn, ProveTools, accepted, render_verdict
from harness.blueprint.model import Blueprint
from harness.errors import HarnessError
from harness.lean.verdict import NodeVerdict
from harness.memory.model import Blocker


# earlier failures shown to the prove role: the newest few, each clipped (Lean output can be long)
MAX_FEEDBACK_ITEMS = 4
MAX_FEEDBACK_CHARS = 1_500
FEEDBACK_TITLE = "## Earlier attempts and why they failed"


def _clip(text: str, limit: int) -> str:
    """Head and tail of a long reason: the tail usually holds the Lean error."""
    if len(text) <= limit:
        return text
    head = limit // 3
    return text[:head] + " […] " + text[len(text) - (limit - head):]


def feedback_section(feedback: list[str] | None) -> str:
    """The prompt section for earlier failures (``feedback`` oldest first, as recorded; shown
    newest first, at most MAX_FEEDBACK_ITEMS items of at most MAX_FEEDBACK_CHARS each)."""
    items = [f.strip() for f in feedback or [] if isinstance(f, str) and f.strip()]
    if not items:
        return ""
    shown = items[::-1][:MAX_FEEDBACK_ITEMS]
    lines = [FEEDBACK_TITLE, "Newest first. Do not repeat these candidates; fix what the "
                             "messages say."]
    for i, f in enumerate(shown, 1):
        lines.append(f"{i}. " + _clip(f, MAX_FEEDBACK_CHARS).replace("\n", "\n   "))
    if len(items) > len(shown):
        lines.append(f"({len(items) - len(shown)} older failures not shown)")
    return "\n".join(lines)


class AttemptResult(BaseModel):
    label: str
    method: str  # tactics | llm
    # proved: Lean accepts the candidate (modulo unproved deps) | failed | budget | error
    # | cannot_certify: Lean could not decide | unverified: a candidate, but no Lean to check it
    status: str
    body: str | None = None
    helpers: str = ""
    reason: str = ""
    verdict: NodeVerdict | None = None
    tactics: list[dict[str, str]] = []
    usage: Usage | None = None
    escalation: Blocker | None = None  # status "escalated": the agent asked for a person
    last_candidate: str = ""  # the last body Lean was asked about (for the node's memory)
    transcript: Transcript | None = None
    context_tokens: int | None = None
    lean_runs: int = 0

    @property
    def proved(self) -> bool:
        return self.status == "proved"


def prove_with_tactics(bp: Blueprint, label: str, *, workspace: Path, cfg: HarnessConfig,
                       toolchain: Any | None, check: CheckFn | None = None) -> AttemptResult:
    if toolchain is None:
        return AttemptResult(label=label, method="tactics", status="cannot_certify",
                             reason="the tactic prover needs Lean, and no toolchain was found")
    tools = ProveTools(bp, label, workspace=workspace, toolchain=toolchain,
                       timeout_s=cfg.timeouts.lean_s, check=check)
    res = run_portfolio(tools, cfg.tactics.tactics, cfg.tactics.max_tries)
    verdict = tools.cache.get((res.body, "")) if res.body else None
    return AttemptResult(label=label, method="tactics", status=res.status, body=res.body,
                         reason=res.reason, verdict=verdict, tactics=[_run(r) for r in res.runs],
                         lean_runs=tools.lean_runs)


def _run(r: TacticRun) -> dict[str, str]:
    return {"tactic": r.tactic, "body": r.body, "outcome": r.outcome, "detail": r.detail}


def prove_with_llm(bp: Blueprint, label: str, *, workspace: Path, cfg: HarnessConfig,
                   client: LLMClient, toolchain: Any | None, model: str | None = None,
                   graph: nx.DiGraph | None = None, check: CheckFn | None = None,
                   pool: Any | None = None, feedback: list[str] | None = None,
                   library: Any | None = None, memory: str = "") -> AttemptResult:
    """The prove role on one node (``pool``: an optional ReplPool for `goals_at_sorry`;
    ``feedback``: why earlier attempts on the node failed, oldest first — Lean errors, contract
    and gate rejections; see :func:`feedback_section` for the bounds; ``library``: the
    library index, default the workspace's, built on first need; ``memory``: the node's memory
    summary, harness.memory.summary)."""
    node = bp.node(label)
    try:
        client.ledger.begin_attempt(label)
    except BudgetExceeded as err:
        return AttemptResult(label=label, method="llm", status="budget", reason=str(err))
    from harness.library.agent import library_for, module_of, render_unknown

    if library is None:
        library = library_for(workspace)
    ctx = build_context(bp, label, graph, library=library, module=module_of(bp.path, workspace))
    tools = ProveTools(bp, label, workspace=workspace, toolchain=toolchain,
                       timeout_s=cfg.timeouts.lean_s, check=check, pool=pool, library=library)
    cannot: list[str] = []
    known = {n for d in bp.decls for n in (d.name, d.short_name) if n}

    def extract(text: str) -> dict[str, Any] | str:
        obj = json_payload(text)
        if obj is not None and isinstance(obj.get("body"), str):
            return obj
        block = last_lean_block(text)
        if block is None:
            return "no fenced ```lean block in the answer"
        got = split_proof_answer(block, node, known)
        return got if isinstance(got, str) else {"body": got[0], "helpers": got[1]}

    def validate(out: BaseModel) -> list[str]:
        assert isinstance(out, ProveResult)
        bad = proof_violations(out.body, out.helpers)
        unknown = tools.unknown_names(out.body, out.helpers)
        if unknown and all(sugg for _, sugg in unknown):
            # every unknown name has a close existing one: a typo, reported before Lean runs
            bad = [*bad, render_unknown(unknown)]
        if bad or toolchain is None:
            return bad  # without Lean a clean candidate is taken as is (status: unverified)
        try:
            v = tools.verdict(out.body, out.helpers)
        except HarnessError as err:
            cannot.append(err.line())
            return [f"Lean could not check the candidate: {err.line()}"]
        return [] if accepted(v) else [render_verdict(v)]

    if cfg.role("prove", model).mode == "completion":  # prover models: a Lean file to complete
        user = ("Complete the following Lean 4 code. The declarations before the last theorem "
                "are available. Replace the final `sorry` by a proof and answer with the last "
                "theorem, statement unchanged, in a ```lean4 block.\n\n```lean4\n"
                + ctx.skeleton + "\n```\n\n" + ctx.informal)
    else:
        user = ctx.text + "\n\nProve the node. Keep its statement unchanged."
    if memory.strip():
        user += "\n\n" + memory.strip()
    earlier = feedback_section(feedback)
    if earlier:
        user += "\n\n" + earlier
    outcome = run_role("prove", user, client=client, cfg=cfg, node=label, model=model,
                       toolbox=tools, extract=extract, validate=validate)
    res = AttemptResult(label=label, method="llm", status=outcome.status, reason=outcome.reason,
                        usage=outcome.transcript.usage, transcript=outcome.transcript,
                        context_tokens=ctx.tokens, lean_runs=tools.lean_runs,
                        last_candidate=tools.last_candidate)
    out = outcome.output
    if outcome.status == "escalated" and tools.blocker is not None:
        b = tools.blocker
        res.escalation = Blocker(kind=b["kind"], explanation=b["explanation"],  # type: ignore
                                 best_partial=b["best_partial"], last_goals=b["last_goals"])
        return res
    if outcome.ok and isinstance(out, ProveResult):
        res.body, res.helpers = out.body, out.helpers
        if toolchain is None:
            res.status, res.reason = "unverified", "no Lean toolchain: the candidate is unchecked"
        else:
            res.verdict = tools.cache.get((out.body.strip(), out.helpers.strip()))
            res.status = "proved"
    elif outcome.status == "failed" and cannot and any(
            p.startswith("Lean could not check") for p in outcome.problems[:1]):
        res.status = "cannot_certify"  # the last candidate was not judged, not rejected
    return res


def prove_node(bp: Blueprint, label: str, *, workspace: Path, cfg: HarnessConfig,
               toolchain: Any | None, client: LLMClient | None = None, model: str | None = None,
               graph: nx.DiGraph | None = None, check: CheckFn | None = None,
               feedback: list[str] | None = None) -> AttemptResult:
    """The default prover: the LLM if a client is given, else the tactic portfolio."""
    if client is None:
        return prove_with_tactics(bp, label, workspace=workspace, cfg=cfg, toolchain=toolchain,
                                  check=check)
    return prove_with_llm(bp, label, workspace=workspace, cfg=cfg, client=client,
                          toolchain=toolchain, model=model, graph=graph, check=check,
                          feedback=feedback)
