"""atomic_write: modes, symlinks, umask, failures as one-line usage errors."""

from __future__ import annotations

import os
import stat

import pytest

from harness.errors import UsageError
from harness.fsutil import atomic_write


def mode(p) -> int:
    return stat.S_IMODE(os.stat(p).st_mode)


def test_keeps_mode_of_existing_file(tmp_path):
    f = tmp_path / "a.lean"
    f.write_text("old")
    os.chmod(f, 0o664)
    atomic_write(f, "new")
    assert f.read_text() == "new" and mode(f) == 0o664


def test_new_file_respects_umask(tmp_path):
    old = os.umask(0o027)
    try:
        atomic_write(tmp_path / "n.json", "{}")
    finally:
        os.umask(old)
    assert mode(tmp_path / "n.json") == 0o640


def test_writes_through_symlink(tmp_path):
    real = tmp_path / "real.lean"
    real.write_text("old")
    link = tmp_path / "link.lean"
    link.symlink_to(real)
    atomic_write(link, "new")
    assert link.is_symlink() and real.read_text() == "new"


@pytest.mark.parametrize("case", ["directory", "under_a_file"])
def test_unwritable_targets_are_usage_errors(tmp_path, case):
    if case == "directory":
        target = tmp_path / "d"
        target.mkdir()
    else:
        (tmp_path / "afile").write_text("x")
        target = tmp_path / "afile" / "out.json"
    with pytest.raises(UsageError) as ei:
        atomic_write(target, "data")
    assert ei.value.line().startswith(f"{target}: cannot write: ")
    assert [p.name for p in tmp_path.rglob(".*.tmp")] == []


def test_read_only_directory(tmp_path):
    if os.geteuid() == 0:
        pytest.skip("root ignores directory permissions")
    d = tmp_path / "ro"
    d.mkdir()
    os.chmod(d, 0o555)
    with pytest.raises(UsageError):
        atomic_write(d / "x", "data")
