"""The cost-to-finish forecast and the learning simulator (pure; the real Scheduler)."""

from __future__ import annotations

import pytest

from harness.orchestrator.forecast import forecast, render
from harness.orchestrator.simulate import SimDag, SimNode, generate_dag
from harness.orchestrator.simulate_learning import (
    CHEAP, STRONG, LearningPolicy, Model, simulate_learning, standard_policies,
)


def _events(per_node: dict[str, int], cost: float = 0.1, secs: float = 60.0) -> list[dict]:
    evs: list[dict] = []
    for n, k in per_node.items():
        evs += [{"kind": "attempt", "node": n, "cost": cost, "seconds": secs}] * k
        evs.append({"kind": "merged", "nodes": [n]})
    return evs


def test_forecast_interval_brackets_the_median() -> None:
    f = forecast(_events({"a": 1, "b": 2, "c": 1, "d": 4}), open_nodes=10, workers=2)
    lo, mid, hi = f["attempts"]
    assert 10 <= lo <= mid <= hi <= 40  # each remaining node takes 1..4 attempts
    assert f["cost_usd"] == tuple(round(x * 0.1, 2) for x in (lo, mid, hi))
    assert f["spent_usd"] == 0.8 and f["samples"] == 4
    assert "to finish" in render(f) and "80%" in render(f)


def test_forecast_says_when_it_cannot_guess() -> None:
    f = forecast(_events({"a": 1}), open_nodes=3)
    assert "not enough data" in f["basis"] and "cost_usd" not in f
    assert "forecast: not enough data" in render(f)
    assert forecast(_events({"a": 2}), open_nodes=0)["attempts"] == (0, 0, 0)


def test_learning_simulation_is_deterministic_and_counts_every_attempt() -> None:
    dag = generate_dag(60, seed=4)
    for pol in standard_policies(CHEAP, STRONG):
        a = simulate_learning(dag, 4, pol, cheap=CHEAP, seed=4)
        b = simulate_learning(dag, 4, pol, cheap=CHEAP, seed=4)
        assert a == b
        assert a.proved + a.blocked <= len(dag.nodes) and a.attempts >= a.proved


def test_racing_runs_several_attempts_on_one_node_when_workers_idle() -> None:
    dag = SimDag(nodes=[SimNode(id="only", duration=100.0)])
    never = Model("never", success=0.0, usd=1.0)
    solo = simulate_learning(dag, 3, LearningPolicy("solo"), cheap=never)
    race = simulate_learning(dag, 3, LearningPolicy("race", race=3), cheap=never)
    # the node never succeeds: both stop at the attempt cap, the race three at a time
    assert solo.attempts == race.attempts and race.makespan < solo.makespan / 2
    assert race.cost_usd == pytest.approx(race.attempts * 1.0 * 100 / 600)  # usd per median
