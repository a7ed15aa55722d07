"""Plain-data summaries of an analysis (shared by `plan`, `status`, `graph` and `--json`)."""

from __future__ import annotations

from collections import Counter
from typing import Any

from harness.blueprint.dag import Analysis
from harness.blueprint.views import node_uses
from harness.blueprint.model import Decl, Finding


def finding_dict(f: Finding) -> dict[str, Any]:
    return {"code": f.code, "message": f.message, "file": f.path, "line": f.pos.line,
            "col": f.pos.col, "label": f.label, "text": f.line()}


def node_dict(a: Analysis, key: str) -> dict[str, Any]:
    d: Decl = a.decl(key)
    parts = a.parts(key)
    deps = a.deps.get(key)
    bpa = d.blueprint
    open_part = next((p for p in parts if not p.status.is_complete), d)
    uses, proof_uses = node_uses(a, key)  # LeanArchitect's node-level view
    return {
        "key": key,
        "label": d.label,
        "name": d.name,
        # every Lean name of the node: its parts (a shared label) and `to_additive` twins
        "names": list(dict.fromkeys(n for p in parts for n in p.names)),
        "parts": [{"key": p.key, "name": p.name, "kind": p.kind.value, "body": p.status.value,
                   "line": p.pos.line} for p in parts] if len(parts) > 1 else [],
        "kind": d.kind.value,
        "body": open_part.status.value,
        "state": a.state(key),
        "priority": a.priority.get(key, 0),
        "line": d.pos.line,
        "col": d.pos.col,
        "statement_deps": sorted(deps.statement - {key}) if deps else [],
        "proof_deps": sorted(deps.proof - deps.statement - {key}) if deps else [],
        "uses": uses,
        # edges Lean confirmed (a certification's used constants, `.harness/lean-edges.json`)
        "lean_deps": sorted(u for u, _, k in a.graph.in_edges(key, data="kinds")
                            if k and "lean" in k),
        "proof_uses": proof_uses,
        "sorry_using": d.sorry_using,
        "title": bpa.title if bpa else None,
        "statement": bpa.statement if bpa else None,
        "proof": d.proof_text,
        "links": [lk.as_dict() for lk in a.links.get(key, [])],
        "informal": a.is_informal(key),
        "latex_env": bpa.latex_env if bpa else None,
        "not_ready": bool(bpa.not_ready) if bpa else False,
        "discussion": bpa.discussion if bpa else None,
        "is_node": d.is_node,
        "external": a.is_external(key),
        "file": str(d_file) if (d_file := _file_of(a, key)) else None,
    }


def _file_of(a: Analysis, key: str):
    """The file of an imported node, or of any node of a project-wide analysis."""
    f = a.graph.nodes[key].get("file")
    return f if f != a.blueprint.display_path else None


def counts(a: Analysis) -> dict[str, Any]:
    """Counts over this file's declarations (imported ones are not this file's work)."""
    states = Counter(a.state(k) for k in a.own)
    bodies = Counter(p.status.value for k in a.own for p in a.parts(k))
    nodes = sum(1 for k in a.own if a.decl(k).is_node)
    own = set(a.own)
    edges = sum(1 for _, v in a.graph.edges if v in own)
    informal = sum(1 for k in a.own if a.is_informal(k))  # among the nodes, with no Lean
    return {"declarations": len(a.own), "nodes": nodes, "context": len(a.own) - nodes,
            "informal": informal,
            "edges": edges, "imported": a.graph.number_of_nodes() - len(a.own),
            "by_state": dict(states), "by_body": dict(bodies)}


def plan_dict(a: Analysis) -> dict[str, Any]:
    return {
        "file": a.blueprint.display_path,
        "counts": counts(a),
        "leaves": [{"key": k, "label": a.decl(k).label, "name": a.decl(k).name,
                    "names": [n for p in a.parts(k) for n in p.names],
                    "priority": a.priority[k], "line": a.decl(k).pos.line} for k in a.leaves],
        "layers": a.layers,
        "critical_path": a.critical_path,
        "targets": a.targets,
        "findings": [finding_dict(f) for f in a.findings],
        "warnings": [finding_dict(f) for f in a.warnings],
    }
