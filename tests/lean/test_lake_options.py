"""#19.3: every Lean run of the harness gets the options `lake build` would give the module.

The Lean double accepts an ``autobound_…`` identifier as an auto-bound implicit unless it was
given ``autoImplicit false`` (``-D`` or ``set_option``; tests/fakes/_fakeio.py), as a real Lean
does — so a check that ignores the lakefile passes what `lake build` rejects.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from harness.blueprint.source import parse_file
from harness.errors import InputError
from harness.lean.nodecheck import check_node
from harness.lean.options import module_of, read_options
from harness.lean.repl import ReplClient
from harness.lean.toolchain import find_toolchain
from harness.lean.verdict import check_file
from harness.preflight.lean import lean_checks
from tests.support.fakelean import FAKE_LAKE

ROOT = Path(__file__).resolve().parents[2]
TYPO = ("theorem typo_thm (n : Nat) (h : n = autobound_m) : n = n := by\n"
        "  rfl\n")


def _ws(tmp_path: Path, lakefile: str | None = None, name: str = "lakefile.lean") -> Path:
    ws = tmp_path / "ws"
    (ws / "Blueprint").mkdir(parents=True)
    if lakefile is None:
        shutil.copy(ROOT / "lakefile.lean", ws / "lakefile.lean")
    else:
        (ws / name).write_text(lakefile, encoding="utf-8")
    (ws / "Blueprint" / "Typo.lean").write_text(TYPO, encoding="utf-8")
    return ws


def _lean_calls(log: Path) -> list[list[str]]:
    return [c for c in map(json.loads, log.read_text().splitlines())
            if c[0] == "lean" and "--version" not in c]


def test_our_lakefile_as_lake_adds_it_up(tmp_path: Path) -> None:
    ws = _ws(tmp_path)
    opts = read_options(ws)
    assert module_of(ws, ws / "Blueprint" / "Typo.lean", opts) == "Blueprint.Typo"
    args = opts.lean_args("Blueprint.Typo")
    assert args[:4] == ["-Dpp.unicode.fun=true", "-DautoImplicit=false",
                        "-DrelaxedAutoImplicit=false", "-DmaxSynthPendingDepth=3"]
    # the library's own options follow the package's (LeanLib.leanOptions), Blueprint's only
    assert args[4:] == ["-Dweak.linter.mathlibStandardSet=true", "-Dweak.linter.style.header=false"]
    assert opts.lean_args("SLT.Foo")[4:] == ["-Dweak.linter.mathlibStandardSet=true"]
    assert len(opts.lean_args(None)) == 4  # a file in no library: the package's


def test_lakefile_toml_and_the_last_matching_library_wins(tmp_path: Path) -> None:
    ws = _ws(tmp_path, """
name = "p"
moreLeanArgs = ["--tstack=100000"]
[leanOptions]
autoImplicit = false
pp.unicode.fun = true

[[lean_lib]]
name = "A"
globs = ["Blueprint.*"]
leanOptions = { maxSynthPendingDepth = 2 }

[[lean_lib]]
name = "B"
globs = ["Blueprint.Typo"]
leanOptions = { maxSynthPendingDepth = 3, autoImplicit = true }
""", "lakefile.toml")
    opts = read_options(ws)
    assert opts.for_module("Blueprint.Typo") == (
        [("pp.unicode.fun", "true"), ("maxSynthPendingDepth", "3"), ("autoImplicit", "true")],
        ["--tstack=100000"])
    assert opts.for_module("Blueprint.Other")[0][-1] == ("maxSynthPendingDepth", "2")


def test_an_unreadable_lakefile_is_one_line(tmp_path: Path) -> None:
    ws = _ws(tmp_path, "import Lake\nopen Lake DSL\n\npackage p where\n"
                       "  leanOptions := computeOptions 3\n")
    with pytest.raises(InputError) as err:
        read_options(ws)
    assert err.value.line().startswith(f"{ws / 'lakefile.lean'}:5:")
    assert "computeOptions" in err.value.line()


def test_check_file_and_check_node_reject_what_lake_build_rejects(
        fake_lake: Path, tmp_path: Path) -> None:
    ws = _ws(tmp_path)
    tc = find_toolchain(ws)
    bp = parse_file(ws / "Blueprint" / "Typo.lean")
    fv = check_file(tc, ws, bp, timeout_s=60)
    assert [n.status for n in fv.nodes] == ["error"]
    assert "Unknown identifier `autobound_m`" in fv.nodes[0].first_error
    nv = check_node(tc, ws, bp, "typo_thm", "by\n  rfl", timeout_s=60)
    assert nv.status == "error"
    calls = _lean_calls(tmp_path / "fake-calls.log")
    assert len(calls) == 2
    for argv in calls:  # both compiles ran as the module Blueprint.Typo
        assert "-DautoImplicit=false" in argv and "-DmaxSynthPendingDepth=3" in argv
        assert "-Dweak.linter.style.header=false" in argv


def test_without_options_the_double_accepts_the_typo(fake_lake: Path, tmp_path: Path) -> None:
    """The control: the double really depends on the option (the test above can fail)."""
    ws = _ws(tmp_path, "import Lake\nopen Lake DSL\n\npackage p\n\nlean_lib Blueprint\n")
    fv = check_file(find_toolchain(ws), ws, parse_file(ws / "Blueprint" / "Typo.lean"),
                    timeout_s=60)
    assert [n.status for n in fv.nodes] == ["proved"]


def test_repl_sessions_elaborate_under_the_package_options(fake_lake: Path,
                                                           tmp_path: Path) -> None:
    ws = _ws(tmp_path)
    with ReplClient([str(FAKE_LAKE), "env", "repl"], cwd=ws, header="import Std",
                    timeout_s=30) as repl:
        assert "set_option autoImplicit false" in repl.header_command()
        assert "weak." not in repl.header_command()
        resp = repl.command(TYPO)
    assert any("Unknown identifier `autobound_m`" in m.data for m in resp.messages)


def test_doctor_shows_the_options(fake_lake: Path, tmp_path: Path) -> None:
    ws = _ws(tmp_path)
    checks, _tc = lean_checks(ws, None)
    row = next(c for c in checks if c.name == "lean-options")
    assert row.status == "ok"
    assert "autoImplicit=false" in row.found and "maxSynthPendingDepth=3" in row.found
    assert "Blueprint: " in row.found and "weak.linter.style.header=false" in row.found


MATHLIB_STYLE = """import Lake
open Lake DSL

abbrev onlyLinters : Array LeanOption := #[⟨`linter.style.header, true⟩]

package p where
  leanOptions := #[⟨`autoImplicit, false⟩] ++ onlyLinters.map fun s ↦ { s with name := `weak ++ s.name }

lean_lib Blueprint
"""


def test_a_lakefile_the_text_cannot_follow_is_evaluated_by_lake(
        fake_lake: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    ws = _ws(tmp_path, MATHLIB_STYLE)
    with pytest.raises(InputError):  # the text reading alone refuses it
        read_options(ws)
    monkeypatch.setenv("FAKE_LAKE_TRANSLATED", """name = "p"
defaultTargets = []

[leanOptions]
autoImplicit = false
"weak.linter.style.header" = true

[[lean_lib]]
name = "Blueprint"
""")
    tc = find_toolchain(ws)
    assert "(evaluated by Lake)" in tc.options.source
    assert tc.lean_args("Blueprint.Typo") == ["-DautoImplicit=false",
                                              "-Dweak.linter.style.header=true"]
    fv = check_file(tc, ws, parse_file(ws / "Blueprint" / "Typo.lean"), timeout_s=60)
    assert [n.status for n in fv.nodes] == ["error"]
    calls = [json.loads(x) for x in (tmp_path / "fake-calls.log").read_text().splitlines()]
    (ask,) = [c for c in calls if c[:2] == ["lake", "translate-config"]]
    assert ask[2] == "toml" and not Path(ask[3]).exists()  # its temporary output is removed


def test_when_lake_cannot_evaluate_it_either_it_is_one_line(fake_lake: Path,
                                                            tmp_path: Path) -> None:
    ws = _ws(tmp_path, MATHLIB_STYLE)
    checks, tc = lean_checks(ws, None)
    assert tc is None
    row = next(c for c in checks if c.name == "lean-options")
    assert row.status == "missing" and row.blocking
    assert row.found.startswith(f"{ws / 'lakefile.lean'}:7:")
    assert "could not evaluate it either: error: lakefile.lean: failed to evaluate" in row.found
