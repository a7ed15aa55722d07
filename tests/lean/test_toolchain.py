"""Finding lake: --lake > HARNESS_LAKE > PATH > ~/.elan/bin; version pin; one-line errors."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest

from harness.errors import ExitCode, UsageError
from harness.lean.toolchain import (
    describe_missing, find_lake, find_toolchain, lean_available, missing_note, parse_version,
    pinned_version,
)
from tests.support.fakelean import FAKE_LAKE, make_workspace


@pytest.fixture
def bare(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Path:
    """No lake anywhere: PATH has only python, HOME is empty, no HARNESS_LAKE."""
    monkeypatch.delenv("HARNESS_LAKE", raising=False)
    monkeypatch.setenv("PATH", os.path.dirname(sys.executable))
    home = tmp_path / "home"
    home.mkdir()
    monkeypatch.setenv("HOME", str(home))
    return home


def _link(dir_: Path) -> Path:
    dir_.mkdir(parents=True, exist_ok=True)
    (dir_ / "lake").symlink_to(FAKE_LAKE)
    return dir_ / "lake"


def test_nothing_found_is_one_line_usage_error(bare: Path) -> None:
    assert not lean_available()
    with pytest.raises(UsageError) as exc:
        find_lake()
    line = exc.value.line()
    assert "\n" not in line and "elan" in line
    assert "curl https://elan.lean-lang.org/elan-init.sh -sSf | sh" in line
    assert exc.value.exit_code == ExitCode.USAGE
    assert line == describe_missing()
    assert missing_note().startswith("note: no Lean toolchain found")


def test_search_order(bare: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    elan = _link(bare / ".elan" / "bin")
    assert find_lake() == elan and missing_note() is None
    on_path = _link(tmp_path / "bin")
    monkeypatch.setenv("PATH", f"{tmp_path / 'bin'}{os.pathsep}{os.environ['PATH']}")
    assert find_lake() == on_path
    env_lake = _link(tmp_path / "envbin")
    monkeypatch.setenv("HARNESS_LAKE", str(env_lake))
    assert find_lake() == env_lake
    assert find_lake(str(FAKE_LAKE)) == FAKE_LAKE


def test_explicit_wrong_lake_never_falls_back(bare: Path, tmp_path: Path,
                                              monkeypatch: pytest.MonkeyPatch) -> None:
    _link(bare / ".elan" / "bin")
    with pytest.raises(UsageError, match="--lake"):
        find_lake(str(tmp_path / "missing-lake"))
    monkeypatch.setenv("HARNESS_LAKE", str(tmp_path / "missing-lake"))
    with pytest.raises(UsageError, match="HARNESS_LAKE"):
        find_lake()


def test_version_and_pin(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HARNESS_LAKE", str(FAKE_LAKE))
    ws = make_workspace(tmp_path / "a", {}, toolchain="4.32.0")
    tc = find_toolchain(ws)
    assert (tc.lean_version, tc.pinned, tc.warnings) == ("4.32.0", "4.32.0", ())
    assert tc.lean("--json", "X.lean") == [str(FAKE_LAKE), "env", "lean", "--json", "X.lean"]
    monkeypatch.setenv("FAKE_LEAN_VERSION", "4.27.0")
    tc = find_toolchain(ws)
    assert tc.lean_version == "4.27.0"
    assert len(tc.warnings) == 1 and "pins 4.32.0 but lean reports 4.27.0" in tc.warnings[0]


def test_version_parsing(tmp_path: Path) -> None:
    assert parse_version("Lean (version 4.33.0-rc2, x86_64-unknown-linux-gnu, commit ab, Release)") \
        == "4.33.0-rc2"
    assert parse_version("garbage") is None
    (tmp_path / "lean-toolchain").write_text("leanprover/lean4:v4.32.0\n")
    assert pinned_version(tmp_path) == "4.32.0"
    assert pinned_version(tmp_path / "nowhere") is None


def test_broken_lake_is_a_usage_error(tmp_path: Path) -> None:
    bad = tmp_path / "lake"
    bad.write_text("#!/bin/sh\necho 'error: toolchain not installed' >&2\nexit 1\n")
    bad.chmod(0o755)
    with pytest.raises(UsageError, match="toolchain not installed"):
        find_toolchain(tmp_path, str(bad))
