/* The blueprint graph component: pan/zoom, fit, search, filters, focus, statistics, side panel
   (harness/report/graph.py). The SVG is drawn by Python; this script only moves the view and
   shows, hides and highlights its elements. */
(function () {
  'use strict';
  const root = document.getElementById('hg');
  if (!root) return;
  const DATA = JSON.parse(document.getElementById('graph-data').textContent);
  const P = window.harnessGraphParts;  // graphparts.js
  const COLOURS = DATA.colours;  // one table, in graph.py
  const svg = root.querySelector('svg');
  const viewport = svg.querySelector('#viewport') || svg;
  const box = root.querySelector('#graph');
  const $ = sel => root.querySelector(sel);
  const byKey = new Map(DATA.nodes.map(n => [n.key, n]));
  const byLabel = new Map(DATA.nodes.filter(n => n.label).map(n => [n.label, n.key]));
  const elOf = new Map();
  root.querySelectorAll('.node').forEach(g => {
    elOf.set(g.dataset.key, g);
    const shape = g.querySelector('rect, ellipse');  // its colour, for the dots drawn far out
    if (shape) shape.style.color = shape.getAttribute('fill');
  });
  const edges = Array.from(root.querySelectorAll('.edge'));
  const preds = new Map(), succs = new Map();
  DATA.nodes.forEach(n => { preds.set(n.key, []); succs.set(n.key, []); });
  DATA.edges.forEach(e => {
    if (succs.has(e.source) && preds.has(e.target)) {
      succs.get(e.source).push(e.target); preds.get(e.target).push(e.source);
    }
  });
  const hay = new Map(DATA.nodes.map(n => [n.key, [n.key, n.label, n.name, ...(n.names || []),
    n.title, n.statement, n.module].filter(Boolean).join(' ').toLowerCase()]));
  let selected = null;
  const HELP = root.querySelector('#detail').innerHTML;

  // ---- pan and zoom ---------------------------------------------------------------------------
  // The view is the transform of the SVG's #viewport group, and the <svg> is only a little
  // larger than its box (a margin of one box on each side): the browser paints what is near the
  // screen, at any scale. (A CSS transform of a full-size SVG asks for a layer as large as the
  // layout -- 2 million pixels wide on a real project -- which Chromium does not paint: "fit"
  // showed a blank page.) While the wheel or a drag moves the view, only a CSS transform of the
  // painted <svg> changes (the compositor's work, smooth at thousands of nodes); once the view
  // rests it is committed to the group and repainted crisp.
  const M = 1;  // margin, in box sizes
  svg.removeAttribute('viewBox');
  let view = {x: 0, y: 0, k: 1}, drawn = {x: 0, y: 0, k: 1}, size = {w: 0, h: 0};
  let frame = 0, rest = null;
  function sizeSvg() {
    const r = box.getBoundingClientRect();
    size = {w: r.width, h: r.height};
    Object.assign(svg.style, {left: `${-r.width * M}px`, top: `${-r.height * M}px`,
      width: `${r.width * (1 + 2 * M)}px`, height: `${r.height * (1 + 2 * M)}px`});
    svg.setAttribute('width', r.width * (1 + 2 * M));
    svg.setAttribute('height', r.height * (1 + 2 * M));
  }
  function apply() {  // while moving: the painted picture, moved and scaled
    if (!frame) {
      frame = requestAnimationFrame(() => {
        frame = 0;
        const f = view.k / drawn.k, ox = size.w * M, oy = size.h * M;
        const tx = view.x + ox - f * (drawn.x + ox), ty = view.y + oy - f * (drawn.y + oy);
        svg.style.transform = `translate(${tx}px,${ty}px) scale(${f})`;
      });
    }
    clearTimeout(rest);
    rest = setTimeout(paint, 200);
  }
  function paint() {  // at rest: the view committed and drawn
    clearTimeout(rest);
    if (frame) { cancelAnimationFrame(frame); frame = 0; }
    viewport.setAttribute('transform',
      `translate(${view.x + size.w * M},${view.y + size.h * M}) scale(${view.k})`);
    svg.style.transform = '';
    drawn = {...view};
    root.classList.toggle('lod-low', view.k < 0.3);   // labels unreadable anyway: not painted
    root.classList.toggle('lod-dots', view.k < 0.12); // nodes drawn as dots of a fixed size
  }
  sizeSvg();
  window.addEventListener('resize', () => { sizeSvg(); paint(); });
  const PAD = 24;
  const pos = new Map();  // where a node is drawn now: its layout place, or its place in focus
  function bounds(keys) {
    let x0 = Infinity, y0 = Infinity, x1 = -Infinity, y1 = -Infinity;
    for (const key of keys) {
      const n = byKey.get(key);
      if (!n) continue;
      const [x, y] = pos.get(key) || [n.x, n.y];
      x0 = Math.min(x0, x - n.w / 2); x1 = Math.max(x1, x + n.w / 2);
      y0 = Math.min(y0, y - n.h / 2); y1 = Math.max(y1, y + n.h / 2);
    }
    return x0 === Infinity ? null : {x0, y0, x1, y1};
  }
  function fitTo(b, maxK) {
    const r = box.getBoundingClientRect();
    const w = Math.max(b.x1 - b.x0, 1), h = Math.max(b.y1 - b.y0, 1);
    const k = Math.min((r.width - 2 * PAD) / w, (r.height - 2 * PAD) / h, maxK || 1.5) || 1;
    view = {k, x: (r.width - (b.x0 + b.x1) * k) / 2, y: (r.height - (b.y0 + b.y1) * k) / 2};
    paint();
  }
  function fit() {  // what is shown now, else everything
    const b = bounds(visibleSet()) ||
      {x0: 0, y0: 0, x1: DATA.layout.width, y1: DATA.layout.height};
    fitTo(b);
  }
  const MIN_READABLE = 0.7;
  function initialView() {  // whole graph when labels stay readable, else its top
    const r = box.getBoundingClientRect();
    const all = bounds(byKey.keys());
    if (!all) return;
    const k0 = Math.min((r.width - 2 * PAD) / (all.x1 - all.x0),
                        (r.height - 2 * PAD) / (all.y1 - all.y0));
    if (k0 >= MIN_READABLE) return fitTo(all);
    const k = MIN_READABLE;
    // the first screenful from the top, centred when it fits the width, else from its left
    // end -- cluster frames included, so nothing in it is cut on the left
    const first = DATA.nodes.reduce((a, n) => (n.y < a.y ? n : a));
    const bandOf = nodes => {
      const b = bounds(nodes.map(n => n.key));
      for (const m of new Set(nodes.map(n => n.module))) {
        const cl = (DATA.layout.clusters || {})[m];
        if (cl && (cl[1] - first.y) * k < r.height) {
          b.x0 = Math.min(b.x0, cl[0]); b.x1 = Math.max(b.x1, cl[0] + cl[2]);
          b.y0 = Math.min(b.y0, cl[1]);
        }
      }
      return b;
    };
    const band = DATA.nodes.filter(n => (n.y - first.y) * k < r.height - 2 * PAD);
    let b = bandOf(band);
    const top = bandOf(band.filter(n => n.module === first.module));
    if ((top.x1 - b.x0) * k > r.width - 2 * PAD) b = top;  // from the left end it is not seen
    const x = (b.x1 - b.x0) * k <= r.width - 2 * PAD ? (r.width - (b.x0 + b.x1) * k) / 2
      : PAD - b.x0 * k;
    view = {k, x, y: PAD - b.y0 * k};
    paint();
  }
  function zoomAt(px, py, f) {
    const k = Math.min(8, Math.max(0.0005, view.k * f));
    view.x = px - (px - view.x) * (k / view.k); view.y = py - (py - view.y) * (k / view.k);
    view.k = k; apply();
  }
  function centreOn(key) {
    const n = byKey.get(key), r = box.getBoundingClientRect();
    if (!n) return;
    const [x, y] = pos.get(key) || [n.x, n.y];
    view.k = Math.max(view.k, 0.8);
    view.x = r.width / 2 - x * view.k; view.y = r.height / 2 - y * view.k; paint();
  }
  box.addEventListener('wheel', ev => {
    // inside a page that scrolls (the run report) a plain wheel scrolls the page, as users
    // expect; Ctrl/Cmd + wheel (a pinch on a touchpad) zooms. Alone on its page, wheel zooms.
    const pageScrolls = document.documentElement.scrollHeight > window.innerHeight + 1;
    if (pageScrolls && !(ev.ctrlKey || ev.metaKey)) return;
    ev.preventDefault();
    const r = box.getBoundingClientRect();
    zoomAt(ev.clientX - r.left, ev.clientY - r.top, Math.exp(-ev.deltaY * 0.0015));
  }, {passive: false});
  let drag = null;
  box.addEventListener('pointerdown', ev => {
    drag = {x: ev.clientX, y: ev.clientY, vx: view.x, vy: view.y, moved: false};
  });
  window.addEventListener('pointermove', ev => {
    if (!drag) return;
    const dx = ev.clientX - drag.x, dy = ev.clientY - drag.y;
    if (Math.abs(dx) + Math.abs(dy) > 3) { drag.moved = true; box.classList.add('panning'); }
    view.x = drag.vx + dx; view.y = drag.vy + dy; apply();
  });
  window.addEventListener('pointerup', () => {
    setTimeout(() => { drag = null; }, 0); box.classList.remove('panning');
  });
  const centre = () => { const r = box.getBoundingClientRect(); return [r.width / 2, r.height / 2]; };
  $('#zoom-in').addEventListener('click', () => zoomAt(...centre(), 1.4));
  $('#zoom-out').addEventListener('click', () => zoomAt(...centre(), 1 / 1.4));
  $('#fit').addEventListener('click', fit);

  // ---- filters and focus --------------------------------------------------------------------
  const search = $('#search');
  const hideImported = $('#hide-imported');
  const showDecls = $('#show-decls');
  const scope = $('#scope');
  const depthSel = $('#depth');
  const moduleSel = $('#module');
  const statusBoxes = Array.from(root.querySelectorAll('.status-filter'));

  const within = P.within;
  function depth() { return depthSel.value === 'all' ? Infinity : Number(depthSel.value); }
  function focusSet() {
    if (!selected || scope.value === 'all') return null;
    const d = depth();
    if (scope.value === 'ancestors') return within(selected, preds, d);
    if (scope.value === 'descendants') return within(selected, succs, d);
    const up = within(selected, preds, d);
    for (const k of within(selected, succs, d)) up.add(k);
    return up;
  }
  function visibleSet() {
    const states = new Set(statusBoxes.filter(b => b.checked).map(b => b.value));
    const focus = focusSet();
    const vis = new Set();
    for (const n of DATA.nodes) {
      if (focus) {  // focus shows the whole neighbourhood, whatever the other filters say
        if (focus.has(n.key)) vis.add(n.key);
        continue;
      }
      if (!states.has(n.state)) continue;
      if (hideImported.checked && n.external) continue;
      if (showDecls && !showDecls.checked && isDecl(n)) continue;
      if (moduleSel.value && n.module !== moduleSel.value) continue;
      vis.add(n.key);
    }
    return vis;
  }
  function isDecl(n) { return n.is_node === false && !n.informal; }
  // Focus (and a one-module view) draws its nodes on their own, in layers (P.layers): on a
  // large graph the nodes of a focus lie far apart in the full layout and would be specks once
  // fitted. Leaving puts them back.
  const FOCUS_LAYOUT_MAX = 400, GAP_X = 36, GAP_Y = 90, ROW_MAX = 1800;
  function placeFocus(keys) {
    pos.clear();
    if (keys) {
      for (const [k, p] of P.layers(keys, succs, byKey, GAP_X, GAP_Y, ROW_MAX)) pos.set(k, p);
    }
    for (const [key, g] of elOf) {
      const n = byKey.get(key), p = pos.get(key);
      if (p) g.setAttribute('transform', `translate(${p[0] - n.x},${p[1] - n.y})`);
      else g.removeAttribute('transform');
    }
    for (const e of edges) {
      if (!e.dataset.d) e.dataset.d = e.getAttribute('d');
      const s = pos.get(e.dataset.source), t = pos.get(e.dataset.target);
      if (s && t) {
        const hs = byKey.get(e.dataset.source).h / 2, ht = byKey.get(e.dataset.target).h / 2;
        e.setAttribute('d', `M${s[0]},${s[1] + hs} C${s[0]},${s[1] + GAP_Y / 2} ` +
          `${t[0]},${t[1] - GAP_Y / 2} ${t[0]},${t[1] - ht}`);
      } else e.setAttribute('d', e.dataset.d);
    }
    root.classList.toggle('focused', pos.size > 0);
  }
  let placed = null;  // the focus set placed last (null: the full layout)
  function refresh() {
    // a focus, else one module, is drawn on its own (when small enough to read)
    const own = focusSet() || (moduleSel.value ? new Set(DATA.nodes
      .filter(n => n.module === moduleSel.value).map(n => n.key)) : null);
    const wanted = own && own.size <= FOCUS_LAYOUT_MAX ? own : null;
    const same = wanted === placed || (wanted && placed && wanted.size === placed.size &&
      Array.from(wanted).every(k => placed.has(k)));
    if (!same) { placeFocus(wanted); placed = wanted; }
    const vis = visibleSet();
    const words = search.value.toLowerCase().split(/\s+/).filter(Boolean);
    const matches = [];
    for (const [key, g] of elOf) {
      const shown = vis.has(key);
      g.classList.toggle('hidden', !shown);
      const hit = words.length > 0 && words.every(w => hay.get(key).includes(w));
      g.classList.toggle('match', hit);
      g.classList.toggle('dim', words.length > 0 && !hit);
      g.classList.toggle('selected', key === selected);
      if (hit && shown) matches.push(key);
    }
    for (const e of edges) {
      const s = e.dataset.source, t = e.dataset.target;
      e.classList.toggle('hidden', !(vis.has(s) && vis.has(t)));
      e.classList.toggle('dim', words.length > 0);
      e.classList.toggle('near', selected !== null && (s === selected || t === selected));
    }
    const liveModules = new Set(DATA.nodes.filter(n => vis.has(n.key)).map(n => n.module));
    root.querySelectorAll('.cluster').forEach(c => c.classList.toggle('hidden', !liveModules.has(c.dataset.module)));
    $('#visible-count').textContent = `${vis.size} / ${DATA.nodes.length} shown`;
    const res = $('#results');
    res.textContent = '';
    if (words.length) {
      const head = document.createElement('div');
      head.className = 'muted';
      head.textContent = `${matches.length} match${matches.length === 1 ? '' : 'es'}`;
      res.appendChild(head);
      for (const key of matches.slice(0, 50)) res.appendChild(nodeLink(key));
    }
    return matches;
  }
  function refit() { refresh(); fit(); }
  [hideImported, showDecls, ...statusBoxes].filter(Boolean).forEach(el => el.addEventListener('change', refresh));
  moduleSel.addEventListener('change', refit);
  [scope, depthSel].forEach(el => el.addEventListener('change', () => { writeHash(); refit(); }));
  search.addEventListener('input', refresh);
  search.addEventListener('keydown', ev => {
    if (ev.key === 'Enter') { const m = refresh(); if (m.length) { select(m[0]); centreOn(m[0]); } }
  });

  // ---- the URL: #node=KEY&depth=2[&dir=ancestors|descendants] -------------------------------
  function writeHash() {
    if (!selected) return;
    // readable: lem:foo stays lem:foo (only what would break the fragment is escaped)
    let h = 'node=' + encodeURIComponent(selected).replace(/%3A/gi, ':').replace(/%2F/gi, '/');
    if (scope.value !== 'all') {
      h += '&depth=' + depthSel.value;
      if (scope.value !== 'both') h += '&dir=' + scope.value;
    }
    if (location.hash.slice(1) !== h) history.replaceState(null, '', '#' + h);
  }
  function readHash() {  // true when the URL named a node of this graph
    const p = new URLSearchParams(location.hash.slice(1));
    const key = p.get('node');
    if (!key || !byKey.has(key)) return false;
    const d = p.get('depth');
    if (d === null) scope.value = 'all';
    else {
      scope.value = ['ancestors', 'descendants'].includes(p.get('dir')) ? p.get('dir') : 'both';
      const opt = Array.from(depthSel.options).find(o => o.value === d);
      if (!opt) {  // a depth the menu does not list: add it
        depthSel.appendChild(Object.assign(document.createElement('option'), {value: d, textContent: d}));
      }
      depthSel.value = d;
    }
    select(key, {hash: false});
    if (scope.value === 'all') centreOn(key); else fit();
    return true;
  }
  window.addEventListener('hashchange', readHash);
  function focus(key, d, dir) {
    depthSel.value = String(d);
    scope.value = dir || 'both';
    select(key);
    fit();
  }

  // ---- side panel ---------------------------------------------------------------------------
  const mathText = text => P.mathText(text, lab => {  // \ref{label}: a link to that node
    const key = byLabel.get(lab) || (byKey.has(lab) ? lab : null);
    return key ? nodeLink(key, lab) : null;
  });
  function nodeLink(key, text) {
    const a = document.createElement('a');
    a.className = 'node-link';
    a.textContent = text || key; a.dataset.key = key;
    a.addEventListener('click', () => { select(key); centreOn(key); });
    return a;
  }
  function select(key, opts) {
    if (!byKey.has(key)) return;
    selected = key;
    const detail = $('#detail');
    detail.textContent = '';
    detail.appendChild(P.nodeDetail(byKey.get(key), {
      colours: COLOURS, mathText, usedBy: succs.get(key) || [],
      link: k => (byKey.has(k) ? nodeLink(k) : null),
      focus: d => focus(key, d, scope.value === 'all' ? 'both' : scope.value)}));
    if (!opts || opts.hash !== false) writeHash();
    refresh();
    if (scope.value !== 'all' && (!opts || opts.fit !== false)) fit();
  }
  for (const [key, g] of elOf) {
    g.addEventListener('click', ev => { if (drag && drag.moved) return; ev.stopPropagation(); select(key); });
  }

  // ---- statistics ---------------------------------------------------------------------------
  const statistics = () => P.statistics(DATA.nodes, isDecl);
  function showStats() {
    const detail = $('#detail');
    detail.innerHTML = HELP + P.statsTable(statistics(), COLOURS);
    detail.querySelectorAll('.module-link').forEach(a => a.addEventListener('click', () => {
      moduleSel.value = a.dataset.module; scope.value = 'all'; refit();
    }));
  }
  $('#stats').addEventListener('click', showStats);

  // ---- the module map (graph.py's collapsed view): a module -> its nodes ---------------------
  const mapBtn = $('#modules-map');
  const mapBox = $('#module-map');
  function showMap(on) {
    mapBox.hidden = !on; box.hidden = on; mapBtn.classList.toggle('on', on);
    if (on && !mapBox.firstChild) {
      mapBox.innerHTML = P.moduleMap(DATA, COLOURS);
      const c = DATA.layout.collapsed, k = Math.max(0.75, Math.min(1.5, (mapBox.clientWidth - 16) / c.width));
      Object.assign(mapBox.firstChild.style, {width: `${c.width * k}px`,  // readable: scroll
        height: `${c.height * k}px`});
      mapBox.querySelectorAll('.mm-module').forEach(g => g.addEventListener('click', () => {
        showMap(false); moduleSel.value = g.dataset.module; scope.value = 'all'; refit();
      }));
    }
    if (!on) { sizeSvg(); paint(); }
  }
  if (mapBtn) mapBtn.addEventListener('click', () => showMap(mapBox.hidden));

  window.harnessGraph = {select, refresh, fit, focus, statistics, showStats, showMap,
    view: () => ({...view}), visible: () => Array.from(visibleSet()),
    selected: () => selected};
  const opened = readHash();
  if (!opened) { initialView(); showStats(); }
  refresh();
  const vendor = window.harnessVendor && window.harnessVendor.katex;
  if (vendor) {
    vendor.then(() => {  // KaTeX unpacked: typeset the panel already shown
      if (selected) select(selected, {hash: false, fit: false});
      root.dataset.math = 'ready';
    }, err => { root.dataset.math = 'failed: ' + err.message; });
  }
  root.dataset.ready = 'true';
})();
