"""`harness run FILE`: prove a blueprint end to end (stage 1 fidelity, stage 2 the DAG).

`harness run DIR|ROOT_MODULE`: one run over every file of a project — stage 1 per file in
import order, then one scheduler (a node starts once its dependencies are proved, whatever file
they are in), one branch, one budget, one result.json.

Resumable: `run` on a file with an existing run continues it (also after kill -9). Ends with
`.harness/runs/<id>/result.json`. Exit codes: 0 every node proved, 1 open or blocked nodes remain,
2 usage or input error, 3 cannot certify (no Lean: nothing was merged), 130 interrupted
(143: SIGTERM).
Before any work the preflight (harness/preflight) checks a model for every role, Lean against
lean-toolchain, the Mathlib / Architect oleans and that the endpoint answers: a problem is exit 2
with one line saying what to set. `--stage 1` exits 0 once the statements are locked, even with
open nodes. With `--json`, stdout
gets result.json whenever it was written (errors and interrupts too; the error line stays on
stderr).
"""

from __future__ import annotations

import argparse
from pathlib import Path

from harness.commands._common import add_lake_arg
from harness.didyoumean import path_hint
from harness.errors import ExitCode, HarnessError, UsageError
from harness.report.output import console, emit_json, esc
from harness.workspace import find_workspace


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("run", help="prove a blueprint: fidelity stage, then the DAG",
                       description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("file", type=Path, help="blueprint Lean file (created by stage 1 from "
                                           "--source when missing), or a directory / root "
                                           "module: the whole project")
    p.add_argument("--source", type=Path, help="informal source (text/markdown/LaTeX) for stage 1")
    p.add_argument("--workers", type=int, help="parallel attempts (default 4)")
    p.add_argument("--max-rounds", type=int, help="stage 1: audit/refine rounds (default 5)")
    p.add_argument("--budget", type=float, help="USD for the whole run (resumes included)")
    p.add_argument("--stage", choices=["1", "2", "all"], help="which stages (default all)")
    p.add_argument("--batch-size", type=int, help="gate batch size (default 8)")
    p.add_argument("--batch-window", type=float,
                   help="seconds an accepted proof may wait for its gate batch (default 2)")
    p.add_argument("--config", type=Path, help="config file (default: WORKSPACE/harness.toml)")
    p.add_argument("--model", help="model for every LLM role (overrides the config, "
                                   "HARNESS_MODEL and OPENAI_MODEL)")
    p.add_argument("--executor", choices=["local", "ray"],
                   help="where attempts run: local threads (default) or a Ray cluster")
    p.add_argument("--ray-address", help="Ray cluster to join (\"auto\": the local `ray start`; "
                                         "default: start Ray on this machine)")
    add_lake_arg(p)
    view = p.add_mutually_exclusive_group()
    view.add_argument("--live", dest="live", action="store_true", default=None,
                      help="rich live view (default when stdout is a terminal)")
    view.add_argument("--plain", dest="live", action="store_false", help="plain progress lines")
    p.add_argument("--unsafe-no-sandbox", action="store_true",
                   help="run prover-written Lean without the bubblewrap sandbox (it can then "
                        "write anywhere you can and use the network)")
    p.add_argument("--json", action="store_true", help="print result.json on stdout at the end")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from harness.orchestrator.runguard import RunGuard

    # the run's id (workspace + target) and so its record exist from here: an interrupt before
    # the session wrote result.json leaves one saying so, and in which phase
    guard = RunGuard(find_workspace(args.file), args.file)
    session: list = []  # the session once made: its own record wins
    try:
        with guard.interrupts(lambda: session[0] if session else None):
            return _run(args, guard, session)
    except KeyboardInterrupt:
        if args.json and guard.result is not None:  # the guard wrote it: no session did
            emit_json(guard.result)  # as a session's record is (the one line goes to stderr)
        raise


def _run(args: argparse.Namespace, guard, made: list) -> int:
    import sys

    from harness.assemble import RunOptions, assemble
    from harness.commands.graph import progress_bar
    from harness.orchestrator.view import PlainView, make_view

    file: Path = args.file
    guard.phase = "reading the blueprint"
    with progress_bar() as bar:  # telling a project from a file reads every file under it
        bar.add_task("reading the blueprint", total=None)
        project = _is_project(file)
    if project and args.source is not None:
        raise UsageError(f"{file}: --source constructs one file; a project run takes none")
    if file.exists() and not file.is_file() and not project:
        raise UsageError(f"{file}: not a file")
    if not file.exists() and args.source is None:
        raise UsageError(f"{file}: no such file{path_hint(file)} (give --source to construct "
                         "it in stage 1)")
    if args.source is not None and not args.source.is_file():
        raise UsageError(f"{args.source}: no such source file")
    workspace = find_workspace(file)
    if args.unsafe_no_sandbox:  # the environment carries it to every Lean process and worker
        import os

        from harness.lean.sandbox import UNSAFE_ENV
        os.environ[UNSAFE_ENV] = "1"
    # config, settings, Ray, preflight (exit 2 before any work), LeanArchitect's edges
    guard.phase = "preflight"
    run_ = assemble(RunOptions(
        file, workspace, project=project, source=args.source, config=args.config,
        lake=args.lake, model=args.model,
        overrides={"workers": args.workers, "max_rounds": args.max_rounds,
                   "budget": args.budget, "stage": args.stage, "batch_size": args.batch_size,
                   "batch_window": args.batch_window, "executor": args.executor,
                   "ray_address": args.ray_address},
        on_phase=lambda phase: setattr(guard, "phase", phase)))
    try:
        if (file.is_file() or project) and run_.toolchain is None:
            guard.phase = "planning without Lean"
            _plan_without_lean(file, workspace, quiet=args.json)
        # without Lean nothing will run: no live panel of unknown counts left on the terminal
        quiet = args.json or run_.toolchain is None
        guard.phase = "starting the session"
        view = PlainView(sys.stderr) if quiet else make_view(args.live)
        session = run_.session(view)
        made.append(session)  # from its lock on, the session writes its own record
        try:
            result = session.run(run_.services, run_.preflight)
        except (HarnessError, KeyboardInterrupt):
            view.close()
            if args.json and session.result is not None:  # result.json was written: show it
                emit_json(session.result)  # (the one-line error still goes to stderr)
            raise
        finally:
            view.close()
    finally:
        run_.close()
    if args.json:
        emit_json(result)
    else:
        out = console()
        c = result.counts
        out.print(f"[bold]{result.stop_reason}[/]: {c.get('proved', 0)} proved, "
                  f"{c.get('open', 0)} open, {c.get('blocked', 0)} blocked; "
                  f"{result.attempts} attempts, {result.tokens} tokens, "
                  f"${result.cost_usd:.4f}, {result.wall_time_s:.1f}s")
        for label, n in result.nodes.items():
            if n.status == "blocked":
                out.print(f"  blocked {esc(label)}: {esc(n.reason)}")
        out.print(f"result: {session.dir / 'result.json'}  commit {result.final_commit}",
                  markup=False)  # the workspace's path is text
    return int(result.exit_code if result.exit_code in tuple(ExitCode) else ExitCode.FINDINGS)


def _plan_without_lean(file: Path, workspace: Path, *, quiet: bool) -> None:
    """No Lean: nothing can be certified, but the blueprint can still be parsed, planned and
    drawn. Bad input stops here with its one-line error (exit 2)."""
    from harness.commands._common import load
    from harness.commands.graph import progress_bar, write_graph
    from harness.report.output import LIST_LIMIT, clipped
    from harness.report.summary import plan_dict
    from harness.workspace import harness_dir

    graph = harness_dir(workspace) / "graph.html"
    with progress_bar() as bar:  # a big project takes seconds to read: say so meanwhile
        reading = bar.add_task("reading the blueprint", total=None)
        a = load(file)
        bar.remove_task(reading)
        write_graph(file, graph, progress=bar, analyses=[a])  # read once, not again
    if quiet:
        return
    data = plan_dict(a)
    out = console()
    c = data["counts"]["by_state"]
    out.print(f"[bold]{esc(data['file'])}[/]: {data['counts']['nodes']} nodes; "
              f"{c.get('proved', 0)} proved, {c.get('ready', 0)} ready now: "
              + clipped([esc(x["key"]) for x in data["leaves"]], LIST_LIMIT))
    if data["critical_path"]:
        out.print("critical path: " + clipped([esc(k) for k in data["critical_path"]],
                                              LIST_LIMIT, " -> "))
    out.print(f"graph: {esc(graph)}")
    for f in a.findings:
        out.print(esc(f.line()))


def _is_project(target: Path) -> bool:
    """`run DIR|ROOT_MODULE`: one run over the whole project (orchestrator/project_session.py)."""
    from harness.orchestrator.project_run import is_project_target, project_files

    if not target.exists() or not is_project_target(target):
        return False
    files = [b for b in project_files(target, find_workspace(target)).files if b.nodes]
    if not files:
        raise UsageError(f"{target}: no blueprint node in this project")
    return True

