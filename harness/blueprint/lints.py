"""Opt-in lints over a whole analysis (`--lint crefs`): LeanMarathon's proof-prose parity rule.
Above :mod:`harness.blueprint.dag` (it reads an :class:`Analysis`); the prose references it
checks come from :mod:`harness.blueprint.links`."""

from __future__ import annotations

from harness.blueprint.dag import Analysis
from harness.blueprint.model import Finding

LINTS = ("crefs",)


def file_of(a: Analysis, key: str) -> str:
    """The file a vertex is declared in (in directory mode the analysis's own path is the
    directory, which is no place to point a reader to)."""
    return a.graph.nodes[key].get("file") or a.blueprint.display_path


def lint_crefs(a: Analysis) -> list[Finding]:
    """LeanMarathon's parity rule (findings): the proof prose of each lemma/theorem node links
    exactly its lemma/theorem proof dependencies (definitions are exempt both ways), and every
    link resolves."""
    out: list[Finding] = []

    def proof_node(k: str) -> bool:
        return k in a.graph and a.decl(k).is_node and a.decl(k).kind.is_proof

    for key in a.own:
        d = a.decl(key)
        if not d.is_node:
            continue
        path = file_of(a, key)
        links = a.links.get(key, [])
        for link in links:
            if not link.resolved:
                out.append(Finding("lint-crefs", f"\\{link.macro}{{{link.target}}} in the "
                                   f"{link.where} of `{key}` names no node", path, d.pos, key))
        if not d.kind.is_proof:
            continue
        cited = {lk.target for lk in links if lk.where == "proof" and proof_node(lk.target)}
        used = {u for u in a.graph.predecessors(key)
                if "proof" in a.graph.edges[u, key]["kinds"] and proof_node(u)}
        for u in sorted(used - cited):
            out.append(Finding("lint-crefs", f"the proof of `{key}` uses `{u}` but its prose "
                               f"does not \\cref it", path, d.pos, key))
        for c in sorted(cited - used):
            out.append(Finding("lint-crefs", f"the proof prose of `{key}` cites \\cref{{{c}}}, "
                               "which its proof does not use", path, d.pos, key))
    return out


def run_lints(a: Analysis, lints: list[str] | None) -> list[Finding]:
    out: list[Finding] = []
    for name in dict.fromkeys(lints or []):
        if name == "crefs":
            out += lint_crefs(a)
    return out
