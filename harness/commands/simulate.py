"""`harness simulate`: run the real scheduler on a DAG against simulated time."""

from __future__ import annotations

import argparse
import math
from pathlib import Path

from rich.table import Table

from harness.errors import ExitCode, UsageError
from harness.orchestrator.scheduler_model import Policy
from harness.orchestrator.simulate import SimResult, generate_dag, load_dag, simulate
from harness.report.output import console, emit_json


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("simulate", help="benchmark the scheduler on a DAG with simulated time",
                       description=__doc__)
    src = p.add_mutually_exclusive_group(required=True)
    src.add_argument("--dag", type=Path, help='DAG.json: {"nodes":[{"id","duration"}], '
                                              '"edges":[[a,b]]} (a before b), or the JSON '
                                              '`harness graph -o x.json` writes (a node to '
                                              'prove takes 600 s)')
    src.add_argument("--generate", type=int, metavar="N",
                     help="use a generated heavy-tailed blueprint-shaped DAG of N nodes")
    src.add_argument("--project", type=int, metavar="F",
                     help="a generated project-shaped DAG of F files (groups) in import order: "
                          "one pipelined run vs per-file runs in import order")
    p.add_argument("--per-file", type=int, default=25, help="--project: nodes per file")
    p.add_argument("--workers", "-P", type=int, default=4)
    p.add_argument("--policy", choices=[x.value for x in Policy], default="pipelined")
    p.add_argument("--compare", action="store_true",
                   help="run both policies and report their ratio to the lower bound")
    p.add_argument("--failure-rate", type=float, default=0.0,
                   help="probability that an attempt fails (the node is retried)")
    p.add_argument("--seed", type=int, default=0, help="seed for failures and --generate")
    p.add_argument("--gate-latency", type=float, default=0.0, help="seconds per gate batch")
    p.add_argument("--batch-size", type=int, default=8, help="pipelined gate batch size")
    p.add_argument("--batch-window", type=float, default=0.0,
                   help="pipelined: max seconds an accepted candidate waits for its batch")
    p.add_argument("--barrier-batch", type=int, default=16, help="barrier batch size")
    p.add_argument("--learning", action="store_true",
                   help="compare memory, model tiers and racing against today's policy "
                        "(success-probability model: docs/benchmarks.md)")
    p.add_argument("--json", action="store_true", help="machine-readable output")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    if args.workers < 1:
        raise UsageError("simulate: --workers must be at least 1")
    if not 0.0 <= args.failure_rate < 1.0:
        raise UsageError("simulate: --failure-rate must be in [0, 1)")
    if args.batch_size < 1 or args.barrier_batch < 1:
        raise UsageError("simulate: batch sizes must be at least 1")
    if args.generate is not None and args.generate < 1:
        raise UsageError("simulate: --generate needs a positive node count")
    for name in ("gate_latency", "batch_window"):
        value = getattr(args, name)
        if not math.isfinite(value) or value < 0:
            raise UsageError(f"simulate: --{name.replace('_', '-')} must be a finite number ≥ 0")
    if args.project is not None:
        return _project(args)
    dag = load_dag(args.dag) if args.dag else generate_dag(args.generate, args.seed)
    if args.learning:
        return _learning(dag, args)
    policies = [Policy.PIPELINED, Policy.BARRIER] if args.compare else [Policy(args.policy)]
    results = [simulate(dag, args.workers, pol, failure_rate=args.failure_rate, seed=args.seed,
                        gate_latency=args.gate_latency, batch_size=args.batch_size,
                        batch_window=args.batch_window, barrier_batch=args.barrier_batch)
               for pol in policies]
    if args.json:
        emit_json(results[0].to_json() if len(results) == 1
                  else {r.policy: r.to_json() for r in results})
        return int(ExitCode.OK)
    out = console()
    if len(results) == 1:
        _print_schedule(out, results[0])
    r0 = results[0]
    out.print(f"lower bound {r0.lower_bound:.1f} = max(critical path {r0.critical_path:.1f}, "
              f"work {r0.total_work:.1f} / {r0.workers})")
    for r in results:
        out.print(f"{r.policy}: makespan {r.makespan:.1f}  ratio {r.ratio:.3f}  "
                  f"gate batches {r.gate_batches}  attempts {len(r.attempts)}")
    if args.compare:
        out.print(f"barrier / pipelined = {results[1].makespan / results[0].makespan:.3f}")
    return int(ExitCode.OK)


def _learning(dag, args: argparse.Namespace) -> int:
    from harness.orchestrator.simulate_learning import (
        CHEAP, STRONG, simulate_learning, standard_policies,
    )

    rows = [simulate_learning(dag, args.workers, pol, cheap=CHEAP, seed=args.seed)
            for pol in standard_policies(CHEAP, STRONG)]
    if args.json:
        emit_json([r.to_json() for r in rows])
        return int(ExitCode.OK)
    t = Table("policy", "proved", "makespan", "cost (USD)", "USD / proved", "attempts", box=None)
    for r in rows:
        t.add_row(r.policy, f"{r.proved}/{len(dag.nodes)}", f"{r.makespan:.0f}",
                  f"{r.cost_usd:.2f}", f"{r.cost_usd / max(r.proved, 1):.3f}", str(r.attempts))
    console().print(t)
    return int(ExitCode.OK)


def _print_schedule(out, r: SimResult) -> None:
    t = Table("node", "worker", "start", "end", "attempt", "ok", box=None)
    for a in sorted(r.attempts, key=lambda a: (a.start, a.worker)):
        t.add_row(a.node, str(a.worker), f"{a.start:.1f}", f"{a.end:.1f}", str(a.attempt),
                  "yes" if a.ok else "FAIL")
    out.print(t)
    out.print(f"makespan {r.makespan:.1f}")


def _project(args: argparse.Namespace) -> int:
    from harness.orchestrator.simproject import compare_project, generate_project_dag

    if args.project < 1 or args.per_file < 1:
        raise UsageError("simulate: --project and --per-file need positive counts")
    dag = generate_project_dag(args.project, args.per_file, args.seed)
    r = compare_project(dag, args.workers, failure_rate=args.failure_rate, seed=args.seed,
                        gate_latency=args.gate_latency)
    if args.json:
        emit_json({"files": args.project, "nodes": len(dag.nodes), **r})
        return int(ExitCode.OK)
    out = console()
    out.print(f"{args.project} files, {len(dag.nodes)} nodes, {len(dag.edges)} edges; lower bound "
              f"{r['lower_bound']:.1f} = max(critical path {r['critical_path']:.1f}, work "
              f"{r['total_work']:.1f} / {args.workers})")
    out.print(f"one run over the project: makespan {r['one_run']:.1f}  ratio "
              f"{r['one_run_ratio']:.3f}")
    out.print(f"per-file runs in import order: makespan {r['per_file']:.1f}  ratio "
              f"{r['per_file_ratio']:.3f}")
    out.print(f"per file / one run = {r['gain']:.3f}")
    return int(ExitCode.OK)
