"""Against a REAL Lean toolchain (GitHub Actions, `pytest -m lean`; skipped when none is found):
harness/gate/lean/AuditModule.lean lists what a compiled file declares and replays it through
the kernel. Unverifiable where it was written (no Lean); this is the test that checks it."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from harness.blueprint import parse_text
from harness.gate.audit import check_text
from harness.gate.declared import compile_audited
from harness.lean.toolchain import find_toolchain
from harness.lean.verdict import check_file
from tests.lean.conftest import FIXTURES
from tests.support.fakelean import real_lake

REPO = Path(__file__).resolve().parents[2]
LAKE = real_lake()
pytestmark = [pytest.mark.lean,
              pytest.mark.skipif(LAKE is None, reason="no real Lean toolchain (lake) found")]
TIMEOUT_S = 900.0

CLEAN = """namespace Tiny

theorem four : 2 + 2 = 4 := rfl

def twice (n : Nat) : Nat := n + n

private theorem twice_zero : twice 0 = 0 := rfl

end Tiny
"""

# a theorem of `False` added while the kernel is told to skip its check (`debug.skipKernelTC`
# makes `addDecl` use `addDeclWithoutChecking`: src/Lean/AddDecl.lean); the elaborator accepts
# it, the replay must not
SKIPPED = """import Lean
open Lean Elab Command

set_option debug.skipKernelTC true in
run_cmd liftCoreM <| addDecl <| .thmDecl
  { name := `Tiny.bad, levelParams := [], type := mkConst ``False,
    value := mkConst ``True.intro }

theorem Tiny.fine : True := trivial
"""


@pytest.fixture(scope="module")
def project(tmp_path_factory: pytest.TempPathFactory) -> Path:
    dst = tmp_path_factory.mktemp("real-audit") / "project"
    shutil.copytree(FIXTURES / "project", dst)
    pin = REPO / "lean-toolchain"
    if pin.is_file():
        shutil.copy(pin, dst / "lean-toolchain")
    return dst


def _audit(project: Path, name: str, text: str):
    f = project / "Tiny" / name
    f.write_text(text, encoding="utf-8")
    tc = find_toolchain(project, str(LAKE), timeout_s=TIMEOUT_S)
    bp = parse_text(text, f)
    v = check_file(tc, project, bp, timeout_s=TIMEOUT_S, mem_mb=None, audit=compile_audited)
    return bp, v


def test_a_clean_file_lists_its_constants_and_passes_the_kernel(project: Path) -> None:
    bp, v = _audit(project, "AuditClean.lean", CLEAN)
    assert v.audit is not None and v.audit.kernel_ok, v.audit
    kinds = {c.name: c.kind for c in v.audit.constants}
    assert kinds["Tiny.four"] == "theorem" and kinds["Tiny.twice"] == "def"
    assert any(n.endswith(".0.Tiny.twice_zero") and n.startswith("_private.Tiny.AuditClean")
               for n in kinds)
    assert check_text(bp, v.audit) == []


def test_a_constant_the_kernel_never_checked_is_caught(project: Path) -> None:
    bp, v = _audit(project, "AuditSkip.lean", SKIPPED)
    assert v.audit is not None
    assert not v.audit.kernel_ok and "Tiny.bad" in {c.name for c in v.audit.constants}
    msgs = [p.message for p in check_text(bp, v.audit)]
    assert any("kernel rejects" in m for m in msgs) and any("`Tiny.bad`" in m for m in msgs)
