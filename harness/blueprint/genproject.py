"""A synthetic multi-file LeanArchitect project (tests, `harness bench project`).

``generate_project(root, 199)`` writes a Lake workspace with 199 blueprint modules under
`Gen/`, each in its own namespace, each importing a few earlier modules (local structure, like
a real project's layers), and a root module `Gen.lean` that only imports. Nodes use earlier
nodes by Lean name (qualified, or through `open`), by projection (`foo.mp`), by `sorry_using`,
by string `uses` to a label of a module *not* imported, and link to labels in prose; local
binders in proofs reuse node names. Open bodies are the gate's canonical placeholders (`by
sorry` / `by sorry_using [..]`), so the real gate accepts the generated record as it is. The DAG
is acyclic by construction.
"""

from __future__ import annotations

import random
import time
from pathlib import Path

LAKEFILE = "import Lake\nopen Lake DSL\n\npackage gen\n\nlean_lib Gen\n"


def module(i: int) -> str:
    return f"Gen.Layer{i // 20:02d}.File{i:03d}"


def generate_project(root: Path, n_files: int = 199, nodes_per_file: int = 6, seed: int = 0,
                     proved_fraction: float = 0.25) -> dict:
    rng = random.Random(seed)
    root.mkdir(parents=True, exist_ok=True)
    (root / "lakefile.lean").write_text(LAKEFILE, encoding="utf-8")
    nodes: list[list[tuple[str, str, bool]]] = []  # per file: (lean name, label, is_thm)
    n_nodes = n_edges = 0
    for i in range(n_files):
        ns = f"Gen.F{i:03d}"
        pool = list(range(max(0, i - 30), i))
        imported = sorted(rng.sample(pool, k=min(len(pool), rng.randint(1, 3)))) if pool else []
        lines = ["import Architect"] + [f"import {module(j)}" for j in imported]
        lines += ["", f"/-! # Generated module {i} -/", "", "set_option autoImplicit false", "",
                  f"namespace {ns}", ""]
        if imported:
            lines += [f"open Gen.F{imported[-1]:03d}", ""]
        visible = [(j, k) for j in imported for k in range(len(nodes[j]))]
        mine: list[tuple[str, str, bool]] = []
        for k in range(nodes_per_file):
            name, label = f"node{k}", f"f{i:03d}-{k}"
            if k == 0:
                lines += [f'@[blueprint "def:{label}" (statement := /-- Definition {i}.{k}. -/)]',
                          f"def {name} (n : Nat) : Nat := n + {k}", ""]
                mine.append((f"{ns}.{name}", f"def:{label}", False))
                n_nodes += 1
                continue
            uses: list[str] = []
            terms: list[str] = []
            for j, kk in rng.sample(visible, k=min(len(visible), rng.randint(0, 2))):
                full, _, thm = nodes[j][kk]
                short = full.rsplit(".", 1)[1] if j == imported[-1] else full
                terms.append(f"{short}.mp" if thm else f"({short} 0 = {short} 0)")
                uses.append(full)
            if k > 1 and rng.random() < 0.5:  # an earlier node of this module, unqualified
                terms.append(f"(node{k - 1}.mp)" if mine[k - 1][2] else "(node0 1 = node0 1)")
                uses.append(mine[k - 1][0])
            far = [j for j in range(max(0, i - 60), i) if j not in imported]
            opts = [f"(statement := /-- Claim {i}.{k}. -/)"]
            if far and rng.random() < 0.3:  # a label of a module this one does not import
                j = rng.choice(far)
                opts.append(f'(uses := ["{nodes[j][0][1]}"])')
                n_edges += 1
            if far and rng.random() < 0.3:
                opts.append(f"(proof := /-- See \\cref{{{nodes[rng.choice(far)][-1][1]}}}. -/)")
            props = [t for t in terms if ".mp" not in t] or ["True"]
            statement = f"({' ∧ '.join(props)}) ↔ ({' ∧ '.join(props)})"
            thms = [u for u, t in zip(uses, terms) if ".mp" in t]
            if rng.random() < proved_fraction:
                steps = ["have node0 : True := trivial"]  # a local shadowing the definition
                steps += [f"have := {t.strip('()')}" for t in terms if ".mp" in t]
                steps.append("exact Iff.rfl")
            else:  # the gate's canonical placeholder (gate/forbidden.py `claims_proved`): an
                # open body with anything else in it claims to be complete. It cites what a
                # proof's `have := x.mp` would reach: a short name an earlier node of this
                # module also has is read as that node (as the dependency analysis reads it)
                local = {f.rsplit(".", 1)[1]: f for f, _, _ in mine}
                shadowed = [local[t[:-3]] for t in terms if t.endswith(".mp") and t[:-3] in local]
                cited = list(dict.fromkeys(thms + shadowed))
                steps = ["sorry_using [" + ", ".join(cited) + "]" if cited else "sorry"]
            body = "by\n  " + "\n  ".join(steps)
            n_edges += len(set(uses))
            lines += [f'@[blueprint "lem:{label}"', "  " + "\n  ".join(opts) + "]",
                      f"theorem {name} : {statement} := {body}", ""]
            mine.append((f"{ns}.{name}", f"lem:{label}", True))
            n_nodes += 1
        lines += [f"end {ns}", ""]
        nodes.append(mine)
        path = root.joinpath(*module(i).split(".")).with_suffix(".lean")
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text("\n".join(lines), encoding="utf-8")
    (root / "Gen.lean").write_text(
        "\n".join(f"import {module(i)}" for i in range(n_files)) + "\n", encoding="utf-8")
    return {"files": n_files, "nodes": n_nodes, "edges_written": n_edges}


def project_benchmark(n_files: int = 199, nodes_per_file: int = 6, repeat: int = 3,
                      baseline: bool = True) -> dict:
    """Best-of-``repeat`` times for the project-wide DAG against the per-file way (each file
    parsed with its import closure, as `plan FILE` for every file does), in this process."""
    import gc
    import tempfile

    from harness.blueprint.dag import analyse
    from harness.blueprint.imports import load_imports
    from harness.blueprint.project import ParseCache, lean_files, load_project
    from harness.blueprint.source import parse_file

    def best(fn) -> tuple[float, float, object]:
        wall = cpu = float("inf")
        out = None
        for _ in range(max(1, repeat)):
            gc.collect()
            w0, c0 = time.perf_counter(), time.process_time()
            out = fn()
            wall = min(wall, time.perf_counter() - w0)
            cpu = min(cpu, time.process_time() - c0)
        return wall, cpu, out

    with tempfile.TemporaryDirectory(prefix="harness-bench-") as tmp:
        root = Path(tmp)
        info = generate_project(root, n_files, nodes_per_file)
        wall, cpu, a = best(lambda: load_project(root / "Gen.lean", root, ParseCache()))
        result = {"benchmark": "project", **info, "analysed_nodes": len(a.own),
                  "graph_edges": a.graph.number_of_edges(), "findings": len(a.findings),
                  "project_wall_s": round(wall, 3), "project_cpu_s": round(cpu, 3)}

        def status() -> int:  # what `status DIR --json` does after start-up: DAG, rows, JSON
            import json

            from harness.report.summary import node_dict
            an = load_project(root / "Gen", root, ParseCache())
            rows = [node_dict(an, k) for k in an.own if an.decl(k).is_node]
            return len(json.dumps({"nodes": rows}, indent=2, ensure_ascii=False, default=str))
        swall, scpu, _ = best(status)
        result.update({"status_wall_s": round(swall, 3), "status_cpu_s": round(scpu, 3)})
        if baseline:
            files = [p for p in lean_files(root / "Gen")]

            def per_file() -> int:
                n = 0
                for p in files:
                    bp = parse_file(p)
                    n += len(analyse(bp, load_imports(bp, root)).own)
                return n
            bwall, bcpu, _ = best(per_file)
            result.update({"per_file_wall_s": round(bwall, 3), "per_file_cpu_s": round(bcpu, 3),
                           "cpu_ratio": round(bcpu / cpu, 2) if cpu else None})
    return result
