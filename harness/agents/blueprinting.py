"""The stage-1 roles on top of :func:`run_role`: construct, refine, audit, repair — each with its
contract.

* construct: the answer must parse, plan without findings (no cycles, no dangling references), use
  no forbidden construct, and leave every lemma/theorem as a `sorry`/`sorry_using` placeholder.
  Otherwise the findings go back to the model (bounded by the role's rounds / re-prompts).
* refine: the construct role's settings with its own prompt (refine.md), given the current file
  and the audit's blocking findings; restate's contract (restate.py), with the nodes the
  findings name as the ones that may change and new placeholder nodes allowed (a partly proved
  file can be refined: its other proofs stay).
* restate (stage 1's compile): the refine prompt, given Lean's errors; only the statements Lean
  rejects may change, everything else stays byte-identical (complete proofs included: a partly
  proved file can be repaired), a restated theorem keeps its proof or gets a `sorry`, no node
  appears or vanishes.
* audit: read-only; findings must name existing labels. Without a source, each node's informal
  statement is the reference; statements that stage 1 changed are shown before and after.
* repair: a split may only insert new placeholder nodes before the node and change the node's
  body; every existing statement stays byte-identical (checked on the edited text). A blocker
  needs a reason.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pydantic import BaseModel

from harness.agents.config import HarnessConfig
from harness.agents.context import build_context, statement_text
from harness.agents.contracts import statement_violations
from harness.agents.restate import restate_problems
from harness.agents.extract import json_payload, last_lean_block
from harness.agents.llm import LLMClient
from harness.agents.roles import RoleOutcome, load_prompt, run_role
from harness.agents.schemas import AuditReport, ConstructResult, RepairResult
from harness.blueprint.dag import analyse
from harness.blueprint.model import BodyStatus, Blueprint
from harness.blueprint.parse import parse_text
from harness.blueprint.write import apply_edit
from harness.errors import HarnessError, UsageError

MAX_SOURCE_CHARS = 400_000
SOURCE_SUFFIXES = {".md", ".markdown", ".tex", ".txt", ".lean", ""}


def read_source(path: Path) -> str:
    """An informal source: Markdown, LaTeX or text; PDF when `pypdf` is installed."""
    if not path.is_file():
        raise UsageError(f"{path}: no such file")
    if path.suffix.lower() == ".pdf":
        try:
            import pypdf  # type: ignore[import-not-found]
        except ImportError:
            raise UsageError(f"{path}: reading PDF needs the optional dependency pypdf "
                             "(pip install 'slt-harness[pdf]'); or convert it to text") from None
        try:
            reader = pypdf.PdfReader(str(path))
            return "\n\n".join((p.extract_text() or "") for p in reader.pages)
        except Exception as err:  # pypdf raises many types on damaged files
            raise UsageError(f"{path}: cannot read the PDF: {err}") from None
    try:
        return path.read_text(encoding="utf-8")
    except UnicodeDecodeError as err:
        raise UsageError(f"{path}: not UTF-8 text (byte {err.start})") from None


def bounded_source(source: str) -> str:
    if len(source) <= MAX_SOURCE_CHARS:
        return source
    return source[:MAX_SOURCE_CHARS] + "\n\n[… source truncated for size …]"


def extract_lean_or_json(text: str) -> dict[str, Any] | str:
    """A whole blueprint file from an answer: ``{"lean": …}`` JSON or the last ```lean block."""
    obj = json_payload(text)
    if obj is not None and isinstance(obj.get("lean"), str):
        return obj
    block = last_lean_block(text)
    return {"lean": block} if block else "no fenced ```lean block with the blueprint file"



# --------------------------------------------------------------------------- construct
def blueprint_problems(lean: str) -> list[str]:
    """Why a constructed blueprint is not acceptable (empty list: it parses and plans cleanly)."""
    problems = statement_violations(lean)
    try:
        bp = parse_text(lean, "<blueprint>")
    except HarnessError as err:
        return problems + [err.line()]
    a = analyse(bp)
    problems += [f.line() for f in a.findings]
    if not bp.nodes:
        problems.append("the file has no @[blueprint] nodes")
    for d in bp.decls:
        where = f"<blueprint>:{d.pos.line}:{d.pos.col}"
        if d.kind.is_proof and d.status.is_complete and d.is_node:
            problems.append(f"{where}: {d.key} has a proof; blueprint nodes must be "
                            "`sorry`/`sorry_using` placeholders")
        if d.kind.is_definition and not d.status.is_complete and d.status != BodyStatus.NO_BODY:
            problems.append(f"{where}: definition {d.key} is incomplete (definitions must be "
                            "complete)")
        if d.kind.is_proof and not d.is_node:
            problems.append(f"{where}: {d.key} has no @[blueprint] attribute")
    return problems


def construct(source: str, *, client: LLMClient, cfg: HarnessConfig,
              model: str | None = None) -> RoleOutcome:
    user = ("Write the blueprint for this source.\n\n## Source\n" + bounded_source(source))

    def validate(out: BaseModel) -> list[str]:
        assert isinstance(out, ConstructResult)
        return blueprint_problems(out.lean)

    return run_role("construct", user, client=client, cfg=cfg, model=model,
                    extract=extract_lean_or_json, validate=validate)


NO_SOURCE = ("(no source file: each node's informal statement — its `statement :=` text — is "
             "the reference for what it must say)")


def reference(source: str | None) -> str:
    return bounded_source(source) if source else NO_SOURCE


def restate(text: str, source: str | None, findings: list[dict[str, Any]], *,
            client: LLMClient, cfg: HarnessConfig, model: str | None = None) -> RoleOutcome:
    """Stage 1's compile repair: make the statements Lean rejects elaborate, with the same
    mathematical meaning (refine's prompt and the construct role's settings)."""
    bp = parse_text(text, "<blueprint>")
    allowed = {f["node"] for f in findings if f.get("node")}
    listed = "\n".join(
        f"- {f.get('file')}:{f.get('line')}:{f.get('col')}: {f.get('node') or '(no node)'}: "
        + " ".join(str(f.get("message", "")).split())[:600]
        + (f"\n  Lean printed: {' '.join(str(f['expected']).split())[:600]}"
           if f.get("expected") else "") for f in findings)
    informal = "\n".join(
        f"- {d.label}: {(d.blueprint.statement or '').strip() if d.blueprint else ''}"
        for d in bp.nodes if d.label in allowed)
    user = ("Lean rejects these statements of the blueprint (Lean errors). Change only the "
            "statements named below, only so that they elaborate, with exactly the same "
            "mathematical meaning; keep every other declaration byte-identical, complete "
            "proofs included, and the text between declarations too. A changed theorem keeps "
            "its proof if it still fits, else its proof becomes `sorry`. Answer with "
            "the whole corrected file.\n\n## Lean errors\n" + listed
            + "\n\n## What the failing nodes must say (informal statements)\n"
            + (informal or "(none given)")
            + "\n\n## Current blueprint\n```lean\n" + text + "\n```\n\n## Source\n"
            + reference(source))

    def validate(out: BaseModel) -> list[str]:
        assert isinstance(out, ConstructResult)
        return restate_problems(bp, out.lean, allowed)

    return run_role("construct", user, client=client, cfg=cfg, model=model,
                    extract=extract_lean_or_json, validate=validate, system=load_prompt("refine"))


def refine(text: str, source: str | None, findings: list[dict[str, Any]], *, client: LLMClient,
           cfg: HarnessConfig, model: str | None = None) -> RoleOutcome:
    """The construct role revising an existing blueprint to fix audit findings, under restate's
    contract: only the nodes the findings name may change (a proof kept or reset to `sorry`),
    every other declaration — complete proofs included — and the text between them stay
    byte-identical, no node vanishes; new placeholder nodes may be added (a missing result). A
    partly proved file is fine."""
    bp = parse_text(text, "<blueprint>")
    allowed = {str(f["label"]) for f in findings if f.get("label")}
    listed = "\n".join(
        f"- {f.get('label')} ({f.get('severity')}, {f.get('kind')}): {f.get('explanation')}"
        + (f" Suggested: {f['suggested_fix']}" if f.get("suggested_fix") else "")
        for f in findings)
    user = ("Revise this blueprint so that it states exactly what the source says. Fix exactly "
            "these audit findings and change only the nodes they name; keep every other "
            "declaration byte-identical, complete proofs included, and the text between "
            "declarations too. A changed theorem keeps its proof if it still fits, else its "
            "proof becomes `sorry`. Answer with the whole corrected file.\n\n## Findings\n" + listed + "\n\n## Current blueprint\n```lean\n" + text
            + "\n```\n\n## Source\n" + reference(source))

    def validate(out: BaseModel) -> list[str]:
        assert isinstance(out, ConstructResult)
        return restate_problems(bp, out.lean, allowed, step="refine")

    # the construct role's settings (model, mode) and schema, with refine's own system prompt
    return run_role("construct", user, client=client, cfg=cfg, model=model,
                    extract=extract_lean_or_json, validate=validate, system=load_prompt("refine"))


# --------------------------------------------------------------------------- audit
def audit_input(bp: Blueprint, source: str | None,
                changed: dict[str, str] | None = None) -> str:
    parts = ["## Source (ground truth)\n" + reference(source)]
    if changed:  # stage 1 changed these statements so that Lean accepts them: re-read each
        parts.append("## Statements changed so that Lean accepts them — re-read each one: it "
                     "must say exactly what it said before (and what its informal statement "
                     "says); report any change of meaning as `drift` (major)\n" + "\n".join(
                         f"### {label} (before)\n```lean\n{before}\n```"
                         for label, before in changed.items()))
    parts.append("## Blueprint nodes")
    for d in bp.nodes:
        informal = (d.blueprint.statement or "").strip() if d.blueprint else ""
        parts.append(f"### {d.key}\n```lean\n{statement_text(bp, d)}\n```\n"
                     + (f"Informal statement: {informal}\n" if informal else ""))
    defs = [statement_text(bp, d) for d in bp.decls if d.kind.is_definition]
    if defs:
        parts.append("## Definitions\n```lean\n" + "\n\n".join(defs) + "\n```")
    return "\n\n".join(parts)


def audit(bp: Blueprint, source: str | None, *, client: LLMClient, cfg: HarnessConfig,
          model: str | None = None, changed: dict[str, str] | None = None) -> RoleOutcome:
    labels = {d.label for d in bp.nodes}

    def validate(out: BaseModel) -> list[str]:
        assert isinstance(out, AuditReport)
        known = ", ".join(sorted(labels))[:500]
        return [f"finding names an unknown label {f.label!r} (labels: {known})"
                for f in out.findings if f.label not in labels]

    return run_role("audit", audit_input(bp, source, changed), client=client, cfg=cfg,
                    model=model, validate=validate)


# --------------------------------------------------------------------------- repair
@dataclass
class RepairOutcome:
    outcome: RoleOutcome
    new_text: str | None = None  # split: the whole edited file
    new_labels: list[str] = field(default_factory=list)

    @property
    def status(self) -> str:
        return self.outcome.status


def split_problems(bp: Blueprint, label: str, result: RepairResult) -> tuple[list[str], str | None,
                                                                           list[str]]:
    """Check a split against the repair contract; returns (problems, new text, new labels)."""
    problems = statement_violations(result.helpers + "\n" + result.body)
    try:
        bparsed = parse_text("theorem _probe : True := " + result.body, "<body>")
        if len(bparsed.decls) != 1 or len(bparsed.commands) != 1:
            problems.append("the new body must be one proof term or tactic block, "
                            "not further declarations or commands")
    except HarnessError as err:
        problems.append(f"the new body does not parse: {err.line()}")
    try:
        hbp = parse_text(result.helpers, "<helpers>")
    except HarnessError as err:
        return problems + [err.line()], None, []
    old_keys = {d.key for d in bp.decls} | {d.name for d in bp.decls if d.name}
    new_labels: list[str] = []
    for d in hbp.decls:
        where = f"<helpers>:{d.pos.line}:{d.pos.col}"
        if d.kind.is_proof and not d.is_node:
            problems.append(f"{where}: helper {d.key} needs a @[blueprint \"label\"] attribute")
        if d.kind.is_proof and d.status not in (BodyStatus.SORRY, BodyStatus.SORRY_USING):
            problems.append(f"{where}: helper {d.key} must be a `sorry`/`sorry_using` placeholder")
        ns = bp.node(label).scope.namespace
        if d.key in old_keys or (d.short_name and any(
                x.short_name == d.short_name and x.scope.namespace == ns for x in bp.decls)):
            problems.append(f"{where}: {d.key} already exists; helpers need fresh labels and names")
        if d.label:
            new_labels.append(d.label)
    if not new_labels:
        problems.append("a split must add at least one helper node")
    if problems:
        return problems, None, new_labels
    try:
        new_text = apply_edit(bp, label, result.body or "by\n  sorry", result.helpers)
        new_bp = parse_text(new_text, bp.path)
    except (HarnessError, ValueError) as err:
        msg = err.line() if isinstance(err, HarnessError) else str(err)
        return [f"the edited file does not parse: {msg}"], None, new_labels
    a = analyse(new_bp)
    before = {(f.code, f.message) for f in analyse(bp).findings}
    problems += [f.line() for f in a.findings if (f.code, f.message) not in before]
    for d in bp.decls:  # the contract: no existing statement changes
        nd = new_bp.by_key(d.key) if any(x.key == d.key for x in new_bp.decls) else None
        if nd is None:
            problems.append(f"{d.key} disappeared from the file")
        elif (bp.text[d.span.start:d.body_span.start]
              != new_bp.text[nd.span.start:nd.body_span.start]):
            problems.append(f"the statement of {d.key} changed; statements are locked")
    node = new_bp.node(label)
    if node.status == BodyStatus.COMPLETE:
        problems.append(f"the new body of {label} must be a `sorry_using` placeholder, not a proof")
    return problems, (None if problems else new_text), new_labels


def repair(bp: Blueprint, label: str, failures: list[str], *, client: LLMClient,
           cfg: HarnessConfig, source: str | None = None, model: str | None = None,
           graph: Any | None = None) -> RepairOutcome:
    ctx = build_context(bp, label, graph)
    user = ctx.text + "\n\n## Why the proof attempts failed\n" + "\n".join(
        f"- {f.strip()[:1500]}" for f in failures[-8:])
    if source:
        user += "\n\n## The informal source\n" + bounded_source(source)
    holder: dict[str, Any] = {}

    def validate(out: BaseModel) -> list[str]:
        assert isinstance(out, RepairResult)
        if out.kind == "blocker":
            return []
        probs, text, labels = split_problems(bp, label, out)
        holder.update(text=text, labels=labels)
        return probs

    outcome = run_role("repair", user, client=client, cfg=cfg, node=label, model=model,
                       validate=validate)
    res = RepairOutcome(outcome)
    if outcome.ok and isinstance(outcome.output, RepairResult) and outcome.output.kind == "split":
        res.new_text, res.new_labels = holder.get("text"), holder.get("labels", [])
    return res
