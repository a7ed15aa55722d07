"""Files outside the blueprint that change what it means: the Lake configuration (a lakefile can
set `leanOptions` such as `debug.skipKernelTC` for the whole package, or load plugins), the
toolchain pin, the dependency manifest, and the project's own modules the blueprint imports
(transitively). The lock records their SHA-256; the gate rejects any change.

Dependencies' sources and build outputs under `.lake/` are trusted (see docs/trust.md).
"""

from __future__ import annotations

import hashlib
import re
from pathlib import Path

from harness.blueprint.model import Blueprint, CommandKind
from harness.workspace import find_workspace

CONFIG_FILES = ("lakefile.lean", "lakefile.toml", "lean-toolchain", "lake-manifest.json")
ABSENT = "absent"
_IMPORT = re.compile(r"^\s*import\s+([^\s-]+)", re.M)
MAX_MODULES = 500  # a safety bound on the transitive walk


def _sha(p: Path) -> str:
    return hashlib.sha256(p.read_bytes()).hexdigest()


def blueprint_imports(bp: Blueprint) -> list[str]:
    out = []
    for c in bp.commands:
        if c.kind == CommandKind.IMPORT:
            words = bp.masked_text()[c.span.start:c.span.end].split()
            out += [w for w in words[1:] if w not in ("runtime", "all")]
    return out


def environment(path: str | Path | None, imports: list[str]) -> dict[str, str]:
    """Relative path -> digest (or ``absent``) for the workspace of ``path``; {} without one."""
    if path is None:
        return {}
    p = Path(path)
    ws = find_workspace(p)
    out: dict[str, str] = {}
    for name in CONFIG_FILES:
        f = ws / name
        out[name] = _sha(f) if f.is_file() else ABSENT
    todo = list(imports)
    seen: set[str] = set()
    own = p.resolve() if p.exists() else None
    while todo and len(seen) < MAX_MODULES:
        mod = todo.pop()
        if mod in seen:
            continue
        seen.add(mod)
        rel = mod.replace("«", "").replace("»", "").replace(".", "/") + ".lean"
        f = ws / rel
        if not f.is_file() or (own is not None and f.resolve() == own):
            continue  # a dependency's module (trusted) or the blueprint itself
        data = f.read_bytes()
        out[rel] = hashlib.sha256(data).hexdigest()
        todo += _IMPORT.findall(data.decode("utf-8", errors="replace"))
    return out


def compare(locked: dict[str, str], now: dict[str, str]) -> list[str]:
    """Messages for every difference (changed, appeared, vanished)."""
    msgs = []
    for rel in sorted(set(locked) | set(now)):
        a, b = locked.get(rel), now.get(rel)
        if a == b:
            continue
        if a is None or a == ABSENT:
            msgs.append(f"`{rel}` appeared since the lock")
        elif b is None or b == ABSENT:
            msgs.append(f"`{rel}` vanished since the lock")
        else:
            msgs.append(f"`{rel}` changed since the lock")
    return msgs
