"""Fixtures for the Lean backend tests: the doubles from tests/fakes/ via HARNESS_LAKE."""

from __future__ import annotations

from pathlib import Path

import pytest

from harness.lean.toolchain import Toolchain, find_toolchain
from tests.support.fakelean import FAKE_LAKE

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures" / "lean"


@pytest.fixture
def fake_lake(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Path:
    """HARNESS_LAKE -> the fake lake; FAKE_LEAN_LOG in tmp_path; default version 4.32.0."""
    monkeypatch.setenv("HARNESS_LAKE", str(FAKE_LAKE))
    monkeypatch.setenv("FAKE_LEAN_LOG", str(tmp_path / "fake-calls.log"))
    monkeypatch.delenv("FAKE_LEAN_VERSION", raising=False)
    return FAKE_LAKE


@pytest.fixture
def toolchain(fake_lake: Path, tmp_path: Path) -> Toolchain:
    ws = tmp_path / "tc-probe"
    ws.mkdir()
    return find_toolchain(ws)
