"""`-o PATH` whose directory does not exist: one line, exit 2, nothing created — for every
command that takes `-o` (graph, lock, report, init). A typo must not create a directory tree,
and the refusal comes before the work (a real project's graph takes seconds to analyse)."""

from __future__ import annotations

import pytest

from tests.cli.projects import ROOT, harness

DEMO = ROOT / "Blueprint" / "Demo.lean"


def _run_dir(tmp_path):
    d = tmp_path / "run"
    d.mkdir()
    (d / "events.jsonl").write_text("")
    return d


@pytest.mark.parametrize("cmd, name", [
    (["graph", str(DEMO)], "g.html"),
    (["lock", str(DEMO), "--static-only"], "demo.lock.json"),
    (["report", "RUN"], "report.html"),
    (["init"], "harness.toml"),
])
def test_output_in_a_missing_directory_is_refused(tmp_path, cmd, name) -> None:
    cmd = [str(_run_dir(tmp_path)) if a == "RUN" else a for a in cmd]
    out = tmp_path / "no" / "such" / name
    r = harness(*cmd, "-o", str(out), cwd=tmp_path)
    assert r.returncode == 2, r.stderr
    assert r.stderr == (f"{out}: cannot write: directory {out.parent} does not exist "
                        "(create it first)\n")
    assert r.stdout == ""
    assert not (tmp_path / "no").exists()


def test_output_under_a_file_is_refused(tmp_path) -> None:
    f = tmp_path / "afile"
    f.write_text("x")
    r = harness("graph", str(DEMO), "-o", str(f / "g.html"), cwd=tmp_path)
    assert r.returncode == 2
    assert r.stderr == f"{f / 'g.html'}: cannot write: {f} is not a directory\n"


def test_output_in_an_existing_directory_is_written(tmp_path) -> None:
    (tmp_path / "out").mkdir()
    r = harness("graph", str(DEMO), "-o", "out/g.json", cwd=tmp_path)
    assert r.returncode in (0, 1), r.stderr
    assert (tmp_path / "out" / "g.json").is_file()
