"""A generated Mathlib-shaped source tree, for the index and premise benchmarks (never committed).

Shape (defaults ≈ Mathlib: 7 000 files, ~250 000 declarations, ~90 MB): `Mathlib/<Area>/<Topic>/
<File>.lean`, each file a namespace about one concept with a few definitions and ~33 lemmas;
docstrings on half of them, `@[simp]`, `@[to_additive]`, `private` and `protected` ones, `open`s,
and tactic proofs that use 1–4 earlier lemmas — mostly of the same file, the rest of files it
"imports" (earlier files of the same area), preferring lemmas about the constants the statement
mentions (as real proofs do). The premises a proof uses are known from its text.
"""

from __future__ import annotations

import random
from pathlib import Path

AREAS = ["Algebra", "Analysis", "MeasureTheory", "Topology", "Order", "Data", "Probability",
         "NumberTheory", "LinearAlgebra", "Combinatorics", "Geometry", "CategoryTheory"]
SYL = ["sub", "gauss", "cov", "ring", "norm", "mart", "tail", "haar", "lip", "chain", "cone",
       "fil", "pol", "dual", "frac", "grad", "hyp", "orb", "quot", "simp", "tens", "ultra",
       "vol", "wedge", "zet", "ent", "mono", "bor", "cau", "dir"]
OPS = ["mul", "add", "le", "lt", "comm", "assoc", "mono", "pos", "nonneg", "exp", "log",
       "integral", "sum", "map", "comp", "inv", "zero", "one", "bound", "tail", "norm", "sup",
       "inf", "card", "measure", "dist", "limit", "deriv", "prod", "symm"]
RELS = ["le", "lt", "eq", "iff", "ne", "ge"]
WORDS = ["bounded", "tail", "estimate", "measurable", "continuous", "finite", "monotone",
         "integrable", "converges", "sum", "product", "norm", "inequality", "expectation",
         "variance", "exponential", "logarithm", "compact", "dense", "closed", "open", "cover"]


def _concept(rng: random.Random) -> str:
    return "".join(rng.choice(SYL).capitalize() for _ in range(rng.randint(2, 3)))


def generate_tree(root: Path, n_files: int = 7_000, decls_per_file: int = 33,
                  seed: int = 0, prefix: str = "Mathlib") -> dict:
    """Write the tree under ``root``; returns counts (files, declarations, bytes)."""
    rng = random.Random(seed)
    files: list[tuple[str, str, list[tuple[str, list[str]]]]] = []  # module, concept, lemmas
    n_decls = n_bytes = 0
    for i in range(n_files):
        area = AREAS[i % len(AREAS)]
        topic = f"Topic{(i // len(AREAS)) % 60}"
        concept = _concept(rng) + str(i)
        module = f"{prefix}.{area}.{topic}.{concept}"
        same_area = [f for f in files[-4 * len(AREAS):] if f[0].split(".")[1] == area]
        imports = rng.sample(same_area, min(len(same_area), 3))
        text, lemmas, count = _file(rng, module, concept, imports)
        path = root / (module.replace(".", "/") + ".lean")
        path.parent.mkdir(parents=True, exist_ok=True)
        data = text.encode()
        path.write_bytes(data)
        n_bytes += len(data)
        n_decls += count
        files.append((module, concept, lemmas))
        if len(files) > 8 * len(AREAS):
            files.pop(0)
    return {"files": n_files, "decls": n_decls, "bytes": n_bytes}


def _file(rng: random.Random, module: str, concept: str,
          imports: list[tuple[str, str, list[tuple[str, list[str]]]]]
          ) -> tuple[str, list[tuple[str, list[str]]], int]:
    defs = [f"{concept}.{op}" for op in rng.sample(OPS, 4)]
    other = [(c, lem) for _, c, lems in imports for lem in lems]
    other_defs = sorted({c for _, _, ls in imports for _, cs in ls for c in cs})
    out = [f"import {m}" for m, _, _ in imports] or ["import Mathlib.Init"]
    out += ["", "/-!", f"# {concept}", "", "Generated for benchmarks.", "-/", "",
            "open Real Finset" if rng.random() < 0.5 else "open Filter", "",
            f"namespace {concept}", "", "variable {α : Type*} [LinearOrder α]", ""]
    count = 0
    for d in defs:
        short = d.rsplit(".", 1)[1]
        out += [f"/-- The {short} of a {concept.lower()}. -/",
                f"def {short} (x : ℝ) : ℝ := x + {rng.randint(1, 9)}", ""]
        count += 1
    lemmas: list[tuple[str, list[str]]] = []
    for j in range(33 if len(defs) else 0):
        a, b = rng.sample(defs, 2)
        ext = rng.choice(other_defs) if other_defs and rng.random() < 0.5 else None
        rel = rng.choice(RELS)
        name = f"{a.rsplit('.', 1)[1]}_{b.rsplit('.', 1)[1]}_{rel}{j}"
        consts = [a, b] + ([ext] if ext else [])
        rhs = f"{ext} y" if ext else f"{b} y"
        sig = f"(x y : ℝ) (h : {a} x ≤ y) : {b} ({a} x) ≤ {rhs}"
        # premises: lemmas about the same constants first (same file, then imported files)
        local = [lem for lem in lemmas if set(lem[1]) & set(consts)] or lemmas
        remote = [lem for _, lem in other if set(lem[1]) & set(consts)] or [lem for _, lem in
                                                                            other]
        prem: list[str] = []
        for _ in range(rng.randint(1, 4)):
            pool = remote if remote and rng.random() < 0.4 else local
            if pool:
                prem.append(rng.choice(pool)[0])
        prem = list(dict.fromkeys(prem))
        attrs = []
        if rng.random() < 0.1:
            attrs.append("simp")
        mods = ""
        r = rng.random()
        if r < 0.02:
            mods = "private "
        elif r < 0.05:
            mods = "protected "
        if rng.random() < 0.5:
            words = " ".join(rng.sample(WORDS, 3))
            out.append(f"/-- The {b.rsplit('.', 1)[1]} of {a.rsplit('.', 1)[1]} is {words}. -/")
        if rng.random() < 0.04:
            attrs.append("to_additive")
            name = f"mul_{name}"
        if attrs:
            out.append(f"@[{', '.join(attrs)}]")
        out.append(f"{mods}theorem {name} {sig} := by")
        if prem:
            shown = [p.removeprefix(concept + ".") for p in prem]  # local ones by short name
            out.append(f"  have h1 := {shown[0]} x y")
            if len(shown) > 1:
                out.append(f"  simp only [{', '.join(shown[1:])}] at h1 ⊢")
        out += ["  nlinarith [h, sq_nonneg (x - y)]", ""]
        full = f"{concept}.{name}"
        count += 1 + ("to_additive" in attrs)
        if mods != "private ":
            lemmas.append((full, consts))
    out += [f"end {concept}", ""]
    return "\n".join(out), lemmas, count
