"""Helpers for tests that drive the harness through the Lean test doubles (tests/fakes/).

::

    from tests.support.fakelean import FAKE_LAKE, fake_env, make_workspace, real_lake

    ws = make_workspace(tmp_path, {"Demo.lean": "theorem t : 1 = 1 := rfl\\n"})
    env = fake_env(version="4.27.0", log=tmp_path / "calls.log")   # for subprocess tests
    # in-process: monkeypatch.setenv("HARNESS_LAKE", str(FAKE_LAKE)), or pass lake=str(FAKE_LAKE)

Contract of the doubles: tests/fakes/README.md. ``real_lake()`` finds a real toolchain (never
one under tests/fakes) for ``@pytest.mark.lean`` tests, or returns None.
"""

from __future__ import annotations

import os
import shutil
import sys
from pathlib import Path

FAKES = Path(__file__).resolve().parent.parent / "fakes"
FAKE_LAKE = FAKES / "lake"
FAKE_LEAN = FAKES / "lean"
FAKE_REPL = FAKES / "repl"


def fake_env(*, version: str | None = None, log: Path | None = None, lake: bool = True,
             base: dict[str, str] | None = None, **extra: str) -> dict[str, str]:
    """An environment for a subprocess: HARNESS_LAKE -> fake lake (unless ``lake=False``, which
    also hides any real Lean: PATH = python's dir only, HOME without ~/.elan)."""
    env = dict(os.environ if base is None else base)
    env.pop("HARNESS_LAKE", None)
    if lake:
        env["HARNESS_LAKE"] = str(FAKE_LAKE)
    else:
        env["PATH"] = os.path.dirname(sys.executable)
        env["HOME"] = str(FAKES / "no-home")  # does not exist: no ~/.elan/bin/lake
    if version:
        env["FAKE_LEAN_VERSION"] = version
    if log:
        env["FAKE_LEAN_LOG"] = str(log)
    env.update(extra)
    return env


def make_workspace(root: Path, files: dict[str, str], *, toolchain: str | None = None) -> Path:
    """A Lake workspace (lakefile.lean + files) under ``root``; returns its path."""
    root.mkdir(parents=True, exist_ok=True)
    (root / "lakefile.lean").write_text("import Lake\nopen Lake DSL\n\npackage test\n",
                                        encoding="utf-8")
    if toolchain:
        (root / "lean-toolchain").write_text(f"leanprover/lean4:v{toolchain}\n", encoding="utf-8")
    for rel, text in files.items():
        p = root / rel
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_text(text, encoding="utf-8")
    return root


def real_lake() -> Path | None:
    """A real `lake` (HARNESS_REAL_LAKE, PATH, ~/.elan/bin) that is not one of our doubles."""
    cands = [os.environ.get("HARNESS_REAL_LAKE"), shutil.which("lake"),
             str(Path.home() / ".elan" / "bin" / "lake")]
    for c in cands:
        if not c:
            continue
        p = Path(c).resolve()
        if p.is_file() and os.access(p, os.X_OK) and FAKES.resolve() not in p.parents:
            return p
    return None
