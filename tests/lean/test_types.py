"""check_file(types=…): elaborated types through `set_option pp.all true in #check (@X)`, and the
fake Lean's answer to `#check` in the recorded message shape."""

from __future__ import annotations

import json
import stat
import subprocess
import sys
from pathlib import Path

import pytest

from harness.blueprint.parse import parse_text

from harness.blueprint.source import parse_file
from harness.errors import CannotCertify
from harness.lean.toolchain import find_toolchain
from harness.lean.verdict import CHECK_PREFIX, check_file, parse_check
from tests.support.fakelean import FAKE_LAKE, FAKE_LEAN, fake_env, make_workspace

TEXT = '''namespace Demo

abbrev Bound : Nat := 32

def double (n : Nat) : Nat := n + n

@[blueprint "thm:small"]
theorem small : 2 ^ 5 = Bound := by
  decide

@[blueprint "lem:gauss"]
theorem gauss (n : Nat) (h : n ≤ Bound) : double n = 2 * n := by
  sorry

end Demo
'''


def _fake_json(tmp_path: Path, text: str) -> list[dict]:
    f = tmp_path / "T.lean"
    f.write_text(text, encoding="utf-8")
    out = subprocess.run([sys.executable, str(FAKE_LEAN), "--json", str(f)], cwd=tmp_path,
                         capture_output=True, text=True, timeout=60, env=fake_env())
    return [json.loads(line) for line in out.stdout.splitlines()]


def test_fake_check_message_shape(tmp_path: Path) -> None:
    line = f"{CHECK_PREFIX}(@Demo.gauss)"
    msgs = _fake_json(tmp_path, TEXT + "\n" + line + "\n#check @Demo.small\n")
    checks = [m for m in msgs if m["data"].startswith("@")]
    assert len(checks) == 2
    first, second = checks
    at = line.index("#check")
    assert first["pos"] == {"column": at, "line": TEXT.count("\n") + 2}
    assert first["endPos"] == {"column": at + len("#check"), "line": TEXT.count("\n") + 2}
    assert first["severity"] == "information" and first["kind"] == "[anonymous]"
    # the abbrev is unfolded in the "elaborated" type; the binders become a ∀
    assert first["data"] == "@Demo.gauss : ∀ (n : Nat) (h : n ≤ (32)), double n = 2 * n"
    assert second["pos"]["column"] == 0 and second["data"] == "@Demo.small : 2 ^ 5 = (32)"


def test_fake_check_unknown_name_is_an_error(tmp_path: Path) -> None:
    (m,) = [m for m in _fake_json(tmp_path, TEXT + "\n#check (@Demo.nothing)\n")
            if m["severity"] == "error"]
    assert m["data"] == "Unknown identifier `Demo.nothing`"
    assert m["kind"] == "lean.unknownIdentifier._namedError"


@pytest.mark.parametrize("data,expected", [
    ("@Demo.gauss : ∀ (n : Nat), n = n", "∀ (n : Nat), n = n"),
    ("Demo.gauss : True", "True"),  # no `@`: a constant without implicit arguments
    ("@Demo.gauss.{u_1} : ∀ {α : Type u_1}, α → α", "∀ {α : Type u_1}, α → α"),
    ("@_private.Blueprint.T.0.Demo.gauss : True", "True"),
    ("@«Demo».«gauss» : True", "True"),
    ("@Demo.other : True", None),  # Lean resolved another constant
    ("'Demo.gauss' depends on axioms: [propext]", None),
    ("@Demo.gauss:True", None),
])
def test_parse_check(data: str, expected: str | None) -> None:
    d = parse_text(TEXT, "T.lean").by_key("lem:gauss")
    assert parse_check(d, data) == expected


def _ws(tmp_path: Path, text: str = TEXT) -> tuple[Path, Path]:
    ws = make_workspace(tmp_path / "ws", {"Demo.lean": text})
    return ws, ws / "Demo.lean"


def test_check_file_types(tmp_path: Path) -> None:
    ws, f = _ws(tmp_path)
    tc = find_toolchain(ws, str(FAKE_LAKE))
    bp = parse_file(f)
    v = check_file(tc, ws, bp, types=["Demo.Bound", "thm:small", "lem:gauss"], timeout_s=60)
    assert v.types == {"Demo.Bound": "Nat", "thm:small": "2 ^ 5 = (32)",
                       "lem:gauss": "∀ (n : Nat) (h : n ≤ (32)), double n = 2 * n"}
    # the verdicts are the same as without types
    plain = check_file(tc, ws, bp, timeout_s=60)
    assert plain.types is None
    assert [(n.key, n.status) for n in v.nodes] == [(n.key, n.status) for n in plain.nodes]
    assert not v.file_messages and not f.read_text().count("#check")  # the user's file untouched


def test_a_changed_abbrev_changes_a_later_type(tmp_path: Path) -> None:
    ws, f = _ws(tmp_path, TEXT.replace(":= 32", ":= 33"))
    tc = find_toolchain(ws, str(FAKE_LAKE))
    v = check_file(tc, ws, parse_file(f), types=["thm:small"], timeout_s=60)
    assert v.types == {"thm:small": "2 ^ 5 = (33)"}


def _filtering_lake(tmp_path: Path) -> Path:
    """A lake that drops the `#check` answers: Lean 'says nothing' about the types."""
    p = tmp_path / "lake"
    p.write_text(f"#!{sys.executable}\nimport subprocess, sys\n"
                 f"r = subprocess.run([{sys.executable!r}, {str(FAKE_LAKE)!r}, *sys.argv[1:]],"
                 " capture_output=True, text=True)\n"
                 "sys.stdout.write(''.join(l + '\\n' for l in r.stdout.splitlines()"
                 " if '\"data\":\"@' not in l))\n"
                 "sys.stderr.write(r.stderr)\nsys.exit(r.returncode)\n", encoding="utf-8")
    p.chmod(p.stat().st_mode | stat.S_IEXEC)
    return p


def test_missing_type_answer_cannot_certify(tmp_path: Path) -> None:
    ws, f = _ws(tmp_path)
    tc = find_toolchain(ws, str(_filtering_lake(tmp_path)))
    bp = parse_file(f)
    assert check_file(tc, ws, bp, timeout_s=60).nodes  # without types the run is fine
    with pytest.raises(CannotCertify, match="no elaborated type for Demo.small"):
        check_file(tc, ws, bp, types=["thm:small"], timeout_s=60)


def test_unknown_type_name_is_a_file_error(tmp_path: Path, monkeypatch) -> None:
    ws, f = _ws(tmp_path)
    tc = find_toolchain(ws, str(FAKE_LAKE))
    bp = parse_file(f)
    # a declaration whose name Lean does not know (here: renamed under the harness's feet)
    d = bp.by_key("thm:small")
    monkeypatch.setattr(d, "name", "Demo.small_gone")
    v = check_file(tc, ws, bp, labels=["lem:gauss"], types=["thm:small"], timeout_s=60)
    assert "thm:small" not in (v.types or {})
    assert [m.data for m in v.file_errors] == ["Unknown identifier `_root_.Demo.small_gone`"]
