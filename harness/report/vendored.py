"""Third-party browser code shipped inside the package (``harness/report/vendor/``), inlined so a
page works offline and asks the network for nothing.

- KaTeX (MIT, ``vendor/katex/LICENSE``): ``katex.min.js``, ``katex.min.css`` and its woff2
  fonts, taken unchanged from the npm package ``katex``'s ``dist/``. The CSS's font URLs become
  ``data:`` URIs of the woff2 files (the woff/ttf fallbacks are dropped: every browser that runs
  the page reads woff2).
- plotly.js basic bundle (MIT, ``vendor/plotly/LICENSE``): ``plotly-basic.min.js`` from the npm
  package ``plotly.js-basic-dist-min`` (bar, scatter, pie: all the run report draws).

Scripts are inlined gzip-compressed and base64-encoded, unpacked in the page by the browser's
``DecompressionStream`` (Chrome 80, Firefox 113, Safari 16.4): plotly's 1.19 MB become 0.53 MB,
KaTeX's 0.27 MB become 0.10 MB. Each unpacked library is announced as a promise,
``window.harnessVendor[name]``. Sizes: docs/report.md.
"""

from __future__ import annotations

import base64
import gzip
import re
from functools import cache
from importlib.resources import files

_ROOT = files("harness.report").joinpath("vendor")

# defines window.harnessUnpack(name, base64-of-gzip): evaluates the library once unpacked
LOADER = """(function () {
  if (window.harnessUnpack) return;
  window.harnessVendor = {};
  window.harnessUnpack = function (name, b64) {
    window.harnessVendor[name] = (async function () {
      if (typeof DecompressionStream === 'undefined') {
        throw new Error('this browser cannot unpack ' + name + ' (no DecompressionStream)');
      }
      const bin = atob(b64), bytes = new Uint8Array(bin.length);
      for (let i = 0; i < bin.length; i++) bytes[i] = bin.charCodeAt(i);
      const stream = new Blob([bytes]).stream().pipeThrough(new DecompressionStream('gzip'));
      const code = await new Response(stream).text();
      const s = document.createElement('script');
      s.textContent = code;
      document.head.appendChild(s);
      return name;
    })();
  };
})();
"""


def vendor_bytes(*parts: str) -> bytes:
    node = _ROOT
    for p in parts:
        node = node.joinpath(p)
    return node.read_bytes()


@cache
def packed_script(name: str, *parts: str) -> str:
    """JS that unpacks vendor file ``parts`` and runs it (after :data:`LOADER`)."""
    raw = vendor_bytes(*parts)
    b64 = base64.b64encode(gzip.compress(raw, compresslevel=9, mtime=0)).decode("ascii")
    return f'window.harnessUnpack("{name}", "{b64}");\n'


@cache
def katex_css() -> str:
    css = vendor_bytes("katex", "katex.min.css").decode("utf-8")

    def font(m: re.Match[str]) -> str:
        data = base64.b64encode(vendor_bytes("katex", "fonts", m.group(1))).decode("ascii")
        return f'src:url(data:font/woff2;base64,{data}) format("woff2")'

    # src:url(fonts/X.woff2) format("woff2"),url(fonts/X.woff) format("woff"),url(…ttf)…
    return re.sub(r'src:url\(fonts/([\w-]+\.woff2)\) format\("woff2"\)[^;}]*', font, css)


def katex_js() -> str:
    return packed_script("katex", "katex", "katex.min.js")


def plotly_js() -> str:
    return packed_script("plotly", "plotly", "plotly-basic.min.js")
