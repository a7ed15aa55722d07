"""Malformed blueprints are reported, not accepted: an unknown `blueprint` option that is a typo
(exit 2, did-you-mean), an unbalanced bracket in a signature (exit 2, also for `lock` and
`verify --static-only`), a label shared by declarations of different kinds (a warning)."""

from __future__ import annotations

import json

import pytest

from tests.cli.projects import harness

TYPO = '@[blueprint "lem:a" (statment := /-- A. -/)]\ntheorem a : True := trivial\n'
PAREN = '@[blueprint "lem:b"]\ntheorem b (n : Nat) : (n + 1 = 1 + n := by omega\n'
STRAY = '@[blueprint "lem:b"]\ntheorem b (n : Nat) : n + 1 = 1 + n) := by omega\n'


@pytest.fixture
def ws(tmp_path):
    (tmp_path / "lakefile.lean").write_text("import Lake\n")
    return tmp_path


@pytest.mark.parametrize("text,where,what", [
    (TYPO, "1:21", "unknown `blueprint` option `statment` (did you mean `statement`?)"),
    (PAREN, "2:22", "unbalanced `(` in the signature: it is never closed (expected `)`)"),
    (STRAY, "2:35", "unbalanced `)` in the signature: no `(` to close"),
])
def test_malformed_is_exit_2_everywhere(ws, text, where, what) -> None:
    f = ws / "A.lean"
    f.write_text(text)
    for cmd in (["plan", "A.lean"], ["status", "A.lean"], ["lock", "A.lean", "--static-only"]):
        r = harness(*cmd, cwd=ws)
        assert r.returncode == 2, (cmd, r.stderr)
        assert r.stderr == f"A.lean:{where}: {what}\n", (cmd, r.stderr)
    assert not (ws / "A.lock.json").exists()
    f.write_text(text.replace("statment", "statement").replace("(n + 1", "n + 1")
                 .replace("n) :=", "n :="))
    assert harness("lock", "A.lean", "--static-only", cwd=ws).returncode == 0
    f.write_text(text)
    r = harness("verify", "A.lean", "--lock", "A.lock.json", "--static-only", cwd=ws)
    assert r.returncode == 2 and f"A.lean:{where}: " in r.stderr, r.stderr


def test_fork_option_is_a_warning_naming_the_real_ones(ws) -> None:
    (ws / "A.lean").write_text(TYPO.replace("statment", "keyDeclaration"))
    r = harness("plan", "A.lean", "--json", cwd=ws)
    assert r.returncode == 0
    w = json.loads(r.stdout)["warnings"]
    assert [x["code"] for x in w] == ["unknown-option"] and "latexLabel" in w[0]["message"]


def test_label_shared_by_different_kinds_warns_in_a_file_and_across_files(ws) -> None:
    (ws / "P").mkdir()
    (ws / "P" / "A.lean").write_text('@[blueprint "def:d"]\nstructure D where\n  x : Nat\n\n'
                                     '@[blueprint "def:d"]\ndef d : Nat := 2\n')
    (ws / "P" / "B.lean").write_text('@[blueprint "def:e"]\ninstance e : Inhabited Nat := ⟨0⟩\n')
    (ws / "P" / "C.lean").write_text('@[blueprint "def:e"]\ndef e2 : Nat := 0\n')
    r = harness("plan", "P", "--json", cwd=ws)
    assert r.returncode == 0, r.stderr
    w = {x["label"]: x for x in json.loads(r.stdout)["warnings"]}
    assert set(w) == {"def:d", "def:e"}
    assert "`structure D` and `def d`" in w["def:d"]["message"]
    assert w["def:d"]["file"] == "P/A.lean" and w["def:e"]["file"].startswith("P/")
    text = harness("plan", "P", cwd=ws)
    assert "P/A.lean:2:0: label `def:d` is shared" in text.stderr
