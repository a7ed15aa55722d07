"""Labels, paths and docstrings are the user's text, not rich markup: `lem:[/draft]` crashed
`plan`, `status` and `run` (MarkupError, exit 3 "internal error"), a docstring's interval
`[a, b]` vanished from `search` and a stray `[/bold]` in one crashed it. And `graph` printed
warnings with the terminal escapes a label carried."""

from __future__ import annotations

from pathlib import Path

from tests.cli.projects import harness

A = '''@[blueprint "lem:[/draft]"]
theorem a : True := by
  sorry
@[blueprint "lem:[red]b" (proof := /-- by \\\\ref{gone\x1b]0;pwned\x07} -/)]
theorem b : True := by
  sorry
/-- On the interval [a, b], with a stray [/bold] tag. -/
theorem interval_bound : True := trivial
'''


def _ws(tmp_path: Path) -> Path:
    (tmp_path / "lakefile.lean").write_text("import Lake\n")
    (tmp_path / "A.lean").write_text(A)
    return tmp_path


def test_labels_with_brackets_are_printed_as_written(tmp_path) -> None:
    ws = _ws(tmp_path)
    for cmd, code in (("plan", 0), ("status", 0), ("run", 3)):
        r = harness(cmd, "A.lean", cwd=ws, env={"HARNESS_LAKE": "", "PATH": "/usr/bin:/bin"})
        assert r.returncode == code, (cmd, r.stderr)
        assert "internal error" not in r.stderr, (cmd, r.stderr)
        assert "lem:[/draft]" in r.stdout and "lem:[red]b" in r.stdout, (cmd, r.stdout)
        if cmd == "plan":
            assert "Critical path (1 node): lem:[/draft]" in r.stdout  # not "1 nodes"


def test_search_prints_a_docstring_as_written(tmp_path) -> None:
    ws = _ws(tmp_path)
    r = harness("search", "interval", "bound", cwd=ws)
    assert r.returncode == 0, r.stderr
    assert "On the interval [a, b], with a stray [/bold] tag." in r.stdout, r.stdout


def test_graph_warnings_carry_no_terminal_escapes(tmp_path) -> None:
    ws = _ws(tmp_path)
    r = harness("graph", "A.lean", "-o", "g.json", cwd=ws)
    assert r.returncode == 0, r.stderr
    assert "names no node or label" in r.stderr
    assert "\x1b" not in r.stderr and "\x07" not in r.stderr
    assert "\\x1b]0;pwned\\x07" in r.stderr  # shown, not obeyed
