"""`harness lock -o` on paths that cannot be written, and `harness verify` with a lock written for
another blueprint: one-line input errors (exit 2), as real subprocesses."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from harness.blueprint import parse_text
from harness.gate.lock import make_lock
from tests.gate.corpus import BASE
from tests.support.fakelean import fake_env, make_workspace

ROOT = Path(__file__).resolve().parents[2]
OTHER = """\
namespace Other

@[blueprint "lem:other" (statement := /-- Another blueprint's lemma. -/)]
theorem other_fact (n : Nat) : n * 1 = n := by
  sorry

end Other
"""


def harness(*args: str, cwd: Path) -> subprocess.CompletedProcess:
    env = fake_env(lake=False)
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(ROOT), env.get("PYTHONPATH")]))
    return subprocess.run([sys.executable, "-m", "harness", *args], cwd=cwd, env=env,
                          capture_output=True, text=True, timeout=120)


@pytest.fixture
def ws(tmp_path: Path) -> Path:
    ws = make_workspace(tmp_path / "proj", {"Base.lean": BASE, "Other.lean": OTHER})
    make_lock(parse_text(BASE, ws / "Base.lean"), source="Base.lean").save(ws / "base.lock.json")
    return ws


def _one_line_usage(p: subprocess.CompletedProcess, *needles: str) -> str:
    assert p.returncode == 2, (p.returncode, p.stdout, p.stderr)
    lines = p.stderr.strip().splitlines()
    assert len(lines) == 1 and "internal error" not in lines[0] and "Traceback" not in p.stderr, lines
    for n in needles:
        assert n in lines[0], lines
    return lines[0]


def test_lock_output_is_a_directory(ws: Path):
    (ws / "out").mkdir()
    line = _one_line_usage(harness("lock", "Base.lean", "-o", "out", cwd=ws), "out")
    assert "cannot write" in line
    assert list((ws / "out").iterdir()) == []  # no temp file left behind


def test_lock_output_under_a_file(ws: Path):
    line = _one_line_usage(harness("lock", "Base.lean", "-o", "Other.lean/x.lock.json", cwd=ws),
                           "Other.lean")
    assert "cannot write" in line
    assert (ws / "Other.lean").read_text() == OTHER


def test_lock_output_unwritable(ws: Path, tmp_path: Path):
    if os.geteuid() == 0:  # root ignores permission bits; /proc refuses new files even to root
        target = "/proc/harness-test.lock.json"
    else:
        ro = tmp_path / "ro"
        ro.mkdir()
        ro.chmod(0o500)
        target = str(ro / "x.lock.json")
    try:
        line = _one_line_usage(harness("lock", "Base.lean", "-o", target, cwd=ws), target)
        assert "cannot write" in line
    finally:
        if os.geteuid() != 0:
            (tmp_path / "ro").chmod(0o700)
    assert not Path(target).exists()


def test_lock_output_ok_still_writes(ws: Path):
    # a missing directory is refused (tests/cli/test_output_dir.py); an existing one is written to
    (ws / "sub" / "dir").mkdir(parents=True)
    p = harness("lock", "Base.lean", "-o", "sub/dir/b.lock.json", "--json", cwd=ws)
    assert p.returncode == 0, p.stderr
    assert json.loads((ws / "sub/dir/b.lock.json").read_text())["source"] == "Base.lean"


def test_verify_with_a_foreign_lock_is_an_input_error(ws: Path):
    p = harness("verify", "Other.lean", "--lock", "base.lock.json", "--static-only", cwd=ws)
    line = _one_line_usage(p)
    assert line == ("base.lock.json:1:0: lock was written for Base.lean, not for Other.lean: "
                    "none of its 8 declarations is here")
    assert p.stdout == ""


def test_verify_foreign_lock_without_a_source(ws: Path):
    data = json.loads((ws / "base.lock.json").read_text())
    data["source"] = None
    (ws / "anon.lock.json").write_text(json.dumps(data))
    p = harness("verify", "Other.lean", "--lock", "anon.lock.json", "--static-only", "--json",
                cwd=ws)
    line = _one_line_usage(p, "anon.lock.json:1:0: lock was written for another file")
    assert "none of its 8 declarations is here" in line and p.stdout == ""


def test_right_file_with_nodes_deleted_is_still_a_finding(ws: Path):
    # same file name as the lock's source, every locked declaration gone: a finding, not foreign
    (ws / "Base.lean").write_text(OTHER)
    p = harness("verify", "Base.lean", "--lock", "base.lock.json", "--static-only", cwd=ws)
    assert p.returncode == 1, p.stdout + p.stderr
    assert "[lock]" in p.stderr and "REJECTED" in p.stdout


def test_renamed_copy_with_some_locked_declarations_is_a_finding(ws: Path):
    # another file name, but the lock's declarations are (mostly) here: the gate judges it
    start = BASE.index('@[blueprint "thm:small"')
    (ws / "Copy.lean").write_text(BASE[:start] + BASE[start:].replace("thm:small", "thm:tiny", 1))
    p = harness("verify", "Copy.lean", "--lock", "base.lock.json", "--static-only", cwd=ws)
    assert p.returncode == 1, p.stdout + p.stderr
    assert "thm:small" in p.stderr
