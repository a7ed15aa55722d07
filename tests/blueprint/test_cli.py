"""plan / status / graph / bench through a real subprocess, and every bad-input case."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
DEMO = ROOT / "Blueprint" / "Demo.lean"


def harness(*args: str, cwd: Path = ROOT, timeout: float = 120) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "harness", *args], cwd=cwd, capture_output=True,
                          text=True, timeout=timeout)


def test_plan_json_on_demo():
    r = harness("plan", str(DEMO), "--json")
    assert r.returncode == 0, r.stderr
    data = json.loads(r.stdout)
    assert data["counts"]["nodes"] == 17
    assert [leaf["key"] for leaf in data["leaves"]][:1] == [data["critical_path"][0]]
    assert data["findings"] == []


def test_plan_human_output_mentions_leaves_and_layers():
    r = harness("plan", str(DEMO))
    assert r.returncode == 0
    assert "Ready now" in r.stdout and "Critical path" in r.stdout and "lem:sum-to-succ" in r.stdout
    assert "Traceback" not in r.stderr


def test_status_json_and_table():
    r = harness("status", str(DEMO), "--json")
    assert r.returncode == 0
    data = json.loads(r.stdout)
    states = {n["key"]: n["state"] for n in data["nodes"]}
    assert states["def:sum-to"] == "proved" and states["thm:gauss"] == "open"
    r2 = harness("status", str(DEMO))
    assert "thm:gauss" in r2.stdout and r2.returncode == 0


@pytest.mark.parametrize("ext", ["html", "svg", "json"])
def test_graph_outputs(tmp_path, ext):
    out = tmp_path / f"g.{ext}"
    r = harness("graph", str(DEMO), "-o", str(out))
    assert r.returncode == 0, r.stderr
    text = out.read_text()
    if ext == "json":
        data = json.loads(text)
        assert len(data["nodes"]) == 17 and all("state" in n for n in data["nodes"])
        kinds = {tuple(e["kinds"]) for e in data["edges"]}
        assert ("proof",) in kinds and ("statement",) in kinds
    elif ext == "svg":
        assert text.startswith("<?xml") and text.count('class="node"') == 17
        assert 'stroke-dasharray' in text  # statement deps dashed
    else:
        assert "<script" in text and "thm:gauss" in text
        # self-contained: nothing is fetched when the page is opened
        for attr in ('src="http', "src='http", 'href="http', "@import", "fetch("):
            assert attr not in text


def test_graph_unknown_format(tmp_path):
    r = harness("graph", str(DEMO), "-o", str(tmp_path / "g.png"))
    assert r.returncode == 2 and "unknown output format" in r.stderr
    assert "Traceback" not in r.stderr


def test_findings_exit_1_with_located_lines(tmp_path):
    # a shared label is one node (LeanArchitect), not a finding; the unknown name is one
    f = tmp_path / "dup.lean"
    f.write_text('@[blueprint "lem:a"] theorem a : True := trivial\n'
                 '@[blueprint "lem:a"] theorem b : True := by\n  sorry_using [c, a]\n')
    r = harness("plan", str(f))
    assert r.returncode == 1
    lines = r.stderr.strip().splitlines()
    assert not any("duplicate label" in line for line in lines)
    assert any(line.startswith(f"{f}:2:41: ") and "`sorry_using` names `c`" in line
               for line in lines)


def test_cycle_exit_1(tmp_path):
    f = tmp_path / "cyc.lean"  # a label may name a later node; a Lean name may not
    f.write_text('@[blueprint "a" (uses := ["b"])] theorem a : True := by\n  sorry\n'
                 '@[blueprint "b"] theorem b : True := by\n  sorry_using [a]\n')
    r = harness("plan", str(f), "--json")
    assert r.returncode == 1
    assert any(x["code"] == "cycle" for x in json.loads(r.stdout)["findings"])
    fwd = tmp_path / "fwd.lean"
    fwd.write_text("theorem a : True := by\n  sorry_using [b]\n"
                   "theorem b : True := by\n  sorry_using [a]\n")
    r = harness("plan", str(fwd), "--json")
    codes = [x["code"] for x in json.loads(r.stdout)["findings"]]
    assert r.returncode == 1 and codes == ["dangling-name"] and "only later" in r.stdout
    g = harness("graph", str(f), "-o", str(tmp_path / "g.html"))
    assert g.returncode == 1 and "dependency cycle: a -> b -> a" in g.stderr


BAD = {
    "missing": None,
    "not_utf8": b"theorem a : True := trivial\n-- caf\xe9\n",
    "binary": b"\x7fELF\x02\x01\x01\x00\x00\x00junk",
    "unterminated_comment": b"theorem a : True := by\n  /- never closed\n",
    "unterminated_attr": b'@[blueprint "a"\ntheorem a : True := trivial\n',
    "junk_text": b"this is not lean at all (\n",
}
EXPECT = {
    "missing": (1, 0, "no such file"),
    "not_utf8": (2, 6, "not UTF-8"),
    "binary": (1, 7, "binary data"),
    "unterminated_comment": (2, 2, "unterminated comment"),
    "unterminated_attr": (1, 1, "unterminated attribute"),
    "junk_text": (1, 0, "unexpected text"),
}


@pytest.mark.parametrize("case", sorted(BAD))
@pytest.mark.parametrize("command", ["plan", "status", "graph"])
def test_bad_input_is_one_line_exit_2(tmp_path, case, command):
    f = tmp_path / f"{case}.lean"
    if BAD[case] is not None:
        f.write_bytes(BAD[case])
    extra = ["-o", str(tmp_path / "o.html")] if command == "graph" else []
    r = harness(command, str(f), *extra)
    line, col, what = EXPECT[case]
    assert r.returncode == 2, r.stderr
    assert r.stderr.count("\n") == 1, r.stderr
    assert r.stderr.startswith(f"{f}:{line}:{col}: ") and what in r.stderr
    assert r.stdout == ""


def test_directory_and_big_file(tmp_path):
    r = harness("plan", str(tmp_path))  # a directory is a project: this one has no files
    assert r.returncode == 2 and "no Lean files" in r.stderr and r.stderr.count("\n") == 1
    big = tmp_path / "big.lean"
    big.write_bytes(b"-- " + b"x" * (10 * 2**20) + b"\n\xff")  # 10 MB of junk, not UTF-8
    r = harness("plan", str(big))
    assert r.returncode == 2 and r.stderr.count("\n") == 1 and "not UTF-8" in r.stderr


def test_usage_errors_exit_2():
    r = harness("plan")
    assert r.returncode == 2 and "Traceback" not in r.stderr
    r = harness("no-such-command")
    assert r.returncode == 2
    r = harness()
    assert r.returncode == 2


def test_bench_parse_small_json():
    r = harness("bench", "parse", "--nodes", "200", "--scale", "2", "--repeat", "1", "--json")
    assert r.returncode == 0, r.stderr
    data = json.loads(r.stdout)
    assert data["base"]["nodes"] == 200 and data["scaled"]["nodes"] == 400
