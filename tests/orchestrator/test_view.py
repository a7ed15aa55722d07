"""Progress output: plain lines off a terminal, the rich live view on one."""

from __future__ import annotations

import io

from rich.console import Console

from harness.orchestrator.view import LiveView, PlainView

EVENTS = [
    ("dag", {"proved": 3, "open": 5, "blocked": 0, "commit": "abc"}),
    ("dispatch", {"node": "lem:a", "worker": 0, "attempt": 1, "kind": "prove"}),
    ("dispatch", {"node": "lem:b", "worker": 1, "attempt": 2, "kind": "repair"}),
    ("attempt", {"node": "lem:a", "ok": True, "reason": "", "kind": "prove", "worker": 0,
                 "cost": 0.25, "tokens": 1000}),
    ("gate", {"batch": "b000007", "nodes": ["lem:a"]}),
    ("merged", {"batch": "b000007", "commit": "0123456789abcdef", "nodes": ["lem:a"]}),
    ("blocked", {"node": "lem:c", "reason": "repair: false as stated"}),
]


def test_plain_lines() -> None:
    out = io.StringIO()
    v = PlainView(out)
    for k, d in EVENTS:
        v(k, d)
    lines = out.getvalue().splitlines()
    assert len(lines) == len(EVENTS) and "\x1b" not in out.getvalue()
    assert lines[1].endswith("dispatch lem:a (prove #1) -> worker 0")
    assert lines[5].endswith("merged b000007 (0123456789): lem:a")


def test_live_view_shows_workers_counts_cost() -> None:
    buf = io.StringIO()
    v = LiveView(Console(file=buf, force_terminal=True, width=120))
    for k, d in EVENTS:
        v(k, d)
    snapshot = Console(file=io.StringIO(), width=120)
    snapshot.print(v._render())
    text = snapshot.file.getvalue()
    v.close()
    assert "proved 3" in text and "open 5" in text and "cost $0.2500" in text
    assert "lem:b" in text and "lem:a" not in text.split("\n")[2]  # lem:a's worker is free
    assert "blocked lem:c" in text
