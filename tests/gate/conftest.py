"""Fixtures for the gate tests: the corpus base, its lock, a fake-Lean toolchain."""

from __future__ import annotations

from pathlib import Path

import pytest

from harness.blueprint import parse_text
from harness.gate.lock import Lock, make_lock
from harness.lean.toolchain import Toolchain, find_toolchain
from tests.gate.corpus import BASE
from tests.support.fakelean import FAKE_LAKE, make_workspace


@pytest.fixture(scope="session")
def base_lock() -> Lock:
    # no path: no workspace files are locked (tests/gate/test_lock.py covers those)
    return make_lock(parse_text(BASE))


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    return make_workspace(tmp_path / "ws", {"Base.lean": BASE})


@pytest.fixture
def fake_tc(workspace: Path, monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Toolchain:
    monkeypatch.setenv("FAKE_LEAN_LOG", str(tmp_path / "fake-calls.log"))
    monkeypatch.delenv("FAKE_LEAN_VERSION", raising=False)
    return find_toolchain(workspace, str(FAKE_LAKE))
