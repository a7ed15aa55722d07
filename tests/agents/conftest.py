"""Fixtures for the agents tests: a small blueprint workspace and a scripted LLM server."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from tests.support.llm_server import ScriptedLLM

FAKES = Path(__file__).resolve().parents[1] / "fakes"

DEMO = """\
import Mathlib

namespace Demo

/-- The double of a number. -/
def double (n : Nat) : Nat := 2 * n

@[blueprint "lem:double_add"
  (statement := /-- $\\mathrm{double}(a+b) = \\mathrm{double}(a) + \\mathrm{double}(b)$. -/)
  (proof := /-- Unfold and distribute. -/)]
theorem double_add (a b : Nat) : double (a + b) = double a + double b := by
  sorry

@[blueprint "lem:unrelated"
  (statement := /-- Something else entirely. -/)]
theorem unrelated (n : Nat) : n + 0 = n := by
  sorry

@[blueprint "thm:main"
  (statement := /-- Doubling $a+a$; uses \\cref{lem:double_add}. -/)
  (proof := /-- Apply \\cref{lem:double_add} with $b = a$. -/)]
theorem main_thm (a : Nat) : double (a + a) = double a + double a := by
  sorry_using [double_add]

end Demo
"""


@pytest.fixture
def demo_ws(tmp_path: Path) -> Path:
    """A Lake workspace holding Demo.lean (the blueprint above)."""
    (tmp_path / "lakefile.lean").write_text("import Lake\nopen Lake DSL\npackage demo\n")
    (tmp_path / "lean-toolchain").write_text("leanprover/lean4:v4.32.0\n")
    (tmp_path / "Demo.lean").write_text(DEMO)
    return tmp_path


@pytest.fixture
def fake_lake(monkeypatch: pytest.MonkeyPatch) -> Path:
    """The fake `lake` (tests/fakes) as the toolchain, via HARNESS_LAKE."""
    lake = FAKES / "lake"
    monkeypatch.setenv("HARNESS_LAKE", str(lake))
    monkeypatch.setenv("PATH", f"{FAKES}{os.pathsep}{os.environ.get('PATH', '')}")
    return lake


@pytest.fixture
def no_lake(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """No Lean anywhere: empty PATH entry for lake, no HARNESS_LAKE, a HOME without elan."""
    monkeypatch.delenv("HARNESS_LAKE", raising=False)
    monkeypatch.setenv("PATH", "/usr/bin:/bin")
    monkeypatch.setenv("HOME", str(tmp_path / "home"))


@pytest.fixture
def clean_env(monkeypatch: pytest.MonkeyPatch) -> None:
    for k in ("OPENAI_BASE_URL", "OPENAI_API_KEY", "TEST_LLM_KEY"):
        monkeypatch.delenv(k, raising=False)


@pytest.fixture
def llm():
    """Factory: ``srv = llm([...])`` starts a ScriptedLLM that is stopped after the test."""
    servers: list[ScriptedLLM] = []

    def make(script=None, **kw) -> ScriptedLLM:
        srv = ScriptedLLM(script, **kw).start()
        servers.append(srv)
        return srv

    yield make
    for s in servers:
        s.stop()
