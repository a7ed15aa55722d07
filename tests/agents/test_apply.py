"""`harness.agents.apply.apply_gated` and the write lock: never lose a concurrent write."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from harness.agents.apply import apply_gated, statement_lock
from harness.blueprint import parse_file
from harness.blueprint.write import replace_body
from harness.errors import ExitCode
from harness.gate.writelock import WriteLockTimeout, blueprint_write_lock, lock_file_for
from harness.lean.toolchain import find_toolchain
from tests.support.fakelean import FAKE_LAKE

A, B = "lem:double_add", "lem:unrelated"


def _apply(ws: Path, bp, label: str, lake: Path = FAKE_LAKE):
    f = ws / "Demo.lean"
    return apply_gated(f, bp, label, "by omega", "", workspace=ws,
                       toolchain=find_toolchain(ws, str(lake)), lock=statement_lock(f, bp, None),
                       timeout_s=60)


def test_unchanged_file_is_written(demo_ws: Path):
    bp = parse_file(demo_ws / "Demo.lean")
    assert _apply(demo_ws, bp, A) == (True, [])
    assert "double a + double b := by omega" in (demo_ws / "Demo.lean").read_text()


def test_changed_file_gets_the_candidate_reapplied(demo_ws: Path):
    f = demo_ws / "Demo.lean"
    seen = parse_file(f)  # what the attempt on A saw
    f.write_text(replace_body(seen, B, "by omega"))  # another writer proved B meanwhile
    assert _apply(demo_ws, seen, A) == (True, [])
    text = f.read_text()
    assert "double a + double b := by omega" in text and "n + 0 = n := by omega" in text


def test_node_proved_meanwhile_is_refused(demo_ws: Path):
    f = demo_ws / "Demo.lean"
    seen = parse_file(f)
    theirs = replace_body(seen, A, "by\n  unfold double\n  omega")
    f.write_text(theirs)
    ok, reasons = _apply(demo_ws, seen, A)
    assert not ok and len(reasons) == 1
    assert reasons[0].startswith("refused: ") and "already proved there" in reasons[0]
    assert f.read_text() == theirs


def test_statement_changed_meanwhile_is_rejected_by_the_gate(demo_ws: Path):
    f = demo_ws / "Demo.lean"
    seen = parse_file(f)
    theirs = seen.text.replace("n + 0 = n", "n + 0 = n + 0")
    f.write_text(theirs)
    ok, reasons = _apply(demo_ws, seen, B)
    assert not ok and any("[lock] lem:unrelated" in r for r in reasons), reasons
    assert f.read_text() == theirs


# a lake that, during the gate's Lean run, lets a writer that ignores the lock touch the file
TOUCHING_LAKE = """\
#!{python}
import os, sys
if sys.argv[1:3] == ["env", "lean"] and "--version" not in sys.argv:
    with open({target!r}, "a") as fh:
        fh.write("-- touched by an editor\\n")
os.execv(sys.executable, [sys.executable, {lake!r}, *sys.argv[1:]])
"""


def test_writer_ignoring_the_lock_is_not_overwritten(demo_ws: Path, tmp_path: Path):
    f = demo_ws / "Demo.lean"
    lake = tmp_path / "lake"
    lake.write_text(TOUCHING_LAKE.format(python=sys.executable, target=str(f),
                                         lake=str(FAKE_LAKE)))
    lake.chmod(0o755)
    bp = parse_file(f)
    ok, reasons = _apply(demo_ws, bp, A, lake=lake)
    assert not ok and reasons[0].startswith("refused: ") and "another writer" in reasons[0]
    text = f.read_text()
    assert "-- touched by an editor" in text and "by omega" not in text


def test_write_lock_excludes_a_second_holder(demo_ws: Path):
    f = demo_ws / "Demo.lean"
    with blueprint_write_lock(demo_ws, f, timeout_s=5) as held:
        assert held == lock_file_for(demo_ws, f) and held.parent == demo_ws / ".harness" / "locks"
        with pytest.raises(WriteLockTimeout) as exc:
            with blueprint_write_lock(demo_ws, f, timeout_s=0.2):
                pass
        assert exc.value.exit_code == ExitCode.FINDINGS
        assert "nothing written" in exc.value.line() and "\n" not in exc.value.line()
    with blueprint_write_lock(demo_ws, f, timeout_s=0.2):  # released: free again
        pass


def test_symlinked_path_shares_the_lock(demo_ws: Path):
    f = demo_ws / "Demo.lean"
    link = demo_ws / "Alias.lean"
    link.symlink_to(f)
    assert lock_file_for(demo_ws, link) == lock_file_for(demo_ws, f)
