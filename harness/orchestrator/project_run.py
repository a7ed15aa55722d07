"""The data of one run over a whole project (`run DIR|ROOT_MODULE`, issue 22): which files, in
which order, the one work graph over every file's open parts, and what a merge can break.

A project run has one scheduler: a node starts as soon as its dependencies are proved, whatever
file they are in (`simulate --project` shows the gain over per-file runs, docs/benchmarks.md).
Stage 1 runs per file in import order (:func:`project_files`); stage 2's units are the open
parts of every file (:func:`project_work`); after a batch merges into a file, the gate compiles
that file and its importers (:func:`importers`: a changed statement or definition can break
them; a proof body alone cannot, Lean does not re-check importers' uses of a proof).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable

import networkx as nx

from harness.blueprint.dag import Analysis, analyse
from harness.blueprint.model import Blueprint
from harness.blueprint.parse import parse_text
from harness.blueprint.project import ParseCache, Project, build, is_root_module, lean_files
from harness.errors import UsageError


@dataclass
class ProjectWork:
    files: list[Blueprint]  # import order: every file after the files it imports
    analysis: Analysis  # the project-wide DAG
    graph: nx.DiGraph  # one work graph: open parts of every file, u -> v: v waits for u
    work: list[str]  # open parts (keys), files in import order, each in file order
    blocked: dict[str, str]
    file_of: dict[str, Blueprint]  # part key -> its file
    project: Project


def is_project_target(target: Path, cache: ParseCache | None = None) -> bool:
    """A directory, or a root module file that only imports (`Blueprint.lean`)."""
    if target.is_dir():
        return True
    return target.is_file() and is_root_module((cache or ParseCache()).get(target))


def project_files(target: Path, workspace: Path, cache: ParseCache | None = None) -> Project:
    """The workspace files of a directory or root module, parsed once, in import order."""
    cache = cache or ParseCache()
    if target.is_dir():
        found = lean_files(target)
        if not found:
            raise UsageError(f"{target}: a directory with no Lean files")  # no line on a dir
        return build(workspace, found, cache)
    project = build(workspace, [target], cache)
    root = cache.get(target)
    project.files = [b for b in project.files if b is not root]
    return project


def project_work(target: Path, workspace: Path, cache: ParseCache | None = None, *,
                 adjust: Callable[[list[Blueprint]], Any] | None = None,
                 refine: Callable[[Analysis], None] | None = None) -> ProjectWork:
    """One work graph over every file's open parts (the scheduler of a project run; the run
    calls this, so there is one ordering). ``adjust(files)``: the DAG's edge adjuster (Lean's
    confirmed edges); ``refine(a)``: Lean's word on the analysis before the work is read off."""
    from harness.orchestrator.workgraph import work_graph

    project = project_files(target, workspace, cache)
    files = [b for b in project.files if b.decls]
    a = analyse(parse_text("", target), files, whole=True, visible=project.visible,
                adjust=adjust(files) if adjust is not None else None)
    if refine is not None:
        refine(a)
    h, work, _, blocked = work_graph(a, files)
    file_of = {d.key: b for b in files for d in b.decls}
    rank = {id(b): i for i, b in enumerate(files)}
    work.sort(key=lambda k: (rank[id(file_of[k])], file_of[k].by_key(k).span.start))
    return ProjectWork(files, a, h, work, blocked, file_of, project)


def importers(project: Project, file: Blueprint) -> list[Blueprint]:
    """The files whose import closure holds ``file`` (in import order): what a merge into it
    can break when it changes more than proof bodies."""
    return [b for b in project.files
            if b is not file and id(file) in project.closure.get(id(b), set())]
