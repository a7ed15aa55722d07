"""`harness bench graph`: layout time of the blueprint graph by engine and size.

Generated blueprints (harness.blueprint.generate) of 100 / 1 000 / 5 000 nodes; per size and
engine (Graphviz ``dot``, igraph Sugiyama) the best of ``repeat`` layouts, and the time of the
whole page (data + layout + SVG + HTML). Ratios are against the smallest size, same process.
"""

from __future__ import annotations

import time
from typing import Any

from harness.blueprint import parse_text
from harness.blueprint.dag import analyse
from harness.blueprint.generate import generate_blueprint
from harness.errors import UsageError
from harness.report.graph import graph_data, node_box, render_html
from harness.report.layout import dot_executable, layout
from harness.report.summary import node_dict


def graph_layout(sizes: list[int], repeat: int = 2, engines: tuple[str, ...] = ("dot", "igraph"),
                 timeout_s: float = 600.0) -> dict[str, Any]:
    rows: list[dict[str, Any]] = []
    for n in sizes:
        a = analyse(parse_text(generate_blueprint(n, seed=1), "bench.lean"))
        nodes = [node_dict(a, k) for k in a.own]
        boxes = [node_box(d) for d in nodes]
        edges = list(a.graph.edges)
        row: dict[str, Any] = {"nodes": n, "edges": len(edges)}
        for engine in engines:
            if engine == "dot" and dot_executable() is None:
                row["dot_s"] = None
                continue
            best = float("inf")
            try:
                for _ in range(max(1, repeat if n <= 1000 else 1)):
                    t0 = time.perf_counter()
                    out = layout(boxes, edges, engine=engine, timeout_s=timeout_s)
                    best = min(best, time.perf_counter() - t0)
            except UsageError as err:  # e.g. dot timed out: a result, not a crash
                row[f"{engine}_s"], row[f"{engine}_error"] = None, err.message
                continue
            row[f"{engine}_s"] = round(best, 3)
            row[f"{engine}_size_px"] = [round(out.width), round(out.height)]
        t0 = time.perf_counter()
        page = render_html(graph_data(a))
        row["page_s"] = round(time.perf_counter() - t0, 3)
        row["page_mb"] = round(len(page.encode()) / 1e6, 2)
        rows.append(row)
    base = rows[0]
    for r in rows[1:]:
        for engine in engines:
            k = f"{engine}_s"
            if r.get(k) is not None and base.get(k):
                r[f"{engine}_ratio"] = round(r[k] / base[k], 1)
    return {"benchmark": "graph layout", "rows": rows, "baseline_nodes": base["nodes"]}
