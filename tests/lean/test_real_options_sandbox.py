"""#19.3 / #20.3 against a REAL Lean (GitHub Actions, `pytest -m lean`): the lakefile's options
reach `lean`, and `#eval` code cannot write outside the box. Skipped without a toolchain (and the
sandbox part without a working bubblewrap)."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from harness.blueprint.source import parse_file
from harness.lean import sandbox
from harness.lean.toolchain import find_toolchain
from harness.lean.verdict import check_file
from tests.lean.conftest import FIXTURES
from tests.support.fakelean import real_lake

REPO = Path(__file__).resolve().parents[2]
LAKE = real_lake()
pytestmark = [pytest.mark.lean,
              pytest.mark.skipif(LAKE is None, reason="no real Lean toolchain (lake) found")]
TIMEOUT_S = 900.0


def _project(tmp_path: Path, text: str, options: str) -> Path:
    dst = tmp_path / "project"
    shutil.copytree(FIXTURES / "project", dst)
    if (REPO / "lean-toolchain").is_file():
        shutil.copy(REPO / "lean-toolchain", dst / "lean-toolchain")
    (dst / "lakefile.lean").write_text(
        "import Lake\nopen Lake DSL\n\npackage tiny where\n"
        f"  leanOptions := #[{options}]\n\n@[default_target]\nlean_lib Tiny\n", encoding="utf-8")
    (dst / "Tiny" / "Opt.lean").write_text(text, encoding="utf-8")
    return dst


# `m` is not bound: an auto-bound implicit unless autoImplicit is false (as in our lakefile)
TYPO = "theorem typo_thm (n : Nat) (h : n = m) : n = n := rfl\n"


def test_auto_implicit_false_reaches_lean(tmp_path: Path) -> None:
    strict = _project(tmp_path / "a", TYPO, "⟨`autoImplicit, false⟩")
    fv = check_file(find_toolchain(strict, str(LAKE), timeout_s=TIMEOUT_S), strict,
                    parse_file(strict / "Tiny" / "Opt.lean"), timeout_s=TIMEOUT_S, mem_mb=None)
    assert [n.status for n in fv.nodes] == ["error"]
    loose = _project(tmp_path / "b", TYPO, "⟨`autoImplicit, true⟩, ⟨`relaxedAutoImplicit, true⟩")
    fv = check_file(find_toolchain(loose, str(LAKE), timeout_s=TIMEOUT_S), loose,
                    parse_file(loose / "Tiny" / "Opt.lean"), timeout_s=TIMEOUT_S, mem_mb=None)
    assert [n.status for n in fv.nodes] == ["proved"]


@pytest.mark.skipif(not sandbox.status()[0], reason="no working bubblewrap")
def test_eval_cannot_write_outside_the_box(tmp_path: Path, monkeypatch) -> None:
    monkeypatch.delenv(sandbox.UNSAFE_ENV, raising=False)
    target = tmp_path / "escaped.txt"
    text = (f'#eval IO.FS.writeFile "{target}" "pwned"\n\n'
            "theorem fine : 1 + 1 = 2 := rfl\n")
    proj = _project(tmp_path, text, "⟨`autoImplicit, false⟩")
    fv = check_file(find_toolchain(proj, str(LAKE), timeout_s=TIMEOUT_S), proj,
                    parse_file(proj / "Tiny" / "Opt.lean"), timeout_s=TIMEOUT_S, mem_mb=None)
    assert [n.status for n in fv.nodes] == ["proved"]  # Lean ran fine in the box
    assert not target.exists()
