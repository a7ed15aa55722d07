"""The graph page in a real headless Chromium: every node rendered with its key, search, filters,
pan/zoom, no console error, no network request (the browser's network is cut off)."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import networkx as nx
import pytest

from harness.blueprint import parse_text
from harness.blueprint.dag import analyse
from harness.blueprint.generate import generate_blueprint
from harness.blueprint.genproject import generate_project
from harness.commands.graph import load_all
from harness.report.graph import graph_data, render_html

ROOT = Path(__file__).resolve().parents[2]
BLUEPRINT = ROOT / "Blueprint"


def harness(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "harness", *args], capture_output=True,
                          text=True, cwd=ROOT, timeout=300)


def expected_keys(files: list[Path]) -> set[str]:
    """Independently of graph.py: every file's own node, and each imported node they use."""
    keys: set[str] = set()
    analyses = load_all(files)
    for a in analyses:
        keys.update(a.own)
        keys.update(u for v in a.own for u in a.graph.predecessors(v))
    return keys


def rendered_keys(b) -> list[str]:
    return b.evaluate("Array.from(document.querySelectorAll('#graph svg g.node'))"
                      ".map(g => g.dataset.key)")


def shown_keys(b) -> set[str]:
    return set(b.evaluate("Array.from(document.querySelectorAll('#graph svg g.node'))"
                          ".filter(g => getComputedStyle(g).display !== 'none')"
                          ".map(g => g.dataset.key)"))


def assert_clean(b, page: Path) -> None:
    assert b.console_errors() == []
    assert b.requests() == [page.resolve().as_uri()]  # the page itself, nothing else
    assert b.evaluate("document.getElementById('hg').dataset.ready") == "true"


def type_search(b, text: str) -> list[str]:
    b.evaluate(f"(() => {{ const s = document.getElementById('search'); s.value = "
               f"{json.dumps(text)}; s.dispatchEvent(new Event('input')); }})()")
    return b.evaluate("Array.from(document.querySelectorAll('#results a')).map(a => a.dataset.key)")


def test_workspace_graph_every_node_search_and_filters(tmp_path, browser, artifacts):
    page = tmp_path / "graph.html"
    r = harness("graph", str(BLUEPRINT), "-o", str(page))
    assert r.returncode in (0, 1), r.stderr
    files = sorted(BLUEPRINT.rglob("*.lean"))
    want = expected_keys(files)
    browser.open(page.as_uri())
    got = rendered_keys(browser)
    assert len(got) == len(set(got)) and set(got) == want
    assert shown_keys(browser) == want
    assert_clean(browser, page)
    browser.screenshot(artifacts / "graph-workspace.png")

    # search by a word of one node's statement: exactly the nodes whose text has it
    data = json.loads(browser.evaluate("document.getElementById('graph-data').textContent"))
    text = {n["key"]: " ".join(filter(None, [n["key"], n["label"], n["name"], n["title"],
                                             n["statement"], n["module"]])).lower()
            for n in data["nodes"]}
    words = sorted({w for n in data["nodes"] for w in re.findall(r"[a-z]{6,}",
                                                                  (n["statement"] or "").lower())})
    word = min(words, key=lambda w: (sum(w in t for t in text.values()), w))
    hits = {k for k, t in text.items() if word in t}
    assert 1 <= len(hits) < len(want)
    assert set(type_search(browser, word)) == hits
    marked = browser.evaluate("Array.from(document.querySelectorAll('g.node.match'))"
                              ".map(g => g.dataset.key)")
    assert set(marked) == hits
    assert type_search(browser, "zzqx-no-such-word") == []
    type_search(browser, "")

    # status filter: unticking "proved" hides exactly the proved nodes
    states = {n["key"]: n["state"] for n in data["nodes"]}
    browser.evaluate("(() => { const c = document.querySelector('.status-filter[value=proved]');"
                     " c.checked = false; c.dispatchEvent(new Event('change')); })()")
    assert shown_keys(browser) == {k for k, s in states.items() if s != "proved"}
    assert "proved" in states.values()
    browser.evaluate("(() => { const c = document.querySelector('.status-filter[value=proved]');"
                     " c.checked = true; c.dispatchEvent(new Event('change')); })()")

    # module filter
    mod = sorted({n["module"] for n in data["nodes"]})[0]
    browser.evaluate(f"(() => {{ const m = document.getElementById('module'); m.value = "
                     f"{json.dumps(mod)}; m.dispatchEvent(new Event('change')); }})()")
    assert shown_keys(browser) == {n["key"] for n in data["nodes"] if n["module"] == mod}
    browser.evaluate("(() => { const m = document.getElementById('module'); m.value = '';"
                     " m.dispatchEvent(new Event('change')); })()")

    # ancestors / descendants of a clicked node, against networkx on the same edges
    g = nx.DiGraph([(e["source"], e["target"]) for e in data["edges"]])
    target = max(g.nodes, key=lambda k: (len(nx.ancestors(g, k)), k))
    browser.evaluate(f"document.querySelector('g.node[data-key={json.dumps(target)}]')"
                     ".dispatchEvent(new MouseEvent('click', {bubbles: true}))")
    detail = browser.evaluate("document.getElementById('detail').textContent")
    assert target in detail and "Statement" in detail
    for scope, rel in (("ancestors", nx.ancestors), ("descendants", nx.descendants)):
        browser.evaluate(f"(() => {{ const s = document.getElementById('scope'); s.value = "
                         f"'{scope}'; s.dispatchEvent(new Event('change')); }})()")
        assert shown_keys(browser) == rel(g, target) | {target}
    assert len(nx.ancestors(g, target)) >= 2
    assert browser.console_errors() == []


def test_single_file_imports_hidden_and_side_panel(tmp_path, browser, artifacts):
    # the SLT file that imports the most: its imported nodes are drawn, and can be hidden
    best = max(sorted((BLUEPRINT / "SLT").glob("*.lean")),
               key=lambda f: len(expected_keys([f])) - len(load_all([f])[0].own))
    a = load_all([best])[0]
    imported = expected_keys([best]) - set(a.own)
    assert imported, "no SLT blueprint file imports another"
    page = tmp_path / "one.html"
    page.write_text(render_html(graph_data(a, workspace=ROOT)))
    browser.open(page.as_uri())
    assert set(rendered_keys(browser)) == set(a.own) | imported
    browser.evaluate("(() => { const c = document.getElementById('hide-imported');"
                     " c.checked = true; c.dispatchEvent(new Event('change')); })()")
    assert shown_keys(browser) == set(a.own)
    # the panel shows the Lean signature of a node
    key = next(k for k in a.own if a.decl(k).is_node and a.decl(k).name)
    browser.evaluate(f"document.querySelector('g.node[data-key={json.dumps(key)}]')"
                     ".dispatchEvent(new MouseEvent('click', {bubbles: true}))")
    detail = browser.evaluate("document.getElementById('detail').innerText")
    assert "Lean signature" in detail and a.decl(key).name.split(".")[-1] in detail
    # search by Lean name (any case) finds that node
    assert key in type_search(browser, a.decl(key).name.upper())
    type_search(browser, "")
    assert_clean(browser, page)
    browser.screenshot(artifacts / "graph-file-selected.png")


@pytest.fixture(scope="module")
def big(tmp_path_factory):
    """A generated LeanArchitect project of 1 002 blueprint nodes in 167 modules, drawn by
    `harness graph DIR` as a user would."""
    root = tmp_path_factory.mktemp("big")
    generate_project(root / "proj", n_files=167, nodes_per_file=6, seed=1)
    page = root / "graph.html"
    r = harness("graph", str(root / "proj"), "-o", str(page))
    assert r.returncode in (0, 1), r.stderr
    data = json.loads(re.search(r'<script id="graph-data" type="application/json">(.*?)</script>',
                                page.read_text(encoding="utf-8"), re.S).group(1)
                      .replace("<\\/", "</"))
    assert sum(1 for n in data["nodes"] if n["is_node"] and not n["external"]) >= 1000
    return page, data


def on_screen(b) -> list[str]:
    """Keys of the shown nodes whose box lies inside the graph's area on screen."""
    return b.evaluate("""(() => { const box = document.getElementById('graph').getBoundingClientRect();
      return Array.from(document.querySelectorAll('#graph svg g.node'))
        .filter(g => getComputedStyle(g).display !== 'none').filter(g => {
          const r = g.getBoundingClientRect();
          return r.width > 0 && r.left >= box.left - 1 && r.right <= box.right + 1 &&
                 r.top >= box.top - 1 && r.bottom <= box.bottom + 1; })
        .map(g => g.dataset.key); })()""")


def settle(b) -> None:  # two frames: the view is painted
    b.evaluate("new Promise(r => requestAnimationFrame(() => requestAnimationFrame(r)))")


def set_value(b, element_id: str, value: str) -> None:
    b.evaluate(f"(() => {{ const s = document.getElementById({json.dumps(element_id)}); "
               f"s.value = {json.dumps(value)}; s.dispatchEvent(new Event('change')); }})()")


def coloured(b, data) -> int:
    """Pixels of the graph area in a status colour: 0 on a blank view."""
    px = b.pixels("#graph")
    return sum(px.near(c) for s, c in data["colours"].items()
               if any(n["state"] == s for n in data["nodes"]))


def test_thousand_nodes_fit_and_filters_show_the_nodes(browser, big, artifacts):
    page, data = big
    assert page.stat().st_size <= 5_000_000
    browser.open(page.as_uri())
    assert_clean(browser, page)
    browser.evaluate("document.getElementById('fit').click()")
    settle(browser)
    shown = shown_keys(browser)
    assert shown == {n["key"] for n in data["nodes"]}
    assert set(on_screen(browser)) == shown  # every node inside the window
    assert coloured(browser, data) > 500
    browser.screenshot(artifacts / "graph-1000-fit.png")

    # module filter (+ the fit it does, + fit again): exactly that module, all on screen
    mods = sorted({n["module"] for n in data["nodes"]})
    mod = mods[len(mods) // 2]
    set_value(browser, "module", mod)
    settle(browser)
    want = {n["key"] for n in data["nodes"] if n["module"] == mod}
    assert shown_keys(browser) == want and set(on_screen(browser)) == want
    assert coloured(browser, data) > 200
    browser.evaluate("document.getElementById('fit').click()")
    settle(browser)
    assert set(on_screen(browser)) == want
    set_value(browser, "module", "")

    # ancestors of a deep node, then fit
    g = nx.DiGraph([(e["source"], e["target"]) for e in data["edges"]])
    target = max(sorted(g.nodes), key=lambda k: len(nx.ancestors(g, k)))
    assert len(nx.ancestors(g, target)) >= 20
    browser.evaluate(f"window.harnessGraph.select({json.dumps(target)})")
    set_value(browser, "scope", "ancestors")
    browser.evaluate("document.getElementById('fit').click()")
    settle(browser)
    want = nx.ancestors(g, target) | {target}
    assert shown_keys(browser) == want and set(on_screen(browser)) == want
    assert coloured(browser, data) > 200
    browser.screenshot(artifacts / "graph-1000-ancestors.png")
    assert_clean(browser, page)


def near(g: nx.DiGraph, key: str, depth: int) -> set[str]:
    up = nx.single_source_shortest_path_length(g.reverse(copy=False), key, cutoff=depth)
    down = nx.single_source_shortest_path_length(g, key, cutoff=depth)
    return set(up) | set(down)


def test_focus_mode_and_the_url_round_trip(browser, big, artifacts):
    page, data = big
    g = nx.DiGraph([(e["source"], e["target"]) for e in data["edges"]])
    g.add_nodes_from(n["key"] for n in data["nodes"])
    key = max(sorted(g.nodes), key=lambda k: len(near(g, k, 2)))
    browser.open(page.as_uri() + f"#node={key}&depth=2")
    want = near(g, key, 2)
    assert len(want) >= 5
    assert shown_keys(browser) == want
    settle(browser)
    assert set(on_screen(browser)) == want  # drawn on its own, fitted: all of it in view
    assert browser.evaluate("window.harnessGraph.view().k") >= 0.3  # labels readable
    assert browser.evaluate("window.harnessGraph.selected()") == key
    browser.screenshot(artifacts / "graph-1000-focus.png")

    # click a node of the focus: it becomes the focus, and the URL says so
    other = sorted(want - {key})[0]
    browser.evaluate(f"document.querySelector('g.node[data-key={json.dumps(other)}]')"
                     ".dispatchEvent(new MouseEvent('click', {bubbles: true}))")
    assert shown_keys(browser) == near(g, other, 2)
    url = browser.evaluate("location.href")
    assert url.endswith(f"#node={other}&depth=2")
    # depth 1 from the menu: the URL follows
    set_value(browser, "depth", "1")
    assert shown_keys(browser) == near(g, other, 1)
    url = browser.evaluate("location.href")
    assert url.endswith(f"#node={other}&depth=1")
    # the link opens the same view in a new tab
    browser.open(url)
    assert shown_keys(browser) == near(g, other, 1)
    assert browser.evaluate("window.harnessGraph.selected()") == other
    # ancestors only, any depth
    browser.open(page.as_uri() + f"#node={key}&depth=all&dir=ancestors")
    assert shown_keys(browser) == nx.ancestors(g, key) | {key}
    # no focus: the node is selected, everything shown
    browser.open(page.as_uri() + f"#node={key}")
    assert shown_keys(browser) == set(g.nodes)
    assert browser.evaluate("window.harnessGraph.selected()") == key
    # an unknown node in the URL: the usual first view
    browser.open(page.as_uri() + "#node=no-such-node&depth=2")
    assert shown_keys(browser) == set(g.nodes)
    assert_clean(browser, page)


def test_statistics_panel_counts_per_module(browser, big):
    page, data = big
    browser.open(page.as_uri())
    # the first view: readable, and nothing in it is cut by the window's left edge
    settle(browser)
    assert browser.evaluate("window.harnessGraph.view().k") >= 0.7
    cut = browser.evaluate("""(() => { const box = document.getElementById('graph')
      .getBoundingClientRect();
      const seen = Array.from(document.querySelectorAll('#graph svg g.node, #graph svg .cluster'))
        .map(g => [g.dataset.key || g.dataset.module, g.getBoundingClientRect()])
        .filter(([k, r]) => r.top < box.bottom && r.bottom > box.top && r.right > box.left);
      return [seen.length, seen.filter(([k, r]) => r.left < box.left).map(([k]) => k)]; })()""")
    assert cut[0] >= 3 and cut[1] == [], cut
    rows = browser.evaluate("""Array.from(document.querySelectorAll('table.stats tr'))
      .map(tr => Array.from(tr.children).map(td => td.textContent.trim()))""")
    head, body = rows[0], rows[1:]
    states = head[1:-1]
    assert states[:4] == ["proved", "ready", "waiting", "blocked"]
    own = [n for n in data["nodes"] if not n["external"] and n["is_node"]]
    want = {}
    for n in own:
        want.setdefault(n["module"], [0] * len(states))
        if n["state"] in states:
            want[n["module"]][states.index(n["state"])] += 1
    total = [sum(v[i] for v in want.values()) for i in range(len(states))]
    assert body[0] == ["total", *map(str, total), str(len(own))]
    assert {r[0]: [int(x) for x in r[1:-1]] for r in body[1:]} == want
    assert sum(total) == len(own)  # every node in one column
    # a module's row shows that module
    mod = body[5][0]
    browser.evaluate(f"document.querySelector('a.module-link[data-module={json.dumps(mod)}]')"
                     ".click()")
    assert shown_keys(browser) == {n["key"] for n in data["nodes"] if n["module"] == mod}
    assert_clean(browser, page)


def test_statement_and_proof_are_typeset(tmp_path, browser, artifacts):
    """$…$ in a statement or proof is drawn by the vendored KaTeX (offline), not left as TeX."""
    page = tmp_path / "graph.html"
    r = harness("graph", str(BLUEPRINT), "-o", str(page))
    assert r.returncode in (0, 1), r.stderr
    data = json.loads(browser.evaluate("1") and re.search(
        r'<script id="graph-data" type="application/json">(.*?)</script>',
        page.read_text(encoding="utf-8"), re.S).group(1).replace("<\\/", "</"))
    n = next(n for n in data["nodes"] if "$" in (n["statement"] or "") and
             "$" in (n["proof"] or ""))
    browser.open(page.as_uri() + f"#node={n['key']}")
    browser.evaluate("new Promise(r => { const t = setInterval(() => { if (document"
                     ".getElementById('hg').dataset.math) { clearInterval(t); r(); } }, 20); })")
    assert browser.evaluate("document.getElementById('hg').dataset.math") == "ready"
    maths = n["statement"].count("$") // 2 + n["proof"].count("$") // 2
    assert browser.evaluate("document.querySelectorAll('#detail .katex').length") >= maths > 0
    assert browser.evaluate("document.querySelectorAll('#detail .katex-error').length") == 0
    text = browser.evaluate("Array.from(document.querySelectorAll('#detail .math-text'))"
                            ".map(e => e.innerText).join(' ')")
    assert "$" not in text
    assert browser.evaluate("document.querySelectorAll('#detail pre').length") >= 1  # Lean only
    assert browser.evaluate("document.querySelector('#detail .math-text pre')") is None
    assert_clean(browser, page)
    browser.screenshot(artifacts / "graph-math.png")


def test_network_detector_catches_a_request(tmp_path, browser):
    """The no-network check can fail: a page that asks for a remote image is caught (and the
    request is blocked, the page still renders)."""
    a = analyse(parse_text(generate_blueprint(10, seed=1), "small.lean"))
    html = render_html(graph_data(a)).replace(
        "<body>", '<body><img src="https://example.invalid/tracker.png" alt="">', 1)
    html = re.sub(r'<meta http-equiv="Content-Security-Policy"[^>]*>', "", html)
    page = tmp_path / "leaky.html"
    page.write_text(html)
    browser.open(page.as_uri())
    assert "https://example.invalid/tracker.png" in browser.requests()
    assert set(rendered_keys(browser)) == set(a.own)


@pytest.mark.parametrize("engine", ["layered"])
def test_fallback_layout_page_renders(tmp_path, browser, engine, monkeypatch):
    monkeypatch.setenv("HARNESS_DOT", "no-such-dot-executable")
    a = analyse(parse_text(generate_blueprint(60, seed=2), "fb.lean"))
    data = graph_data(a)
    assert data["layout"]["engine"] == engine and "not found" in data["layout"]["note"]
    page = tmp_path / "fb.html"
    page.write_text(render_html(data))
    browser.open(page.as_uri())
    assert set(rendered_keys(browser)) == set(a.own)
    assert_clean(browser, page)


WHEEL = ("document.getElementById('graph').dispatchEvent(new WheelEvent('wheel', {deltaY: -200, "
         "clientX: 300, clientY: 300, ctrlKey: %s, bubbles: true, cancelable: true}))")


def test_wheel_zooms_the_graph_page_and_scrolls_a_page_that_scrolls(tmp_path, browser):
    a = analyse(parse_text(generate_blueprint(30, seed=2), "W.lean"))
    page = tmp_path / "w.html"
    page.write_text(render_html(graph_data(a)))
    browser.open(page.as_uri())
    k = browser.evaluate("window.harnessGraph.view().k")
    assert browser.evaluate(WHEEL % "false") is False  # handled: default prevented
    assert browser.evaluate("window.harnessGraph.view().k") > k
    # the same component in a page taller than the window (as in the run report)
    browser.evaluate("document.body.appendChild(Object.assign(document.createElement('div'), "
                     "{style: 'height: 3000px'}))")
    k = browser.evaluate("window.harnessGraph.view().k")
    assert browser.evaluate(WHEEL % "false") is True  # left to the page: it scrolls
    assert browser.evaluate("window.harnessGraph.view().k") == k
    assert browser.evaluate(WHEEL % "true") is False
    assert browser.evaluate("window.harnessGraph.view().k") > k
    assert browser.console_errors() == []


def test_workspace_graph_opens_readable_on_its_top_module(tmp_path, browser):
    """Too big to fit readably: the first view is at a readable zoom, and the top module's
    nodes in that first screen are all inside it (not cut at either side)."""
    page = tmp_path / "graph.html"
    r = harness("graph", str(BLUEPRINT), "-o", str(page))
    assert r.returncode in (0, 1), r.stderr
    browser.open(page.as_uri())
    view = browser.evaluate("window.harnessGraph.view()")
    box = browser.evaluate("(() => { const r = document.getElementById('graph')"
                           ".getBoundingClientRect(); return [r.width, r.height]; })()")
    data = json.loads(browser.evaluate("document.getElementById('graph-data').textContent"))
    assert min(box[0] / data["layout"]["width"], box[1] / data["layout"]["height"]) < 0.7
    assert view["k"] >= 0.7
    first = min(data["nodes"], key=lambda n: n["y"])
    top = [n for n in data["nodes"]
           if n["module"] == first["module"] and n["y"] * view["k"] < box[1]]
    assert len(top) >= 3
    span = (max(n["x"] + n["w"] / 2 for n in top) - min(n["x"] - n["w"] / 2 for n in top))
    fits = span * view["k"] <= box[0]  # `dot` can draw the top module wider than the window
    for n in top:
        left = (n["x"] - n["w"] / 2) * view["k"] + view["x"]
        right = (n["x"] + n["w"] / 2) * view["k"] + view["x"]
        assert 0 <= left, (n["key"], left, box)  # never cut on the left
        assert right <= box[0] or not fits, (n["key"], left, right, box)


def test_module_map_shows_every_module_and_opens_one(browser, big, artifacts):
    """The collapsed view (one box per module, edges between modules): every module is drawn
    inside the window at a readable size; clicking a box shows that module's nodes."""
    page, data = big
    browser.open(page.as_uri())
    browser.evaluate("document.getElementById('modules-map').click()")
    settle(browser)
    boxes = browser.evaluate("""(() => { const box = document.getElementById('module-map')
      .getBoundingClientRect();
      return Array.from(document.querySelectorAll('#module-map g.mm-module')).map(g => {
        const r = g.getBoundingClientRect();
        return [g.dataset.module, r.left >= box.left - 1 && r.right <= box.right + 1,
                r.height]; }); })()""")
    assert {b[0] for b in boxes} == {m["name"] for m in data["modules"]}
    assert min(b[2] for b in boxes) >= 14  # readable: a wide map scrolls rather than shrinks
    assert any(b[1] for b in boxes)  # and it starts on screen
    arrows = browser.evaluate("document.querySelectorAll('#module-map path[d]').length")
    assert arrows >= len([e for e in data["module_edges"] if e.get("dc")])
    assert browser.evaluate("document.getElementById('graph').hidden") is True
    browser.screenshot(artifacts / "graph-1000-modules.png")
    mod = sorted(b[0] for b in boxes)[3]
    browser.evaluate(f"document.querySelector('#module-map g.mm-module[data-module="
                     f"{json.dumps(mod)}]').dispatchEvent(new MouseEvent('click'))")
    settle(browser)
    want = {n["key"] for n in data["nodes"] if n["module"] == mod}
    assert shown_keys(browser) == want and set(on_screen(browser)) == want
    assert_clean(browser, page)
