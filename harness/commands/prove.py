"""`harness prove FILE LABEL`: one proof attempt on one node, end to end; prints the verdict.

The prover is the LLM (prove role) when an endpoint is configured (``OPENAI_BASE_URL`` /
``OPENAI_API_KEY`` or ``harness.toml``), else the LLM-free tactic portfolio (``--tactics`` forces
it). ``--apply`` writes the result into FILE only after the gate accepts the new text; without Lean
nothing can be certified, so ``--apply`` refuses (exit 3) before any work.

Exit codes: 0 proved (and applied, with ``--apply``), 1 not proved or rejected by the gate,
2 usage/input error, 3 cannot certify (no Lean, Lean timeout/crash, unverified candidate).
"""

from __future__ import annotations

import argparse
import os
import tempfile
import time
from pathlib import Path

from harness.agents.config import load_config, resolve_endpoint
from harness.agents.llm import LLMClient
from harness.agents.prover import AttemptResult, prove_node
from harness.blueprint.model import Blueprint
from harness.blueprint.parse import parse_file, parse_text
from harness.blueprint.write import apply_edit, render
from harness.commands.lock import default_lock_path
from harness.errors import CannotCertify, ExitCode, HarnessError, UsageError
from harness.gate.lock import load_lock, make_lock
from harness.gate.verify import verify
from harness.lean.toolchain import Toolchain, find_toolchain
from harness.report.output import console, emit_json, err_console
from harness.workspace import find_workspace, harness_dir

STATUS_EXIT = {"proved": ExitCode.OK, "failed": ExitCode.FINDINGS, "budget": ExitCode.FINDINGS,
               "error": ExitCode.FINDINGS, "cannot_certify": ExitCode.CANNOT_CERTIFY,
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
                   "(default: FILE.lock.json if present, else the file's current statements)")
    p.add_argument("--config", type=Path, help="config file (default: WORKSPACE/harness.toml)")
    p.add_argument("--lake", help="path to lake (default: HARNESS_LAKE, PATH, ~/.elan/bin)")
    p.add_argument("--json", action="store_true", help="machine-readable output on stdout")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    path: Path = args.file
    if not path.is_file():
        raise UsageError(f"{path}: no such file")
    bp = parse_file(path)
    try:
        decl = bp.node(args.label)
    except KeyError:
        decl = bp.by_name(args.label)
        if decl is None or decl.label is None:
            raise UsageError(f"{path}: no blueprint node {args.label!r}") from None
    label = decl.label or args.label
    if not decl.kind.is_proof or decl.body_sep != ":=":
        raise UsageError(f"{path}:{decl.pos.line}:{decl.pos.col}: {label} is not a lemma or "
                         "theorem with a `:=` body")
    workspace = find_workspace(path)
    cfg = load_config(args.config, workspace)
    endpoint = resolve_endpoint(cfg)
    use_llm = endpoint.configured and not args.tactics
    if args.model and not use_llm:
        raise UsageError("--model needs an LLM endpoint (set OPENAI_BASE_URL / OPENAI_API_KEY "
                         "or endpoint.base_url in harness.toml)")
    tc, lean_missing = _toolchain(workspace, args.lake)
    if args.apply and tc is None:
        raise CannotCertify(f"--apply: {lean_missing}; nothing can be certified, nothing written")

    client = LLMClient(endpoint, cfg) if use_llm else None
    attempt = prove_node(bp, label, workspace=workspace, cfg=cfg, toolchain=tc, client=client,
                         model=args.model)
    record = _save_transcript(workspace, attempt)
    applied, gate_reasons = False, []
    if args.apply and attempt.proved and attempt.body:
        new_text = apply_edit(bp, label, attempt.body, attempt.helpers)
        applied, gate_reasons = _gate_and_write(path, new_text, bp, label, workspace, tc,
                                                args.lock, cfg.timeouts.lean_s)
    code = STATUS_EXIT.get(attempt.status, ExitCode.FINDINGS)
    if args.apply and attempt.proved and not applied:
        code = ExitCode.CANNOT_CERTIFY if gate_reasons[:1] == ["cannot certify"] else \
            ExitCode.FINDINGS
    if args.json:
        out = attempt.model_dump(mode="json", exclude={"transcript"})
        out.update(applied=applied, gate=gate_reasons, transcript_file=record,
                   lean=lean_missing or "found", exit_code=int(code))
        emit_json(out)
    else:
        _human(attempt, applied, gate_reasons, record, lean_missing, args.apply)
    return int(code)


def _toolchain(workspace: Path, lake: str | None) -> tuple[Toolchain | None, str | None]:
    try:
        return find_toolchain(workspace, lake), None
    except HarnessError as err:
        if lake or os.environ.get("HARNESS_LAKE"):
            raise  # an explicit toolchain that does not work is a usage error, not "no Lean"
        return None, f"no Lean toolchain ({err.line()})"


def _gate_and_write(path: Path, new_text: str, old_bp: Blueprint, label: str, workspace: Path,
                    tc: Toolchain, lock_path: Path | None,
                    timeout_s: float) -> tuple[bool, list[str]]:
    """Write ``new_text`` to ``path`` only if the gate accepts it. Returns (written, reasons).

    The gate runs with the statement lock (``--lock``, else ``FILE.lock.json`` if present, else a
    lock made from the file as it is now), the current text as the base and only ``label``
    allowed to change (its body, plus new helpers directly before it), and Lean."""
    if lock_path is None and default_lock_path(path).is_file():
        lock_path = default_lock_path(path)
    lock = load_lock(lock_path) if lock_path is not None else make_lock(old_bp)
    try:
        new_bp = parse_text(new_text, path, bom=old_bp.bom)
        report = verify(new_text, path, lock, base_text=old_bp.text, allow={label}, lean=tc,
                        workspace=workspace, timeout_s=timeout_s)
    except CannotCertify as err:
        return False, ["cannot certify", err.line()]
    except HarnessError as err:
        return False, [f"the edited file is not acceptable: {err.line()}"]
    if report.exit_code == ExitCode.CANNOT_CERTIFY:
        return False, ["cannot certify", report.lean_detail or report.lean_status]
    if report.exit_code != ExitCode.OK:
        return False, [f.render() for f in report.failures] or [f"gate: {report.lean_status}"]
    reasons: list[str] = []
    data = render(new_bp)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(data)
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
    return True, reasons


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
        err_console().print(f"warning: could not save the transcript: {err}")
        return None


def _human(a: AttemptResult, applied: bool, gate: list[str], record: str | None,
           lean_missing: str | None, apply: bool) -> None:
    c = console()
    c.print(f"{a.label}: [bold]{a.status}[/bold] ({a.method}) — {a.reason}")
    if lean_missing:
        c.print(f"  note: {lean_missing}")
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
