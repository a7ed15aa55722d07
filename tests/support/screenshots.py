"""The pictures in docs/report.md, made again from nothing (needs Debian's `chromium`):

    python -m tests.support.screenshots [OUT_DIR]        # default: docs/img

A generated LeanArchitect project of 1 002 blueprint nodes in 167 modules (the generator of the
tests, harness/blueprint/genproject.py) drawn by `harness graph DIR`, seen fitted, filtered to a
module, filtered to a node's ancestors, and in focus from a link (`#node=…&depth=2`); a node of
this repository's Blueprint/ with its statement typeset; and the report of a real run of the
demo blueprint (real git, the fake Lean gate of the tests, one candidate the gate rejects, one
node that stays blocked). Prints each page's size.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import tempfile
from pathlib import Path

import networkx as nx

from harness.blueprint.genproject import generate_project
from tests.support.browser import Browser, find_chromium

ROOT = Path(__file__).resolve().parents[2]
SETTLE = "new Promise(r => requestAnimationFrame(() => requestAnimationFrame(r)))"
WAIT = ("new Promise(r => {{ const t = setInterval(() => {{ if ({cond}) {{ clearInterval(t); "
        "r(); }} }}, 20); setTimeout(() => {{ clearInterval(t); r(); }}, 20000); }})")


def harness_graph(src: Path, out: Path) -> None:
    r = subprocess.run([sys.executable, "-m", "harness", "graph", str(src), "-o", str(out)],
                       capture_output=True, text=True, cwd=ROOT, timeout=600,
                       env={**os.environ, "PYTHONPATH": str(ROOT)})
    if r.returncode not in (0, 1):
        sys.exit(f"harness graph failed: {r.stderr.strip()}")


def graph_data(page: Path) -> dict:
    m = re.search(r'<script id="graph-data" type="application/json">(.*?)</script>',
                  page.read_text(encoding="utf-8"), re.S)
    assert m is not None
    return json.loads(m.group(1).replace("<\\/", "</"))


def shoot(b: Browser, out: Path, name: str) -> None:
    b.evaluate(SETTLE)
    b.screenshot(out / name)
    errors = b.console_errors()
    print(f"  {name}: {(out / name).stat().st_size // 1024} KB"
          + (f"  CONSOLE ERRORS: {errors}" if errors else ""))


def set_value(b: Browser, element_id: str, value: str) -> None:
    b.evaluate(f"(() => {{ const s = document.getElementById({json.dumps(element_id)}); "
               f"s.value = {json.dumps(value)}; s.dispatchEvent(new Event('change')); }})()")


def graph_pictures(b: Browser, tmp: Path, out: Path) -> None:
    generate_project(tmp / "proj", n_files=167, nodes_per_file=6, seed=1)
    page = tmp / "graph.html"
    harness_graph(tmp / "proj", page)
    data = graph_data(page)
    print(f"graph page: {len(data['nodes'])} nodes, {len(data['edges'])} edges, "
          f"{page.stat().st_size / 1e6:.2f} MB (layout {data['layout']['engine']} "
          f"{data['layout']['seconds']} s)")
    b.open(page.as_uri(), settle_s=0.5)
    b.evaluate("document.getElementById('fit').click()")
    shoot(b, out, "graph-1000-fit.png")
    mods = sorted({n["module"] for n in data["nodes"]})
    set_value(b, "module", mods[len(mods) // 2])
    shoot(b, out, "graph-1000-module.png")
    set_value(b, "module", "")
    g = nx.DiGraph([(e["source"], e["target"]) for e in data["edges"]])
    deep = max(sorted(g.nodes), key=lambda k: len(nx.ancestors(g, k)))
    b.evaluate(f"window.harnessGraph.select({json.dumps(deep)})")
    set_value(b, "scope", "ancestors")
    b.evaluate("document.getElementById('fit').click()")
    shoot(b, out, "graph-1000-ancestors.png")
    hub = max(sorted(g.nodes), key=lambda k: (min(g.in_degree(k), 3) + min(g.out_degree(k), 4)))
    b.open(page.as_uri() + f"#node={hub}&depth=2", settle_s=0.5)
    shoot(b, out, "graph-1000-focus.png")
    print(f"  focus link: graph.html#node={hub}&depth=2")
    b.open(page.as_uri(), settle_s=0.5)
    b.evaluate("document.getElementById('modules-map').click()")
    shoot(b, out, "graph-1000-modules.png")

    demo = tmp / "blueprint.html"
    harness_graph(ROOT / "Blueprint", demo)
    n = next(n for n in graph_data(demo)["nodes"]
             if "$" in (n["statement"] or "") and "$" in (n["proof"] or ""))
    b.open(demo.as_uri() + f"#node={n['key']}", settle_s=0.3)
    b.evaluate(WAIT.format(cond="document.getElementById('hg').dataset.math"))
    shoot(b, out, "graph-math.png")


def run_report_picture(b: Browser, tmp: Path, out: Path) -> None:
    from tests.orchestrator.support import fake_env, run_session, scripted_runner, workspace

    os.environ.update(fake_env())
    f = workspace(tmp / "run")

    def body(job):  # one candidate the gate rejects once, one node never proved
        if job.node == "thm:my-rev-my-rev":
            return None
        return "by\n  exact bogus_lemma" if job.node == "lem:add-shuffle" and job.attempt == 1 \
            else "by\n  omega"

    s, _ = run_session(f, scripted_runner(body), workers=6, batch_size=6, batch_window=1.0,
                       max_attempts=3, attempts_before_repair=2)
    page = s.dir / "report.html"
    print(f"run report: {page.stat().st_size / 1e6:.2f} MB")
    b.open(page.as_uri(), settle_s=0.3)
    b.evaluate(WAIT.format(cond="document.body.dataset.charts"))
    b.evaluate(SETTLE)
    h = b.evaluate("document.documentElement.scrollHeight")
    shot = b.send("Page.captureScreenshot", {"format": "png", "captureBeyondViewport": True,
                                             "clip": {"x": 0, "y": 0, "width": 1400,
                                                      "height": h, "scale": 0.5}})
    import base64

    (out / "run-report.png").write_bytes(base64.b64decode(shot["data"]))
    print(f"  run-report.png: {(out / 'run-report.png').stat().st_size // 1024} KB"
          + (f"  CONSOLE ERRORS: {b.console_errors()}" if b.console_errors() else ""))


def main(argv: list[str]) -> int:
    out = Path(argv[0]) if argv else ROOT / "docs" / "img"
    out.mkdir(parents=True, exist_ok=True)
    exe = find_chromium()
    if exe is None:
        print("no Chromium found (install Debian's `chromium`, or set HARNESS_CHROMIUM)",
              file=sys.stderr)
        return 2
    with tempfile.TemporaryDirectory(prefix="screenshots-") as t, \
            Browser(exe, timeout_s=120) as b:
        graph_pictures(b, Path(t), out)
        run_report_picture(b, Path(t), out)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
