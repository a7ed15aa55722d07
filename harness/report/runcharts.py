"""The run report's charts as plotly figure dicts (``data`` + ``layout``), drawn by plotly.js in
the page: the worker Gantt with the gate's lane, gate batches, cost/tokens over time, tokens per
node. A chart with nothing to draw is left out (the page says so in words). Built as plain dicts, not through ``plotly.graph_objects`` (whose import costs seconds at
the end of every run)."""

from __future__ import annotations

import html
from typing import Any

OUTCOME_COLOURS = {"proved": "#2e9d4b", "failed": "#d9a21b", "repair": "#8e6bbf",
                   "blocker": "#8b1e1e", "in flight": "#9aa1a9", "gate passed": "#2f7fd8",
                   "gate rejected": "#e8743b", "gate uncertified": "#555"}


def _bar(**kw: Any) -> dict[str, Any]:
    return {"type": "bar", **kw}


def _axes(x: str, y: str, y2: str | None = None, **layout: Any) -> dict[str, Any]:
    out: dict[str, Any] = {"xaxis": {"title": {"text": x}}, "yaxis": {"title": {"text": y}},
                           "legend": {"orientation": "h"},
                           "margin": {"l": 70, "r": 70 if y2 else 20, "t": 30, "b": 40}}
    if y2:
        out["yaxis2"] = {"overlaying": "y", "side": "right", "title": {"text": y2},
                         "rangemode": "tozero"}
    out.update(layout)
    return out


def figures(s: dict[str, Any]) -> dict[str, dict[str, Any]]:
    """plotly figures as plain figure dicts (``data`` + ``layout``), drawn by plotly.js."""
    figs: dict[str, dict[str, Any]] = {}
    lanes = [f"worker {w}" for w in s["workers"]] + ["gate"]
    traces: list[dict[str, Any]] = []
    by_outcome: dict[str, list[dict[str, Any]]] = {}
    for a in s["attempts"]:
        by_outcome.setdefault(a["outcome"], []).append(a)
    for outcome, rows in by_outcome.items():
        traces.append(_bar(
            name=outcome, orientation="h", base=[r["start"] for r in rows],
            x=[max(r["end"] - r["start"], 0.01) for r in rows],
            y=[f"worker {r['worker']}" if r["worker"] is not None else "worker ?" for r in rows],
            marker={"color": OUTCOME_COLOURS.get(outcome, "#999")},
            text=[r["node"] for r in rows], textposition="inside", insidetextanchor="middle",
            hovertext=[f"{r['aid']} ({r['role']}): {outcome}<br>{html.escape(r['reason'][:200])}"
                       for r in rows], hoverinfo="text"))
    by_status: dict[str, list[dict[str, Any]]] = {}
    for b in s["batches"]:
        by_status.setdefault(b["status"], []).append(b)
    for status, rows in by_status.items():
        traces.append(_bar(
            name=status, orientation="h", base=[b["start"] for b in rows],
            x=[max(b["end"] - b["start"], 0.01) for b in rows], y=["gate"] * len(rows),
            marker={"color": OUTCOME_COLOURS[status]}, text=[b["batch"] for b in rows],
            textposition="inside",
            hovertext=[f"{b['batch']}: {b['size']} candidates, {b['merged']} merged, "
                       f"{len(b['rejected'])} rejected, {b['gate_calls']} gate calls"
                       for b in rows], hoverinfo="text"))
    if traces:
        figs["timeline"] = {"data": traces, "layout": _axes(
            "seconds since the run started", "", barmode="overlay",
            height=140 + 34 * len(lanes),
            yaxis={"categoryorder": "array", "categoryarray": lanes[::-1]})}

    if s["batches"]:
        names = [b["batch"] for b in s["batches"]]
        data = [_bar(name=label, x=names, y=vals, marker={"color": colour}) for label, vals, colour
                in (("merged", [b["merged"] for b in s["batches"]], "#2e9d4b"),
                    ("rejected (culprits)", [len(b["rejected"]) for b in s["batches"]],
                     "#d64541"),
                    ("superseded", [b["superseded"] for b in s["batches"]], "#9aa1a9"),
                    ("uncertified", [b["uncertified"] for b in s["batches"]], "#555"))]
        data.append({"type": "scatter", "name": "gate calls", "x": names,
                     "y": [b["gate_calls"] for b in s["batches"]], "mode": "lines+markers",
                     "yaxis": "y2", "line": {"color": "#2f7fd8"}})
        gates = _axes("batch", "candidates", "gate calls", barmode="stack", height=320)
        gates["yaxis"]["dtick"] = 1 if max(b["size"] for b in s["batches"]) <= 12 else None
        gates["yaxis2"]["dtick"] = 1 if max(b["gate_calls"] for b in s["batches"]) <= 12 \
            else None
        figs["gates"] = {"data": data, "layout": gates}

    roles = sorted({p["role"] for p in s["series"]})
    cost: list[dict[str, Any]] = []
    for role in roles:
        cum_c, cum_t, xs, cs, ts = 0.0, 0, [0.0], [0.0], [0]
        for p in (p for p in s["series"] if p["role"] == role):
            cum_c += p["cost"]
            cum_t += p["tokens"]
            xs.append(p["t"])
            cs.append(round(cum_c, 6))
            ts.append(cum_t)
        cost.append({"type": "scatter", "name": f"{role} USD", "x": xs, "y": cs,
                     "mode": "lines", "line": {"shape": "hv"}})
        cost.append({"type": "scatter", "name": f"{role} tokens", "x": xs, "y": ts,
                     "mode": "lines", "line": {"shape": "hv", "dash": "dot"}, "yaxis": "y2"})
    if cost:
        figs["cost"] = {"data": cost, "layout": _axes("seconds since the run started",
                                                      "cumulative USD", "tokens", height=320)}

    per_node: dict[str, dict[str, int]] = {}
    for p in s["series"]:
        if p["node"]:
            per_node.setdefault(p["node"], {}).setdefault(p["role"], 0)
            per_node[p["node"]][p["role"]] += p["tokens"]
    top = sorted(per_node, key=lambda n: -sum(per_node[n].values()))[:40]
    if top and any(sum(per_node[n].values()) for n in top):
        figs["per_node"] = {"data": [_bar(name=role, x=top, y=[per_node[n].get(role, 0)
                                                               for n in top])
                                     for role in roles],
                            "layout": _axes("", "tokens", barmode="stack", height=340,
                                            margin={"l": 70, "r": 20, "t": 30, "b": 120})}
    return figs
