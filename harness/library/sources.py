"""What gets indexed: the workspace's own Lean files and every Lake package under
`.lake/packages/*/`, each with a revision so that an unchanged package is never re-read.

The revision of a package is the `rev` Lake pinned in `lake-manifest.json` (its `packages[]`
entries carry `name` and `rev`), else the commit its `.git/HEAD` points at, else a fingerprint of
its files' sizes and modification times (the workspace itself: it changes while you work).
"""

from __future__ import annotations

import hashlib
import json
import os
from dataclasses import dataclass
from pathlib import Path

SKIP_DIRS = frozenset({".lake", ".harness", ".git", "build", "node_modules", ".github"})
WORKSPACE = "workspace"


@dataclass(frozen=True, slots=True)
class SourceFile:
    path: Path  # absolute
    rel: str  # relative to the workspace, `/`-separated
    module: str  # `Mathlib.Analysis.Foo`
    size: int
    mtime_ns: int


@dataclass(frozen=True, slots=True)
class Package:
    name: str
    root: Path
    rev: str
    pinned: bool  # the revision names a commit (manifest or git), not a file fingerprint


def lean_files(root: Path, workspace: Path) -> list[SourceFile]:
    """Every `*.lean` below ``root`` (build and VCS directories skipped), sorted."""
    out: list[SourceFile] = []
    for dirpath, dirnames, filenames in os.walk(root):
        dirnames[:] = sorted(d for d in dirnames if d not in SKIP_DIRS and not d.startswith("."))
        for fn in sorted(filenames):
            if not fn.endswith(".lean"):
                continue
            p = Path(dirpath) / fn
            try:
                st = p.stat()
            except OSError:
                continue
            mod = p.relative_to(root).with_suffix("").as_posix().replace("/", ".")
            try:
                rel = p.relative_to(workspace).as_posix()
            except ValueError:  # Lean's own sources live in the toolchain, outside
                rel = p.as_posix()
            out.append(SourceFile(p, rel, mod, st.st_size, st.st_mtime_ns))
    return out


def _manifest_revs(workspace: Path) -> dict[str, str]:
    try:
        data = json.loads((workspace / "lake-manifest.json").read_text(encoding="utf-8"))
        return {p["name"]: str(p["rev"]) for p in data.get("packages", [])
                if isinstance(p, dict) and p.get("name") and p.get("rev")}
    except (OSError, ValueError, TypeError, KeyError):
        return {}


def _git_head(root: Path) -> str | None:
    git = root / ".git"
    try:
        if git.is_file():  # a worktree or submodule: `gitdir: …`
            git = (root / git.read_text().split(":", 1)[1].strip()).resolve()
        head = (git / "HEAD").read_text().strip()
        if head.startswith("ref:"):
            ref = head.split(None, 1)[1]
            p = git / ref
            if p.is_file():
                return p.read_text().strip()
            packed = git / "packed-refs"
            for line in packed.read_text().splitlines() if packed.is_file() else []:
                if line.endswith(" " + ref):
                    return line.split()[0]
            return None
        return head or None
    except (OSError, IndexError):
        return None


def fingerprint(files: list[SourceFile]) -> str:
    h = hashlib.sha1()
    for f in files:
        h.update(f"{f.rel}\0{f.size}\0{f.mtime_ns}\n".encode())
    return "files:" + h.hexdigest()[:16]


CORE = "lean4"


def core_sources(workspace: Path) -> tuple[Path, str] | None:
    """Lean's own library sources (`Init`, `Std`, `Lean`) in the elan toolchain the workspace's
    `lean-toolchain` names (elan stores `leanprover/lean4:v4.x` as `leanprover--lean4---v4.x`)."""
    try:
        tc = (workspace / "lean-toolchain").read_text(encoding="utf-8").strip()
    except OSError:
        return None
    if not tc:
        return None
    elan = Path(os.environ.get("ELAN_HOME") or Path.home() / ".elan")
    src = elan / "toolchains" / tc.replace("/", "--").replace(":", "---") / "src" / "lean"
    return (src, tc) if src.is_dir() else None


def discover(workspace: Path) -> list[Package]:
    """The workspace package first, then Lean's core library (when the toolchain is installed),
    then `.lake/packages/*` in name order."""
    revs = _manifest_revs(workspace)
    pkgs = [Package(WORKSPACE, workspace, "", False)]
    core = core_sources(workspace)
    if core is not None:
        pkgs.append(Package(CORE, core[0], core[1], True))
    pdir = workspace / ".lake" / "packages"
    if pdir.is_dir():
        for d in sorted(pdir.iterdir()):
            if not d.is_dir():
                continue
            rev = revs.get(d.name) or _git_head(d)
            pkgs.append(Package(d.name, d, rev or "", rev is not None))
    return pkgs
