"""Final certification: a node is proved only when Lean's axiom report says so.

The static DAG (:mod:`harness.blueprint.dag`) says a node is proved when its body is complete and
every declaration its *text* names is proved. A proof can rest on a placeholder the text never
names — a `@[simp]` lemma that `simp` picks up, `h.symm` on a placeholder `h`, an `open NS in`
inside a tactic block — and the gate accepts `sorryAx` inherited from dependencies (the node is
proved *relative to* them). So the DAG is only the scheduler's guess; the claim is Lean's:

* :meth:`Certifier.axioms` compiles the record's text once with ``#print axioms`` of every node
  (:func:`harness.lean.verdict.check_file`); a node is *clean* when its axioms are within
  ``propext``/``Classical.choice``/``Quot.sound``.
  The same compile writes an `.olean` that Lean reads back (:mod:`harness.gate.declared`):
  every constant is replayed through the kernel, and the constants must be those the text
  declares (:func:`harness.gate.audit.check_text`). A kernel rejection leaves *no* node clean;
  any Lean error anywhere in the file, or a constant the text does not explain, is an error of
  the certification (status "contradicted": the run cannot exit 0).
* :func:`contradictions`: statically proved nodes that are not clean.
* :meth:`Certifier.used` asks Lean which declarations those nodes really use
  (:mod:`harness.lean.usedconsts`); :func:`reopen` turns each contradiction into a hidden edge
  ``culprit -> node`` (the node waits for it) or, when Lean names no unproved declaration, a
  distrusted node (blocked, with the reason).
* :func:`apply_lean_view` puts the hidden edges and distrusted nodes into an analysis, so the
  scheduler, the live view and ``result.json`` agree with Lean. They are persisted as
  ``reopened`` events in the run's event log.

Stage 2 certifies the record's head whenever its scheduler has nothing left to do (so a node is
re-checked once its dependencies close) and ``harness run`` exits 0 only after a certification
of the final head in which every node is clean.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Iterable

import networkx as nx

from harness.blueprint.dag import Analysis
from harness.blueprint.parse import parse_text
from harness.lean.messages import forbidden_axioms

Status = str  # "clean" | "contradicted" | "cannot certify" | "not run"


@dataclass
class Certification:
    axioms: dict[str, list[str] | None]  # node key -> Lean's axioms (None: an error, no report)
    errors: list[str] = field(default_factory=list)  # Lean errors outside every node
    kernel_ok: bool = True  # every constant of the file passed the kernel replay
    used: dict[str, list[str]] = field(default_factory=dict)  # key -> names (blueprint.confirmed)

    @property
    def clean(self) -> set[str]:
        if not self.kernel_ok:  # "proved" means the kernel checked it
            return set()
        return {k for k, ax in self.axioms.items() if ax is not None and not forbidden_axioms(ax)}


@dataclass
class Reopened:
    node: str
    reason: str
    culprits: list[str]  # hidden edges culprit -> node; empty: the node is distrusted (blocked)


class Certifier:
    """One Lean toolchain and workspace; every call is one compile (CannotCertify on failure)."""

    def __init__(self, path: Path, tc: Any, workspace: Path, timeout_s: float | None) -> None:
        self.path, self.tc, self.workspace, self.timeout_s = path, tc, workspace, timeout_s
        self.targets: list[str] = []  # imported declarations' names: used-constants targets

    def _kw(self) -> dict[str, Any]:
        return {"timeout_s": self.timeout_s} if self.timeout_s else {}

    def axioms(self, text: str) -> Certification:
        from harness.gate.declared import compile_audited
        from harness.lean.verdict import check_file

        bp = parse_text(text, self.path)
        keys = [d.key for d in bp.nodes if d.name]
        if not keys:
            return Certification({})
        v = check_file(self.tc, self.workspace, bp, labels=keys, audit=compile_audited, used=keys,
                       used_targets=[*self.targets, *(d.name for d in bp.decls if d.name)],
                       **self._kw())
        errors = [m.line(bp.display_path) for m in v.errors_anywhere]
        kernel_ok = True  # a file with errors is not audited; the errors already fail it
        if v.audit is not None:
            from harness.gate.audit import check_text

            kernel_ok = v.audit.kernel_ok
            for p in check_text(bp, v.audit):
                pos = bp.pos_of(p.offset)
                errors.append(f"{bp.display_path}:{pos.line}:{pos.col}: lean: {p.message}")
        return Certification({n.key: (n.axioms if n.status != "error" else None)
                              for n in v.nodes}, errors, kernel_ok, v.used or {})

    def used(self, text: str, keys: list[str], extra: dict[str, str] | None = None
             ) -> dict[str, list[str]]:
        """node key -> keys of the declarations it uses (absent: Lean did not answer). The
        targets are the file's declarations and ``extra`` (name -> key: imported nodes)."""
        from harness.lean.verdict import check_file

        bp = parse_text(text, self.path)
        by_name = {**(extra or {}), **{d.name: d.key for d in bp.decls if d.name}}
        v = check_file(self.tc, self.workspace, bp, labels=keys, used=keys,
                       used_targets=list(by_name), **self._kw())
        return {k: [by_name[n] for n in names if n in by_name]
                for k, names in (v.used or {}).items()}


def contradictions(a: Analysis, cert: Certification) -> list[str]:
    """Nodes the DAG counts as proved whose Lean axiom report is not clean."""
    clean = cert.clean
    return [k for k in a.own if k in a.proved and k in cert.axioms and k not in clean]


def reopen(a: Analysis, cert: Certification, bad: list[str],
           used: dict[str, list[str]]) -> list[Reopened]:
    """Why each contradicted node is not proved, and the hidden edges Lean revealed."""
    clean = cert.clean
    out = []
    for k in bad:
        d = a.decl(k)
        axioms = ", ".join(cert.axioms.get(k) or []) or "no axiom report"
        head = (f"Lean's axiom report for `{d.name}` is not clean ({axioms}) although every "
                "declaration its text names is proved")
        if k not in used:
            out.append(Reopened(k, f"{head}; Lean could not list the declarations it uses", []))
            continue
        culprits = [u for u in used[k] if u != k and not _lean_proved(a, u, cert, clean)]
        if culprits:
            names = ", ".join(f"`{a.decl(u).name or u}`" for u in culprits[:5])
            out.append(Reopened(k, f"{head}: it uses {names} (not named in its text), which "
                                "is not proved; it stays open until that is", culprits))
        else:
            out.append(Reopened(k, f"{head}, and Lean names no unproved declaration it uses",
                                []))
    return out


def _lean_proved(a: Analysis, key: str, cert: Certification, clean: set[str]) -> bool:
    if key in cert.axioms:  # a node: Lean's word
        return key in clean
    return key in a.proved  # a context declaration: no report of its own; complete and proved


def reopened_events(events: Iterable[dict[str, Any]]) -> dict[str, dict[str, Any]]:
    """node -> its latest `reopened` event; a later `certified` event in which the node is
    clean clears it (its hidden dependency closed)."""
    out: dict[str, dict[str, Any]] = {}
    for e in events:
        if e.get("kind") == "reopened":
            out[e["node"]] = e
        elif e.get("kind") == "certified":
            for k in e.get("clean", []):
                out.pop(k, None)
    return out


def lean_backed(events: Iterable[dict[str, Any]]) -> set[str]:
    """The nodes whose latest word from Lean is a clean axiom report: clean in a `certified`
    event and neither dirty in a later one nor re-opened since. Only these are reported proved."""
    out: set[str] = set()
    for e in events:
        if e.get("kind") == "certified":
            out |= set(e.get("clean", []))
            out -= set(e.get("dirty", {}))
        elif e.get("kind") == "reopened":
            out.discard(e.get("node"))
    return out


def apply_lean_view(a: Analysis, reopened: dict[str, dict[str, Any]]) -> None:
    """Add the hidden edges to ``a.graph`` and drop from ``a.proved`` every node Lean does not
    back: a distrusted node, a node with a hidden unproved dependency, and what rests on them."""
    g = a.graph
    not_proved: set[str] = set()
    for node, ev in reopened.items():
        if node not in g:
            continue
        culprits = [u for u in ev.get("culprits", []) if u in g and u != node]
        if not culprits:
            not_proved.add(node)
        for u in culprits:
            if not g.has_edge(u, node):
                g.add_edge(u, node, kinds=frozenset({"proof", "hidden"}))
    changed = True
    while changed:  # hidden edges can chain: iterate to a fixed point
        changed = False
        for node, ev in reopened.items():
            if node in g and node not in not_proved and any(
                    u in g and (u not in a.proved or u in not_proved)
                    for u in ev.get("culprits", [])):
                not_proved.add(node)
                changed = True
    if not not_proved:
        return
    drop = set(not_proved)
    for k in not_proved:
        drop |= nx.descendants(g, k)
    a.proved -= drop
