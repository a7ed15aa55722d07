"""The report of a run, from ``events.jsonl`` and ``result.json``: pure data (:func:`run_summary`)
then one self-contained HTML page (:func:`render_report`).

Sections: a worker timeline (Gantt: which node each worker held, when, the outcome of each
attempt, and the gate's batches on their own lane), gate batches and their bisections, cost and
tokens per role over time and per node, blockers with reasons, the critical path the run
actually realised, and the blueprint graph coloured by final status. Charts are plotly figures
(built in runcharts.py), drawn by plotly.js's basic bundle, vendored and inlined
(harness/report/vendored.py; docs/report.md says why and what it weighs). A chart with nothing
to draw is replaced by a sentence. The header's node counts are the graph's (one source).
"""

from __future__ import annotations

import html
import json
from pathlib import Path
from typing import Any

import networkx as nx

from harness.errors import HarnessError, InputError
from harness.orchestrator.events import read_events
from harness.report.runcharts import figures


def find_run(path: Path) -> Path:
    """A run directory, its events.jsonl / result.json, or the blueprint file of the run."""
    if path.is_file() and path.name in ("events.jsonl", "result.json"):
        return path.parent
    if path.is_file() and path.suffix == ".lean":
        from harness.orchestrator.state import run_dir
        from harness.workspace import find_workspace

        path = run_dir(find_workspace(path), path)
    if path.is_dir() and ((path / "events.jsonl").is_file() or (path / "result.json").is_file()):
        return path
    raise InputError(path, 1, 0, "not a run: expected a run directory (.harness/runs/<id>/), "
                     "its events.jsonl or result.json, or a blueprint file that was run")


def load_result(d: Path) -> dict[str, Any] | None:
    p = d / "result.json"
    try:
        data = json.loads(p.read_text(encoding="utf-8"))
    except FileNotFoundError:
        return None
    except (OSError, ValueError) as err:
        raise InputError(p, 1, 0, f"unreadable result: {err}") from None
    if not isinstance(data, dict):
        raise InputError(p, 1, 0, "unreadable result: not a JSON object")
    nodes = data.get("nodes") or {}
    if not isinstance(nodes, dict) or not all(isinstance(n, dict) for n in nodes.values()):
        raise InputError(p, 1, 0, "unreadable result: `nodes` is not an object of node results")
    return data


# ---- pure: events -> the report's data ------------------------------------------------------

class MalformedEvent(ValueError):
    """Event ``index`` (0-based, one per line of events.jsonl) lacks a field or has one of the
    wrong type."""

    def __init__(self, index: int, err: BaseException) -> None:
        what = f"missing field {err}" if isinstance(err, KeyError) else str(err)
        super().__init__(f"malformed event: {what}")
        self.index = index


def run_summary(events: list[dict[str, Any]], result: dict[str, Any] | None,
                graph: nx.DiGraph | None = None) -> dict[str, Any]:
    t0 = min((e["t"] for e in events if isinstance(e.get("t"), (int, float))), default=0.0)
    t_end = max((e["t"] for e in events if isinstance(e.get("t"), (int, float))), default=t0)

    def rel(t: Any) -> float:
        return round(float(t) - t0, 3) if isinstance(t, (int, float)) else 0.0

    attempts: list[dict[str, Any]] = []
    open_: dict[str, dict[str, Any]] = {}
    intents: dict[str, dict[str, Any]] = {}
    batches: list[dict[str, Any]] = []
    series: list[dict[str, Any]] = []
    blocked_ev: dict[str, str] = {}
    merged_at: dict[str, float] = {}
    last_msg: dict[str, str] = {}
    tried: dict[str, int] = {}

    def _take(ev: dict[str, Any]) -> None:
        k = ev["kind"]
        if k == "dispatch":
            ev["node"], float(ev["t"])  # needed should it stay in flight (_in_flight)
            open_[ev["aid"]] = ev
        elif k == "attempt":
            d = open_.pop(ev["aid"], None)
            start = rel(d["t"]) if d else rel(ev["t"]) - float(ev.get("seconds") or 0)
            role = ev.get("role") or ev.get("job") or "prove"
            outcome = ("blocker" if ev.get("repair") == "blocker" else "repair") \
                if ev.get("job") == "repair" else ("proved" if ev.get("ok") else "failed")
            attempts.append({"aid": ev["aid"], "node": ev["node"], "start": max(0.0, start),
                             "end": rel(ev["t"]), "worker": (d or {}).get("worker"),
                             "role": role, "outcome": outcome, "ok": bool(ev.get("ok")),
                             "reason": ev.get("reason") or "", "tokens": ev.get("tokens") or 0,
                             "cost": ev.get("cost") or 0.0})
            tried[ev["node"]] = tried.get(ev["node"], 0) + 1
            if not ev.get("ok") and ev.get("reason"):
                last_msg[ev["node"]] = ev["reason"]
        elif k in ("run_started", "run_resumed"):
            for aid, d in open_.items():  # the previous session ended with these in flight
                attempts.append(_in_flight(d, rel(d["t"]), rel(ev["t"])))
            open_.clear()
        elif k == "merge_intent":
            intents[f"b{ev['seq']:06d}"] = ev
        elif k == "gate":
            it = intents.get(ev["batch"], {})
            rejected = ev.get("rejected") or {}
            for aid, msgs in rejected.items():
                last_msg[aid.rsplit("#", 1)[0]] = "; ".join(msgs)
            status = ("gate passed" if not rejected else "gate rejected") \
                if ev.get("certified", True) else "gate uncertified"
            batches.append({"batch": ev["batch"], "start": rel(it.get("t", ev["t"])),
                            "end": rel(ev["t"]), "nodes": it.get("nodes", []),
                            "size": len(it.get("aids", []) or it.get("nodes", [])),
                            "merged": len(ev.get("merged") or []),
                            "rejected": {a: m for a, m in rejected.items()},
                            "superseded": len(ev.get("superseded") or []),
                            "uncertified": len(ev.get("uncertified") or []),
                            "gate_calls": ev.get("gate_calls", 1 if ev.get("certified") else 0),
                            "certified": ev.get("certified", True), "status": status,
                            "message": ev.get("message", "")})
        elif k in ("merged", "reconciled"):
            for n in ev.get("nodes", []):
                merged_at.setdefault(n, rel(ev["t"]))
        elif k == "unmerged":
            for n in ev.get("nodes", []):
                merged_at.pop(n, None)
        elif k == "blocked":
            blocked_ev[ev["node"]] = ev.get("reason", "")
        if ev.get("cost") or ev.get("tokens"):
            role = ev.get("role") or (ev.get("job") if k == "attempt" else k)
            series.append({"t": rel(ev["t"]), "role": role or k, "node": ev.get("node"),
                           "cost": float(ev.get("cost") or 0), "tokens": int(ev.get("tokens")
                                                                            or 0)})
    for i, ev in enumerate(events):
        try:
            _take(ev)
        except (KeyError, TypeError, ValueError) as err:
            raise MalformedEvent(i, err) from None
    for d in open_.values():  # still running when the log ends (a live or killed run)
        attempts.append(_in_flight(d, rel(d["t"]), rel(t_end)))
    nodes_res = (result or {}).get("nodes") or {}
    blockers = [{"node": n, "reason": explain(r.get("reason", ""), last_msg.get(n, ""))}
                for n, r in sorted(nodes_res.items()) if r.get("status") == "blocked"]
    if not nodes_res:
        blockers = [{"node": n, "reason": explain(r, last_msg.get(n, ""))}
                    for n, r in sorted(blocked_ev.items())]
    node_info = {n: {"status": r.get("status"), "attempts": r.get("attempts", tried.get(n, 0)),
                     "reason": explain(r.get("reason", ""), last_msg.get(n, ""))
                     if r.get("status") == "blocked" else r.get("reason", ""),
                     "message": last_msg.get(n, "")}
                 for n, r in nodes_res.items()}
    for n, c in tried.items():
        node_info.setdefault(n, {"status": "proved" if n in merged_at else "open",
                                 "attempts": c, "reason": "", "message": last_msg.get(n, "")})
    return {"t0": t0, "duration": rel(t_end), "attempts": attempts, "batches": batches,
            "series": series, "blockers": blockers, "merged_at": merged_at,
            "nodes": node_info, "critical_path": realised_critical_path(graph, merged_at)
            if graph is not None else [],
            "workers": sorted({a["worker"] for a in attempts if a["worker"] is not None})}


GENERIC = ("attempt failed", "")


def explain(reason: str, last: str) -> str:
    """A blocker's reason that says what failed: the scheduler's "3 attempts failed (last:
    attempt failed)" gets the last real error (the gate's message, or the attempt's own reason:
    Lean's error, no proof in the reply, …) in place of its generic word."""
    last = " ".join(last.split())
    if len(last) > 400:
        last = last[:399] + "…"
    if not last:
        return reason or "blocked (no error was recorded)"
    if reason.endswith("(last: attempt failed)"):
        return reason[: -len("attempt failed)")] + last + ")"
    if reason.strip() in GENERIC:
        return f"{reason or 'blocked'}: {last}"
    if last in " ".join(reason.split()):
        return reason
    return f"{reason}; last error: {last}"


def _in_flight(d: dict[str, Any], start: float, end: float) -> dict[str, Any]:
    return {"aid": d["aid"], "node": d["node"], "start": start, "end": max(end, start),
            "worker": d.get("worker"), "role": d.get("job", "prove"), "outcome": "in flight",
            "ok": False, "reason": "no result (the session ended first)", "tokens": 0,
            "cost": 0.0}


def realised_critical_path(g: nx.DiGraph, merged_at: dict[str, float]) -> list[dict[str, Any]]:
    """The chain that decided when the run's last proof landed: from the last node merged, step
    to the dependency merged latest in this run, until a node whose dependencies were all there
    before the run. (The scheduler's critical path is the planned one; this is the actual.)"""
    done = {n: t for n, t in merged_at.items() if n in g}
    if not done:
        return []
    node = max(done, key=lambda n: (done[n], n))
    chain = [node]
    while True:
        preds = [u for u in g.predecessors(node) if u in done and done[u] <= done[node]]
        if not preds:
            break
        node = max(preds, key=lambda u: (done[u], u))
        chain.append(node)
    chain.reverse()
    out, prev = [], 0.0
    for n in chain:
        out.append({"node": n, "merged_at": done[n], "after_previous": round(done[n] - prev, 3)})
        prev = done[n]
    return out


# ---- the page ------------------------------------------------------------------------------

def _table(rows: list[dict[str, Any]], cols: list[str], empty: str) -> str:
    if not rows:
        return f'<p class="muted">{html.escape(empty)}</p>'
    head = "".join(f"<th>{html.escape(c)}</th>" for c in cols)
    body = "".join("<tr>" + "".join(f"<td>{html.escape(str(r.get(c, '')))}</td>" for c in cols)
                   + "</tr>" for r in rows)
    return f"<table><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>"


def _fact(v: Any) -> str:
    """``{"proved": 13, "open": 0}`` as ``proved 13, open 0`` (not a Python repr)."""
    if isinstance(v, dict):
        return ", ".join(f"{k} {x}" for k, x in v.items())
    return str(v)


EMPTY = {"timeline": "No attempt ran in this run, and no gate batch: nothing to draw.",
         "gates": "", "cost": "No attempt reported tokens or cost: nothing to draw.",
         "per_node": "No node used tokens: nothing to draw."}


def render_report(s: dict[str, Any], result: dict[str, Any] | None, graph_html: str,
                  title: str, counts: dict[str, int] | None = None) -> str:
    """The page. ``counts``: the nodes by final status, as the graph shows them (the header
    reads the same numbers); without a graph, result.json's."""
    from harness.report.graph import graph_assets, json_script
    from harness.report.vendored import LOADER, plotly_js

    figs = figures(s)  # harness/report/runcharts.py: only charts with something to draw
    divs = {name: f'<div id="chart-{name}" class="chart"></div>' if name in figs else
            (f'<p class="muted empty-chart" id="empty-{name}">{html.escape(msg)}</p>'
             if msg else "") for name, msg in EMPTY.items()}
    r = result or {}
    shown = {k: v for k, v in counts.items() if v} if counts is not None else r.get("counts", "")
    facts = [("run", r.get("run_id", "?")), ("file", r.get("file", "?")),
             ("stop reason", r.get("stop_reason", "no result.json (still running, or killed)")),
             ("exit code", r.get("exit_code", "")),
             ("counts", shown or "no node"),
             ("attempts", r.get("attempts", len(s["attempts"]))), ("tokens", r.get("tokens", "")),
             ("cost (USD)", r.get("cost_usd", "")), ("wall time (s)", r.get("wall_time_s", "")),
             ("sessions", r.get("sessions", ""))]
    facts_html = "".join(f"<tr><th>{html.escape(k)}</th><td>{html.escape(_fact(v))}</td></tr>"
                         for k, v in facts)
    notes = "".join(f"<li>{html.escape(n)}</li>" for n in r.get("notes", []))
    batch_rows = [{"batch": b["batch"], "candidates": b["size"], "merged": b["merged"],
                   "gate calls": b["gate_calls"],
                   "bisection": "yes" if b["gate_calls"] > 1 else "",
                   "culprits": ", ".join(b["rejected"]) or "",
                   "why": " | ".join("; ".join(m)[:300] for m in b["rejected"].values())
                   or b["message"][:300]} for b in s["batches"]]
    css, js = graph_assets()
    graph_section = graph_html or '<p class="muted">the blueprint could not be read: no graph</p>'
    return f"""<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'; \
script-src 'unsafe-inline' 'unsafe-eval'; img-src data: blob:; font-src data:">
<title>Run report: {html.escape(title)}</title>
<style>{css}
body {{ font-family: sans-serif; margin: 0 24px 40px; }}
table {{ border-collapse: collapse; margin: 6px 0; font-size: 13px; }}
th, td {{ border: 1px solid #ddd; padding: 3px 8px; text-align: left; vertical-align: top; }}
td {{ max-width: 700px; word-break: break-word; }}
section {{ margin-top: 22px; }} .hg {{ height: 80vh; border: 1px solid #ccd; }}
.muted {{ color: #777; }}
</style>
<script>{LOADER}{plotly_js()}</script>
</head><body>
<h1>Run report: {html.escape(title)}</h1>
<table class="facts">{facts_html}</table>
{f"<ul>{notes}</ul>" if notes else ""}
<section id="timeline"><h2>Worker timeline</h2>
<p class="muted">Each bar: one attempt on a worker (label: the node), coloured by outcome; the
gate lane shows each batch from its merge intent to its verdict.</p>{divs["timeline"]}</section>
<section id="gate-batches"><h2>Gate batches and bisections</h2>{divs["gates"]}
{_table(batch_rows, ["batch", "candidates", "merged", "gate calls", "bisection", "culprits",
                     "why"], "no gate batch ran")}</section>
<section id="cost"><h2>Cost and tokens</h2>{divs["cost"]}<h3>Tokens per node and role</h3>
{divs["per_node"]}</section>
<section id="blockers"><h2>Blockers</h2>
{_table(s["blockers"], ["node", "reason"], "no node is blocked")}</section>
<section id="critical-path"><h2>Realised critical path</h2>
<p class="muted">From the last proof merged back through the dependency merged latest: the
chain that decided how long the run took.</p>
{_table(s["critical_path"], ["node", "merged_at", "after_previous"], "no node was merged")}
</section>
<section id="final-graph"><h2>Graph by final status</h2>{graph_section}</section>
{json_script("figures", figs)}
<script>
window.harnessVendor.plotly.then(async () => {{
  const figs = JSON.parse(document.getElementById('figures').textContent);
  for (const [name, fig] of Object.entries(figs)) {{
    await Plotly.newPlot('chart-' + name, fig.data, fig.layout,
                         {{displaylogo: false, responsive: true}});
  }}
  document.body.dataset.charts = 'ready';
}}, err => {{
  document.querySelectorAll('.chart').forEach(c => {{ c.textContent = 'charts not drawn: ' + err.message; }});
  document.body.dataset.charts = 'failed';
}});
</script>
<script>{js}</script>
</body></html>
"""


def build_report(path: Path) -> tuple[str, dict[str, Any]]:
    """(html, summary) for a run; bad input raises InputError (exit 2)."""
    d = find_run(path)
    events = read_events(d / "events.jsonl").events
    result = load_result(d)
    file = (result or {}).get("file") or next(
        (e.get("file") for e in events if e["kind"] in ("run_started", "run_resumed")), None)
    analysis = _analysis(Path(file), events) if isinstance(file, str) else None
    try:
        s = run_summary(events, result, analysis.graph if analysis is not None else None)
    except MalformedEvent as err:
        raise InputError(d / "events.jsonl", err.index + 1, 0, str(err)) from None
    graph_html, counts = "", None
    if analysis is not None:
        from harness.report.graph import graph_component, graph_data
        from harness.workspace import find_workspace

        data = graph_data(analysis, workspace=find_workspace(Path(file)), run=s["nodes"])
        graph_html = graph_component(data)
        counts = data["counts"]
    title = (result or {}).get("run_id") or d.name
    return render_report(s, result, graph_html, title, counts), s


def _analysis(file: Path, events: list[dict[str, Any]]):
    """The DAG the run scheduled on: the file as it was before the run's first merge. (Proofs that
    landed replace `sorry_using [...]` bodies, so today's file has lost the edges that decided
    the order.) The file as it is now when there is no record of the start."""
    from harness.blueprint.dag import analyse
    from harness.blueprint.imports import load_imports
    from harness.blueprint.parse import parse_text
    from harness.blueprint.source import parse_file
    from harness.workspace import find_workspace

    try:
        start = _text_before_first_merge(file, events)
        bp = parse_text(start, file) if start is not None else parse_file(file)
        return analyse(bp, load_imports(bp, find_workspace(file)))
    except (HarnessError, OSError):
        return None


def _text_before_first_merge(file: Path, events: list[dict[str, Any]]) -> str | None:
    first = next((e.get("commit") for e in events
                  if e.get("kind") == "merged" and e.get("commit")), None)
    if first is None:
        return None
    import git

    from harness.orchestrator.gitrepo import Repo  # git out of the terminal's ^C

    try:
        with Repo(file.resolve().parent, search_parent_directories=True) as repo:  # closes
            parent = repo.commit(first).parents[0]
            rel = file.resolve().relative_to(Path(repo.working_tree_dir).resolve()).as_posix()
            return parent.tree[rel].data_stream.read().decode("utf-8")
    except (git.GitError, ValueError, KeyError, IndexError, UnicodeDecodeError, OSError):
        return None


def write_run_report(run_dir: Path) -> Path | None:
    """``report.html`` in the run directory; never raises (a run must not fail on its report)."""
    from harness.fsutil import atomic_write

    try:
        text, _ = build_report(run_dir)
        out = run_dir / "report.html"
        atomic_write(out, text, durable=False)
        return out
    except Exception:  # noqa: BLE001 — e.g. a corrupt log: the run goes on
        return None
