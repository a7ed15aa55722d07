"""Rendering the DAG: node-link JSON, a standalone SVG, and a self-contained HTML page.

The layout is computed here (layer = x, order within the layer = y), so the page needs no
JavaScript library and makes no network request when opened.
"""

from __future__ import annotations

import html
import json
from typing import Any

from harness.blueprint.dag import Analysis
from harness.report.summary import counts, node_dict

COLOURS = {"proved": "#2e9d4b", "ready": "#2f7fd8", "waiting": "#d9a21b", "open": "#9aa1a9",
           "informal": "#8a6fb5"}  # informal: a `blueprint_comment` node with no Lean
W, H, BOX_W, BOX_H = 240, 44, 200, 28


def graph_data(a: Analysis) -> dict[str, Any]:
    own = set(a.own)
    # imported nodes this file uses directly get a column of their own, on the left
    external = sorted({u for v in a.own for u in a.graph.predecessors(v) if u not in own})
    shift = 1 if external else 0
    pos: dict[str, tuple[int, int]] = {k: (0, y) for y, k in enumerate(external)}
    for x, layer in enumerate(a.layers):
        for y, key in enumerate(layer):
            pos[key] = (x + shift, y)
    nodes = []
    for key in [*external, *a.own]:
        n = node_dict(a, key)
        n["x"], n["y"] = pos[key]
        nodes.append(n)
    edges = [{"source": u, "target": v, "kinds": sorted(d["kinds"])}
             for u, v, d in a.graph.edges(data=True) if u in pos and v in own]
    return {"file": a.blueprint.display_path, "counts": counts(a), "nodes": nodes, "edges": edges}


def render_svg(data: dict[str, Any], *, standalone: bool = True) -> str:
    nodes = {n["key"]: n for n in data["nodes"]}
    width = (max((n["x"] for n in nodes.values()), default=0) + 1) * W + 40
    height = (max((n["y"] for n in nodes.values()), default=0) + 1) * H + 40
    out = []
    if standalone:
        out.append('<?xml version="1.0" encoding="UTF-8"?>')
    out.append(f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" '
               f'viewBox="0 0 {width} {height}" font-family="sans-serif" font-size="12">')
    out.append('<defs><marker id="arrow" viewBox="0 0 10 10" refX="10" refY="5" '
               'markerWidth="6" markerHeight="6" orient="auto-start-reverse">'
               '<path d="M 0 0 L 10 5 L 0 10 z" fill="#666"/></marker></defs>')
    for e in data["edges"]:
        s, t = nodes[e["source"]], nodes[e["target"]]
        x1, y1 = 20 + s["x"] * W + BOX_W, 20 + s["y"] * H + BOX_H / 2
        x2, y2 = 20 + t["x"] * W, 20 + t["y"] * H + BOX_H / 2
        dash = "" if "proof" in e["kinds"] else ' stroke-dasharray="5,4"'
        mx = (x1 + x2) / 2
        out.append(f'<path class="edge" d="M {x1} {y1} C {mx} {y1}, {mx} {y2}, {x2} {y2}" '
                   f'fill="none" stroke="#666"{dash} marker-end="url(#arrow)" '
                   f'data-kinds="{" ".join(e["kinds"])}"/>')
    for key, n in nodes.items():
        x, y = 20 + n["x"] * W, 20 + n["y"] * H
        colour = COLOURS.get(n["state"], "#999")
        tip = html.escape(_tooltip(n))
        label = html.escape(key if len(key) <= 28 else key[:27] + "…")
        dashed = ' stroke-dasharray="3,2" opacity="0.75"' if n.get("external") else ""
        out.append(f'<g class="node" data-key="{html.escape(key)}" data-state="{n["state"]}">'
                   f'<title>{tip}</title>'
                   f'<rect x="{x}" y="{y}" width="{BOX_W}" height="{BOX_H}" rx="6" '
                   f'fill="{colour}" stroke="#333" stroke-width="{1 if n["is_node"] else 0.5}"'
                   f'{dashed}/>'
                   f'<text x="{x + 8}" y="{y + 18}" fill="#fff">{label}</text></g>')
    out.append("</svg>")
    return "\n".join(out)


def _tooltip(n: dict[str, Any]) -> str:
    parts = [f"{n['key']} ({n['kind']}, {n['state']})"]
    names = [x for x in n.get("names") or [n.get("name")] if x and x != n["key"]]
    if names:
        parts.append(", ".join(names))
    if n.get("statement"):
        parts.append(n["statement"])
    return "\n".join(parts)


_PAGE = """<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8">
<title>Blueprint graph: {title}</title>
<style>
body {{ font-family: sans-serif; margin: 0; display: flex; height: 100vh; }}
#graph {{ flex: 1; overflow: auto; }}
#side {{ width: 360px; border-left: 1px solid #ccc; padding: 12px; overflow: auto; }}
.node {{ cursor: pointer; }} .node:hover rect {{ stroke-width: 3; }}
.legend span {{ display: inline-block; padding: 2px 6px; margin: 2px; color: #fff;
  border-radius: 4px; }}
pre {{ white-space: pre-wrap; background: #f6f6f6; padding: 6px; }}
</style></head><body>
<div id="graph">{svg}</div>
<div id="side"><h3>{title}</h3>
<div class="legend">{legend}</div>
<p>Solid edge: proof dependency. Dashed: statement dependency. Click a node.</p>
<div id="detail"></div></div>
<script id="data" type="application/json">{data}</script>
<script>
const DATA = JSON.parse(document.getElementById('data').textContent);
const byKey = Object.fromEntries(DATA.nodes.map(n => [n.key, n]));
function esc(s) {{ const d = document.createElement('div'); d.textContent = s ?? ''; return d.innerHTML; }}
document.querySelectorAll('.node').forEach(g => g.addEventListener('click', () => {{
  const n = byKey[g.dataset.key];
  document.getElementById('detail').innerHTML =
    '<h4>' + esc(n.key) + '</h4><p>' + esc(n.kind) + ' <b>' + esc(n.name || '') + '</b><br>' +
    'body: ' + esc(n.body) + ', state: ' + esc(n.state) + ', priority ' + n.priority +
    ', line ' + n.line + '</p>' +
    (n.title ? '<p><i>' + esc(n.title) + '</i></p>' : '') +
    (n.statement ? '<h5>Statement</h5><pre>' + esc(n.statement) + '</pre>' : '') +
    (n.proof ? '<h5>Proof</h5><pre>' + esc(n.proof) + '</pre>' : '') +
    '<h5>Uses</h5><p>statement: ' + esc(n.statement_deps.join(', ') || '-') +
    '<br>proof: ' + esc(n.proof_deps.join(', ') || '-') + '</p>';
}}));
</script></body></html>
"""


def render_html(data: dict[str, Any]) -> str:
    legend = "".join(f'<span style="background:{c}">{s}</span>' for s, c in COLOURS.items())
    payload = json.dumps(data, ensure_ascii=False).replace("</", "<\\/")
    return _PAGE.format(title=html.escape(data["file"]), svg=render_svg(data, standalone=False),
                        legend=legend, data=payload)
