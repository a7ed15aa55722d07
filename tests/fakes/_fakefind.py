"""Fake Mathlib `#find PATTERN` in the fake REPL (contract: tests/fakes/README.md).

Mathlib's `#find` (Mathlib/Tactic/Find.lean, `findType` / `elab "#find "`; the module-system
version read for our pin) elaborates the pattern, then for each constant whose *result type*
matches it up to reducible defeq logs one info message `{n}: {cTy}` (the constant's full type),
stopping after 20 with the info message "maximum number of search results reached"; no match
logs nothing. The messages sit at the command (`logInfo` with the command as ref).
The fake: the environment is the header's imports (the modules found in the workspace or under
`.lake/packages/*`, as for `#check`) plus earlier commands; a pattern matches a declaration when
its tokens equal the type's conclusion (after the last top-level `,` of a `∀`), `_` / `?x` matching
any non-empty run of text. Identifiers `bogus…` are unknown (an error, as rule 2).
Without an import of Mathlib (`import Mathlib` or `import Mathlib.Tactic…`) the command does
not parse: error "unexpected token '#find'; expected command" [shape from Lean's parser
errors for an unknown command keyword; not recorded from a real run].
"""

from __future__ import annotations

import glob
import os
import re

from _fakeexport import top_level

MAX = 20


def imported(text: str) -> list:
    """Declarations of the modules ``text`` imports, transitively (workspace or packages)."""
    from _fakelean import Judge

    out, seen = [], set()
    todo = re.findall(r"^import\s+([\w.]+)", text, re.M)
    while todo:
        mod = todo.pop(0)
        if mod in seen:
            continue
        seen.add(mod)
        rel = mod.replace(".", os.sep) + ".lean"
        for cand in [rel, *sorted(glob.glob(os.path.join(".lake", "packages", "*", rel)))]:
            if os.path.isfile(cand):
                with open(cand, encoding="utf-8") as fh:
                    src = fh.read()
                out.extend(d for d in Judge(src).decls if d.name)
                todo.extend(re.findall(r"^import\s+([\w.]+)", src, re.M))
                break
    return out


def _regex(pattern: str) -> re.Pattern[str]:
    parts = []
    for tok in re.findall(r"\?\w+|[\w.'₀-₉]+|\S", pattern):
        parts.append(r".+?" if tok == "_" or tok.startswith("?") else re.escape(tok))
    return re.compile(r"\s*".join(parts) + r"\Z")


def _conclusion(typ: str) -> str:
    cut = top_level(typ, ",", last=True)
    return typ[cut + 1:].strip() if cut >= 0 and typ.lstrip().startswith("∀") else typ


def find(header: str, decls: list, code: str) -> list[tuple[str, str]]:
    """(severity, data) messages for `#find …` in ``code`` with ``decls`` in scope."""
    import _fakecheck

    pattern = code.strip()[len("#find"):].strip()
    if not re.search(r"^import\s+Mathlib(\.Tactic[\w.]*)?\s*$", header, re.M):
        return [("error", "unexpected token '#find'; expected command")]
    bogus = re.findall(r"\bbogus\w*", pattern)
    if bogus:
        return [("error", f"Unknown identifier `{bogus[0]}`")]
    rx = _regex(pattern)
    out: list[tuple[str, str]] = []
    for d in decls:
        if not d.name or d.kind in ("example",):
            continue
        binders, typ, _body = _fakecheck.signature(d)
        if typ is None:
            continue
        full = f"∀ {binders}, {typ}" if binders else typ
        if rx.match(_conclusion(full)):
            if len(out) == MAX:
                out.append(("info", "maximum number of search results reached"))
                break
            out.append(("info", f"{d.name}: {full}"))
    return out
