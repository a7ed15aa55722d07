"""The caller's context for a search: a position (`--at FILE:LINE`) or a blueprint node
(`--for LABEL`, and the prover's `search_library`) -> a :class:`QueryContext` that sees only
what Lean lets that place use, plus, for a node, the words its statement and proof add.
"""

from __future__ import annotations

import difflib
import re
from dataclasses import dataclass
from pathlib import Path

from harness.errors import HarnessError, UsageError
from harness.library.rank import QueryContext
from harness.library.visible import Rows, imported_modules, position

_SKIP = {".lake", ".harness", ".git", "build", "node_modules"}
_AT = re.compile(r"^(?P<file>.+):(?P<line>\d+)$")
MAX_BLUEPRINT_FILES = 2_000


@dataclass(frozen=True)
class Where:
    ctx: QueryContext
    query: str = ""  # what the context adds to the caller's words (a node's statement, proof)


def at(rows: Rows, ws: Path, spec: str) -> Where:
    """`FILE:LINE` -> the context there (UsageError with one located line)."""
    m = _AT.match(spec)
    if m is None:
        raise UsageError(f"{spec}:1:0: --at wants FILE:LINE (a Lean file and a 1-based line)")
    pos = position(rows, ws, Path(m["file"]), int(m["line"]), m["file"])
    return Where(QueryContext(namespace=pos.namespace, opens=pos.opens, module=pos.module,
                              line=pos.line, visible=pos.visible))


def _blueprint_files(ws: Path) -> list[Path]:
    out: list[Path] = []
    for p in sorted(ws.rglob("*.lean")):
        if _SKIP.intersection(p.relative_to(ws).parts):
            continue
        out.append(p)
        if len(out) >= MAX_BLUEPRINT_FILES:
            break
    return out


def node_query(bp, node) -> str:
    """A node's signature, informal statement and proof, and the Lean names they mention."""
    from harness.library.agent import mentioned_names

    bpa = node.blueprint
    informal = " ".join(x for x in (bpa.statement if bpa else None, node.proof_text) if x)
    sig = bp.text[node.head_span.start:node.signature_span.end]
    return " ".join([sig, informal, *mentioned_names(informal)])


def node_context(rows: Rows, ws: Path, bp, node) -> Where:
    """The context of a blueprint node: its file's imports, the declarations above it, its
    namespace and opens; the node itself is never a hit."""
    from harness.agents.context import node_scope
    from harness.library.agent import module_of

    ns, opens = node_scope(node)
    text = bp.text
    module = module_of(bp.path, ws)
    return Where(QueryContext(namespace=ns, opens=opens, module=module,
                              exclude=frozenset(x for x in (node.name,) if x),
                              line=node.pos.line,
                              visible=imported_modules(rows, ws, text) - {module},
                              near=blueprint_deps(bp, node)),
                 node_query(bp, node))


def blueprint_deps(bp, node) -> tuple[str, ...]:
    """The Lean names a node's blueprint says it depends on: `uses := [...]`,
    `proofUses := [...]` (a `label:L` entry: the names of the node labelled L in the file; a
    `-x` exclusion is skipped) and `sorry_using [...]` (the ranker's blueprint proximity)."""
    b = node.blueprint
    items = [*(b.uses if b else []), *(b.proof_uses if b else []), *node.sorry_using]
    out: list[str] = []
    for item in items:
        item = item.strip().strip('"')
        if not item or item.startswith("-"):
            continue
        if item.startswith("label:"):
            label = item[len("label:"):]
            out.extend(n for d in bp.decls if d.label == label for n in d.names)
        else:
            out.append(item)
    return tuple(dict.fromkeys(out))


def for_label(rows: Rows, ws: Path, label: str) -> Where:
    """`--for LABEL`: the node with that label in the workspace's own Lean files (exit 2 with
    a did-you-mean when there is none)."""
    from harness.blueprint.source import parse_file

    labels: dict[str, Path] = {}
    for p in _blueprint_files(ws):
        try:
            raw = p.read_text(encoding="utf-8", errors="replace")
        except OSError:
            continue
        if "blueprint" not in raw:
            continue
        try:
            bp = parse_file(p)
        except HarnessError:
            continue  # a file the parser rejects has no node we can use
        for d in bp.nodes:
            key = d.key
            labels.setdefault(key, p)
            if d.blueprint is not None:
                labels.setdefault(d.blueprint.label, p)
            if label in (key, d.blueprint.label if d.blueprint else None):
                return node_context(rows, ws, bp, bp.node(label))
    close = difflib.get_close_matches(label, sorted(labels), n=3, cutoff=0.6)
    hint = f"; did you mean {', '.join(f'`{c}`' for c in close)}?" if close else ""
    # the workspace is a directory: no FILE:LINE:COL to point at, a plain usage line
    raise UsageError(f"search: --for {label}: no blueprint node `{label}` in the Lean files "
                     f"of {ws}{hint}")
