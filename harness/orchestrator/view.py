"""Progress of a run: a rich live view on a terminal, one plain line per event otherwise."""

from __future__ import annotations

import sys
import time
from typing import Any

from rich.console import Console, Group
from rich.live import Live
from rich.table import Table
from rich.text import Text

from harness.gate.sanitize import printable


class PlainView:
    """One line per event on stderr-like stream (stdout by default), no control codes."""

    def __init__(self, stream: Any = None) -> None:
        self.stream = stream or sys.stdout
        self.t0 = time.monotonic()

    def __call__(self, kind: str, d: dict[str, Any]) -> None:
        line = _describe(kind, d)
        if line:
            print(f"[{time.monotonic() - self.t0:7.1f}s] {line}", file=self.stream, flush=True)

    def close(self) -> None:
        pass


def _describe(kind: str, d: dict[str, Any]) -> str | None:
    if kind == "dispatch":
        return f"dispatch {d['node']} ({d['kind']} #{d['attempt']}) -> worker {d['worker']}"
    if kind == "attempt":
        res = "accepted" if d["ok"] else f"failed: {(d.get('reason') or '')[:160]}"
        return f"attempt {d['node']} {res}"
    if kind == "gate":
        return f"gate {d['batch']}: {', '.join(d['nodes'])}"
    if kind == "merged":
        return f"merged {d['batch']} ({d['commit'][:10]}): {', '.join(d['nodes'])}"
    if kind == "blocked":
        return f"blocked {d['node']}: {d['reason'][:200]}"
    if kind == "dag":
        return f"record: {d['proved']} proved, {d['open']} open, {d['blocked']} blocked"
    if kind == "note":
        return f"note: {d['message']}"
    if kind == "lost":
        return (f"lost {d['aid']} (worker {d.get('pid', '?')} on {d.get('host', '?')} died: "
                f"{d['reason'][:120]}): re-dispatched")
    return None


class LiveView:
    """Workers and their nodes, proved / open / blocked counts, cost — redrawn in place."""

    def __init__(self, console: Console | None = None) -> None:
        self.console = console or Console()
        self.workers: dict[int, tuple[str, int, float]] = {}
        self.counts: dict[str, Any] = {}
        self.cost = 0.0
        self.tokens = 0
        self.attempts = 0
        self.failed = 0
        self.last: list[str] = []
        self.cluster: dict[str, Any] = {}  # a Ray executor's nodes and their load
        self.t0 = time.monotonic()
        self.live = Live(self._render(), console=self.console, refresh_per_second=4,
                         transient=False)
        self.live.start()

    def __call__(self, kind: str, d: dict[str, Any]) -> None:
        if kind == "dispatch":
            self.workers[d["worker"]] = (d["node"], d["attempt"], time.monotonic())
        elif kind == "attempt":
            self.attempts += 1
            self.failed += 0 if d["ok"] else 1
            self.cost += d.get("cost") or 0.0
            self.tokens += d.get("tokens") or 0
            w = d.get("worker")
            if w is not None:
                self.workers.pop(w, None)
        elif kind == "dag":
            self.counts = d
        elif kind == "cluster":
            self.cluster = d
        line = _describe(kind, d)
        if line and kind in ("merged", "blocked", "note", "gate", "lost"):
            self.last = (self.last + [line])[-6:]
        self.live.update(self._render())

    def _render(self) -> Group:
        head = (f"proved {self.counts.get('proved', '?')}  open {self.counts.get('open', '?')}  "
                f"blocked {self.counts.get('blocked', '?')}  attempts {self.attempts} "
                f"({self.failed} failed)  tokens {self.tokens}  cost ${self.cost:.4f}  "
                f"{time.monotonic() - self.t0:.0f}s")
        t = Table("worker", "node", "attempt", "for", box=None)
        now = time.monotonic()
        for w, (node, att, since) in sorted(self.workers.items()):
            t.add_row(str(w), Text(printable(node)), str(att), f"{now - since:.0f}s")
        # labels, hosts and Lean's messages are text: `lem:[/draft]` is not markup
        return Group(head, t, *self._nodes(), *(Text(printable(line)) for line in self.last))

    def _nodes(self) -> list[Table]:
        nodes = self.cluster.get("nodes") or []
        if not nodes:
            return []
        t = Table("cluster node", "host", "running", "done", "load", "warm Lean", box=None)
        for n in nodes:
            warm = n.get("warm_s")
            t.add_row(Text(printable(str(n.get("node_id", ""))[:12])),
                      Text(printable(str(n.get("host", "?")))),
                      str(len(n.get("running") or [])), str(n.get("done", 0)),
                      str(n.get("loadavg", "?")), "gone" if n.get("gone")
                      else (f"{warm:.1f}s" if warm is not None else "-"))
        return [t]

    def close(self) -> None:
        self.live.update(self._render())
        self.live.stop()


def make_view(live: bool | None = None) -> PlainView | LiveView:
    if live is None:
        live = sys.stdout.isatty()
    return LiveView() if live else PlainView()
