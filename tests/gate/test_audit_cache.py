"""The base audit's cache key (harness/gate/declared.py `_cache_path`) covers the project
modules the file imports, transitively: after an imported module changes, the base is compiled
and audited again, never answered from a stale cache; an imported module that cannot be read is
*cannot certify*. Through the fake lean/lake (tests/fakes/README.md, rule 13)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from harness.blueprint import parse_text
from harness.gate.lock import make_lock
from harness.gate.verify import verify
from harness.lean.toolchain import Toolchain
from tests.gate.corpus import BASE, PROOF
from tests.gate.test_declared import NODE, audits, prove

HEADER = "import Architect\n"
assert BASE.startswith(HEADER)
TEXT = BASE.replace(HEADER, HEADER + "import Gate.Helper\n", 1)
HELPER = "import Gate.Deep\n\nnamespace Gate.Helper\n\ndef one : Nat := 1\n\nend Gate.Helper\n"
DEEP = "namespace Gate.Deep\n\ndef two : Nat := 2\n\nend Gate.Deep\n"
OTHER = "by\n  unfold double\n  simp; omega"


@pytest.fixture
def ws(workspace: Path) -> Path:
    (workspace / "Base.lean").write_text(TEXT, encoding="utf-8")
    (workspace / "Gate").mkdir()
    (workspace / "Gate" / "Helper.lean").write_text(HELPER, encoding="utf-8")
    (workspace / "Gate" / "Deep.lean").write_text(DEEP, encoding="utf-8")
    (workspace / "Unrelated.lean").write_text("def unrelated : Nat := 0\n", encoding="utf-8")
    return workspace


def gate(body: str, tc: Toolchain, ws: Path, *, locked: bool = True):
    new = prove(body, text=TEXT)
    # `locked=False`: a lock without the workspace files, so the audit's own key is what reads
    lock = make_lock(parse_text(TEXT, ws / "Base.lean" if locked else None))
    return verify(new, ws / "Base.lean", lock, base_text=TEXT, allow={NODE}, lean=tc,
                  workspace=ws, timeout_s=60)


def test_an_edited_import_is_not_answered_from_the_cached_base_audit(
        fake_tc: Toolchain, ws: Path, tmp_path: Path) -> None:
    r = gate(PROOF, fake_tc, ws)
    assert r.exit_code == 0 and r.certified, [f.render() for f in r.failures]
    assert len(audits(tmp_path)) == 2  # the candidate and its base
    assert gate(OTHER, fake_tc, ws).exit_code == 0
    assert len(audits(tmp_path)) == 3, "nothing the base reads changed: the cache answers"
    # a file the base does not import changes nothing
    (ws / "Unrelated.lean").write_text("def unrelated : Nat := 1\n", encoding="utf-8")
    assert gate(PROOF, fake_tc, ws).exit_code == 0
    assert len(audits(tmp_path)) == 4
    # a module imported through Gate.Helper changes: the base is compiled and audited again
    (ws / "Gate" / "Deep.lean").write_text(DEEP.replace(":= 2", ":= 3"), encoding="utf-8")
    assert gate(OTHER, fake_tc, ws).exit_code == 0
    assert len(audits(tmp_path)) == 6, "a stale base audit was reused"
    assert gate(PROOF, fake_tc, ws).exit_code == 0
    assert len(audits(tmp_path)) == 7, "the new base audit is remembered under the new key"
    # the directly imported module changes too
    (ws / "Gate" / "Helper.lean").write_text(HELPER + "\n-- edited\n", encoding="utf-8")
    assert gate(OTHER, fake_tc, ws).exit_code == 0
    assert len(audits(tmp_path)) == 9


def _unreadable(p: Path) -> None:
    """Make ``p`` a file whose read fails, even for root (who ignores permissions)."""
    if os.name == "posix" and os.geteuid() != 0:
        p.chmod(0)
    elif Path("/proc/self/mem").is_file():  # a regular file; reading offset 0 is EIO
        p.unlink()
        p.symlink_to("/proc/self/mem")
    else:
        pytest.skip("no way to make a file unreadable here")


def test_an_unreadable_import_cannot_certify(fake_tc: Toolchain, ws: Path,
                                             tmp_path: Path) -> None:
    assert gate(PROOF, fake_tc, ws, locked=False).exit_code == 0  # the base is cached
    n = len(audits(tmp_path))
    _unreadable(ws / "Gate" / "Deep.lean")
    try:
        r = gate(OTHER, fake_tc, ws, locked=False)
    finally:
        (ws / "Gate" / "Deep.lean").unlink()
    assert r.exit_code == 3 and not r.passed and r.lean_status == "cannot certify"
    assert "cannot read the imported project module" in (r.lean_detail or "")
    assert "Gate/Deep.lean" in (r.lean_detail or "")
    assert len(audits(tmp_path)) == n, "no audit is run or read without a key"


def test_lock_and_verify_say_so_in_one_line_when_an_import_cannot_be_read(ws: Path) -> None:
    """The lock pins the imported modules too: `harness lock` and `harness verify` on a
    blueprint whose import cannot be read end with exit 3 and one line naming it, never a
    traceback (Lean is not needed to find out)."""
    from tests.gate.test_cli import harness

    (ws / "Base.lean").write_text(TEXT, encoding="utf-8")
    made = harness("lock", "Base.lean", "-o", "base.lock.json", cwd=ws)
    assert made.returncode == 0, made.stderr
    _unreadable(ws / "Gate" / "Deep.lean")
    try:
        lock = harness("lock", "Base.lean", "-o", "again.lock.json", cwd=ws)
        verify_out = harness("verify", "Base.lean", "--lock", "base.lock.json",
                             "--static-only", cwd=ws)
    finally:
        (ws / "Gate" / "Deep.lean").unlink()
    for out in (lock, verify_out):
        assert out.returncode == 3, out.stderr
        assert "Traceback" not in out.stderr
        assert "Gate/Deep.lean: cannot read an imported module" in out.stderr
    assert not (ws / "again.lock.json").exists()
