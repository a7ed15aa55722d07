"""The whole workspace at once: every blueprint file parsed once, one project-wide DAG.

LeanArchitect's labels are global to a project (`lake build :blueprint` indexes every module of
a library, Architect's lakefile `buildLibraryBlueprint`), and a module may name a label of a
module it does not import (string `uses`, prose links). Lean names, on the other hand, resolve
only through imports. So:

- ``harness plan|status|graph DIR`` (or a root module file that only imports, such as
  `Blueprint.lean`) analyses every node of every file as one DAG (:func:`load_project`);
- ``harness plan FILE`` analyses FILE with its import closure, and when a label it names is in
  none of those files, with the rest of the workspace as external context (:func:`load_file`).

Every file is parsed once per process (:class:`ParseCache`), never once per importer.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path

from harness.blueprint import confirmed
from harness.blueprint.dag import Analysis, analyse
from harness.blueprint.deps import DeclDeps
from harness.blueprint.imports import imported_modules, module_path
from harness.blueprint.model import Blueprint, CommandKind
from harness.blueprint.parse import parse_text
from harness.blueprint.source import parse_file
from harness.errors import UsageError

Adjust = Callable[[dict[str, DeclDeps]], None]
SKIP_DIRS = {".lake", ".git", ".harness", "build", "lake-packages", "__pycache__"}
_ROOT_KINDS = {CommandKind.IMPORT, CommandKind.MODULE_DOC, CommandKind.SET_OPTION}
_DANGLING_LABELS = ("dangling-cref", "dangling-use", "dangling-link", "dangling-label")


@dataclass
class ParseCache:
    """Each file parsed once (keyed by resolved path, invalidated by size and mtime)."""

    files: dict[Path, tuple[tuple[int, int], Blueprint]] = field(default_factory=dict)

    def get(self, path: Path) -> Blueprint:
        key = path.resolve()
        try:
            st = key.stat()
        except OSError:
            return parse_file(path)  # raises the one-line InputError (no such file, …)
        stamp = (st.st_size, st.st_mtime_ns)
        hit = self.files.get(key)
        if hit is not None and hit[0] == stamp:
            return hit[1]
        bp = parse_file(path)
        self.files[key] = (stamp, bp)
        return bp


@dataclass
class Project:
    workspace: Path
    files: list[Blueprint]  # dependency order: every file after the files it imports
    imports: dict[int, list[Blueprint]]  # id(file) -> the workspace files it imports directly
    closure: dict[int, set[int]] = field(default_factory=dict)  # id(file) -> ids it sees

    def visible(self, a: Blueprint, b: Blueprint) -> bool:
        """Does file ``a`` see Lean names of file ``b`` (``b`` in ``a``'s import closure)?"""
        seen = self.closure.get(id(a))
        return seen is None or id(b) in seen


def lean_files(root: Path) -> list[Path]:
    """Every `.lean` file under ``root`` except lakefiles, build output and hidden folders. At
    a workspace root (a lakefile beside it) only the capitalised top-level folders: Lean module
    names are capitalised by convention, and `tests/`, `docs/`, … hold no library modules."""
    out: list[Path] = []
    at_root = any((root / n).is_file() for n in ("lakefile.lean", "lakefile.toml"))
    for d, dirs, names in os.walk(root):
        dirs[:] = sorted(x for x in dirs if x not in SKIP_DIRS and not x.startswith(".")
                         and not (at_root and Path(d) == root and not x[:1].isupper()))
        out.extend(Path(d) / n for n in sorted(names)
                   if n.endswith(".lean") and n != "lakefile.lean")
    return out


def is_root_module(bp: Blueprint) -> bool:
    """A file that only imports (`Blueprint.lean`): it stands for the project it imports."""
    return not bp.decls and any(c.kind == CommandKind.IMPORT for c in bp.commands) and all(
        c.kind in _ROOT_KINDS or c.keyword == "module" for c in bp.commands)


def build(workspace: Path, roots: Iterable[Path], cache: ParseCache | None = None) -> Project:
    """Parse ``roots`` and every workspace file they import (transitively), once each."""
    cache = cache or ParseCache()
    by_path: dict[Path, Blueprint] = {}
    imports: dict[int, list[Blueprint]] = {}
    ordered: list[Blueprint] = []
    state: dict[Path, int] = {}  # 1 visiting, 2 done (an import cycle is not followed twice)

    def visit(path: Path) -> Blueprint:
        key = path.resolve()
        bp = by_path.get(key)
        if bp is None:
            bp = by_path[key] = cache.get(path)
        if state.get(key):
            return bp
        state[key] = 1
        direct = []
        for module in imported_modules(bp):
            p = module_path(workspace, module)
            if p.is_file():
                direct.append(visit(p))
        imports[id(bp)] = direct
        state[key] = 2
        ordered.append(bp)
        return bp

    for r in roots:
        visit(r)
    project = Project(workspace, ordered, imports)
    for bp in ordered:  # dependency order: a file's imports are closed before it
        seen = {id(bp)}
        for child in imports[id(bp)]:
            seen |= project.closure.get(id(child), {id(child)})
        project.closure[id(bp)] = seen
    return project


def load_project(target: Path, workspace: Path, cache: ParseCache | None = None, *,
                 adjust: Adjust | None = None) -> Analysis:
    """The project-wide DAG of a directory (every `.lean` file under it) or of a root module
    file (every workspace file it imports): all nodes are this analysis's own."""
    cache = cache or ParseCache()
    if target.is_dir():
        found = lean_files(target)
        if not found:
            raise UsageError(f"{target}: a directory with no Lean files")  # no line on a dir
        root = parse_text("", target)
        project = build(workspace, found, cache)
    else:
        root = cache.get(target)
        project = build(workspace, [target], cache)
    files = [b for b in project.files if b is not root]
    return _analyse(root, files, workspace, whole=True, visible=project.visible, adjust=adjust)


def _analyse(bp: Blueprint, files: list[Blueprint], workspace: Path, *, adjust: Adjust | None,
             **kw) -> Analysis:
    """analyse() with the edges Lean confirmed in earlier certifications (``.harness/``)."""
    found = confirmed.edges(workspace, [*files, bp])
    a = analyse(bp, files, adjust=confirmed.adjuster(found, adjust), **kw)
    confirmed.mark(a, found)
    return a


def load_file(path: Path, workspace: Path, cache: ParseCache | None = None, *,
              adjust: Adjust | None = None) -> Analysis:
    """FILE with its import closure; a label it names that none of them declares is looked up
    in the rest of the workspace (labels are global), whose files then join as context."""
    cache = cache or ParseCache()
    project = build(workspace, [path], cache)
    bp = cache.get(path)
    closure = [b for b in project.files if b is not bp]
    a = _analyse(bp, closure, workspace, visible=project.visible, adjust=adjust)
    if not any(f.code in _DANGLING_LABELS for f in a.findings):
        return a
    everything = build(workspace, [*lean_files(workspace), path], cache)
    known = {id(b) for b in closure}
    rest = [b for b in everything.files if b is not bp and id(b) not in known]
    if not rest:
        return a
    return _analyse(bp, closure + rest, workspace, visible=everything.visible, adjust=adjust)


def load(target: Path, workspace: Path, cache: ParseCache | None = None, *,
         adjust: Adjust | None = None) -> Analysis:
    """`plan|status|graph TARGET`: a directory or a root module file give the project-wide
    DAG, any other file its own view (see the module docstring)."""
    cache = cache or ParseCache()
    if target.is_dir() or is_root_module(cache.get(target)):
        return load_project(target, workspace, cache, adjust=adjust)
    return load_file(target, workspace, cache, adjust=adjust)
