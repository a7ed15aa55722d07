"""`search` answers from the index as built (a refresh is `index`'s work): after an edit it says
so instead of silently answering "no declarations match" for a theorem the file now has."""

from __future__ import annotations

from tests.cli.projects import harness

STALE = "files changed since the library index was built"


def test_search_says_when_the_workspace_changed_since_the_index(tmp_path) -> None:
    (tmp_path / "lakefile.lean").write_text("import Lake\n")
    (tmp_path / "S").mkdir()
    (tmp_path / "S" / "A.lean").write_text("theorem old_thing : True := trivial\n")
    first = harness("search", "old", "thing", cwd=tmp_path)  # builds the index
    assert first.returncode == 0 and STALE not in first.stderr, first.stderr
    (tmp_path / "S" / "B.lean").write_text("theorem brand_new_thing : True := trivial\n")
    r = harness("search", "brand", "new", "--json", cwd=tmp_path)
    assert STALE in r.stderr and "`python -m harness index` refreshes it" in r.stderr
    assert harness("index", "--no-exact", cwd=tmp_path).returncode == 0
    r = harness("search", "brand", "new", cwd=tmp_path)
    assert r.returncode == 0 and STALE not in r.stderr and "brand_new_thing" in r.stdout
