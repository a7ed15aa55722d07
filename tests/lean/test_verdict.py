"""check_file through the fake toolchain: per-node statuses, axioms, certification failures."""

from __future__ import annotations

import json
import stat
from pathlib import Path

import pytest

from harness.blueprint.parse import parse_text

from harness.blueprint.source import parse_file
from harness.errors import CannotCertify
from harness.lean.toolchain import Toolchain, find_toolchain
from harness.lean.verdict import check_file
from tests.support.fakelean import make_workspace

DEMO = '''import Std

namespace Demo

@[blueprint "def:double"
  (statement := /-- Doubling. -/)]
def double (n : Nat) : Nat := n + n

@[blueprint "lem:rfl"]
theorem two : 2 = 2 := rfl

@[blueprint "lem:open" (uses := [double])]
theorem double_eq (n : Nat) : double n = 2 * n := by
  sorry

@[blueprint "lem:uses-open"]
theorem uses_open (n : Nat) : double n = n * 2 := by
  rw [double_eq]
  omega

@[blueprint "lem:bad"]
theorem bad (n : Nat) : n = n := by
  exact bogus_lemma n

/-- A slow proof. -/
@[blueprint "lem:slow"]
theorem slow : 3 = 3 := by
  fake_heartbeat

@[blueprint "lem:native"]
theorem nat_check : 10 < 20 := by native_decide

axiom cheat : 1 = 2

@[blueprint "lem:cheat"]
theorem via_cheat : 1 = 2 := cheat

@[blueprint "lem:ok"]
theorem add_zero' (n : Nat) : n + 0 = n := by
  omega
'''


def _ws(tmp_path: Path, text: str = DEMO, name: str = "Demo.lean") -> tuple[Path, Path]:
    ws = make_workspace(tmp_path / "ws", {name: text})
    return ws, ws / name


def _status(fv) -> dict[str, str]:
    return {n.key: n.status for n in fv.nodes}


@pytest.mark.parametrize("version", ["4.32.0", "4.27.0", "4.18.0"])
def test_statuses(tmp_path: Path, toolchain: Toolchain, monkeypatch, version: str) -> None:
    monkeypatch.setenv("FAKE_LEAN_VERSION", version)
    ws, f = _ws(tmp_path)
    before = f.read_bytes()
    fv = check_file(find_toolchain(ws), ws, parse_file(f), timeout_s=60)
    assert _status(fv) == {
        "def:double": "proved", "lem:rfl": "proved", "lem:open": "sorry",
        "lem:uses-open": "sorry", "lem:bad": "error", "lem:slow": "error",
        "lem:native": "axioms", "lem:cheat": "axioms", "lem:ok": "proved"}
    n = {x.key: x for x in fv.nodes}
    assert n["lem:open"].own_sorry and not n["lem:open"].sorry_via_deps
    assert n["lem:uses-open"].sorry_via_deps and n["lem:uses-open"].accepted_modulo_deps
    assert not n["lem:open"].accepted_modulo_deps
    assert n["lem:rfl"].axioms == [] and n["lem:ok"].axioms == ["propext", "Classical.choice",
                                                               "Quot.sound"]
    assert n["lem:bad"].first_error.startswith("23:8: ") and "bogus_lemma" in n["lem:bad"].first_error
    assert n["lem:bad"].first_error_line == 23
    assert "heartbeats" in n["lem:slow"].first_error
    assert n["lem:native"].forbidden_axioms == ["Demo.nat_check._native.native_decide.ax_1_1"]
    assert n["lem:cheat"].forbidden_axioms == ["Demo.cheat"]
    assert not fv.ok and fv.file_errors == []
    assert f.read_bytes() == before, "the user's file is never touched"
    assert list((ws / ".harness" / "tmp").iterdir()) == [], "scratch copy removed"


def test_all_proved_is_ok_and_labels_select(tmp_path: Path, toolchain: Toolchain) -> None:
    ws, f = _ws(tmp_path)
    bp = parse_file(f)
    fv = check_file(toolchain, ws, bp, labels=["lem:ok", "lem:rfl"], timeout_s=60)
    assert [n.key for n in fv.nodes] == ["lem:ok", "lem:rfl"]
    assert all(n.status == "proved" for n in fv.nodes)
    # a selection does not hide the errors of the other declarations (issue 20, class 8)
    assert fv.ok and any("bogus_lemma" in m.data for m in fv.errors_anywhere)
    assert fv.file_errors == []  # a diagnosis of the selection (`check --node`) stays focused
    with pytest.raises(KeyError):
        check_file(toolchain, ws, bp, labels=["nope"], timeout_s=60)


def test_file_ending_inside_open_namespace_and_no_nodes(tmp_path: Path, toolchain: Toolchain) -> None:
    text = "namespace A\nnamespace B\n\ntheorem t : 1 = 1 := rfl\n\nlemma u : 2 = 2 := by\n  sorry\n"
    ws, f = _ws(tmp_path, text, "Plain.lean")
    fv = check_file(toolchain, ws, parse_file(f), timeout_s=60)
    assert {n.name: n.status for n in fv.nodes} == {"A.B.t": "proved", "A.B.u": "sorry"}


def test_errors_outside_declarations_are_file_errors(tmp_path: Path, toolchain: Toolchain) -> None:
    text = DEMO + "\n#print axioms Demo.no_such_thing\n"
    ws, f = _ws(tmp_path, text)
    fv = check_file(toolchain, ws, parse_file(f), labels=["lem:ok"], timeout_s=60)
    assert fv.nodes[0].status == "proved"
    # the trailing command's error, and those of the unselected declarations (lines 23, 28)
    assert [m.pos.line for m in fv.file_errors] == [text.count("\n")]
    assert [m.pos.line for m in fv.errors_anywhere] == [23, 28, text.count("\n")]
    assert [m.region for m in fv.errors_anywhere] == ["context", "context", "file"]
    assert not fv.ok


def test_crlf_and_unicode_positions(tmp_path: Path, toolchain: Toolchain) -> None:
    text = ('namespace Ω\r\n\r\n@[blueprint "lem:α"]\r\ntheorem αβ (x : Nat) : x = x := by\r\n'
            '  exact bogus_α x\r\n')
    ws = make_workspace(tmp_path / "ws", {})
    f = ws / "U.lean"
    f.write_bytes(text.encode("utf-8"))
    fv = check_file(toolchain, ws, parse_file(f), timeout_s=60)
    (n,) = fv.nodes
    assert n.status == "error" and n.first_error.startswith("5:8: Unknown identifier `bogus_α`")


# Only the hang needs a short wall clock; the crash and the allocator failure end by themselves, and
# a short limit would let a loaded machine report them as timeouts instead.
@pytest.mark.parametrize("token,match,timeout_s", [
    ("fake_hang", "did not finish within 2s", 2),
    ("fake_crash", "exited with code 134", 60),
    ("fake_oom", "out of memory", 60),
])
def test_cannot_certify(tmp_path: Path, toolchain: Toolchain, token: str, match: str,
                        timeout_s: int) -> None:
    text = DEMO + f'\n@[blueprint "lem:x"]\ntheorem x : 1 = 1 := by\n  {token}\n'
    ws, f = _ws(tmp_path, text)
    with pytest.raises(CannotCertify, match=match) as exc:
        check_file(toolchain, ws, parse_file(f), timeout_s=timeout_s, mem_mb=400)
    assert exc.value.exit_code == 3


def test_garbage_among_messages_is_tolerated(tmp_path: Path, toolchain: Toolchain) -> None:
    text = DEMO + '\n@[blueprint "lem:g"]\ntheorem g : 1 = 1 := by\n  fake_garbage\n  rfl\n'
    ws, f = _ws(tmp_path, text)
    fv = check_file(toolchain, ws, parse_file(f), labels=["lem:g", "lem:open"], timeout_s=60)
    assert _status(fv) == {"lem:g": "proved", "lem:open": "sorry"}


def _script(path: Path, body: str) -> Path:
    path.write_text("#!/bin/sh\n" + body)
    path.chmod(path.stat().st_mode | stat.S_IXUSR)
    return path


def test_garbage_only_or_silent_failure_cannot_certify(tmp_path: Path) -> None:
    ws, f = _ws(tmp_path)
    bp = parse_file(f)
    garbage = _script(tmp_path / "lake-garbage", 'echo "not json at all"\necho "{"\n')
    tc = Toolchain(lake=garbage, lean_version=None, pinned=None)
    with pytest.raises(CannotCertify, match="no axiom report"):
        check_file(tc, ws, bp, timeout_s=30)
    silent = _script(tmp_path / "lake-silent", "exit 1\n")
    tc = Toolchain(lake=silent, lean_version=None, pinned=None)
    with pytest.raises(CannotCertify, match="without reporting an error"):
        check_file(tc, ws, bp, timeout_s=30)


def test_wrong_name_echo_is_not_accepted(tmp_path: Path) -> None:
    """A `#print axioms` answer about another constant must not count for this node."""
    ws, f = _ws(tmp_path, 'namespace N\n\n@[blueprint "l"]\ntheorem t : 1 = 1 := rfl\n')
    bp = parse_file(f)
    lie = _script(tmp_path / "lake-lie", "echo '{\"severity\":\"information\",\"pos\":{\"line\":6,"
                  "\"column\":0},\"data\":\"'\"'\"'N.other'\"'\"' does not depend on any axioms\"}'\n")
    tc = Toolchain(lake=lie, lean_version=None, pinned=None)
    fv = check_file(tc, ws, bp, timeout_s=30)
    assert fv.nodes[0].status == "error" and not fv.ok


def test_parse_error_at_next_declaration_is_blamed_on_previous(tmp_path: Path) -> None:
    text = ('@[blueprint "a"]\ntheorem a : 1 = 1 := by\n  exact (\n\n'
            '@[blueprint "b"]\ntheorem b : 1 = 1 := rfl\n')
    bp = parse_text(text, "P.lean")
    ws = make_workspace(tmp_path / "ws", {"P.lean": text})
    msg = ('{"severity":"error","pos":{"line":5,"column":0},"data":"unexpected token \'@[\'; '
           'expected term"}')
    reports = ("echo '{\"severity\":\"information\",\"pos\":{\"line\":9,\"column\":0},\"data\":"
               "\"'\"'\"'b'\"'\"' does not depend on any axioms\"}'\n")
    fake = _script(tmp_path / "lake-parse", f"echo '{msg}'\n{reports}exit 1\n")
    fv = check_file(Toolchain(lake=fake, lean_version=None, pinned=None), ws, bp, timeout_s=30)
    assert _status(fv) == {"a": "error", "b": "proved"}


def test_unbuilt_import_cannot_certify(tmp_path: Path) -> None:
    ws, f = _ws(tmp_path)
    out = tmp_path / "out.jsonl"
    out.write_text(json.dumps({"severity": "error", "pos": {"line": 1, "column": 0},
                               "data": "unknown module prefix 'Foo'\n\nNo directory 'Foo' or file "
                                       "'Foo.olean' in the search path entries"}) + "\n")
    fake = _script(tmp_path / "lake-imports", f"cat '{out}'\nexit 1\n")
    with pytest.raises(CannotCertify, match="imports not available .*run `lake build` first"):
        check_file(Toolchain(lake=fake, lean_version=None, pinned=None), ws, parse_file(f),
                   timeout_s=30)


def test_lean_names_are_quoted_when_needed() -> None:
    from harness.lean.verdict import lean_name

    assert lean_name("A.b'") == "A.b'" and lean_name("Ω.αβ₁") == "Ω.αβ₁"
    assert lean_name("A.my lemma") == "A.«my lemma»" and lean_name("A.1x") == "A.«1x»"
