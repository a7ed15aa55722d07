"""The blueprint graph: node-link data, an SVG laid out by a real engine, a self-contained page.

:func:`graph_data` merges one or more analyses (one per blueprint file; a node belongs to the
file that declares it) into plain data, optionally overlaid with a run's outcome (status,
attempts, last gate message); by default only blueprint nodes, with edges projected through
ordinary declarations (:mod:`harness.report.projection`); :mod:`harness.report.layout` places
it (Graphviz ``dot``, else a pure-Python layered layout). :func:`render_svg` draws it — every node is a ``<g class="node" data-key=…>`` — and
:func:`render_html` wraps it with ``graph.js``/``graph.css`` (pan/zoom, search, filters, side
panel), inlined, so the page is one file that makes no network request.
"""

from __future__ import annotations

import html
import json
from importlib.resources import files
from pathlib import Path
from typing import Any, Callable, Iterable

from harness.blueprint.dag import Analysis
from harness.blueprint.source import decode
from harness.errors import InputError
from harness.report.layout import layout
from harness.report.layoutdata import NodeBox
from harness.report.projection import blueprint_edges, declaration_edges, is_blueprint, module_groups
from harness.report.summary import node_dict

COLOURS = {"proved": "#2e9d4b", "ready": "#2f7fd8", "waiting": "#d9a21b", "open": "#9aa1a9",
           "blocked": "#d64541",
           "informal": "#8a6fb5"}  # informal: a `blueprint_comment` node with no Lean
NODE_H, CHAR_W, MAX_LABEL = 28.0, 7.0, 60
STATES = tuple(COLOURS)


def module_of(path: str | Path | None, workspace: Path | None) -> str | None:
    """``Blueprint/SLT/Chaining.lean`` -> ``Blueprint.SLT.Chaining`` (relative to the workspace)."""
    if path is None:
        return None
    p = Path(path)
    if workspace is not None:
        try:
            p = p.resolve().relative_to(workspace.resolve())
        except ValueError:
            pass
    return ".".join(p.with_suffix("").parts[-4:]) if p.is_absolute() else \
        ".".join(p.with_suffix("").parts)


def _signature(a: Analysis, key: str, texts: dict[str, str]) -> str | None:
    """The Lean signature, sliced from the declaration's own file (in directory mode the
    analysis's root text is empty: the file is read, once)."""
    if a.is_informal(key):  # informal: a node with no Lean
        return None
    d = a.decl(key)
    f = a.graph.nodes[key].get("file")
    if f is None or f == a.blueprint.display_path:
        text = a.blueprint.text
    else:
        if f not in texts:
            try:
                texts[f] = decode(Path(f).read_bytes(), f)[0]
            except (OSError, InputError):
                texts[f] = ""
        text = texts[f]
    sig = d.signature_span.slice(text).strip() if text else ""
    text = f"{d.kind.value} {d.name or ''} {sig}".strip()
    return text if len(text) <= 1200 else text[:1199] + "…"


def graph_data(analyses: Analysis | Iterable[Analysis], *, workspace: Path | None = None,
               run: dict[str, dict[str, Any]] | None = None, title: str | None = None,
               engine: str | None = "auto", declarations: bool = False,
               progress: Callable[[int, int], None] | None = None) -> dict[str, Any]:
    """One graph over the files' own blueprint nodes plus the imported nodes they use.

    ``declarations``: draw every declaration and its direct edges instead (ordinary ones too).
    ``run``: key -> {"status", "attempts", "message"} from a run (overrides the state).
    ``engine``: the layout engine (:func:`harness.report.layout.layout`); None: no layout
    (`graph -o x.json`), so nodes have no x/y/w/h, edges no "d", and "layout" is None.

    The data (JSON; the page reads it from ``#graph-data``):

    - ``nodes``: :func:`harness.report.summary.node_dict` (``state``: proved / ready / waiting /
      open / blocked / informal; ``statement``/``proof``: the informal LaTeX text; …) plus
      ``module`` (dotted module of its file), ``signature`` (the Lean signature, every mode),
      and when laid out ``x``, ``y`` (centre), ``w``, ``h``, ``shape``;
    - ``edges``: ``source``, ``target`` (dependency -> user), ``kinds`` (statement / proof),
      ``projected`` (true: only through ordinary declarations), ``d`` (SVG path) when laid out;
    - ``modules``: per module ``name``, ``nodes`` (keys), ``counts`` (by state, own nodes),
      ``external`` (only imported nodes), ``box`` ([x, y, w, h] around its nodes) or None,
      and when laid out ``collapsed`` ([x, y, w, h] in the collapsed view: modules only)
      and ``short`` (its label there: the name without the prefix all modules share);
    - ``module_edges``: ``source``, ``target`` (modules), ``count``, ``kinds``, ``d`` (box to
      box) or None, ``dc`` (the same in the collapsed view);
    - ``view``: "blueprint" | "declarations"; ``hidden``: ordinary declarations not drawn;
    - ``counts``, ``colours``, ``files``, ``title``; ``layout``: engine, seconds, note, width,
      height, clusters (module -> [x, y, w, h]), collapsed ({width, height} of the collapsed
      view), or None.
    """
    items = [analyses] if isinstance(analyses, Analysis) else list(analyses)
    if declarations:
        edges, projected = declaration_edges(items), set()
    else:
        edges, projected = blueprint_edges(items)
    texts: dict[str, str] = {}
    nodes: dict[str, dict[str, Any]] = {}
    hidden = 0
    for a in items:
        for key in a.own:
            if key in nodes and not nodes[key]["external"]:
                continue  # declared twice across files: the first file keeps it
            if not declarations and not is_blueprint(a, key):
                hidden += 1
                continue
            n = node_dict(a, key)
            # the node's own file: a project-wide analysis holds every file's nodes
            n["module"] = module_of(a.graph.nodes[key].get("file") or a.blueprint.path
                                    or a.blueprint.display_path, workspace)
            n["signature"] = _signature(a, key, texts)
            nodes[key] = n
    for a in items:
        for u, _ in edges:
            if u not in nodes and u in a.graph:
                n = node_dict(a, u)
                n["module"] = module_of(n.get("file"), workspace)
                n["signature"] = _signature(a, u, texts)
                nodes[u] = n
    edges = {e: k for e, k in edges.items() if e[0] in nodes and e[1] in nodes}
    for key, n in nodes.items():
        info = (run or {}).get(key)
        if info:
            n["run"] = info
            if info.get("status") in ("proved", "blocked"):
                n["state"] = info["status"]
    edge_list = [{"source": u, "target": v, "kinds": sorted(k), "projected": (u, v) in projected}
                 for (u, v), k in edges.items()]
    lay_info = None
    if engine is not None:
        boxes = [node_box(n) for n in nodes.values()]
        lay = layout(boxes, list(edges), engine=engine, progress=progress)
        for b in boxes:
            n = nodes[b.key]
            n["x"], n["y"] = lay.centres[b.key]
            n["w"], n["h"], n["shape"] = b.width, b.height, b.shape
        for e in edge_list:
            e["d"] = lay.edge_paths[(e["source"], e["target"])]
        lay_info = {"engine": lay.engine, "seconds": lay.seconds, "note": lay.note,
                    "width": round(lay.width, 1), "height": round(lay.height, 1),
                    "clusters": {k: [round(x, 1) for x in v] for k, v in lay.clusters.items()}}
    own_states = [n["state"] for n in nodes.values() if not n["external"]]
    groups, group_edges, collapsed = module_groups(
        nodes, edges, lay_info["clusters"] if lay_info else None, STATES)
    if lay_info is not None:
        lay_info["collapsed"] = collapsed
    return {
        "title": title or (items[0].blueprint.display_path if len(items) == 1
                           else f"{len(items)} blueprint paths"),
        "files": list(dict.fromkeys(a.graph.nodes[k].get("file") or a.blueprint.display_path
                                    for a in items for k in a.own)),
        "counts": {s: own_states.count(s) for s in STATES}, "colours": COLOURS,
        "view": "declarations" if declarations else "blueprint", "hidden": hidden,
        "nodes": list(nodes.values()), "edges": edge_list,
        "modules": groups, "module_edges": group_edges,
        "layout": lay_info,
    }


def node_box(n: dict[str, Any]) -> NodeBox:
    """What the layout engine places for node ``n`` (a :func:`node_dict`): its drawn size and
    shape, in its module's cluster."""
    return NodeBox(n["key"], _width(n), NODE_H, "box" if _is_definition(n) else "ellipse",
                   n.get("module"))


def _is_definition(n: dict[str, Any]) -> bool:
    return n["kind"] in ("def", "abbrev", "structure", "inductive", "class", "instance",
                         "opaque")


def _label(n: dict[str, Any]) -> str:
    key = n["key"]
    return key if len(key) <= MAX_LABEL else key[:MAX_LABEL - 1] + "…"


def _width(n: dict[str, Any]) -> float:
    w = len(_label(n)) * CHAR_W + 24
    return round(w * (1.0 if _is_definition(n) else 1.18), 1)


def render_svg(data: dict[str, Any], *, standalone: bool = True) -> str:
    lay = data["layout"]
    w, h = lay["width"], lay["height"]
    out = []
    if standalone:
        out.append('<?xml version="1.0" encoding="UTF-8"?>')
    out.append(f'<svg xmlns="http://www.w3.org/2000/svg" id="graph-svg" width="{w}" '
               f'height="{h}" viewBox="0 0 {w} {h}" font-family="sans-serif" font-size="12">')
    out.append('<defs><marker id="arrow" viewBox="0 0 10 10" refX="10" refY="5" '
               'markerWidth="7" markerHeight="7" orient="auto-start-reverse">'
               '<path d="M 0 0 L 10 5 L 0 10 z" fill="#777"/></marker></defs>')
    out.append('<g id="viewport">')
    for name, (x, y, cw, ch) in lay["clusters"].items():
        out.append(f'<g class="cluster" data-module="{html.escape(name)}"><rect x="{x}" y="{y}" '
                   f'width="{cw}" height="{ch}" rx="8" fill="#f4f6fa" stroke="#c5ccd8"/>'
                   f'<text x="{x + 8}" y="{y + 16}" fill="#667" font-size="13">'
                   f'{html.escape(name)}</text></g>')
    for e in data["edges"]:
        dash = "" if "proof" in e["kinds"] else ' stroke-dasharray="5,4"'
        out.append(f'<path class="edge" d="{e["d"]}" fill="none" stroke="#777"{dash} '
                   f'marker-end="url(#arrow)" data-source="{html.escape(e["source"])}" '
                   f'data-target="{html.escape(e["target"])}" '
                   f'data-kinds="{" ".join(e["kinds"])}"/>')
    for n in data["nodes"]:
        out.append(_node_svg(n))
    out.append("</g></svg>")
    return "\n".join(out)


def _node_svg(n: dict[str, Any]) -> str:
    x, y, w, h = n["x"], n["y"], n["w"], n["h"]
    colour = COLOURS.get(n["state"], "#999")
    ext = ' stroke-dasharray="3,2" opacity="0.7"' if n.get("external") else ""
    stroke = f'stroke="#333" stroke-width="{1.2 if n["is_node"] else 0.6}"{ext}'
    if n["shape"] == "box":
        shape = (f'<rect x="{x - w / 2:.1f}" y="{y - h / 2:.1f}" width="{w}" height="{h}" '
                 f'rx="3" fill="{colour}" {stroke}/>')
    else:
        shape = f'<ellipse cx="{x}" cy="{y}" rx="{w / 2}" ry="{h / 2}" fill="{colour}" {stroke}/>'
    attrs = (f'data-key="{html.escape(n["key"])}" data-state="{n["state"]}" '
             f'data-kind="{n["kind"]}" data-external="{str(bool(n.get("external"))).lower()}"')
    if n.get("module"):
        attrs += f' data-module="{html.escape(n["module"])}"'
    return (f'<g class="node" {attrs}><title>{html.escape(_tooltip(n))}</title>{shape}'
            f'<text x="{x}" y="{y + 4}" text-anchor="middle" fill="#fff">'
            f'{html.escape(_label(n))}</text></g>')


def _tooltip(n: dict[str, Any]) -> str:
    parts = [f"{n['key']} ({n['kind']}, {n['state']})"]
    names = [x for x in n.get("names") or [n.get("name")] if x and x != n["key"]]
    if names:
        parts.append(", ".join(names))
    if n.get("statement"):
        parts.append(n["statement"][:400])
    return "\n".join(parts)


def asset(name: str) -> str:
    return files("harness.report").joinpath(name).read_text(encoding="utf-8")


def json_script(element_id: str, data: Any) -> str:
    """Data for the page's script, safe inside ``<script>`` (no ``</script>`` can end it)."""
    payload = json.dumps(data, ensure_ascii=False).replace("</", "<\\/").replace("<!--", "<\\!--")
    return f'<script id="{element_id}" type="application/json">{payload}</script>'


def graph_component(data: dict[str, Any]) -> str:
    """The interactive graph (controls, SVG, side panel) for a page that inlines the assets
    returned by :func:`graph_assets`."""
    legend = "".join(f'<label class="state"><input type="checkbox" class="status-filter" '
                     f'value="{s}" checked><span style="background:{c}">{s}</span> '
                     f'<small>{data["counts"].get(s, 0)}</small></label>'
                     for s, c in data.get("colours", COLOURS).items())
    modules = sorted({n["module"] for n in data["nodes"] if n.get("module")})
    options = "".join(f'<option value="{html.escape(m)}">{html.escape(m)}</option>'
                      for m in modules)
    decls = any(n.get("is_node") is False and not n.get("informal") for n in data["nodes"])
    decl_box = ('<label title="ordinary Lean declarations between blueprint nodes">'
                '<input type="checkbox" id="show-decls" checked> declarations</label>'
                if decls else "")
    lay = data["layout"]
    return f"""<div class="hg" id="hg">
<div class="hg-bar">
<input id="search" type="search" placeholder="search label, Lean name, statement…" size="30">
<span class="hg-states">{legend}</span>
<label><input type="checkbox" id="hide-imported"> hide imported</label>{decl_box}
<select id="module" title="only this module"><option value="">all modules</option>{options}</select>
<span class="hg-focus" title="click a node: only its ancestors and/or descendants, to a depth">
<select id="scope"><option value="all">no focus</option>
<option value="both">ancestors + descendants</option><option value="ancestors">ancestors</option>
<option value="descendants">descendants</option></select>
<select id="depth" title="focus depth (edges away from the selected node)">
<option value="1">depth 1</option><option value="2">depth 2</option>
<option value="3">depth 3</option><option value="5">depth 5</option>
<option value="all" selected>any depth</option></select></span>
<button id="zoom-in" title="zoom in">+</button><button id="zoom-out" title="zoom out">−</button>
<button id="fit" title="fit what is shown to the window">fit</button>
<button id="stats" title="proved / ready / waiting / blocked per module">statistics</button>
{'<button id="modules-map" title="the module graph: one box per module; click one to open it">modules</button>' if (lay or {}).get("collapsed") else ""}
<span id="visible-count"></span>
</div>
<div class="hg-main">
<div id="graph" class="hg-graph">{render_svg(data, standalone=False)}</div>
<div id="module-map" class="hg-map" hidden></div>
<div id="side" class="hg-side"><div id="results"></div><div id="detail">
<p>Click a node; <i>focus</i> keeps its ancestors / descendants (the URL keeps the view). Solid
edge: proof dependency; dashed: statement dependency. Boxes are definitions, ellipses lemmas and
theorems; dashed outline: imported.</p>
<p class="muted">layout: {html.escape(lay["engine"])} in {lay["seconds"]} s
{html.escape(lay.get("note") or "")}</p></div></div>
</div>
{json_script("graph-data", data)}
</div>"""


def graph_assets() -> tuple[str, str]:
    """(CSS, JS) the component needs: ours and KaTeX's (vendored, :mod:`vendored`)."""
    from harness.report.vendored import LOADER, katex_css, katex_js

    return (katex_css() + "\n" + asset("graph.css"),
            LOADER + katex_js() + asset("graphparts.js") + asset("graph.js"))


_PAGE = """<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; \
style-src 'unsafe-inline'; script-src 'unsafe-inline'; img-src data:; font-src data:">
<title>Blueprint graph: {title}</title>
<style>{css}
html, body {{ height: 100%; margin: 0; }} .hg {{ height: 100vh; }}
</style></head><body>
{component}
<script>{js}</script>
</body></html>
"""


def render_html(data: dict[str, Any]) -> str:
    css, js = graph_assets()
    return _PAGE.format(title=html.escape(data["title"]), css=css, js=js,
                        component=graph_component(data))
