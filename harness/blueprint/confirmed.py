"""Lean-confirmed edges: the declarations Lean says a node uses, kept across commands.

Text cannot see what only elaboration puts into a term (`rw [← lemma]`, `unfold`, `simp`
lemmas, implicit arguments fixed by unification, inferred `have` types). Every certification
of a file asks Lean, in the same compile, which of the known declarations each node it
elaborated uses (:mod:`harness.lean.usedconsts`); :func:`record` keeps the answer under
``.harness/lean-edges.json``, keyed by the file's content hash. From then on :func:`edges` feeds
them to the DAG (``plan``/``status``/``graph`` and the scheduler): an edge Lean confirmed carries
the kind ``lean`` (a new one also ``proof``: Lean does not say which part used it).

An answer is Lean's for the text it compiled. It is used for that exact text (the file's hash);
after an edit, the newest answer still applies to each node whose own declaration text is
unchanged (hashed per node), since what a declaration's term contains is fixed by its text and
the declarations it names. This module is an I/O edge of the otherwise pure package (like
``source.py``): one JSON file, written atomically under an advisory lock.
"""

from __future__ import annotations

import fcntl
import hashlib
import json
import time
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

from harness.blueprint.deps import DeclDeps
from harness.blueprint.model import Blueprint
from harness.fsutil import atomic_write

VERSION = 1
NAME = "lean-edges.json"
KEEP = 4  # answers kept per file (newest first)
Adjust = Callable[[dict[str, DeclDeps]], None]


def digest(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def store_path(workspace: Path) -> Path:
    return workspace / ".harness" / NAME


def _rel(workspace: Path, path: Path) -> str:
    try:
        return path.resolve().relative_to(workspace.resolve()).as_posix()
    except ValueError:
        return path.resolve().as_posix()


def load(workspace: Path) -> dict[str, Any]:
    """The store (empty when absent; an unreadable or foreign one counts as empty: it is a
    cache of Lean's answers, and the run asks again)."""
    try:
        data = json.loads(store_path(workspace).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {"version": VERSION, "files": {}}
    if not isinstance(data, dict) or data.get("version") != VERSION \
            or not isinstance(data.get("files"), dict):
        return {"version": VERSION, "files": {}}
    return data


def record(workspace: Path, path: Path, bp: Blueprint, used: dict[str, list[str]]) -> None:
    """Keep Lean's answer for the text ``bp`` (the record's head of ``path``): node key -> the
    Lean names of the declarations it uses."""
    if not used:
        return
    decls = {d.key: d for d in bp.decls}
    nodes = {k: {"decl": digest(bp.text[d.span.start:d.span.end]), "uses": sorted(set(names))}
             for k, names in used.items() if (d := decls.get(k)) is not None}
    target = store_path(workspace)
    target.parent.mkdir(parents=True, exist_ok=True)
    with open(target.with_suffix(".lock"), "a+") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)  # read-modify-write: one writer at a time
        data = load(workspace)
        entries = data["files"].setdefault(_rel(workspace, path), [])
        h = digest(bp.text)
        entries[:] = [e for e in entries if e.get("hash") != h]
        entries.insert(0, {"hash": h, "at": time.time(), "nodes": nodes})
        del entries[KEEP:]
        atomic_write(target, json.dumps(data, indent=1, sort_keys=True) + "\n")


def answers(store: dict[str, Any], workspace: Path, bp: Blueprint) -> dict[str, list[str]]:
    """node key -> the names Lean said it uses, valid for ``bp``'s current text."""
    entries = store["files"].get(_rel(workspace, bp.path)) if bp.path else None
    if not entries:
        return {}
    h = digest(bp.text)
    for e in entries:
        if e.get("hash") == h:
            return {k: list(v.get("uses", [])) for k, v in e.get("nodes", {}).items()}
    out: dict[str, list[str]] = {}
    decls = {d.key: d for d in bp.decls}
    for e in entries:  # newest first: a node whose declaration is unchanged keeps its answer
        for k, v in e.get("nodes", {}).items():
            d = decls.get(k)
            if k not in out and d is not None and \
                    v.get("decl") == digest(bp.text[d.span.start:d.span.end]):
                out[k] = list(v.get("uses", []))
    return out


def edges(workspace: Path | None, blueprints: Iterable[Blueprint]) -> dict[str, set[str]]:
    """user vertex -> the vertices Lean confirmed it uses, over the given files."""
    if workspace is None:
        return {}
    bps = list(blueprints)
    store = load(workspace)
    if not store["files"]:
        return {}
    vertex_of_name: dict[str, str] = {}
    for b in bps:
        for d in b.decls:
            for n in d.names:
                vertex_of_name.setdefault(n, d.node_key)
    out: dict[str, set[str]] = {}
    for b in bps:
        got = answers(store, workspace, b)
        if not got:
            continue
        vertex = {d.key: d.node_key for d in b.decls}
        for k, names in got.items():
            v = vertex.get(k)
            if v is None:
                continue
            srcs = {vertex_of_name[n] for n in names if n in vertex_of_name} - {v}
            if srcs:
                out.setdefault(v, set()).update(srcs)
    return out


def adjuster(found: dict[str, set[str]], inner: Adjust | None = None) -> Adjust | None:
    """``inner`` (LeanArchitect's edges, or None), then Lean's confirmed edges added: a known
    use stays what it was, a new one is a proof use."""
    if not found:
        return inner

    def adjust(deps: dict[str, DeclDeps]) -> None:
        if inner is not None:
            inner(deps)
        for v, srcs in found.items():
            dd = deps.setdefault(v, DeclDeps())
            dd.proof |= srcs - dd.statement
    return adjust


def mark(a: Any, found: dict[str, set[str]]) -> int:
    """Tag the graph's edges Lean confirmed with the kind ``lean``; how many were tagged."""
    g = a.graph
    n = 0
    for v, srcs in found.items():
        for u in srcs:
            if g.has_edge(u, v):
                g.edges[u, v]["kinds"] = frozenset(g.edges[u, v].get("kinds", ())) | {"lean"}
                n += 1
    return n
