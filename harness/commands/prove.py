"""`harness prove FILE LABEL`: one proof attempt on one node, end to end; prints the verdict.

The prover is the LLM (prove role) when an endpoint is configured (``OPENAI_BASE_URL`` /
``OPENAI_API_KEY`` or ``harness.toml``), else the LLM-free tactic portfolio (``--tactics`` forces
it). ``--apply`` writes the result into FILE only after the gate accepts the new text; without Lean
nothing can be certified, so ``--apply`` refuses (exit 3) before any work. ``--apply`` on a node
whose body is already complete does nothing (exit 0). Concurrent ``--apply`` runs on one file
serialise on a lock under WORKSPACE/.harness/locks/: the file is re-read under the lock and, if
another run changed it meanwhile, the same candidate is re-applied to the new text and gated again.

Put together as `run` is (harness/assemble.py): before the attempt the config is checked as for
`run` (its [run] section too), then the preflight checks the prove role's model, Lean against
lean-toolchain, the Mathlib / Architect oleans and (LLM) that the endpoint answers: every
problem at once, one line each, exit 2.

Exit codes: 0 proved (and applied, with ``--apply``), 1 not proved or rejected by the gate,
2 usage/input error (a preflight problem included), 3 cannot certify (no Lean, Lean timeout/crash, unverified candidate).
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

from harness.agents.apply import apply_gated, statement_lock
from harness.agents.prover import AttemptResult, prove_node
from harness.blueprint.source import parse_file
from harness.commands._common import add_lake_arg
from harness.didyoumean import node_hint
from harness.errors import CannotCertify, ExitCode, InputError, UsageError
from harness.report.output import console, emit_json, err_console, esc
from harness.workspace import find_workspace, harness_dir

STATUS_EXIT = {"proved": ExitCode.OK, "already_proved": ExitCode.OK,
               "failed": ExitCode.FINDINGS, "budget": ExitCode.FINDINGS, "error": ExitCode.FINDINGS,
               "cannot_certify": ExitCode.CANNOT_CERTIFY,
               "unverified": ExitCode.CANNOT_CERTIFY}


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("prove", help="one proof attempt on one node (LLM or tactic portfolio)",
                       description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("file", type=Path, help="blueprint Lean file")
    p.add_argument("label", help="blueprint label (or Lean name) of the node")
    p.add_argument("--model", help="model for the prove role (overrides the config)")
    p.add_argument("--apply", action="store_true",
                   help="write the proof into FILE, only if the gate accepts it")
    p.add_argument("--tactics", action="store_true",
                   help="use the LLM-free tactic portfolio even if an endpoint is configured")
    p.add_argument("--lock", type=Path, metavar="LOCK", help="statement lock for the gate "
                   "(default: <FILE stem>.lock.json beside FILE if present, e.g. Demo.lock.json "
                   "for Demo.lean; else the file's current statements)")
    p.add_argument("--config", type=Path, help="config file (default: WORKSPACE/harness.toml)")
    add_lake_arg(p)
    p.add_argument("--json", action="store_true", help="machine-readable output on stdout")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    path: Path = args.file
    bp = parse_file(path)  # InputError: no such file, is a directory, malformed
    try:
        decl = bp.node(args.label)
    except KeyError:
        decl = bp.by_name(args.label)
        if decl is None or decl.label is None:
            raise InputError(path, 1, 0, f"no blueprint node `{args.label}`"
                             + node_hint(bp, args.label)) from None
    shared = [d for d in bp.nodes if d.label == args.label]
    if len(shared) > 1 and decl.key != args.label:  # one node, several declarations
        raise UsageError(f"{path}:{decl.pos.line}:{decl.pos.col}: label `{args.label}` has "
                         f"{len(shared)} declarations ({', '.join(d.key for d in shared)}): "
                         "name the one to prove")
    label = decl.key  # the label, or a part's Lean name when the label is shared
    if not decl.kind.is_proof or decl.body_sep != ":=":
        raise UsageError(f"{path}:{decl.pos.line}:{decl.pos.col}: {label} is not a lemma or "
                         "theorem with a `:=` body")
    workspace = find_workspace(path)
    from harness.assemble import ProveOptions, assemble_prove

    # the config (checked as `run` checks it), LLM or tactics, then — unless an --apply has
    # nothing to do — the preflight: a model for the prove role, Lean as pinned, its oleans,
    # the endpoint; every problem at once, exit 2, before any work (harness/assemble.py)
    nothing_to_do = args.apply and decl.status.is_complete
    ready = assemble_prove(ProveOptions(workspace, config=args.config, lake=args.lake,
                                        model=args.model, tactics=args.tactics,
                                        preflight=not nothing_to_do))
    if nothing_to_do:  # the file stays untouched
        done = AttemptResult(label=label, method=ready.method, status="already_proved",
                             reason="already proved: nothing to do (the body has no sorry)")
        return _report(args, done, ExitCode.OK, record=None, lean_missing="not needed")
    # a corrupt or foreign lock is an input error before any work (exit 2)
    lock = statement_lock(path, bp, args.lock) if args.apply else None
    cfg, tc, lean_missing = ready.config, ready.toolchain, ready.lean_missing
    if args.apply and tc is None:
        msg = f"--apply: {lean_missing}; nothing can be certified, nothing written"
        if not args.json:
            raise CannotCertify(msg)
        err_console().print(msg, markup=False)
        refused = AttemptResult(label=label, method=ready.method, status="cannot_certify",
                                reason=msg)
        return _report(args, refused, ExitCode.CANNOT_CERTIFY, record=None,
                       lean_missing=lean_missing)

    client = ready.client()
    attempt = prove_node(bp, label, workspace=workspace, cfg=cfg, toolchain=tc, client=client,
                         model=args.model)
    record = _save_transcript(workspace, attempt)
    applied, gate_reasons = False, []
    if args.apply and attempt.proved and attempt.body:
        assert tc is not None and lock is not None
        applied, gate_reasons = apply_gated(path, bp, label, attempt.body, attempt.helpers,
                                            workspace=workspace, toolchain=tc, lock=lock,
                                            timeout_s=cfg.timeouts.lean_s)
    code = STATUS_EXIT.get(attempt.status, ExitCode.FINDINGS)
    if args.apply and attempt.proved and not applied:
        code = ExitCode.CANNOT_CERTIFY if gate_reasons[:1] == ["cannot certify"] else \
            ExitCode.FINDINGS
    return _report(args, attempt, code, record=record, lean_missing=lean_missing,
                   applied=applied, gate=gate_reasons)


def _report(args: argparse.Namespace, attempt: AttemptResult, code: ExitCode, *,
            record: str | None, lean_missing: str | None, applied: bool = False,
            gate: list[str] | None = None) -> int:
    gate = gate or []
    if args.json:
        out = attempt.model_dump(mode="json", exclude={"transcript"})
        out.update(applied=applied, gate=gate, transcript_file=record,
                   lean=lean_missing or "found", exit_code=int(code))
        emit_json(out)
    elif attempt.status == "already_proved":
        console().print(f"{attempt.label}: {attempt.reason}", markup=False)
    else:
        _human(attempt, applied, gate, record, lean_missing, args.apply)
    return int(code)


def _save_transcript(workspace: Path, attempt: AttemptResult) -> str | None:
    """Keep the attempt (with its transcript; the API key was scrubbed) under .harness/prove/."""
    try:
        d = harness_dir(workspace) / "prove"
        d.mkdir(parents=True, exist_ok=True)
        safe = "".join(c if c.isalnum() or c in "-_." else "_" for c in attempt.label)
        f = d / f"{time.strftime('%Y%m%dT%H%M%S')}-{safe}-{attempt.method}.json"
        f.write_text(attempt.model_dump_json(indent=2), encoding="utf-8")
        return str(f)
    except OSError as err:
        err_console().print(f"warning: could not save the transcript: {err}", markup=False)
        return None


# the attempt's status and method in words (`--json` keeps the codes)
STATUS_WORDS = {"proved": "proved", "failed": "not proved",
                "cannot_certify": "not certified (nothing could check the proof)",
                "budget": "stopped: the budget is spent",
                "unverified": "unverified (a candidate no Lean checked)"}
METHOD_WORDS = {"tactics": "with the tactic portfolio", "llm": "by the model"}


def _human(a: AttemptResult, applied: bool, gate: list[str], record: str | None,
           lean_missing: str | None, apply: bool) -> None:
    c = console()
    c.print(f"{esc(a.label)}: [bold]{STATUS_WORDS.get(a.status, a.status)}[/bold] "
            f"{METHOD_WORDS.get(a.method, a.method)} — {esc(a.reason)}")
    if lean_missing:
        c.print(f"  note: {esc(lean_missing)}")
    if a.body:
        c.print("  body:")
        for ln in a.body.splitlines():
            c.print(f"    {ln}", markup=False)
    if a.helpers:
        c.print("  helpers:")
        for ln in a.helpers.splitlines():
            c.print(f"    {ln}", markup=False)
    for r in a.tactics:
        c.print(f"  tried {r['tactic']}: {r['outcome']} {r['detail'][:120]}", markup=False)
    if a.usage is not None:
        u = a.usage
        c.print(f"  usage: {u.calls} calls, {u.prompt_tokens}+{u.completion_tokens} tokens, "
                f"${u.cost_usd:.4f}{' (unpriced model)' if u.unpriced else ''}")
    if apply and a.proved:
        c.print("  applied: the gate accepted the new text" if applied
                else "  NOT applied: " + "; ".join(gate), markup=False)
    if record:
        c.print(f"  record: {record}", markup=False)
