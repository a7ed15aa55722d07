"""Blueprint files imported by a blueprint file, within the same Lake workspace.

LeanArchitect labels are project-wide, and a layer file may `import Blueprint.SLT.Covering` and
cite its nodes in `sorry_using`/`\\cref`. To resolve those references (and to know whether the
cited nodes are proved) the analysis needs the imported files too: every `import A.B.C` whose
`A/B/C.lean` exists under the workspace root is parsed, recursively. Imports outside the
workspace (Mathlib, Architect) are not ours and are skipped.
"""

from __future__ import annotations

import re
from pathlib import Path

from harness.blueprint.model import Blueprint, CommandKind
from harness.blueprint.source import parse_file

_NOT_MODULES = {"runtime", "all"}
_MODULE = re.compile(r"[A-Za-z_][\w']*(?:\.[A-Za-z_][\w']*)*")


def imported_modules(bp: Blueprint) -> list[str]:
    out: list[str] = []
    for c in bp.commands:
        if c.kind == CommandKind.IMPORT:
            text = bp.masked_text()[c.span.start:c.span.end]
            after = text[text.index("import") + len("import"):]  # `public meta import all X`
            out.extend(m for m in _MODULE.findall(after) if m not in _NOT_MODULES)
    return out


def module_path(workspace: Path, module: str) -> Path:
    return workspace.joinpath(*module.split(".")).with_suffix(".lean")


def load_imports(bp: Blueprint, workspace: Path) -> list[Blueprint]:
    """The workspace blueprints ``bp`` imports, transitively, dependencies first.

    Raises InputError (naming the imported file) when one of them cannot be parsed; an import
    cycle is not followed twice.
    """
    seen: set[Path] = set()
    if bp.path is not None:
        seen.add(bp.path.resolve())
    ordered: list[Blueprint] = []

    def visit(b: Blueprint) -> None:
        for module in imported_modules(b):
            path = module_path(workspace, module)
            key = path.resolve()
            if key in seen or not path.is_file():
                continue
            seen.add(key)
            child = parse_file(path)
            visit(child)
            ordered.append(child)

    visit(bp)
    return ordered
