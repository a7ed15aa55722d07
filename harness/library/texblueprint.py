"""A leanblueprint LaTeX blueprint (`blueprint/src/**/*.tex`) -> each Lean name's blueprint
dependencies, as Lean names (pure: reads text, runs nothing).

What the macros mean (leanblueprint's plasTeX plugin, PatrickMassot/leanblueprint @ 56e066d
`leanblueprint/Packages/blueprint.py:99-108`: `\\lean{a, b}` is a comma list of Lean
declarations stored on the enclosing environment; its dependency graph comes from
PatrickMassot/plastexdepgraph @ e06ff82 `plastexdepgraph/Packages/depgraph.py`):

- `\\uses{l1, l2}` (depgraph.py:165-180) stores, on the environment it sits in, the nodes whose
  `\\label` is l1, l2 (an unknown label is an error there, skipped here);
- a `proof` environment proves the nearest theorem-like environment before it
  (`find_proved_thm`, depgraph.py:226-234), or the one `\\proves{label}` names (:209-222); the
  graph keeps the statement's uses (`edges`) apart from its proof's uses (`proof_edges`,
  :293-301).

This is the information LeanArchitect keeps in Lean (hanwenzhu/LeanArchitect @ 5eb7334
`Architect/Attribute.lean`): `uses := [...]` are the statement's dependencies and
`proofUses := [...]` the proof's (:132-141); both are *added to* the blueprint nodes the
statement / the proof actually use (`mkStatementPart`, `mkProofPart`, :162-196) — so a
LeanArchitect proof's uses are read off the finished proof, and a hand-written TeX proof's
`\\uses` is the author's plan of it: either way it names much of what the proof mentions
(docs/benchmarks.md, "Blueprint proximity, measured").
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path

# theorem-like environments (leanblueprint's `thms` option defaults, plus the common extras);
# a blueprint's own `\newtheorem{X}` declarations are added when read
KINDS = frozenset({"theorem", "lemma", "proposition", "corollary", "definition", "sublemma",
                   "conjecture", "claim", "remark", "example", "notation", "hypothesis",
                   "assumption", "axiom", "question", "problem", "fact", "principle"})
MATH = frozenset({"equation", "align", "gather", "multline", "eqnarray", "flalign", "alignat"})
MAX_FILES = 2_000
_NEWTHM = re.compile(r"\\newtheorem\*?\s*\{([A-Za-z]+)\}")
_TOKEN = re.compile(
    r"\\(?P<be>begin|end)\s*\{(?P<env>[A-Za-z]+)\*?\}"
    r"|\\(?P<cmd>label|lean|uses|proves)\s*\{(?P<arg>[^{}]*)\}"
    r"|\\(?P<ok>leanok)(?![A-Za-z])")
_COMMENT = re.compile(r"(?<!\\)%.*")


@dataclass
class Node:
    """One theorem-like environment and the proof that proves it."""
    kind: str
    file: str
    line: int
    labels: list[str] = field(default_factory=list)
    lean: list[str] = field(default_factory=list)
    uses: list[str] = field(default_factory=list)  # labels the statement uses
    proof_uses: list[str] = field(default_factory=list)  # labels the proof uses
    leanok: bool = False


@dataclass(frozen=True)
class Deps:
    """A Lean name's blueprint dependencies, as Lean names (itself never among them)."""
    statement: tuple[str, ...]
    proof: tuple[str, ...]


def _items(arg: str) -> list[str]:
    return [x.strip().replace("\\_", "_") for x in arg.split(",") if x.strip()]


def strip_comments(text: str) -> str:
    """TeX comments removed, line numbers kept (`\\%` is not a comment)."""
    return "\n".join(_COMMENT.sub("", ln) for ln in text.split("\n"))


def theorem_kinds(text: str) -> set[str]:
    """The environments a preamble declares with `\\newtheorem`."""
    return set(_NEWTHM.findall(strip_comments(text)))


@dataclass
class _Proof:
    target: Node | None
    proves: str | None = None
    uses: list[str] = field(default_factory=list)


def parse_tex(text: str, file: str = "", kinds: frozenset[str] | set[str] = KINDS
              ) -> tuple[list[Node], list[tuple[str, list[str]]]]:
    """(the file's nodes, [(label, proof uses)] of its `\\proves{label}` proofs). A proof with no
    `\\proves` belongs to the last node closed before it in the file; `\\label`, `\\lean`,
    `\\uses`, `\\leanok` belong to the innermost node or proof open around them (a `\\label`
    inside a displayed equation names the equation)."""
    text = strip_comments(text)
    nodes: list[Node] = []
    proves: list[tuple[str, list[str]]] = []
    stack: list[tuple[str, Node | _Proof | None]] = []
    last: Node | None = None
    for m in _TOKEN.finditer(text):
        if m["be"]:
            env = m["env"]
            if env != "proof" and env not in kinds and env not in MATH:
                continue
            if m["be"] == "begin":
                if env == "proof":
                    stack.append((env, _Proof(last)))
                elif env in MATH:
                    stack.append((env, None))  # a `\\label` in it names an equation
                else:
                    n = Node(env, file, text.count("\n", 0, m.start()) + 1)
                    nodes.append(n)
                    stack.append((env, n))
                continue
            while stack:  # close up to the matching begin (a stray end closes nothing)
                if stack[-1][0] == env:
                    _, top = stack.pop()
                    if top is None:
                        pass
                    elif isinstance(top, Node):
                        last = top
                    elif top.proves is not None:
                        proves.append((top.proves, top.uses))
                    elif top.target is not None:
                        top.target.proof_uses.extend(top.uses)
                    break
                if not any(e == env for e, _ in stack):
                    break
                stack.pop()
            continue
        if m["cmd"] == "label" and stack and stack[-1][1] is None:
            continue  # an equation's label, not the node's
        top = next((x for _, x in reversed(stack) if x is not None), None)
        if top is None:
            continue
        if m["ok"]:
            if isinstance(top, Node):
                top.leanok = True
            continue
        items = _items(m["arg"])
        cmd = m["cmd"]
        if cmd == "uses":
            top.uses.extend(items)
        elif cmd == "proves" and isinstance(top, _Proof) and items:
            top.proves = items[0]
        elif cmd == "label" and isinstance(top, Node):
            top.labels.extend(items)
        elif cmd == "lean" and isinstance(top, Node):
            top.lean.extend(items)
    return nodes, proves


def tex_files(root: Path) -> list[Path]:
    """The `.tex` files under ``root`` (sorted, at most MAX_FILES)."""
    return sorted(root.rglob("*.tex"))[:MAX_FILES]


def read_blueprint(root: Path) -> list[Node]:
    """Every node of the blueprint under ``root`` (a `blueprint/src` directory, or above it)."""
    texts: list[tuple[str, str]] = []
    for p in tex_files(root):
        try:
            texts.append((str(p.relative_to(root)), p.read_text(encoding="utf-8",
                                                                   errors="replace")))
        except OSError:
            continue
    kinds = set(KINDS).union(*(theorem_kinds(t) for _, t in texts))
    nodes: list[Node] = []
    proves: list[tuple[str, list[str]]] = []
    for rel, t in texts:
        n, p = parse_tex(t, rel, kinds)
        nodes.extend(n)
        proves.extend(p)
    by_label = _by_label(nodes)
    for label, uses in proves:
        if label in by_label:
            by_label[label].proof_uses.extend(uses)
    return nodes


def _by_label(nodes: list[Node]) -> dict[str, Node]:
    out: dict[str, Node] = {}
    for n in nodes:
        for label in n.labels:
            out.setdefault(label, n)  # a duplicate label: the first one wins
    return out


def dependencies(nodes: list[Node]) -> dict[str, Deps]:
    """Lean name (each name in a node's `\\lean{}`) -> the Lean names of the nodes its
    statement's `\\uses` and its proof's `\\uses` name (a label without a node, or a node
    without `\\lean`, adds nothing; the node's own names are never its dependencies)."""
    by_label = _by_label(nodes)

    def names(labels: list[str], own: set[str]) -> tuple[str, ...]:
        out = [x for lb in labels if lb in by_label for x in by_label[lb].lean]
        return tuple(dict.fromkeys(x for x in out if x not in own))

    out: dict[str, Deps] = {}
    for n in nodes:
        own = set(n.lean)
        deps = Deps(names(n.uses, own), names(n.proof_uses, own))
        for name in n.lean:
            old = out.get(name, Deps((), ()))  # a name in two nodes: both nodes' dependencies
            out[name] = Deps(tuple(dict.fromkeys(old.statement + deps.statement)),
                             tuple(dict.fromkeys(old.proof + deps.proof)))
    return out
