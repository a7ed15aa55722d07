"""Plain-data summaries of an analysis (shared by `plan`, `status`, `graph` and `--json`)."""

from __future__ import annotations

import os
import re
from collections import Counter
from dataclasses import replace
from typing import Any

from harness.blueprint.dag import Analysis
from harness.blueprint.views import node_uses
from harness.blueprint.model import Decl, Finding
from harness.report.nodeview import NodeView, node_view


def finding_dict(f: Finding) -> dict[str, Any]:
    return {"code": f.code, "message": f.message, "file": f.path, "line": f.pos.line,
            "col": f.pos.col, "label": f.label, "text": f.line()}


def node_dict(a: Analysis, key: str, priority: dict[str, int] | None = None) -> dict[str, Any]:
    """``priority``: the nodes-only priority (:mod:`harness.report.nodeview`), else the DAG's."""
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
        "priority": (priority if priority is not None else a.priority).get(key, 0),
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


def relocate(a: Analysis) -> None:
    """Directory mode: a finding or warning raised against the project root (a directory, or a
    root module that only imports) is moved to the file its node is declared in."""
    root = a.blueprint.display_path
    bp_path = a.blueprint.path
    if bp_path is None or not (bp_path.is_dir() or not a.blueprint.decls):
        return  # one file: its problems already name the files the user gave
    for items in (a.findings, a.warnings):
        for i, f in enumerate(items):
            path = f.path
            if path == root and f.label and f.label in a.graph:
                path = a.graph.nodes[f.label].get("file") or path
            # the project's files were found from the workspace (absolute): shown as the
            # user's own frame, relative to the current directory
            if shown_path(path) != f.path:
                items[i] = replace(f, path=shown_path(path))


_SAME_KIND = {"lemma": "theorem"}


def kind_warnings(a: Analysis) -> None:
    """A label shared by declarations of different kinds (a structure and a def, a def and a
    theorem, across files too) is one node with both as parts: legal in LeanArchitect, but
    rarely meant. Warned once per label (the parser already warns a def/theorem pair)."""
    said = {w.label for w in a.warnings if w.code == "label-collision"}
    for k in a.own:
        parts = a.parts(k)
        if len(parts) < 2 or k in said or a.is_informal(k):
            continue
        kinds = {_SAME_KIND.get(p.kind.value, p.kind.value) for p in parts}
        if len(kinds) > 1:
            first = parts[0]
            base = _SAME_KIND.get(first.kind.value, first.kind.value)
            other = next(p for p in parts
                         if _SAME_KIND.get(p.kind.value, p.kind.value) != base)
            a.warnings.append(Finding(
                "label-collision", f"label `{k}` is shared by `{first.kind.value} {first.name}` "
                f"and `{other.kind.value} {other.name}`: one node with both as parts",
                a.graph.nodes[k].get("file") or a.blueprint.display_path, first.pos, k))


_NAMED = re.compile(r"names `([^`]+)`|\\(?:c?ref|uses)\{([^}]+)\}")


def dangling_hints(a: Analysis) -> None:
    """A reference to an unknown label or name gets the closest known one: `(did you mean
    `lem:sum-to-zero`?)`."""
    from harness.didyoumean import Suggester

    pool: Suggester | None = None
    for items in (a.findings, a.warnings):
        for i, f in enumerate(items):
            if not f.code.startswith("dangling") or "did you mean" in f.message:
                continue
            m = _NAMED.search(f.message)
            if m is None:
                continue
            if pool is None:  # prepared once: a real project has ~10 000 labels and names
                pool = Suggester([*a.graph.nodes,
                                  *(n for k in a.graph for p in a.parts(k) for n in p.names)])
            word = (m.group(1) or m.group(2)).strip('"').removeprefix("label:")
            best = pool(word, cutoff=0.75)
            if best and best != word:
                items[i] = replace(f, message=f"{f.message} (did you mean `{best}`?)")


def shown_path(path: str) -> str:
    """A path as a reader wants it: relative to the current directory when inside it."""
    try:
        rel = os.path.relpath(path)
    except ValueError:  # another drive (Windows)
        return path
    return path if rel.startswith("..") else rel


def counts(a: Analysis, view: NodeView | None = None) -> dict[str, Any]:
    """Counts over this analysis's blueprint nodes (imported ones are not this file's work;
    ordinary declarations are counted apart: a real project has many more of them)."""
    view = view or node_view(a)
    states = Counter(a.state(k) for k in view.own)
    bodies = Counter(p.status.value for k in view.own for p in a.parts(k))
    own = set(view.own)
    edges = sum(1 for _, v in view.graph.edges if v in own)
    informal = sum(1 for k in view.own if a.is_informal(k))  # among the nodes, with no Lean
    unfinished = sum(1 for k in view.ordinary if not a.complete(k))
    return {"declarations": len(a.own), "nodes": len(view.own), "context": len(view.ordinary),
            "context_unfinished": unfinished, "informal": informal,
            "edges": edges, "imported": sum(1 for k in view.graph if k not in own),
            "by_state": dict(states), "by_body": dict(bodies)}


def _leaf(a: Analysis, view: NodeView, k: str) -> dict[str, Any]:
    d = a.decl(k)
    return {"key": k, "label": d.label, "name": d.name,
            "names": [n for p in a.parts(k) for n in p.names], "priority": view.priority[k],
            "file": shown_path(a.graph.nodes[k].get("file") or a.blueprint.display_path),
            "line": d.pos.line}


def plan_dict(a: Analysis) -> dict[str, Any]:
    """Leaves, layers, critical path and targets of the blueprint nodes (edges through ordinary
    declarations projected onto the nodes they connect)."""
    view = node_view(a)
    return {
        "file": a.blueprint.display_path,
        "counts": counts(a, view),
        "leaves": [_leaf(a, view, k) for k in view.leaves],
        "layers": view.layers,
        "critical_path": view.critical_path,
        "targets": view.targets,
        "findings": [finding_dict(f) for f in a.findings],
        "warnings": [finding_dict(f) for f in a.warnings],
    }
