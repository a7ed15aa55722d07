"""`--layout auto` with Graphviz installed: `dot` runs beside the layered engine and gets a time
in proportion to the layered engine's (layout.DOT_PER_LAYERED, at least DOT_MIN_WAIT_S), not the
whole timeout: on the real 978-node PrimeNumberTheoremAnd `dot` used to spend its 10 s and time
out before the layered layout was even started. Fake `dot`s (this machine has no Graphviz)."""

from __future__ import annotations

import os
import sys
import threading
import time
from pathlib import Path

import pytest

from harness.report import layout as layout_mod
from harness.report.layout import layout
from tests.report.test_layout import check_layout, sample

# A `dot -Tjson0` stand-in: reads the dot source, sleeps, answers a valid json0 (one rank per
# node; no clusters). Its pid goes to the file named by $HARNESS_TEST_PIDFILE.
FAKE_DOT = r'''
import json, os, re, sys, time
src = sys.stdin.read()
open(os.environ["HARNESS_TEST_PIDFILE"], "w").write(str(os.getpid()))
time.sleep(float(os.environ["HARNESS_TEST_DOT_SLEEP"]))
names = re.findall(r"^(n\d+) \[", src, re.M)
order = {n: i for i, n in enumerate(names)}
objs = [{"name": n, "_gvid": i, "pos": f"100,{10000 - 60 * i}"} for n, i in order.items()]
edges = [{"tail": order[a], "head": order[b], "pos": ""}
         for a, b in re.findall(r"^(n\d+) -> (n\d+);", src, re.M)]
print(json.dumps({"bb": f"0,0,300,{10000 + 60}", "objects": objs, "edges": edges}))
'''


def _fake_dot(tmp_path: Path, monkeypatch, sleep_s: float) -> Path:
    dot = tmp_path / "dot"
    dot.write_text(f"#!{sys.executable} -S\n{FAKE_DOT}")
    dot.chmod(0o755)
    pidfile = tmp_path / "dot.pid"
    monkeypatch.setenv("HARNESS_DOT", str(dot))
    monkeypatch.setenv("HARNESS_TEST_PIDFILE", str(pidfile))
    monkeypatch.setenv("HARNESS_TEST_DOT_SLEEP", str(sleep_s))
    return pidfile


def _dead(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return True
    return False


def test_a_slow_dot_is_stopped_once_its_share_is_spent(tmp_path, monkeypatch) -> None:
    pidfile = _fake_dot(tmp_path, monkeypatch, sleep_s=300)
    monkeypatch.setattr(layout_mod, "DOT_MIN_WAIT_S", 0.5)
    _, boxes, edges = sample(20)
    lay = layout(boxes, edges, timeout_s=60)  # the old code waited all of it, then laid out
    assert lay.engine == "layered", lay.note
    assert lay.note.startswith("dot did not finish in 0.5 s (10x the layered engine's "), lay.note
    assert "s, at least 0.5 s); used the layered engine (`--layout dot` waits for it)" in lay.note
    assert lay.seconds >= 0.5  # the layout's time counts the wait for dot
    check_layout(lay, boxes, edges)
    assert _dead(int(pidfile.read_text()))  # killed and reaped, no zombie


def test_dot_within_its_share_is_used(tmp_path, monkeypatch) -> None:
    """The layered layout is made first, yet a `dot` that answers within its share wins."""
    _fake_dot(tmp_path, monkeypatch, sleep_s=0.5)
    _, boxes, edges = sample(20)
    lay = layout(boxes, edges)
    assert lay.engine == "dot" and lay.note == ""
    assert set(lay.centres) == {b.key for b in boxes} and set(lay.edge_paths) == set(edges)


def test_the_share_grows_with_the_layered_engines_time(tmp_path, monkeypatch) -> None:
    """A graph the layered engine needs long for gives `dot` longer too (the same dot: stopped
    after a quick layered layout, used after a slow one)."""
    _fake_dot(tmp_path, monkeypatch, sleep_s=1.0)
    monkeypatch.setattr(layout_mod, "DOT_MIN_WAIT_S", 0.2)
    _, boxes, edges = sample(20)
    assert layout(boxes, edges, timeout_s=60).engine == "layered"
    real = layout_mod.layered_layout

    def slow(*a, **k):  # stands for a big graph: 0.4 s of layered work -> a 4 s share
        time.sleep(0.4)
        return real(*a, **k)

    monkeypatch.setattr(layout_mod, "layered_layout", slow)
    assert layout(boxes, edges, timeout_s=60).engine == "dot"


def test_an_interrupt_during_the_layered_layout_kills_dot(tmp_path, monkeypatch) -> None:
    """^C while the layered engine works (dot just started, or not yet): dot's group is killed
    and its thread reaped, the interrupt goes on."""
    pidfile = _fake_dot(tmp_path, monkeypatch, sleep_s=300)

    def interrupted(*a, **k):
        for _ in range(400):  # until dot runs (it writes its pid once it has read its input)
            if pidfile.exists() and pidfile.read_text():
                break
            time.sleep(0.025)
        raise KeyboardInterrupt

    monkeypatch.setattr(layout_mod, "layered_layout", interrupted)
    _, boxes, edges = sample(20)
    with pytest.raises(KeyboardInterrupt):
        layout(boxes, edges, timeout_s=60)
    assert not any(t.name == "dot" and t.is_alive() for t in threading.enumerate())
    assert pidfile.exists() and _dead(int(pidfile.read_text()))


def test_an_interrupt_as_dot_s_thread_starts_kills_dot(tmp_path, monkeypatch) -> None:
    """^C handled as `worker.start()` returns (CPython runs a handler when a call returns):
    dot runs in its own session, out of the terminal's ^C, and nothing else would stop it."""
    pidfile = _fake_dot(tmp_path, monkeypatch, sleep_s=300)

    class InterruptedOnStart(threading.Thread):
        def start(self) -> None:
            super().start()
            for _ in range(400):  # until dot runs
                if pidfile.exists() and pidfile.read_text():
                    break
                time.sleep(0.025)
            raise KeyboardInterrupt

    monkeypatch.setattr(layout_mod.threading, "Thread", InterruptedOnStart)
    _, boxes, edges = sample(20)
    with pytest.raises(KeyboardInterrupt):
        layout(boxes, edges, timeout_s=60)
    monkeypatch.undo()
    pid = int(pidfile.read_text())
    for _ in range(200):  # the kill is at once; the reap is its thread's
        if _dead(pid):
            break
        time.sleep(0.025)
    assert _dead(pid)
    assert not any(t.name == "dot" and t.is_alive() for t in threading.enumerate())
