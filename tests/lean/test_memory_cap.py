"""#19.4: the address-space cap on Lean is configurable, probed by `doctor`, and its failure
("failed to create thread" when Lean cannot reserve thread stacks / map Mathlib) is named in one
line. The double fails an `import Mathlib` under a cap below FAKE_MATHLIB_VM_MB, as recorded."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from harness.agents.config import load_config
from harness.blueprint.source import parse_file
from harness.errors import CannotCertify, InputError
from harness.lean.run import DEFAULT_MEM_MB, MEM_ENV, run
from harness.lean.toolchain import find_toolchain
from harness.lean.verdict import check_file
from harness.preflight.lean import lean_checks
from tests.support.fakelean import make_workspace

MATHLIB_FILE = "import Mathlib\n\ntheorem t : 1 = 1 := rfl\n"


@pytest.fixture
def clean_cap(monkeypatch: pytest.MonkeyPatch) -> pytest.MonkeyPatch:
    monkeypatch.setenv(MEM_ENV, "0")
    monkeypatch.delenv(MEM_ENV)  # recorded: whatever the test (or its config) sets is undone
    return monkeypatch


def test_thread_creation_failure_is_named_in_one_line(fake_lake: Path, tmp_path: Path) -> None:
    ws = make_workspace(tmp_path / "ws", {"M.lean": MATHLIB_FILE})
    with pytest.raises(CannotCertify) as err:
        check_file(find_toolchain(ws), ws, parse_file(ws / "M.lean"), timeout_s=60, mem_mb=4096)
    line = err.value.line()
    assert "\n" not in line
    assert "address-space cap of 4096 MB" in line and "'failed to create thread'" in line
    assert "[lean] memory_mb" in line
    # under a generous cap the same file is fine
    fv = check_file(find_toolchain(ws), ws, parse_file(ws / "M.lean"), timeout_s=60)
    assert [n.status for n in fv.nodes] == ["proved"]


def _cap_seen(tmp_path: Path) -> int:
    probe = "import resource; print(resource.getrlimit(resource.RLIMIT_AS)[0])"
    res = run([sys.executable, "-c", probe], cwd=tmp_path, mem_mb=DEFAULT_MEM_MB, sandbox=False)
    return int(res.stdout) >> 20


def test_harness_toml_sets_the_cap(clean_cap: pytest.MonkeyPatch, tmp_path: Path) -> None:
    assert _cap_seen(tmp_path) == 16384
    (tmp_path / "harness.toml").write_text("[lean]\nmemory_mb = 3000\n", encoding="utf-8")
    cfg = load_config(None, tmp_path)
    assert cfg.lean.memory_mb == 3000
    assert _cap_seen(tmp_path) == 3000
    (tmp_path / "bad.toml").write_text("[lean]\nmemory_mb = -1\n", encoding="utf-8")
    with pytest.raises(InputError) as err:
        load_config(tmp_path / "bad.toml")
    assert err.value.line().startswith(f"{tmp_path / 'bad.toml'}:2:0: config: lean.memory_mb")


def test_doctor_probes_the_cap_with_an_import_mathlib(clean_cap: pytest.MonkeyPatch,
                                                      fake_lake: Path, tmp_path: Path) -> None:
    ws = make_workspace(tmp_path / "ws", {})
    (ws / ".lake" / "packages" / "mathlib" / ".lake").mkdir(parents=True)
    clean_cap.setenv(MEM_ENV, "4096")
    row = {c.name: c for c in lean_checks(ws, None, probe=True)[0]}["memory-cap"]
    assert row.status == "missing" and "failed to create thread" in row.found
    assert "memory_mb" in row.fix
    clean_cap.setenv(MEM_ENV, "16384")
    row = {c.name: c for c in lean_checks(ws, None, probe=True)[0]}["memory-cap"]
    assert row.status == "ok" and "16384 MB" in row.found
    assert not (ws / ".harness" / "tmp" / "MemoryProbe.lean").exists()
