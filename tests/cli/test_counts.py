"""Counts, listings and priorities are of blueprint nodes, at the size of a real project:
~1 000 nodes with ~1 800 ordinary declarations beside them (tests/cli/projects.py)."""

from __future__ import annotations

import json
import re

import pytest

from tests.cli.projects import harness, ordinary_project


@pytest.fixture(scope="module")
def big(tmp_path_factory):
    root = tmp_path_factory.mktemp("big")
    info = ordinary_project(root)
    assert info["nodes"] >= 1000 and info["ordinary"] > info["nodes"]
    return root, info


@pytest.fixture(scope="module")
def plan_json(big):
    root, _ = big
    r = harness("plan", ".", "--json", cwd=root)
    assert r.returncode == 0, r.stderr
    return json.loads(r.stdout)


def test_counts_are_of_nodes(big, plan_json):
    _, info = big
    c = plan_json["counts"]
    assert c["nodes"] == info["nodes"] and c["context"] == info["ordinary"]
    assert sum(c["by_state"].values()) == info["nodes"]  # ordinary declarations not counted
    labels = set(re.findall(r'@\[blueprint "([^"]+)"',
                            "".join(p.read_text() for p in (big[0] / "Gen").rglob("*.lean"))))
    assert {x["key"] for x in plan_json["leaves"]} <= labels  # ready now: nodes only
    assert all(k in labels for layer in plan_json["layers"] for k in layer)
    assert set(plan_json["critical_path"]) <= labels and set(plan_json["targets"]) <= labels
    assert sum(map(len, plan_json["layers"])) == info["nodes"]


def test_priority_counts_nodes_only(big, plan_json):
    # every module ends with an ordinary `sorry` lemma resting on its last node: the DAG
    # counts it as work, the node view must not (a leaf's priority <= the longest node chain)
    longest = len(plan_json["layers"])
    assert all(x["priority"] <= longest for x in plan_json["leaves"])
    first = plan_json["leaves"][0]
    assert first["key"] == plan_json["critical_path"][0]
    assert first["priority"] <= len(plan_json["critical_path"])


def test_priority_small(tmp_path):
    (tmp_path / "lakefile.lean").write_text("import Lake\n")
    f = tmp_path / "A.lean"
    f.write_text('@[blueprint "lem:a"]\ntheorem a : True := sorry\n\n'
                 "theorem o1 : True := by\n  have := a\n  sorry\n\n"
                 "theorem o2 : True := by\n  have := o1\n  sorry\n\n"
                 '@[blueprint "lem:b"]\ntheorem b : True := by\n  have := o2\n  sorry\n')
    data = json.loads(harness("plan", str(f), "--json", cwd=tmp_path).stdout)
    assert [(x["key"], x["priority"]) for x in data["leaves"]] == [("lem:a", 2)]
    assert data["critical_path"] == ["lem:a", "lem:b"] and data["layers"] == [["lem:a"], ["lem:b"]]


def test_text_is_summarised_and_located(big, plan_json):
    root, info = big
    r = harness("plan", ".", cwd=root)
    assert r.returncode == 0, r.stderr
    head = r.stdout.splitlines()[0]
    assert f"{info['nodes']} blueprint nodes ({info['ordinary']} ordinary declarations" in head
    assert max(map(len, r.stdout.splitlines())) < 400  # no 54 000-character "Layers" line
    assert "more (`--all` lists every one)" in r.stdout
    ready = [ln for ln in r.stdout.splitlines() if re.match(r"\s+\d+\. ", ln)]
    assert len(ready) == 20
    assert all(re.search(r"Gen/Layer\d+/File\d+\.lean:\d+\)", ln) for ln in ready)
    everything = harness("plan", ".", "--all", cwd=root)
    listed = [ln for ln in everything.stdout.splitlines() if re.match(r"\s+\d+\. ", ln)]
    assert len(listed) == len(plan_json["leaves"])
    assert "(+" not in everything.stdout  # no layer or target cut


def test_status_counts_nodes_and_summarises(big):
    root, info = big
    r = harness("status", ".", "--json", cwd=root)
    assert r.returncode == 0, r.stderr
    data = json.loads(r.stdout)
    assert len(data["nodes"]) == info["nodes"] == sum(data["counts"]["by_state"].values())
    text = harness("status", ".", cwd=root).stdout
    assert f"{info['nodes']} blueprint nodes" in text.splitlines()[0]
    assert "more nodes (`--all`" in text and len(text.splitlines()) < 80
    every = json.loads(harness("status", ".", "--all", "--json", cwd=root).stdout)
    assert len(every["nodes"]) == info["nodes"] + info["ordinary"]


def test_directory_findings_carry_their_file(big):
    root, _ = big
    r = harness("plan", ".", "--lint", "crefs", "--json", cwd=root)
    assert r.returncode == 1
    found = json.loads(r.stdout)["findings"]
    assert found and all(re.fullmatch(r"Gen/Layer\d+/File\d+\.lean", f["file"]) for f in found)
    text = harness("plan", ".", "--lint", "crefs", cwd=root)
    lines = text.stderr.splitlines()
    assert len(lines) == len(found)
    assert all(re.match(r"Gen/Layer\d+/File\d+\.lean:\d+:\d+: ", ln) for ln in lines)


def test_plan_of_a_lakefile_and_a_directory_without_nodes(big, tmp_path):
    root, _ = big
    r = harness("plan", "lakefile.lean", cwd=root)
    assert r.returncode == 2 and r.stderr == "lakefile.lean:1:0: a Lake build file, not a blueprint\n"
    (tmp_path / "lakefile.lean").write_text("import Lake\n")
    (tmp_path / "A").mkdir()
    (tmp_path / "A" / "B.lean").write_text("theorem t : True := trivial\n")
    for command in ("plan", "status", "graph"):
        extra = ["-o", "g.html"] if command == "graph" else []
        r = harness(command, "A", *extra, cwd=tmp_path)
        assert r.returncode == 2 and r.stderr.count("\n") == 1, (command, r.stderr)
        assert "no blueprint" in r.stderr


def test_lock_and_plan_agree_on_nodes(tmp_path):
    (tmp_path / "lakefile.lean").write_text("import Lake\n")
    f = tmp_path / "A.lean"
    f.write_text(
        "import Architect\n\nset_option autoImplicit false\n\n"
        '@[blueprint "lem:a" (statement := /-- A. -/)]\ntheorem a : True := trivial\n\n'
        '@[blueprint "lem:a"]\ntheorem a2 : True := trivial\n\n'
        "@[to_additive (attr := blueprint \"lem:m\")]\ntheorem mul_m : True := trivial\n\n"
        "theorem plain : True := trivial\n")
    plan = json.loads(harness("plan", str(f), "--json", cwd=tmp_path).stdout)
    lock = harness("lock", str(f), "--static-only", "--json", cwd=tmp_path)
    assert lock.returncode == 0, lock.stderr
    assert json.loads(lock.stdout)["nodes"] == plan["counts"]["nodes"] == 2
    text = harness("lock", str(f), "--static-only", cwd=tmp_path)
    assert "2 blueprint nodes" in text.stdout
    assert "forbidden" not in text.stdout  # its own import and option are not "forbidden"
    assert "`import`" in text.stdout and "`set_option`" in text.stdout
