"""What the agents ask of the index: rendered hits, names an informal proof mentions, and the
constants of a candidate proof that do not exist ("did you mean …") — found before Lean runs.

The unknown-name check is deliberately conservative (a false alarm costs the model an attempt):
only identifiers that look like library constants (a dotted name with a capitalised head, or a
name with `_`) are checked; names bound in the statement or by the proof itself (`intro`,
`obtain ⟨…⟩`, `have h_pos :`, `fun x =>`, `with`, …) are skipped; and nothing is reported unless
the index holds Lean's core library too (else `Nat.le_succ` would look unknown).
"""

from __future__ import annotations

import re
from pathlib import Path

from harness.blueprint.lexer import mask
from harness.errors import HarnessError
from harness.library.model import Hit
from harness.library.names import identifiers
from harness.library.query import LibraryIndex

_TEXTTT = re.compile(r"\\(?:texttt|lean|code)\{([^{}]+)\}")
_BACKTICK = re.compile(r"(?<!`)`([^`\n]+)`(?!`)")
_NAMEISH = re.compile(r"^@?(?:[^\W\d][\w'!?₀-₉]*)(?:\.[^\W\d][\w'!?₀-₉]*)*$")
_BINDING = re.compile(
    r"(?:\bintro|\bintros|\brintro|\bfun|λ|\bobtain|\brcases|\bhave|\blet|\bset|\bhaveI|\bletI"
    r"|\bwith|\bby_contra!?|\bby_cases|\bgeneralize|\bcases'?|\binduction'?|\bcase|\bnext|\bchoose"
    r"|\bcontrapose!?|\bpush_neg|\brename_i|⟨|\|)([^:=\n]*?)(?=:=|:|=>|↦|\n|$|\bat\b|\bwith\b)")
MAX_MENTIONS = 24


def render_hit(h: Hit, doc_chars: int = 300) -> str:
    """`theorem Name sig` + docstring + where it lives (what `lookup`/`search_library` show)."""
    sig = h.signature if h.signature.startswith((":", "alias")) else h.signature
    head = f"{h.kind} {h.name} {sig}".rstrip()
    out = [f"-- {h.module} ({h.file}:{h.line})" + (" [private]" if h.private else "")]
    if h.doc:
        out.append("/-- " + h.doc[:doc_chars] + (" …" if len(h.doc) > doc_chars else "") + " -/")
    out.append(head)
    return "\n".join(out)


def mentioned_names(informal: str) -> list[str]:
    """Lean names an informal text mentions: `\\texttt{…}` and backticked names, in order."""
    out: list[str] = []
    for rx in (_TEXTTT, _BACKTICK):
        for m in rx.finditer(informal):
            cand = m.group(1).strip().replace("\\_", "_")
            if _NAMEISH.match(cand):
                out.append(cand.removeprefix("@"))
    return list(dict.fromkeys(out))[:MAX_MENTIONS]


def _looks_like_constant(ident: str) -> bool:
    head = ident.split(".", 1)[0]
    return ("." in ident and head[:1].isupper()) or "_" in ident.strip("_")


def bound_names(code: str) -> set[str]:
    """Names the proof itself binds (approximate, generous: it only suppresses reports)."""
    out: set[str] = set()
    for m in _BINDING.finditer(code):
        out.update(re.findall(r"[^\W\d][\w'!?₀-₉]*", m.group(1)))
    return out


def unknown_constants(ix: LibraryIndex, code: str, *, namespace: str = "",
                      opens: tuple[str, ...] = (), known: set[str] | None = None,
                      bound: set[str] | None = None) -> list[tuple[str, list[str]]]:
    """[(name, suggestions)] for constants in ``code`` that exist nowhere in the index."""
    if not ix.has_core:
        return []
    try:
        masked = mask(code)
    except HarnessError:
        return []
    skip = (known or set()) | (bound or set()) | bound_names(masked)
    out: list[tuple[str, list[str]]] = []
    reported: set[str] = set()
    for ident in dict.fromkeys(identifiers(masked)):
        ident = ident.removeprefix("@")
        parts = ident.split(".")
        if ident in skip or parts[0] in skip or not _looks_like_constant(ident):
            continue
        if len(parts) > 1 and parts[0][:1].islower():
            continue  # `h.trans`, `hf.comp`: field notation on a local
        # `Foo.bar.mpr`: fine when some prefix is a constant (the rest is field notation)
        if any(ix.resolve(".".join(parts[:i]), namespace, opens)
               for i in range(len(parts), 0, -1)):
            continue
        # report the constant itself: namespaces, then the first lower-case component
        i = next((j for j, p in enumerate(parts) if not p[:1].isupper()), len(parts) - 1)
        name = ".".join(parts[:i + 1])
        if name not in reported:
            reported.add(name)
            out.append((name, ix.suggest(name)))
    return out


def render_unknown(unknown: list[tuple[str, list[str]]]) -> str:
    lines = []
    for name, sugg in unknown:
        hint = ("; did you mean " + ", ".join(f"`{s}`" for s in sugg) + "?") if sugg else ""
        lines.append(f"unknown constant `{name}` (not in the library index){hint}")
    return "\n".join(lines)


_OPEN: dict[str, LibraryIndex | None] = {}
_OPEN_LOCK = __import__("threading").Lock()


def library_for(workspace: Path) -> LibraryIndex | None:
    """The workspace's index for the agents (built on first need, once per process); None
    when there is no Lake workspace or `HARNESS_LIBRARY=0` (the tools then say so)."""
    import os

    from harness.library.query import open_index
    from harness.workspace import LAKEFILES

    if os.environ.get("HARNESS_LIBRARY", "1") == "0":
        return None
    ws = workspace.resolve()
    with _OPEN_LOCK:
        if str(ws) not in _OPEN:
            ix = None
            if any((ws / f).is_file() for f in LAKEFILES):
                try:
                    ix = open_index(ws)
                except (HarnessError, OSError, Exception):  # noqa: BLE001 - advisory
                    ix = None
            _OPEN[str(ws)] = ix
        return _OPEN[str(ws)]


def module_of(path: Path | None, workspace: Path) -> str:
    """`Blueprint/SLT/Chaining.lean` -> `Blueprint.SLT.Chaining` (empty when outside)."""
    if path is None:
        return ""
    try:
        rel = path.resolve().relative_to(workspace.resolve())
    except ValueError:
        return ""
    return rel.with_suffix("").as_posix().replace("/", ".")
