"""The `namespace` / `section` / `mutual` / `open` / `variable` context, as Lean tracks it.

`namespace A.B` opens one level per component and `end B` / `end A.B` closes as many levels as its
name has components; scopes left open at the end of a file are closed by Lean itself.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from harness.blueprint.lexer import IDENT, strip_guillemets
from harness.blueprint.model import Scope

Report = Callable[[str, str], None]  # (code, message) -> a finding at the current command


class Frame:
    __slots__ = ("kind", "name", "opens", "commands", "group")

    def __init__(self, kind: str, name: str, group: int | None = None) -> None:
        self.kind = kind  # file | namespace | section | mutual
        self.name = name  # one namespace component, or a section's name
        self.opens: list[str] = []
        self.commands: list[str] = []
        self.group = group  # mutual blocks: the group id of their declarations


class ScopeTracker:
    def __init__(self) -> None:
        self.frames: list[Frame] = [Frame("file", "")]
        self._cache: Scope | None = None
        self._groups = 0

    def open(self, kind: str, rest: str) -> None:
        """`namespace X.Y`, `section X`, `noncomputable section`, `mutual`."""
        self._cache = None
        if kind == "mutual":
            self._groups += 1
            self.frames.append(Frame("mutual", "", self._groups))
            return
        name = first_ident(rest)
        if kind == "namespace":
            for part in name.split(".") if name else []:
                f = Frame("namespace", part)
                f.commands.append(f"namespace {part}")
                self.frames.append(f)
            return
        f = Frame("section", name)
        f.commands.append(f"section {name}".strip())
        self.frames.append(f)

    def close(self, rest: str, report: Report) -> None:
        """`end`, `end X`, `end X.Y`."""
        self._cache = None
        name = first_ident(rest)
        written = f"`end {name}`" if name else "`end`"
        top = self.frames[-1]
        if top.kind in ("section", "mutual") or not name:
            if len(self.frames) == 1:
                report("unbalanced-end", f"{written} closes no namespace or section")
                return
            self.frames.pop()
            if top.kind == "section" and top.name != name:
                report("unbalanced-end", f"{written} closes section `{top.name or '(anonymous)'}`")
            elif top.kind == "namespace":
                report("unbalanced-end", f"{written} closes namespace `{top.name}`")
            return
        parts = name.split(".")
        open_ns = [f.name for f in self.frames[-len(parts):] if f.kind == "namespace"]
        if len(open_ns) == len(parts) and open_ns == parts:
            del self.frames[-len(parts):]
        else:
            report("unbalanced-end", f"{written} does not match the open namespace "
                                     f"`{'.'.join(f.name for f in self.frames if f.name)}`")
            if len(self.frames) > 1:
                self.frames.pop()

    def record(self, kw: str, text: str) -> None:
        """`open`, `variable`, `universe`, `set_option` (lasting until the enclosing `end`)."""
        self._cache = None
        frame = self.frames[-1]
        frame.commands.append(text)
        if kw == "open":
            frame.opens.extend(opened(text))

    @property
    def group(self) -> int | None:
        for f in reversed(self.frames):
            if f.kind == "mutual":
                return f.group
        return None

    def current(self, prefix: list[str]) -> Scope:
        """The scope in force, plus one-declaration prefixes (`open X in`, `variable … in`)."""
        if not prefix and self._cache is not None:
            return self._cache
        namespaces = tuple(f.name for f in self.frames if f.kind == "namespace")
        opens: list[str] = []
        cmds: list[str] = []
        for f in self.frames:
            opens.extend(f.opens)
            cmds.extend(f.commands)
        for text in prefix:
            cmds.append(text)
            if text.startswith("open"):
                opens.extend(opened(text[: -len("in")]))
        scope = Scope(namespaces, tuple(opens), tuple(cmds))
        if not prefix:
            self._cache = scope
        return scope


def first_ident(rest: str) -> str:
    m = IDENT.match(rest.strip())
    return strip_guillemets(m.group(0)) if m else ""


def opened(open_text: str) -> list[str]:
    """Namespaces opened by an `open …` command text (ignores `hiding`/`renaming`/`(x y)` parts)."""
    body = re.sub(r"\([^)]*\)", " ", open_text[len("open"):])
    body = re.split(r"\b(?:hiding|renaming)\b", body)[0]
    out = []
    for tok in body.split():
        if tok in ("scoped", "in"):
            continue
        if IDENT.fullmatch(tok):
            out.append(strip_guillemets(tok))
    return out
