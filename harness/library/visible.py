"""What a position in a Lean file can see: the modules it imports (transitively) and its own
earlier declarations — the context `harness search --at/--for` and the prover's tool search in.

Lean's header: an optional `module` keyword and `prelude`, then `import` commands (one module each;
newer Lean allows `public`/`meta`/`private` before `import` and `all` after it).
Without `prelude`, `Init` is imported implicitly (leanprover/lean4 src/Lean/Elab/Import.lean,
`headerToImports`: `Init` unless `header[0]` (prelude) is present; one `id` per
`Module.import "import" "runtime"? id`). A module's imports are
read from its source file as the index knows it (`files` table: module -> file); a module the
index holds no file for stands for the indexed modules under its name (a library root such as
`Mathlib` imports them all); a module not indexed at all is simply not there to find.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from harness.blueprint.lexer import mask
from harness.errors import HarnessError, InputError
from harness.library.scanner import scan_text

_HEADER_TOKEN = re.compile(r"\S+")
_MODIFIERS = ("public", "meta", "private")
_HEADER_BYTES = 64 << 10  # a header is at the top; never read a whole large file for it


def header_imports(text: str) -> tuple[list[str], bool]:
    """(imported modules in order, `prelude`?) of a Lean file's header."""
    try:
        masked = mask(text)
    except HarnessError:
        masked = text  # an unterminated comment later in the file: the header still reads
    out: list[str] = []
    prelude = False
    toks = _HEADER_TOKEN.findall(masked[:_HEADER_BYTES])
    i = 0
    if toks[:1] == ["module"]:
        i = 1
    if toks[i:i + 1] == ["prelude"]:
        prelude, i = True, i + 1
    while i < len(toks):
        j = i
        while j < len(toks) and toks[j] in _MODIFIERS:
            j += 1
        if j >= len(toks) or toks[j] != "import":
            break  # the first command after the header
        j += 1
        while j < len(toks) and toks[j] in ("all", "runtime"):
            j += 1
        if j < len(toks):  # one module per `import` (Lean.Parser.Module `import`)
            out.append(toks[j].replace("«", "").replace("»", ""))
        i = j + 1
    return list(dict.fromkeys(out)), prelude


@dataclass(frozen=True)
class Position:
    """A place in a workspace file: its module, line, and the scope in force there."""
    path: Path
    module: str
    line: int
    namespace: str
    opens: tuple[str, ...]
    visible: frozenset[str]  # modules it imports, transitively (its own module excluded)


Rows = Callable[[str, tuple], list[tuple]]  # an SQL query on the index (LibraryIndex.rows)


def _module_files(rows: Rows, ws: Path) -> dict[str, Path]:
    out: dict[str, Path] = {}
    for module, rel in rows("SELECT module, rel FROM files", ()):
        out.setdefault(module, ws / rel)
    return out


def imported_modules(rows: Rows, ws: Path, text: str) -> frozenset[str]:
    """Every module a file with this ``text`` imports, transitively (with `Init`'s closure
    unless it is a `prelude`)."""
    files = _module_files(rows, ws)
    roots, prelude = header_imports(text)
    if not prelude:
        roots.append("Init")
    seen: set[str] = set()
    todo = list(roots)
    while todo:
        m = todo.pop()
        if m in seen:
            continue
        seen.add(m)
        path = files.get(m)
        if path is None:
            # no file for it (a root like `Mathlib` not indexed): it stands for the indexed
            # modules under it, as a library's root file imports them (fail open, not empty)
            todo.extend(x for x in files if x.startswith(m + ".") and x not in seen)
            continue
        try:
            with path.open(encoding="utf-8", errors="replace") as fh:
                head = fh.read(_HEADER_BYTES)
        except OSError:
            continue
        got, _ = header_imports(head)
        todo.extend(x for x in got if x not in seen)
    return frozenset(seen)


def scope_at(text: str, line: int) -> tuple[str, tuple[str, ...]]:
    """(namespace, opens) in force at the start of ``line`` (1-based), as the scanner tracks
    them: a probe declaration is appended after the text above and scanned."""
    lines = text.splitlines(keepends=True)
    above = "".join(lines[:line - 1])
    probe = "\ntheorem harness_scope_probe : True := trivial\n"
    try:
        got = scan_text(above + probe)
    except HarnessError:
        return "", ()
    for d in reversed(got):
        if d.name.endswith("harness_scope_probe"):
            return d.namespace, tuple(d.opens)
    return "", ()


def position(rows: Rows, ws: Path, path: Path, line: int,
             arg: str | None = None) -> Position:
    """The :class:`Position` at ``path:line`` (InputError: not a readable Lean file of the
    workspace, or the line is outside it). ``arg`` is how the caller spelled it."""
    shown = arg or str(path)
    p = path if path.is_absolute() else Path.cwd() / path
    try:
        text = p.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as err:
        why = getattr(err, "strerror", None) or str(err)
        raise InputError(shown, 1, 0, f"cannot read: {why}") from None
    if p.suffix != ".lean":
        raise InputError(shown, 1, 0, "not a Lean file (expected a `.lean` file)")
    n = text.count("\n") + (0 if text.endswith("\n") or not text else 1)
    if line < 1 or line > max(n, 1) + 1:
        raise InputError(shown, max(line, 1) if line >= 1 else 1, 0,
                         f"line {line} is outside the file (it has {n} lines)")
    try:
        rel = p.resolve().relative_to(ws.resolve()).as_posix()
    except ValueError:
        raise InputError(shown, line, 0, f"not inside the workspace {ws}") from None
    got = rows("SELECT module FROM files WHERE rel = ?", (rel,))
    module = got[0][0] if got else rel.removesuffix(".lean").replace("/", ".")
    ns, opens = scope_at(text, line)
    visible = imported_modules(rows, ws, text) - {module}
    return Position(p, module, line, ns, opens, visible)


def file_of_rows(rows: Rows, n: int):
    """Row id -> file id (numpy; -1 for ids with no row), for :func:`row_mask`."""
    import numpy as np

    file_of = np.full(n, -1, dtype=np.int64)
    got = rows("SELECT id, file_id FROM decls", ())
    if got:
        arr = np.asarray(got, dtype=np.int64)
        inside = arr[:, 0] < n
        file_of[arr[inside, 0]] = arr[inside, 1]
    return file_of


def row_mask(rows: Rows, file_of, ctx):
    """The rows a place (a QueryContext with ``visible``) can use: those of the modules it
    imports, and those of its own module above its line (BM25 ranks only these)."""
    import numpy as np

    visible = ctx.visible or frozenset()
    fids = [i for i, m in rows("SELECT id, module FROM files", ()) if m in visible]
    mask = np.isin(file_of, np.asarray(fids, dtype=np.int64))
    if ctx.module:
        own = np.asarray([r[0] for r in rows(
            "SELECT id FROM decls WHERE module = ? AND line < ?",
            (ctx.module, ctx.line or 1 << 30))], dtype=np.int64)
        mask[own[own < len(mask)]] = True
    return mask
