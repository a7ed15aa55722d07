"""Nonsense arguments are usage errors, and piped output is not cut to 80 columns."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


def harness(*args: str, cwd: Path = ROOT) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "harness", *args], cwd=cwd, capture_output=True,
                          text=True, timeout=120)


@pytest.fixture
def dag(tmp_path) -> Path:
    f = tmp_path / "dag.json"
    f.write_text(json.dumps({"nodes": [{"id": "a", "duration": 1}, {"id": "b", "duration": 1}],
                             "edges": [["a", "b"]]}))
    return f


@pytest.mark.parametrize("flag", ["--gate-latency", "--batch-window"])
@pytest.mark.parametrize("value", ["-1", "inf", "nan"])
def test_simulate_rejects_negative_or_non_finite_times(dag, flag, value):
    r = harness("simulate", "--dag", str(dag), f"{flag}={value}")
    assert r.returncode == 2 and r.stderr.count("\n") == 1 and "finite number" in r.stderr


def test_simulate_reports_bad_duration_at_its_node(tmp_path):
    f = tmp_path / "d.json"
    f.write_text('{"nodes": [\n  {"id": "a", "duration": 1},\n  {"id": "b", "duration": 1e400}\n'
                 '], "edges": []}')
    r = harness("simulate", "--dag", str(f))
    assert r.returncode == 2 and r.stderr.startswith(f"{f}:3:")


@pytest.mark.parametrize("args", [["--nodes", "0"], ["--nodes", "-5"], ["--scale", "1"],
                                  ["--repeat", "0"]])
def test_bench_rejects_nonsense(args):
    r = harness("bench", "parse", *args)
    assert r.returncode == 2 and "bench:" in r.stderr


def test_piped_tables_are_not_truncated():
    r = harness("status", "Blueprint/Demo.lean")
    assert r.returncode == 0
    row = next(line for line in r.stdout.splitlines() if "thm:my-rev-eq-reverse" in line)
    assert "sorry_using" in row and "open" in row and "…" not in row
