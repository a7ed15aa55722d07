"""Elaborated types against a REAL Lean toolchain (`pytest -m lean`; skipped when none is found):
the shape of `set_option pp.all true in … #check (@X)` answers that harness.lean.verdict parses."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from harness.blueprint.source import parse_file
from harness.gate.elaborated import elaborated_hashes
from harness.lean.toolchain import find_toolchain
from harness.lean.verdict import check_file
from tests.lean.conftest import FIXTURES
from tests.support.fakelean import real_lake

REPO = Path(__file__).resolve().parents[2]
LAKE = real_lake()
pytestmark = [pytest.mark.lean,
              pytest.mark.skipif(LAKE is None, reason="no real Lean toolchain (lake) found")]
TIMEOUT_S = 900.0


@pytest.fixture(scope="module")
def project(tmp_path_factory: pytest.TempPathFactory) -> Path:
    dst = tmp_path_factory.mktemp("real-types") / "project"
    shutil.copytree(FIXTURES / "project", dst)
    if (REPO / "lean-toolchain").is_file():
        shutil.copy(REPO / "lean-toolchain", dst / "lean-toolchain")
    return dst


def test_real_pp_all_types(project: Path) -> None:
    tc = find_toolchain(project, str(LAKE), timeout_s=TIMEOUT_S)
    bp = parse_file(project / "Tiny" / "Basic.lean")
    keys = [d.key for d in bp.decls if d.name]
    fv = check_file(tc, project, bp, types=keys, timeout_s=TIMEOUT_S, mem_mb=None)
    assert fv.types is not None and set(fv.types) == set(keys), fv.types
    comm = fv.types["Tiny.add_comm'"]
    assert comm.startswith("∀ (a b : Nat), @Eq") and "@HAdd.hAdd" in comm  # pp.all: explicit
    assert "@OfNat.ofNat" in fv.types["Tiny.two_add_two"]
    # deterministic: a second compile (another scratch module name) gives the same hashes
    once = elaborated_hashes(bp, keys, tc, workspace=project, timeout_s=TIMEOUT_S)
    assert elaborated_hashes(bp, keys, tc, workspace=project, timeout_s=TIMEOUT_S) == once
