"""Ordinary declarations in a generated project: the shape of a real LeanArchitect project.

Real projects have ~9 ordinary declarations per blueprint node (issue #21: 978 nodes, 8 008
others). :func:`generate_project_with_helpers` writes :func:`genproject.generate_project`'s
project and then moves every theorem node's uses of other nodes (`have := x.mp` in a proof, the
`sorry_using` list of an open body) into helper theorems declared just before it, chained to
``per_node`` helpers, so that a node reaches the nodes it uses only *through* ordinary
declarations — the edges LeanArchitect projects. Open bodies stay canonical placeholders.
"""

from __future__ import annotations

from pathlib import Path

from harness.blueprint.genproject import generate_project


def add_helpers(text: str, per_node: int) -> tuple[str, int]:
    """The file with helpers before each theorem node, and how many were added."""
    lines = text.split("\n")
    out: list[str] = []
    added = i = 0
    while i < len(lines):
        if not lines[i].startswith('@[blueprint "lem:'):
            out.append(lines[i])
            i += 1
            continue
        j = i
        while not lines[j].startswith("theorem "):
            j += 1
        name = lines[j].split()[1]
        k = j + 1
        body = []
        while k < len(lines) and lines[k].startswith("  "):
            body.append(lines[k])
            k += 1
        helpers: list[str] = []
        kept: list[str] = []
        placeholder = len(body) == 1 and body[0].startswith("  sorry")
        cited = body[0].strip()[len("sorry_using ["):-1].split(", ") if placeholder \
            and body[0].startswith("  sorry_using [") else []
        terms = [f"{c}.mp" for c in cited]  # an open body: its `sorry_using` names them
        for step in body:
            if step.startswith("  have := "):
                terms.append(step[len("  have := "):])
            else:
                kept.append(step)
        for term in terms:
            helpers.append(f"theorem {name}_h{len(helpers)} : True := by\n  have := {term}\n"
                           f"  trivial\n")
        moved = len(helpers)
        while len(helpers) < per_node:  # a chain: each helper uses the one before
            h = len(helpers)
            helpers.append(f"theorem {name}_h{h} : True := " +
                           (f"by\n  have := {name}_h{h - 1}\n  trivial\n" if h else "trivial\n"))
        # the node uses each moved helper and the chain's end (after its shadowing `have`; an
        # open body stays the gate's canonical placeholder, citing them)
        uses = [*range(moved), *([len(helpers) - 1] if len(helpers) > moved else [])]
        if placeholder:
            kept = ["  sorry_using [" + ", ".join(f"{name}_h{x}" for x in uses) + "]"]
        else:
            kept[1:1] = [f"  have := {name}_h{x}" for x in uses]
        out.extend(helpers)
        out.extend(lines[i:j + 1])
        out.extend(kept)
        added += len(helpers)
        i = k
    return "\n".join(out), added


def generate_project_with_helpers(root: Path, n_files: int = 167, nodes_per_file: int = 6,
                                  per_node: int = 11, seed: int = 0) -> dict:
    """Defaults: ~1 000 blueprint nodes and ~9 000 ordinary declarations in 167 modules."""
    info = generate_project(root, n_files, nodes_per_file, seed=seed)
    helpers = 0
    for path in sorted((root / "Gen").rglob("*.lean")):
        text, n = add_helpers(path.read_text(encoding="utf-8"), per_node)
        path.write_text(text, encoding="utf-8")
        helpers += n
    return {**info, "helpers": helpers}
