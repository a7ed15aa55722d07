"""`harness doctor [DIR] [--config F] [--lake PATH] [--model M] [--offline] [--json]` — is this
workspace ready for `run`? The same checks `run`/`prove`/`lock` make before any work, as a table:
Lean against `lean-toolchain`, Mathlib's and LeanArchitect's oleans, the REPL binary, the pinned
revisions, the config file, the endpoint (the key only as "set in VAR"), a model for every role,
`GET /v1/models` and at most one minimal chat call (one output token; `--offline`: none).

Exit codes: 0 nothing blocking (warnings allowed), 1 something is missing, 2 usage error.
"""

from __future__ import annotations

import argparse
from pathlib import Path

from rich.markup import escape
from rich.table import Table

from harness.commands._common import add_lake_arg
from harness.errors import ExitCode, HarnessError, UsageError
from harness.preflight.report import Check
from harness.report.output import console, emit_json
from harness.workspace import find_workspace

ALL_ROLES = ("construct", "audit", "prove", "repair")
STYLE = {"ok": "green", "missing": "bold red", "warn": "yellow", "skipped": "dim"}


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("doctor", help="check Lean, the dependencies and the LLM endpoint",
                       description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("path", type=Path, nargs="?", default=Path("."),
                   help="workspace directory or a file in it (default: .)")
    p.add_argument("--config", type=Path, help="config file (default: WORKSPACE/harness.toml)")
    p.add_argument("--model", help="check this model for every role (as `run --model`)")
    p.add_argument("--offline", action="store_true", help="no network: skip the endpoint probe")
    add_lake_arg(p)
    p.add_argument("--json", action="store_true", help="machine-readable output on stdout")
    p.set_defaults(func=run)


def checks(workspace: Path, config: Path | None, lake: str | None, model: str | None,
           network: bool) -> list[Check]:
    from harness.agents.config import CONFIG_NAME, load_config
    from harness.preflight.endpoint import llm_checks
    from harness.preflight.lean import lean_checks, package_checks, repl_check

    out, tc = lean_checks(workspace, lake, probe=True)
    if tc is None:  # still show what the oleans look like
        out += package_checks(workspace)
    out.append(repl_check(workspace))
    try:
        cfg = load_config(config, workspace)
    except HarnessError as err:
        out.append(Check(name="config", status="missing", blocking=True, found=err.line(),
                         fix="fix the file, or write a new one with `python -m harness init "
                             "--force`"))
        return out
    where = cfg.source or f"none ({workspace / CONFIG_NAME} not found: defaults)"
    out.append(Check(name="config", status="ok" if cfg.source else "skipped", found=where,
                     fix="" if cfg.source else "`python -m harness init` writes a commented "
                                              "one"))
    out += llm_checks(cfg.with_model(model), ALL_ROLES, model=model, network=network)
    return out


def run(args: argparse.Namespace) -> int:
    path: Path = args.path
    if not path.exists():  # never check some other directory instead
        raise UsageError(f"{path}: no such file or directory")
    workspace = find_workspace(path)
    found = checks(workspace, args.config, args.lake, args.model, not args.offline)
    bad = any(c.status == "missing" for c in found)
    code = ExitCode.FINDINGS if bad else ExitCode.OK
    if args.json:
        emit_json({"workspace": str(workspace), "ok": not bad, "exit_code": int(code),
                   "checks": [c.model_dump(exclude={"blocking"}) for c in found]})
        return int(code)
    t = Table(title=f"harness doctor: {escape(str(workspace))}", show_lines=False)
    for col in ("check", "status", "found", "how to fix"):
        t.add_column(col, overflow="fold")
    for c in found:
        t.add_row(c.name, f"[{STYLE[c.status]}]{c.status}[/]", escape(c.found), escape(c.fix))
    out = console()
    out.print(t)
    out.print("[bold red]not ready[/]: fix the rows marked missing" if bad
              else "[green]ready[/]")
    return int(code)
