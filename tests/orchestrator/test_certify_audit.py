"""The final certification reads Lean's environment too (harness.gate.declared): a kernel
rejection on replay leaves no node proved, and any Lean error anywhere or a constant the text
does not explain is an error of the certification (the run cannot exit 0)."""

from __future__ import annotations

from pathlib import Path

from harness.lean.toolchain import find_toolchain
from harness.orchestrator.certify import Certifier
from tests.orchestrator.support import FAKES, workspace

TEXT = '''import Architect

namespace K

@[blueprint "lem:a"
  (statement := /-- Two is two. -/)
  (latexEnv := "lemma")]
theorem a : (2 : Nat) = 2 := by
  rfl
{extra}
end K
'''


def certify(tmp_path: Path, extra: str = ""):
    text = TEXT.replace("{extra}", extra)
    f = workspace(tmp_path, text)
    ws = f.parent.parent
    tc = find_toolchain(ws, str(FAKES / "lake"))
    return Certifier(f, tc, ws, 60).axioms(text)


def test_a_clean_file_certifies_its_nodes(tmp_path: Path) -> None:
    cert = certify(tmp_path)
    assert cert.clean == {"lem:a"} and cert.errors == [] and cert.kernel_ok


def test_a_kernel_rejection_leaves_nothing_proved(tmp_path: Path) -> None:
    cert = certify(tmp_path, "\n-- fake_kernel_reject K.a\n")
    assert not cert.kernel_ok and cert.clean == set()
    assert any("the kernel rejects" in e for e in cert.errors), cert.errors


def test_an_error_outside_every_node_is_a_certification_error(tmp_path: Path) -> None:
    cert = certify(tmp_path, "\nexample : (1 : Nat) = 1 := by\n  exact bogus_one\n")
    assert any("bogus_one" in e for e in cert.errors), cert.errors


def test_a_constant_the_text_does_not_explain_is_an_error(tmp_path: Path) -> None:
    cert = certify(tmp_path, "\n-- fake_hidden_decl axiom K.cheat\n")
    assert any("axiom `K.cheat` the text does not declare" in e for e in cert.errors)
