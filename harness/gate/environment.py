"""Files outside the blueprint that change what it means: the Lake configuration (a lakefile can
set `leanOptions` such as `debug.skipKernelTC` for the whole package, or load plugins), the
toolchain pin, the dependency manifest, and the project's own modules the blueprint imports
(transitively). The lock records their SHA-256; the gate rejects any change.

Dependencies' sources and build outputs under `.lake/` are trusted (see docs/trust.md).

What Lean reads: imports in the module-system syntax too — ``[public] [meta] import [all] M``
(leanprover/lean4 ``src/Lean/Parser/Module.lean``, ``def «import»``: ``optional «public» >>
optional «meta» >> "import " >> optional all >> identWithPartialTrailingDot``), after an optional
``module`` and ``prelude``; and the workspace root Lake would use (the nearest lakefile): a nested
``lakefile.lean`` + ``lean-toolchain`` under ``Blueprint/`` moves it, so the root's path relative
to the file is recorded too (``@root``).
"""

from __future__ import annotations

import hashlib
import os
from pathlib import Path

from harness.blueprint.model import Blueprint
from harness.errors import CannotCertify
from harness.gate.tokens import lex
from harness.workspace import find_workspace

CONFIG_FILES = ("lakefile.lean", "lakefile.toml", "lean-toolchain", "lake-manifest.json")
ABSENT = "absent"
ROOT_KEY = "@root"  # the workspace root, relative to the file's directory
_HEADER_WORDS = ("module", "prelude")
MAX_MODULES = 500  # a safety bound on the transitive walk


def _sha(p: Path) -> str:
    return hashlib.sha256(p.read_bytes()).hexdigest()


def module_imports(text: str) -> list[str]:
    """The modules a Lean file's header imports, as Lean's header parser reads them (comments
    skipped; ``public``/``meta``/``all``/``runtime`` are keywords, not modules)."""
    toks = [t for t in lex(text).tokens if not t.in_string]
    raw = [text[t.start:t.end] for t in toks]
    i, out = 0, []
    while i < len(toks) and raw[i] in _HEADER_WORDS:
        i += 1
    while i < len(toks):
        j = i
        while j < len(toks) and raw[j] in ("public", "meta") and j - i < 2:
            j += 1
        if j >= len(toks) or raw[j] != "import":
            break
        j += 1
        if j < len(toks) and raw[j] in ("all", "runtime"):
            j += 1
        if j >= len(toks) or toks[j].kind != "ident":
            break
        out.append(toks[j].value)
        i = j + 1
    return out


def blueprint_imports(bp: Blueprint) -> list[str]:
    return module_imports(bp.text)


def environment(path: str | Path | None, imports: list[str]) -> dict[str, str]:
    """Relative path -> digest (or ``absent``) for the workspace of ``path``; {} without one."""
    if path is None:
        return {}
    p = Path(path)
    ws = find_workspace(p)
    out: dict[str, str] = {}
    try:
        out[ROOT_KEY] = Path(os.path.relpath(ws.resolve(), p.resolve().parent)).as_posix()
    except ValueError:  # another drive (Windows)
        out[ROOT_KEY] = ws.resolve().as_posix()
    for name in CONFIG_FILES:
        f = ws / name
        out[name] = _sha(f) if f.is_file() else ABSENT
    own = p.resolve() if p.exists() else None
    try:
        digests, _complete = import_digests(ws, imports, own)
    except OSError as err:  # fail closed: what the blueprint imports cannot be pinned
        raise CannotCertify(f"{err.filename or ws}: cannot read an imported module "
                            f"({err.strerror or err})") from None
    out.update(digests)
    return out


def import_digests(ws: Path, imports: list[str], own: Path | None = None
                   ) -> tuple[dict[str, str], bool]:
    """Relative path -> SHA-256 of every module of the workspace ``ws`` that ``imports`` reach
    (transitively; ``own``, the importing file, and dependencies' modules excluded), and whether
    the walk was complete (it stops after MAX_MODULES modules). An unreadable module raises
    OSError: the caller decides how to fail closed."""
    out: dict[str, str] = {}
    todo = list(imports)
    seen: set[str] = set()
    while todo and len(seen) < MAX_MODULES:
        mod = todo.pop()
        if mod in seen:
            continue
        seen.add(mod)
        rel = mod.replace("«", "").replace("»", "").replace(".", "/") + ".lean"
        f = ws / rel
        if not f.is_file() or (own is not None and f.resolve() == own):
            continue  # a dependency's module (trusted) or the blueprint itself
        try:
            data = f.read_bytes()
        except OSError as err:  # name the module (a failed read() has no filename)
            raise OSError(err.errno, err.strerror or str(err), rel) from None
        out[rel] = hashlib.sha256(data).hexdigest()
        todo += module_imports(data.decode("utf-8", errors="replace"))
    return out, all(m in seen for m in todo)


def compare(locked: dict[str, str], now: dict[str, str]) -> list[str]:
    """Messages for every difference (changed, appeared, vanished)."""
    msgs = []
    for rel in sorted(set(locked) | set(now)):
        a, b = locked.get(rel), now.get(rel)
        if a == b:
            continue
        if rel == ROOT_KEY:
            if a is not None:  # (locks written before @root existed have none)
                msgs.append(f"the Lake workspace root moved from `{a}` to `{b}` (a nested "
                            "lakefile/lean-toolchain): Lean would read another configuration")
            continue
        if a is None or a == ABSENT:
            msgs.append(f"`{rel}` appeared since the lock")
        elif b is None or b == ABSENT:
            msgs.append(f"`{rel}` vanished since the lock")
        else:
            msgs.append(f"`{rel}` changed since the lock")
    return msgs
