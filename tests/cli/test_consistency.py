"""The CLI around the blueprint says the same thing the same way: a missing path, a directory
outside any workspace, a directory without blueprint nodes, a library with no packages."""

from __future__ import annotations

import json

from tests.cli.projects import harness


def test_doctor_on_a_missing_path_is_exit_2(tmp_path) -> None:
    r = harness("doctor", str(tmp_path / "nope"), "--offline", cwd=tmp_path)
    assert r.returncode == 2 and r.stderr == f"{tmp_path / 'nope'}: no such file or directory\n"
    assert r.stdout == ""


def test_init_outside_a_workspace_refuses_like_search(tmp_path) -> None:
    init = harness("init", cwd=tmp_path)
    search = harness("search", "foo", cwd=tmp_path)
    assert init.returncode == search.returncode == 2
    for r in (init, search):  # the directory by its real name, not `.`
        assert r.stderr.startswith(f"{tmp_path.resolve()}: not inside a Lake workspace")
        assert r.stderr.count("\n") == 1
    assert not (tmp_path / "harness.toml").exists()
    assert harness("init", "-o", str(tmp_path / "h.toml"), cwd=tmp_path).returncode == 0
    (tmp_path / "lakefile.lean").write_text("import Lake\n")
    assert harness("init", cwd=tmp_path).returncode == 0
    assert (tmp_path / "harness.toml").is_file()


def test_search_and_index_say_when_no_packages(tmp_path) -> None:
    (tmp_path / "lakefile.lean").write_text("import Lake\n")
    (tmp_path / "S").mkdir()
    (tmp_path / "S" / "A.lean").write_text("theorem foo_bar : True := trivial\n")
    for args in (["index", "--no-exact"], ["search", "foo", "bar"]):
        r = harness(*args, cwd=tmp_path)
        assert r.returncode == 0, r.stderr
        assert "Mathlib not indexed" in r.stderr and "`lake exe cache get`" in r.stderr
    data = json.loads(harness("search", "foo", "--json", cwd=tmp_path).stdout)
    assert data["note"].startswith("Mathlib not indexed")
    pkg = tmp_path / ".lake" / "packages" / "mathlib" / "Mathlib"
    pkg.mkdir(parents=True)
    (pkg / "B.lean").write_text("theorem mathlib_thing : True := trivial\n")
    r = harness("search", "foo", cwd=tmp_path)
    assert "Mathlib not indexed" not in r.stderr


def test_status_plan_graph_agree_on_a_directory_without_nodes(tmp_path) -> None:
    (tmp_path / "lakefile.lean").write_text("import Lake\n")
    (tmp_path / "M").mkdir()
    for i in range(3):
        (tmp_path / "M" / f"F{i}.lean").write_text(f"theorem t{i} : True := trivial\n"
                                                   f"theorem u{i} : True := trivial\n")
    codes = {}
    for cmd in ("status", "plan", "graph"):
        extra = ["-o", "g.html"] if cmd == "graph" else []
        r = harness(cmd, "M", *extra, cwd=tmp_path)
        codes[cmd] = r.returncode
        assert r.stderr.startswith("M:1:0: no blueprint") and r.stderr.count("\n") == 1, r.stderr
        assert "proved" not in r.stdout
    assert set(codes.values()) == {2}
