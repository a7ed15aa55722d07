"""Synthetic blueprints for tests and benchmarks: valid LeanArchitect text with a random DAG.

Node ``i`` may use any earlier node, so the result is acyclic; a fraction of nodes have complete
bodies (`by omega`) and some are definitions, like a real blueprint in progress.
"""

from __future__ import annotations

import random

HEADER = """import Architect

/-! # Generated blueprint ({n} nodes, seed {seed}) -/

set_option autoImplicit false

namespace Gen
"""


def generate_blueprint(n_nodes: int, seed: int = 0, *, proved_fraction: float = 0.2,
                       max_deps: int = 3, defs_every: int = 10) -> str:
    rng = random.Random(seed)
    parts = [HEADER.format(n=n_nodes, seed=seed)]
    names: list[str] = []
    theorems: list[str] = []
    for i in range(n_nodes):
        is_def = defs_every > 0 and i % defs_every == 0
        label_name = f"node_{i}"
        if is_def:
            parts.append(
                f'\n@[blueprint "def:node-{i}"\n'
                f"  (statement := /-- The function $f_{{{i}}}(n) = n + {i}$. -/)\n"
                f'  (title := /-- Definition {i} -/)\n  (latexEnv := "definition")]\n'
                f"def {label_name} (n : Nat) : Nat := n + {i}\n")
            names.append(label_name)
            continue
        pool = names[-200:]  # local structure, like real blueprints
        deps = rng.sample(pool, k=min(len(pool), rng.randint(0, max_deps))) if pool else []
        proof_deps = [d for d in deps if d in theorems]
        defs_used = [d for d in deps if d not in theorems]
        crefs = ", ".join(
            f"\\cref{{{'lem' if d in theorems else 'def'}:{d.replace('_', '-')}}}" for d in deps)
        lhs = " + ".join(f"{d} n" for d in defs_used) or "n"
        statement = f"{lhs} + 0 = {lhs}"
        if rng.random() < proved_fraction and not proof_deps:
            body = "by\n  omega"
        elif proof_deps:
            body = "by\n  sorry_using [" + ", ".join(proof_deps) + "]"
        else:
            body = "by\n  sorry"
        parts.append(
            f'\n@[blueprint "lem:node-{i}"\n'
            f"  (statement := /-- Claim {i}: ${statement.replace('_', '')}$. -/)\n"
            f"  (proof := /-- {('From ' + crefs + '.') if crefs else 'Direct.'} -/)\n"
            f'  (title := /-- Lemma {i} -/)\n  (latexEnv := "lemma")]\n'
            f"theorem {label_name} (n : Nat) : {statement} := {body}\n")
        names.append(label_name)
        theorems.append(label_name)
    parts.append("\nend Gen\n")
    return "".join(parts)
