"""`harness bench WHAT`: the figures in docs/benchmarks.md.

- parse: parse + plan on a generated blueprint of N nodes and of scale x N nodes;
- context: prover context size against the whole file (agents.context);
- merge: orchestrator overhead per merge, git + bookkeeping (orchestrator.benchmark);
- schedule: pipelined scheduler vs barrier rounds vs the lower bound (orchestrator.benchmark);
- project: the project-wide DAG of a generated --files-module project, against analysing each
  file with its import closure (blueprint.genproject).
- graph: layout time of the blueprint graph, dot vs igraph vs the layered engine, 100 / 1000 /
  5000 nodes, and a ~1 000-node project with ~9 000 ordinary declarations (report.benchmark;
  --nodes N: one size; --files N: the project's modules, 0: none);
- index: the library index on a generated Mathlib-sized tree (library.benchmark; --files N);
- premises: premise recall@1/@10 and ms/query of the ranker vs plain BM25 on a Lean tree
  (`--corpus DIR`, or a generated one of --files N files; library.premises);
- warm: a cold `check_node` against a warm REPL per goal query (needs --lake);
- executor: the same generated run on local threads and on Ray here, equal workers
  (cluster.bench; needs the `ray` extra).
"""

from __future__ import annotations

import argparse
import gc
import sys
import threading
import time
from pathlib import Path

from harness.blueprint import parse_text
from harness.blueprint.dag import analyse
from harness.blueprint.generate import generate_blueprint
from harness.errors import UsageError
from harness.report.output import console, emit_json, err_console


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("bench", help="benchmarks (parse: parse + plan on generated blueprints)",
                       description=__doc__)
    p.add_argument("what",
                   choices=["parse", "context", "merge", "schedule", "project", "graph",
                            "index", "premises", "executor", "warm"],
                   help="which benchmark")
    p.add_argument("--nodes", type=int, default=None,
                   help="nodes (default: parse 5000, context 3000, merge 1000, schedule 258)")
    p.add_argument("--no-baseline", action="store_true",
                   help="project: skip the (slow) per-file baseline")
    p.add_argument("--scale", type=int, default=10, help="size factor for the scaling run")
    p.add_argument("--workers", type=int, default=2, help="executor: parallel attempts")
    p.add_argument("--lake", help="warm: the lake to measure with")
    p.add_argument("--attempt-s", type=float, default=1.0,
                   help="executor: mean synthetic attempt length in seconds")
    p.add_argument("--repeat", type=int, default=3, help="runs per size (best is kept)")
    p.add_argument("--corpus", type=Path, default=None, metavar="DIR",
                   help="premises: the Lean tree to measure (default: a generated one)")
    p.add_argument("--files", type=int, default=None,
                   help="project: modules (default 199); index: generated files (default "
                        "7000); premises: generated corpus size (default 700)")
    p.add_argument("--sample", type=int, default=500, help="premises: theorems queried")
    p.add_argument("--blueprint", type=Path, action="append", default=None, metavar="FILE",
                   help="context: what the library index adds on these blueprint files")
    p.add_argument("--declared", action="store_true",
                   help="premises: also count `sorry_using [...]` lists as gold (blueprints)")
    p.add_argument("--tex-blueprint", type=Path, default=None, metavar="DIR",
                   help="premises: a leanblueprint LaTeX source directory (blueprint/src); "
                        "adds `search --for` with and without the nodes' \\uses")
    p.add_argument("--json", action="store_true")
    p.set_defaults(func=run)


class BenchProgress:
    """What a benchmark is doing and for how long, on stderr (stdout keeps the result): a live
    line on a terminal, else a line per step and one every HEARTBEAT_S seconds."""

    HEARTBEAT_S = 15.0

    def __init__(self, what: str) -> None:
        self.what, self.t0, self.current = what, time.perf_counter(), ""
        self.con = err_console()
        self.live = self.con.status(f"bench {what}…") if self.con.is_terminal else None
        self.done = threading.Event()
        self.beat = threading.Thread(target=self._beat, daemon=True)

    def __enter__(self) -> BenchProgress:
        if self.live is not None:
            self.live.start()
        self.beat.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.done.set()
        self.beat.join(timeout=1.0)
        if self.live is not None:
            self.live.stop()
        self._say(f"done in {time.perf_counter() - self.t0:.1f} s")

    def step(self, text: str) -> None:
        self.current = text
        self._say(text)

    def _say(self, text: str) -> None:
        line = f"bench {self.what}: {text}"
        if self.live is not None:
            self.live.update(f"{line} ({time.perf_counter() - self.t0:.0f} s)")
        else:
            print(line, file=sys.stderr, flush=True)

    def _beat(self) -> None:
        while not self.done.wait(1.0 if self.live is not None else self.HEARTBEAT_S):
            elapsed = time.perf_counter() - self.t0
            if self.live is not None:
                self.live.update(f"bench {self.what}: {self.current} ({elapsed:.0f} s)")
            else:
                print(f"bench {self.what}: {self.current}, {elapsed:.0f} s so far", file=sys.stderr,
                      flush=True)


def measure(n_nodes: int, repeat: int) -> dict:
    """Best of ``repeat`` runs of parse + analyse. Like `timeit`, garbage from earlier runs is
    collected first and the cyclic GC is off while timing, so a full collection that happens to
    fall inside one run (and not the other) does not decide the ratio."""
    text = generate_blueprint(n_nodes, seed=1)
    best_wall = best_cpu = float("inf")
    for _ in range(max(1, repeat)):
        gc.collect()
        gc.disable()
        try:
            w0, c0 = time.perf_counter(), time.process_time()
            result = analyse(parse_text(text, "bench.lean"))
            best_wall = min(best_wall, time.perf_counter() - w0)
            best_cpu = min(best_cpu, time.process_time() - c0)
        finally:
            gc.enable()
        del result
    return {"nodes": n_nodes, "bytes": len(text.encode()), "wall_s": round(best_wall, 4),
            "cpu_s": round(best_cpu, 4)}


def run(args: argparse.Namespace) -> int:
    if args.nodes is not None and args.nodes < 1:
        raise UsageError("bench: --nodes must be at least 1")
    if args.scale < 2 or args.repeat < 1:
        raise UsageError("bench: --scale must be at least 2 and --repeat at least 1")
    if args.what != "parse":
        return run_other(args)
    nodes = args.nodes or 5000
    with BenchProgress("parse") as progress:
        progress.step(f"{nodes} nodes (1/2)")
        base = measure(nodes, args.repeat)
        progress.step(f"{nodes * args.scale} nodes (2/2)")
        big = measure(nodes * args.scale, max(1, args.repeat // 2))
    result = {"benchmark": "parse+plan", "base": base, "scaled": big,
              "cpu_ratio": round(big["cpu_s"] / base["cpu_s"], 2),
              "wall_ratio": round(big["wall_s"] / base["wall_s"], 2), "scale": args.scale}
    if args.json:
        emit_json(result)
        return 0
    out = console()
    for r in (base, big):
        out.print(f"{r['nodes']:>7} nodes, {r['bytes'] / 1e6:6.2f} MB: wall {r['wall_s']:.3f} s, "
                  f"cpu {r['cpu_s']:.3f} s")
    out.print(f"{args.scale}x the nodes costs {result['cpu_ratio']}x the CPU time "
              f"({result['wall_ratio']}x wall)")
    return 0


def run_other(args: argparse.Namespace) -> int:
    with BenchProgress(args.what) as progress:
        progress.step("running")
        result = _other(args)
    if args.json:
        emit_json(result)
    else:
        import json

        console().print_json(json.dumps(result, default=str))
    return 0


def _other(args: argparse.Namespace) -> dict:
    if args.what in ("index", "premises"):
        return _library(args)
    if args.what == "context" and args.blueprint:
        from harness.library.benchmark import context_effect
        from harness.library.cli_support import workspace_of

        return context_effect(args.blueprint, workspace_of(args.blueprint[0]))
    if args.what == "context":
        from harness.agents.context import context_benchmark

        result = context_benchmark(args.nodes or 3000, seed=0, sample=50)
    elif args.what == "project":
        from harness.blueprint.genproject import project_benchmark

        args.files = 199 if args.files is None else args.files
        if args.files < 1:
            raise UsageError("bench: --files must be at least 1")
        result = project_benchmark(args.files, args.nodes or 6, args.repeat,
                                   baseline=not args.no_baseline)
    elif args.what == "merge":
        from harness.orchestrator.benchmark import merge_overhead

        result = merge_overhead(args.nodes or 1000)
    elif args.what == "graph":
        from harness.report.benchmark import graph_layout

        result = graph_layout([args.nodes] if args.nodes else [100, 1000, 5000], args.repeat,
                              project_files=167 if args.files is None else args.files)
    elif args.what == "warm":  # what a node's warm REPL saves per goal query
        from harness.cluster.bench import warm_lean_saving

        if not args.lake:
            raise UsageError("bench warm: give --lake PATH (a real lake, or tests/fakes/lake)")
        result = warm_lean_saving(args.lake)
    elif args.what == "executor":  # local threads vs a Ray instance here (needs the extra)
        from harness.cluster.bench import executor_benchmark

        result = executor_benchmark(args.nodes or 40, workers=args.workers,
                                    mean_s=args.attempt_s)
    else:
        from harness.orchestrator.benchmark import scheduling

        result = scheduling(args.nodes or 258)
    return result


def _library(args: argparse.Namespace) -> dict:
    if args.what == "index":
        from harness.library.benchmark import index_benchmark

        return index_benchmark(args.files or 7_000)
    import tempfile

    from harness.library.generate import generate_tree
    from harness.library.premises import recall_benchmark

    if args.corpus is not None:
        if not args.corpus.is_dir():
            raise UsageError(f"{args.corpus}: no such directory")
        if args.tex_blueprint is not None and not args.tex_blueprint.is_dir():
            raise UsageError(f"{args.tex_blueprint}: no such directory")
        return recall_benchmark(args.corpus, sample=args.sample, declared=args.declared,
                                tex_blueprint=args.tex_blueprint)
    with tempfile.TemporaryDirectory(prefix="harness-premises-corpus-") as tmp:
        info = generate_tree(Path(tmp), args.files or 700)
        out = recall_benchmark(Path(tmp), sample=args.sample)
        out["corpus"] = f"generated: {info['files']} files, {info['decls']} declarations"
        return out
