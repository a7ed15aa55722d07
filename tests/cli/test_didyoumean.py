"""Did-you-mean for commands, options, choices, labels and names."""

from __future__ import annotations

from harness.didyoumean import suggest
from tests.cli.projects import ROOT, harness

DEMO = "Blueprint/Demo.lean"


def test_commands_options_and_choices() -> None:
    r = harness("plna", DEMO)
    assert r.returncode == 2 and r.stderr.strip().endswith("(did you mean `plan`?)")
    r = harness("plan", DEMO, "--jsn")
    assert r.returncode == 2 and r.stderr.strip() == (
        "harness: error: unrecognized argument: --jsn (did you mean `--json`?)")
    r = harness("graph", DEMO, "-o", "x.html", "--layout", "dto")
    assert r.returncode == 2 and r.stderr.strip().endswith("(did you mean `dot`?)")
    r = harness("plan", DEMO, "--zzzzzz")  # nothing close: no guess
    assert r.returncode == 2 and "did you mean" not in r.stderr


def test_labels_for_prove_and_check() -> None:
    for args in (["prove", DEMO, "lem:sum-to-zer"], ["check", DEMO, "--node", "lem:sum-to-zer"]):
        r = harness(*args)
        assert r.returncode == 2, r.stderr
        assert r.stderr.strip().endswith("(did you mean `lem:sum-to-zero`?)"), r.stderr
        assert r.stderr.count("\n") == 1


def test_references_in_a_blueprint(tmp_path) -> None:
    (tmp_path / "lakefile.lean").write_text("import Lake\n")
    (tmp_path / "D.lean").write_text(
        '@[blueprint "lem:sum-to-zero"]\ntheorem sumz : True := trivial\n\n'
        '@[blueprint "lem:b" (uses := ["lem:sum-to-zer"]) '
        "(proof := /-- By \\cref{lem:sum-to-zro}. -/)]\n"
        "theorem b : True := by\n  sorry_using [sumzz]\n")
    r = harness("plan", "D.lean", cwd=tmp_path)
    assert r.returncode == 1
    lines = r.stderr.splitlines()
    assert lines[0].endswith("names `sumzz`, which is declared neither in this file nor in its "
                             "imports (did you mean `sumz`?)")
    assert lines[1].endswith("(did you mean `lem:sum-to-zero`?)")
    assert lines[2].endswith("(did you mean `lem:sum-to-zero`?) (warning)")


def test_suggest_unit() -> None:
    assert suggest("statment", ["statement", "proof"]) == "statement"
    assert suggest("JSON", ["json"]) == "json"
    assert suggest("zzz", ["statement"]) is None
    assert (ROOT / DEMO).is_file()


def test_two_letters_in_the_wrong_order_beat_a_shorter_key() -> None:
    # difflib alone picks `mode` for `modle` (fewer letters to match); a swap is the likelier typo
    assert suggest("modle", ["mode", "model", "budget"]) == "model"
    assert suggest("mdoe", ["mode", "model"]) == "mode"
    assert suggest("modle", ["mode"]) == "mode"  # no swap matches: the closest, as before


def test_a_typo_in_a_path() -> None:
    """A mistyped file or directory: the one `FILE:LINE:COL` line names the path that exists."""
    for args, want in ((["plan", "Blueprint/Dmo.lean"], "Blueprint/Demo.lean"),
                       (["status", "Blueprnt/Demo.lean"], "Blueprint/Demo.lean"),
                       (["graph", "Blueprnt", "-o", "x.html"], "Blueprint")):
        r = harness(*args)
        assert r.returncode == 2, r.stderr
        assert r.stderr.strip() == f"{args[1]}:1:0: no such file (did you mean `{want}`?)"
    r = harness("plan", "Blueprint/Zzzzzzzz.lean")  # nothing close: no guess
    assert r.returncode == 2 and "did you mean" not in r.stderr
