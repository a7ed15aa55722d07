"""LeanArchitect's dependencies from a real build: `lake build :blueprintJson` (and, for the
newer schema without inferred uses, `lake build :blueprint`), then the files it wrote.

Output locations and schemas: :mod:`harness.blueprint.exact`. `:blueprintJson` is LeanArchitect's
package facet (its lakefile, `package_facet blueprintJson`: every library's
`library_facet blueprintJson`, which needs every module built), so a module Lean rejects fails
the build: then there is no exact answer (CannotCertify), never a partial one.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

from harness.blueprint.exact import (
    ExactDeps, add_node, adjuster, compare, disagreement_dict, parse_module_json, schema_of,
)
from harness.errors import CannotCertify
from harness.lean.run import run

BUILD_TIMEOUT_S = 3600.0  # a cold Mathlib-based project; a built one answers in seconds


def blueprint_dir(workspace: Path) -> Path:
    """`<buildDir>/blueprint` for the default build dir `.lake/build` (Main.lean `outputBaseDir`)."""
    return workspace / ".lake" / "build" / "blueprint"


def _build(lake: Path, workspace: Path, target: str, timeout_s: float) -> None:
    # absolute but not symlink-resolved: elan's `lake` is a proxy that reads its own name
    res = run([os.path.abspath(lake), "build", target], cwd=workspace, timeout_s=timeout_s, mem_mb=None)
    if res.timed_out:
        raise CannotCertify(f"lake build {target}: no answer within {timeout_s:g}s")
    if res.returncode != 0:
        lines = [ln for ln in (res.stdout + "\n" + res.stderr).splitlines()
                 if ln.startswith("error:")]
        why = lines[0] if lines else f"exit {res.returncode}"
        raise CannotCertify(f"lake build {target} failed ({why}): LeanArchitect's "
                            "dependencies are unavailable")


def read_blueprint_json(workspace: Path) -> ExactDeps:
    """Read what `:blueprintJson` wrote (every library index, every module it lists)."""
    base = blueprint_dir(workspace)
    indexes = sorted((base / "library").glob("*.json"))
    if not indexes:
        raise CannotCertify(f"{base / 'library'}: no LeanArchitect library index (did "
                            "`lake build :blueprintJson` run?)")
    deps = ExactDeps()
    modules: list[str] = []
    for idx in indexes:
        try:
            data = json.loads(idx.read_text(encoding="utf-8"))
        except (OSError, ValueError) as err:
            raise CannotCertify(f"{idx}: unreadable LeanArchitect index: {err}") from None
        deps.sources.append(str(idx))
        modules += [m for m in data.get("modules", []) if isinstance(m, str)]
    nodes: list[tuple[Path, dict]] = []
    for rel in dict.fromkeys(modules):
        path = base / rel
        if not path.is_file():
            raise CannotCertify(f"{path}: listed in the LeanArchitect index but missing")
        deps.sources.append(str(path))
        nodes += [(path, n) for n in parse_module_json(path.read_text(encoding="utf-8"),
                                                       str(path))]
    explicit = any(schema_of(n.get("statement") or {}) == "explicit" for _, n in nodes)
    for path, n in nodes:
        art = None
        if explicit:
            tex = path.with_suffix(".artifacts") / f"{n['latexLabel']}.tex"
            art = tex.read_text(encoding="utf-8") if tex.is_file() else None
        add_node(deps, n, art)
    return deps


def exact_dependencies(lake: Path, workspace: Path, *, timeout_s: float = BUILD_TIMEOUT_S
                       ) -> ExactDeps:
    """Build the blueprint JSON and read it; with the explicit schema, also the LaTeX."""
    _build(lake, workspace, ":blueprintJson", timeout_s)
    deps = read_blueprint_json(workspace)
    if deps.schema == "explicit":
        _build(lake, workspace, ":blueprint", timeout_s)
        deps = read_blueprint_json(workspace)
    return deps


def _module_of(path: Path, workspace: Path) -> str | None:
    try:
        rel = path.resolve().relative_to(workspace.resolve())
    except ValueError:
        return None
    return ".".join(rel.with_suffix("").parts)


def exact_analysis(target: Path, workspace: Path, lake: Path, *,
                   timeout_s: float = BUILD_TIMEOUT_S) -> tuple[Any, dict[str, Any]]:
    """`plan --exact`: the DAG with LeanArchitect's node-to-node edges, and a report of where
    the text inference disagreed with them."""
    from harness.blueprint.project import ParseCache, load

    exact = exact_dependencies(lake, workspace, timeout_s=timeout_s)
    cache = ParseCache()
    text = load(target, workspace, cache)
    nodes = {k for k in text.graph.nodes if text.decl(k).is_node}
    own = {k for k in text.own if text.decl(k).is_node}
    items, _, only_text = compare(text.deps, nodes, exact, only=own)
    files = {text.graph.nodes[k].get("file") or text.blueprint.display_path for k in text.own}
    modules = {m for f in files if (m := _module_of(Path(f), workspace))}
    only_lean = sorted(k for k, n in exact.nodes.items() if k not in nodes and
                       (n.module in modules))
    a = load(target, workspace, cache, adjust=adjuster(exact, nodes))
    report = {"source": "lake build :blueprintJson" + (" + :blueprint" if exact.schema ==
                                                         "explicit" else ""),
              "schema": exact.schema, "lean_nodes": len(exact.nodes),
              "not_inferred": sorted(k for k, n in exact.nodes.items() if not n.inferred),
              **disagreement_dict(items, only_lean, only_text)}
    return a, report
