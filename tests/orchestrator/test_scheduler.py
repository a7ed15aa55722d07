"""The pure scheduler and the simulator that drives it."""

from __future__ import annotations

import json
import subprocess
import sys

import networkx as nx
import pytest
from hypothesis import given, settings, strategies as st

from harness.orchestrator.scheduler import Scheduler
from harness.orchestrator.scheduler_model import NodeState, Policy, SchedulerConfig
from harness.orchestrator.simulate import (SimDag, SimNode, generate_dag, lower_bound, simulate)


def dag(durations: dict[str, float], edges: list[tuple[str, str]]) -> SimDag:
    return SimDag(nodes=[SimNode(id=k, duration=v) for k, v in durations.items()], edges=edges)


def test_critical_path_first_and_readiness_on_merge() -> None:
    # a -> b -> c is the long chain; x, y are independent; one worker.
    g = nx.DiGraph([("a", "b"), ("b", "c")])
    g.add_nodes_from(["x", "y"])
    s = Scheduler(g, ["x", "y", "a", "b", "c"], SchedulerConfig(workers=1),
                  order=["x", "y", "a", "b", "c"])
    assert s.ready() == ["a", "x", "y"]  # chain length beats file order
    [d] = s.dispatch(0)
    assert (d.node, d.worker, d.attempt) == ("a", 0, 1)
    assert s.dispatch(0) == []  # no free worker
    s.finish("a", True, 1)
    assert s.take_gate_batch(1) == ["a"]
    assert s.gate_done(["a"], {}, 2) == ["b"]  # b ready the moment a merged
    assert s.dispatch(2)[0].node == "b"


def test_failures_retry_repair_and_cap() -> None:
    g = nx.DiGraph()
    g.add_node("a")
    s = Scheduler(g, ["a"], SchedulerConfig(workers=2, attempts_before_repair=2, max_attempts=3))
    for i in range(2):
        s.dispatch(0)
        s.finish("a", False, 0)
    assert s.needs_repair("a") and s.attempts("a") == 2
    s.reset_failures("a")
    assert not s.needs_repair("a")
    s.dispatch(0)
    s.finish("a", False, 0)
    assert s.state("a") == NodeState.BLOCKED
    assert s.finished()


def test_gate_rejection_reopens_and_dependents_blocked_reported() -> None:
    g = nx.DiGraph([("a", "b")])
    s = Scheduler(g, ["a", "b"], SchedulerConfig(workers=2))
    s.dispatch(0)
    s.finish("a", True, 0)
    s.take_gate_batch(0)
    s.gate_done([], {"a": "does not compile"}, 1)
    assert s.state("a") == NodeState.OPEN and s.ready() == ["a"]
    s.block("a", "repair: statement false")
    assert s.blocked() == {"a": "repair: statement false", "b": "depends on blocked a"}
    assert s.finished()


def test_batch_window_holds_candidates_until_due() -> None:
    g = nx.DiGraph()
    g.add_nodes_from("abcd")
    s = Scheduler(g, "abcd", SchedulerConfig(workers=2, batch_size=3, batch_window=10))
    assert [d.node for d in s.dispatch(0)] == ["a", "b"]
    s.finish("a", True, 1)
    assert [d.node for d in s.dispatch(1)] == ["c"]
    assert s.take_gate_batch(1) == []  # workers busy, batch not full: wait for the window
    assert s.next_wakeup() == 11
    s.finish("b", True, 2)
    s.dispatch(2)
    assert s.take_gate_batch(5) == []
    assert s.take_gate_batch(11) == ["a", "b"]
    s.finish("c", True, 12)
    assert s.take_gate_batch(12) == []  # the gate checks one batch at a time
    s.gate_done(["a", "b"], {}, 13)
    s.finish("d", True, 14)
    assert s.take_gate_batch(14) == ["c", "d"]  # nothing left to run: flush at once


def test_barrier_waits_for_the_slowest_and_rounds() -> None:
    g = nx.DiGraph([("a", "c")])
    g.add_node("b")
    d = dag({"a": 1, "b": 100, "c": 1}, [("a", "c")])
    pipe = simulate(d, 2, Policy.PIPELINED)
    bar = simulate(d, 2, Policy.BARRIER)
    assert pipe.makespan == 100  # c runs while b is still going
    assert bar.makespan == 101  # c waits for the next round, after b
    assert pipe.lower_bound == 100


def test_simulation_respects_dependencies_and_workers() -> None:
    d = generate_dag(60, seed=3)
    g = d.graph()
    for pol in Policy:
        r = simulate(d, 4, pol, failure_rate=0.2, seed=5, gate_latency=3.0)
        assert set(r.merged_at) == set(g)
        ok = {a.node: a for a in r.attempts if a.ok}
        for u, v in g.edges:
            assert r.merged_at[u] <= ok[v].start  # v only starts once u is merged
        for w in range(4):  # a worker runs one attempt at a time
            spans = sorted((a.start, a.end) for a in r.attempts if a.worker == w)
            assert all(e1 <= s2 for (_, e1), (s2, _) in zip(spans, spans[1:]))
        assert r.makespan >= r.lower_bound - 1e-6


@settings(max_examples=40, deadline=None)
@given(st.integers(2, 25), st.integers(0, 10_000), st.integers(1, 6))
def test_pipelined_within_graham_bound(n: int, seed: int, p: int) -> None:
    """List scheduling never exceeds critical path + work / P (Graham) without failures/latency."""
    d = generate_dag(n, seed=seed)
    r = simulate(d, p, Policy.PIPELINED)
    cp, work, lb = lower_bound(d, p)
    assert lb - 1e-6 <= r.makespan <= cp + work / p + 1e-6


def test_cli_json_and_bad_input(tmp_path) -> None:
    f = tmp_path / "d.json"
    f.write_text(json.dumps({"nodes": [{"id": "a", "duration": 2}, {"id": "b", "duration": 3}],
                             "edges": [["a", "b"]]}))
    out = subprocess.run([sys.executable, "-m", "harness", "simulate", "--dag", str(f),
                          "--workers", "2", "--json"], capture_output=True, text=True, timeout=60)
    assert out.returncode == 0, out.stderr
    doc = json.loads(out.stdout)
    assert doc["makespan"] == 5 and doc["nodes"]["b"]["start"] == 2
    bad = tmp_path / "bad.json"
    bad.write_text('{"nodes": [{"id": "a", "duration": 1}],\n "edges": [["a", "zz"]]}')
    out = subprocess.run([sys.executable, "-m", "harness", "simulate", "--dag", str(bad)],
                         capture_output=True, text=True, timeout=60)
    assert out.returncode == 2 and "unknown node 'zz'" in out.stderr
    assert "Traceback" not in out.stderr
    bad.write_text('{"nodes": [\n  {"id": "a" "duration": 1}]}')
    out = subprocess.run([sys.executable, "-m", "harness", "simulate", "--dag", str(bad)],
                         capture_output=True, text=True, timeout=60)
    assert out.returncode == 2 and out.stderr.startswith(f"{bad}:2:")


@pytest.mark.parametrize("policy", ["pipelined", "barrier"])
def test_cli_table(policy: str) -> None:
    out = subprocess.run([sys.executable, "-m", "harness", "simulate", "--generate", "20",
                          "--policy", policy, "-P", "3"], capture_output=True, text=True,
                         timeout=60)
    assert out.returncode == 0 and "makespan" in out.stdout
