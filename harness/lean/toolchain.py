"""Finding Lake/Lean: ``--lake PATH`` > ``HARNESS_LAKE`` > ``PATH`` > ``~/.elan/bin``.

Lean is always run as ``lake env lean …`` from the workspace root so that the workspace's
``LEAN_PATH`` (built dependencies) is in force. The toolchain the workspace pins in
``lean-toolchain`` is compared with what ``lean --version`` reports; a mismatch is a warning
(elan normally makes them agree; a mismatch usually means a stale PATH entry).

``lake env`` only sets paths, so the options ``lake build`` gives a module (the lakefile's
``leanOptions``/``moreLeanArgs``, :mod:`harness.lean.options`) are passed to ``lean`` here:
:meth:`Toolchain.lean` with ``module=`` the module a scratch copy stands for.
"""

from __future__ import annotations

import os
import re
import shutil
from dataclasses import dataclass, field
from pathlib import Path

from harness.errors import CannotCertify, UsageError
from harness.lean.options import LakeOptions, module_of, read_options
from harness.lean.run import run

ELAN_INSTALL = "curl https://elan.lean-lang.org/elan-init.sh -sSf | sh"
VERSION_TIMEOUT_S = 120.0  # first `lake env` in a fresh checkout may have to read the manifest
_VERSION = re.compile(r"version (\d+\.\d+\.\d+(?:-[0-9A-Za-z.]+)?)")


@dataclass(frozen=True)
class Toolchain:
    lake: Path
    lean_version: str | None  # e.g. "4.32.0", from `lake env lean --version`
    pinned: str | None  # from the workspace's lean-toolchain, e.g. "4.32.0"
    warnings: tuple[str, ...] = field(default=())
    options: LakeOptions | None = None  # the lakefile's, as Lake adds them up (None: none read)
    workspace: Path | None = None

    def lean_args(self, module: str | None = None) -> list[str]:
        """``-D`` options (+ moreLeanArgs) Lake uses for ``module`` (None: a file in no library:
        the package's)."""
        return self.options.lean_args(module) if self.options is not None else []

    def module_of(self, file: Path | str | None) -> str | None:
        if self.workspace is None:
            return None
        return module_of(self.workspace, file, self.options)

    def lean(self, *args: str, module: str | None = None) -> list[str]:
        """argv for running Lean in the workspace's environment, with Lake's options."""
        return [str(self.lake), "env", "lean", *self.lean_args(module), *args]

    def repl(self, repl_bin: str = "repl") -> list[str]:
        """argv for the REPL (a `repl` binary on the Lake env PATH, or an explicit path)."""
        return [str(self.lake), "env", repl_bin]


def _candidates(lake: str | None) -> list[tuple[str, Path | None]]:
    out: list[tuple[str, Path | None]] = []
    if lake:
        out.append(("--lake", Path(lake).expanduser()))
    env = os.environ.get("HARNESS_LAKE")
    if env:
        out.append(("HARNESS_LAKE", Path(env).expanduser()))
    which = shutil.which("lake")
    out.append(("PATH", Path(which) if which else None))
    out.append(("~/.elan/bin", Path.home() / ".elan" / "bin" / "lake"))
    return out


def _usable(p: Path | None) -> bool:
    return p is not None and p.is_file() and os.access(p, os.X_OK)


def find_lake(lake: str | None = None) -> Path:
    """The lake executable to use. An explicit ``--lake``/``HARNESS_LAKE`` that is wrong is an
    error (never silently fall back to another toolchain)."""
    for source, path in _candidates(lake):
        if source in ("--lake", "HARNESS_LAKE"):
            if not _usable(path):
                raise UsageError(f"{source}: {path} is not an executable lake; "
                                 f"install Lean with elan: {ELAN_INSTALL}")
            return path  # type: ignore[return-value]
        if _usable(path):
            return path  # type: ignore[return-value]
    raise UsageError(describe_missing())


def describe_missing() -> str:
    return ("no Lean toolchain found (lake not on PATH, not in ~/.elan/bin, no --lake or "
            f"HARNESS_LAKE); install elan: {ELAN_INSTALL}")


def lean_available(lake: str | None = None) -> bool:
    """Cheap check (no subprocess): is there a lake we would use?"""
    try:
        find_lake(lake)
    except UsageError:
        return False
    return True


def pinned_version(workspace: Path) -> str | None:
    """``leanprover/lean4:v4.32.0`` -> ``4.32.0`` (None when there is no lean-toolchain file)."""
    f = workspace / "lean-toolchain"
    if not f.is_file():
        return None
    spec = f.read_text(encoding="utf-8", errors="replace").strip()
    tag = spec.rsplit(":", 1)[-1]
    return tag[1:] if tag.startswith("v") else tag


def parse_version(text: str) -> str | None:
    m = _VERSION.search(text)
    return m.group(1) if m else None


def find_toolchain(workspace: Path, lake: str | None = None, *,
                   timeout_s: float = VERSION_TIMEOUT_S) -> Toolchain:
    """Locate lake, ask Lean for its version inside ``workspace``, compare with the pin."""
    path = find_lake(lake)
    # trusted (no prover code) and unboxed on purpose: the first `lake env` after a lakefile
    # change writes `.lake/lakefile.olean`, which the boxed runs after it cannot
    res = run([str(path), "env", "lean", "--version"], cwd=workspace, timeout_s=timeout_s,
              mem_mb=None, sandbox=False)
    if res.timed_out:
        raise CannotCertify(f"{path} env lean --version: no answer within {timeout_s:g}s")
    if res.returncode != 0:
        detail = (res.stderr.strip() or res.stdout.strip()).splitlines()
        raise UsageError(f"{path} env lean --version failed (exit {res.returncode}): "
                         f"{detail[0] if detail else 'no output'}")
    version = parse_version(res.stdout)
    pinned = pinned_version(workspace)
    warnings: list[str] = []
    if version is None:
        warnings.append(f"could not read the Lean version from {res.stdout.strip()[:80]!r}")
    elif pinned and pinned != version:
        warnings.append(f"{workspace / 'lean-toolchain'} pins {pinned} but lean reports "
                        f"{version}")
    return Toolchain(lake=path, lean_version=version, pinned=pinned, warnings=tuple(warnings),
                     options=read_options(workspace, path), workspace=workspace)


def missing_note(file: Path | None = None, lake: str | None = None) -> str | None:
    """One line for commands that work without Lean (`plan`, `status`): None when Lean exists."""
    if lean_available(lake):
        return None
    return f"note: {describe_missing()}; Lean-backed checks are unavailable"
