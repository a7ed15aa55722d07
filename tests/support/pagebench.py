"""Page figures for docs/benchmarks.md, in a real headless Chromium (not a test):

    python -m tests.support.pagebench 1000 5000

per size: the graph page's size, the time from navigation to the page being ready (data parsed,
every node wired), and the mean frame time while zooming and while panning (requestAnimationFrame;
16.7 ms = 60 frames/s).
"""

from __future__ import annotations

import json
import sys
import tempfile
import time
from pathlib import Path

from harness.blueprint import parse_text
from harness.blueprint.dag import analyse
from harness.blueprint.generate import generate_blueprint
from harness.report.graph import graph_data, render_html
from tests.support.browser import Browser, find_chromium

FRAMES = """new Promise(res => {{ let n = 0; const t0 = performance.now();
  const box = document.getElementById('graph'), r = box.getBoundingClientRect();
  function step() {{ {action}; if (++n < 60) requestAnimationFrame(step);
    else res((performance.now() - t0) / n); }}
  requestAnimationFrame(step); }})"""
ZOOM = ("box.dispatchEvent(new WheelEvent('wheel', {deltaY: n < 30 ? -40 : 40, "
        "clientX: r.left + 300, clientY: r.top + 300, bubbles: true, cancelable: true}))")
PAN = ("window.dispatchEvent(new PointerEvent('pointermove', {clientX: 400 + n * 5, "
       "clientY: 300}))")


def measure(b: Browser, n: int, engine: str) -> dict:
    a = analyse(parse_text(generate_blueprint(n, seed=1), "bench.lean"))
    with tempfile.TemporaryDirectory(prefix="pagebench-") as tmp:
        page = Path(tmp) / f"g{n}.html"
        page.write_text(render_html(graph_data(a, engine=engine)))
        size = page.stat().st_size
        t0 = time.perf_counter()
        b.open(page.as_uri(), settle_s=0)
        ready = time.perf_counter() - t0
    zoom = b.evaluate(FRAMES.format(action=ZOOM))
    b.evaluate("document.getElementById('graph').dispatchEvent(new PointerEvent('pointerdown', "
               "{clientX: 400, clientY: 300, bubbles: true}))")
    pan = b.evaluate(FRAMES.format(action=PAN))
    return {"nodes": n, "engine": engine, "page_mb": round(size / 1e6, 2),
            "load_s": round(ready, 2), "zoom_frame_ms": round(zoom, 1),
            "pan_frame_ms": round(pan, 1), "errors": b.console_errors()}


def main(argv: list[str]) -> None:
    exe = find_chromium()
    if exe is None:
        sys.exit("no Chromium found")
    with Browser(exe, timeout_s=300) as b:
        for n in [int(x) for x in argv] or [1000, 5000]:
            print(json.dumps(measure(b, n, "igraph" if n > 2500 else "dot")), flush=True)


if __name__ == "__main__":
    main(sys.argv[1:])
