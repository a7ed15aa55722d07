"""`harness bench graph`: layout time of the blueprint graph by engine and size.

Generated single-file blueprints (harness.blueprint.generate) of 100 / 1 000 / 5 000 nodes:
per size and engine (Graphviz ``dot``, igraph's Sugiyama in its child process, the built-in
layered engine) the best of ``repeat`` layouts, and the time of the whole page (data + layout +
SVG + HTML). Ratios are against the smallest size, same process.

Then the project case (issue #21): a generated LeanArchitect project of ~1 000 blueprint nodes
and ~9 000 ordinary declarations in ``project_files`` modules (harness.blueprint.genhelpers,
seed 7: not the seed the tests use), as `harness graph DIR -o page.html` draws it: analysis,
data, layout per engine, page size; and the `--declarations` view's layout for comparison.
"""

from __future__ import annotations

import tempfile
import time
from pathlib import Path
from typing import Any

from harness.blueprint import parse_text
from harness.blueprint.dag import analyse
from harness.blueprint.generate import generate_blueprint
from harness.errors import UsageError
from harness.report.graph import graph_data, node_box, render_html
from harness.report.layout import dot_executable, layout
from harness.report.summary import node_dict

ENGINES = ("dot", "igraph", "layered")


def graph_layout(sizes: list[int], repeat: int = 2, engines: tuple[str, ...] = ENGINES,
                 timeout_s: float = 600.0, project_files: int | None = 167) -> dict[str, Any]:
    rows: list[dict[str, Any]] = []
    for n in sizes:
        a = analyse(parse_text(generate_blueprint(n, seed=1), "bench.lean"))
        nodes = [node_dict(a, k) for k in a.own]
        boxes = [node_box(d) for d in nodes]
        edges = list(a.graph.edges)
        row: dict[str, Any] = {"nodes": n, "edges": len(edges)}
        for engine in engines:
            _time_engine(row, engine, boxes, edges, repeat if n <= 1000 else 1, timeout_s)
        t0 = time.perf_counter()
        page = render_html(graph_data(a, engine="layered"))
        row["page_s"] = round(time.perf_counter() - t0, 3)
        row["page_mb"] = round(len(page.encode()) / 1e6, 2)
        rows.append(row)
    base = rows[0]
    for r in rows[1:]:
        for engine in engines:
            k = f"{engine}_s"
            if r.get(k) is not None and base.get(k):
                r[f"{engine}_ratio"] = round(r[k] / base[k], 1)
    out: dict[str, Any] = {"benchmark": "graph layout", "rows": rows,
                           "baseline_nodes": base["nodes"]}
    if project_files:
        out["project"] = graph_project(project_files, repeat, engines, timeout_s)
    return out


def _time_engine(row: dict[str, Any], engine: str, boxes, edges, repeat: int,
                 timeout_s: float) -> None:
    if engine == "dot" and dot_executable() is None:
        row["dot_s"] = None
        return
    best = cpu = float("inf")
    out = None
    try:
        for _ in range(max(1, repeat)):
            t0, c0 = time.perf_counter(), time.process_time()
            out = layout(boxes, edges, engine=engine, timeout_s=timeout_s)
            best = min(best, time.perf_counter() - t0)
            cpu = min(cpu, time.process_time() - c0)  # this process only: not dot's/igraph's
    except UsageError as err:  # e.g. dot timed out: a result, not a crash
        row[f"{engine}_s"], row[f"{engine}_error"] = None, err.message
        return
    assert out is not None
    if out.engine != engine:  # igraph crashed or is missing: say so, do not time the fallback
        row[f"{engine}_s"], row[f"{engine}_error"] = None, out.note
        return
    row[f"{engine}_s"] = round(best, 3)
    if engine == "layered":
        row["layered_cpu_s"] = round(cpu, 3)
    row[f"{engine}_size_px"] = [round(out.width), round(out.height)]


def graph_project(n_files: int = 167, repeat: int = 2, engines: tuple[str, ...] = ENGINES,
                  timeout_s: float = 600.0) -> dict[str, Any]:
    from harness.blueprint.genhelpers import generate_project_with_helpers
    from harness.commands.graph import load_all

    with tempfile.TemporaryDirectory(prefix="harness-bench-graph-") as tmp:
        root = Path(tmp)
        info = generate_project_with_helpers(root, n_files, seed=7)
        w0, c0 = time.perf_counter(), time.process_time()
        analyses = load_all([root / "Gen"])
        row: dict[str, Any] = {**info, "analysis_s": round(time.perf_counter() - w0, 3),
                               "analysis_cpu_s": round(time.process_time() - c0, 3)}
        t0 = time.perf_counter()
        data = graph_data(analyses, workspace=root, engine=None)
        row["data_s"] = round(time.perf_counter() - t0, 3)
        row.update(drawn_nodes=len(data["nodes"]), drawn_edges=len(data["edges"]),
                   projected_edges=sum(e["projected"] for e in data["edges"]),
                   hidden=data["hidden"], modules=len(data["modules"]))
        boxes = [node_box(n) for n in data["nodes"]]
        edges = [(e["source"], e["target"]) for e in data["edges"]]
        for engine in engines:
            _time_engine(row, engine, boxes, edges, repeat, timeout_s)
        t0 = time.perf_counter()
        page = render_html(graph_data(analyses, workspace=root, engine="layered"))
        row["page_s"] = round(time.perf_counter() - t0, 3)
        row["page_mb"] = round(len(page.encode()) / 1e6, 2)
        full = graph_data(analyses, workspace=root, engine=None, declarations=True)
        dboxes = [node_box(n) for n in full["nodes"]]
        dedges = [(e["source"], e["target"]) for e in full["edges"]]
        drow: dict[str, Any] = {"nodes": len(dboxes), "edges": len(dedges)}
        _time_engine(drow, "layered", dboxes, dedges, 1, timeout_s)
        row["declarations_view"] = drow
        if row.get("layered_s"):
            row["layered_ratio_declarations_to_blueprint"] = round(
                drow["layered_s"] / row["layered_s"], 1) if drow.get("layered_s") else None
            row["layered_share_of_analysis"] = round(row["layered_s"] / row["analysis_s"], 3)
    return row
