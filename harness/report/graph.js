/* The blueprint graph component: pan/zoom, search, filters, side panel (harness/report/graph.py).
   The SVG is drawn by Python; this script only shows, hides and highlights its elements. */
(function () {
  'use strict';
  const root = document.getElementById('hg');
  if (!root) return;
  const DATA = JSON.parse(document.getElementById('graph-data').textContent);
  const COLOURS = DATA.colours;  // one table, in graph.py
  const svg = root.querySelector('svg');
  const box = root.querySelector('#graph');
  const byKey = new Map(DATA.nodes.map(n => [n.key, n]));
  const elOf = new Map();
  root.querySelectorAll('.node').forEach(g => elOf.set(g.dataset.key, g));
  const edges = Array.from(root.querySelectorAll('.edge'));
  const preds = new Map(), succs = new Map();
  DATA.nodes.forEach(n => { preds.set(n.key, []); succs.set(n.key, []); });
  DATA.edges.forEach(e => { succs.get(e.source).push(e.target); preds.get(e.target).push(e.source); });
  const hay = new Map(DATA.nodes.map(n => [n.key, [n.key, n.label, n.name, ...(n.names || []),
    n.title, n.statement, n.module].filter(Boolean).join(' ').toLowerCase()]));
  let selected = null;

  // ---- pan and zoom ---------------------------------------------------------------------------
  const W = DATA.layout.width, H = DATA.layout.height;
  // the SVG keeps its own size; pan/zoom is a CSS transform of the whole element, which the
  // compositor applies to already-painted tiles (fast at thousands of nodes); once the view
  // rests, the layer is re-rasterised at the new scale so text is crisp again
  let view = {x: 0, y: 0, k: 1};
  let crisp = null;
  function apply() {
    svg.style.transform = `translate(${view.x}px,${view.y}px) scale(${view.k})`;
    root.classList.toggle('lod-low', view.k < 0.3);  // labels unreadable anyway: not painted
    svg.style.willChange = 'transform';
    clearTimeout(crisp);
    crisp = setTimeout(() => { svg.style.willChange = 'auto'; }, 250);
  }
  function fit() {
    const r = box.getBoundingClientRect();
    const k = Math.min(r.width / W, r.height / H, 1.5) || 1;
    view = {k, x: (r.width - W * k) / 2, y: Math.max(0, (r.height - H * k) / 2)};
    apply();
  }
  function initialView() {  // whole graph when labels stay readable, else its top
    const r = box.getBoundingClientRect();
    if (Math.min(r.width / W, r.height / H) >= MIN_READABLE) return fit();
    const k = MIN_READABLE;
    // centred on the first screenful of the top module (its left end when it is wider)
    let x = 0;
    if (DATA.nodes.length) {
      const first = DATA.nodes.reduce((a, n) => (n.y < a.y ? n : a));
      const top = DATA.nodes.filter(n => n === first ||
        (n.y * k < r.height && n.module === first.module));
      const x0 = Math.min(...top.map(n => n.x - n.w / 2));
      const x1 = Math.max(...top.map(n => n.x + n.w / 2));
      x = (x1 - x0) * k <= r.width ? (r.width - (x0 + x1) * k) / 2 : 12 - x0 * k;
    }
    view = {k, x, y: 0};
    apply();
  }
  const MIN_READABLE = 0.7;
  function zoomAt(px, py, f) {
    const k = Math.min(8, Math.max(0.01, view.k * f));
    view.x = px - (px - view.x) * (k / view.k); view.y = py - (py - view.y) * (k / view.k);
    view.k = k; apply();
  }
  function centreOn(key) {
    const n = byKey.get(key), r = box.getBoundingClientRect();
    if (!n) return;
    view.k = Math.max(view.k, 0.8);
    view.x = r.width / 2 - n.x * view.k; view.y = r.height / 2 - n.y * view.k; apply();
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
  root.querySelector('#zoom-in').addEventListener('click', () => zoomAt(...centre(), 1.4));
  root.querySelector('#zoom-out').addEventListener('click', () => zoomAt(...centre(), 1 / 1.4));
  root.querySelector('#fit').addEventListener('click', fit);

  // ---- filters ------------------------------------------------------------------------------
  const search = root.querySelector('#search');
  const hideImported = root.querySelector('#hide-imported');
  const scope = root.querySelector('#scope');
  const moduleSel = root.querySelector('#module');
  const statusBoxes = Array.from(root.querySelectorAll('.status-filter'));

  function closure(start, next) {
    const seen = new Set([start]), stack = [start];
    while (stack.length) for (const m of next.get(stack.pop()) || []) {
      if (!seen.has(m)) { seen.add(m); stack.push(m); }
    }
    return seen;
  }
  function visibleSet() {
    const states = new Set(statusBoxes.filter(b => b.checked).map(b => b.value));
    let within = null;
    if (selected && scope.value !== 'all') {
      within = closure(selected, scope.value === 'ancestors' ? preds : succs);
    }
    const vis = new Set();
    for (const n of DATA.nodes) {
      if (!states.has(n.state)) continue;
      if (hideImported.checked && n.external) continue;
      if (moduleSel.value && n.module !== moduleSel.value) continue;
      if (within && !within.has(n.key)) continue;
      vis.add(n.key);
    }
    return vis;
  }
  function refresh() {
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
    root.querySelector('#visible-count').textContent = `${vis.size} / ${DATA.nodes.length} shown`;
    const res = root.querySelector('#results');
    res.textContent = '';
    if (words.length) {
      const head = document.createElement('div');
      head.className = 'muted';
      head.textContent = `${matches.length} match${matches.length === 1 ? '' : 'es'}`;
      res.appendChild(head);
      for (const key of matches.slice(0, 50)) {
        const a = document.createElement('a');
        a.textContent = key; a.dataset.key = key;
        a.addEventListener('click', () => { select(key); centreOn(key); });
        res.appendChild(a);
      }
    }
    return matches;
  }
  [hideImported, scope, moduleSel, ...statusBoxes].forEach(el => el.addEventListener('change', refresh));
  search.addEventListener('input', refresh);
  search.addEventListener('keydown', ev => {
    if (ev.key === 'Enter') { const m = refresh(); if (m.length) { select(m[0]); centreOn(m[0]); } }
  });

  // ---- side panel ---------------------------------------------------------------------------
  function esc(s) { const d = document.createElement('div'); d.textContent = s == null ? '' : String(s); return d.innerHTML; }
  function section(title, body, pre) {
    return body ? `<h5>${title}</h5>` + (pre ? `<pre>${esc(body)}</pre>` : `<p>${esc(body)}</p>`) : '';
  }
  function select(key) {
    selected = key;
    const n = byKey.get(key);
    const where = n.external ? (n.file || 'imported') : (n.module || '');
    const run = n.run ? `<h5>Run</h5><p>status <b>${esc(n.run.status)}</b>, ${esc(n.run.attempts)} attempt(s)` +
      (n.run.reason ? `<br>${esc(n.run.reason)}` : '') + '</p>' +
      section('Last gate message', n.run.message, true) : '';
    root.querySelector('#detail').innerHTML =
      `<h4>${esc(n.key)}</h4><p><span class="badge" style="background:${COLOURS[n.state] || '#999'}">` +
      `${esc(n.state)}</span> ${esc(n.kind)} <b>${esc(n.name || '')}</b><br>` +
      `<span class="muted">${esc(where)}${n.line ? ', line ' + n.line : ''}${n.external ? ' (imported)' : ''}</span></p>` +
      (n.title ? `<p><i>${esc(n.title)}</i></p>` : '') +
      section('Statement', n.statement, true) + section('Proof', n.proof, true) +
      section('Lean signature', n.signature, true) + run +
      `<h5>Uses</h5><p>statement: ${esc((n.statement_deps || []).join(', ') || '-')}<br>` +
      `proof: ${esc((n.proof_deps || []).join(', ') || '-')}</p>` +
      `<p class="muted">used by: ${esc((succs.get(key) || []).join(', ') || '-')}</p>`;
    refresh();
  }
  for (const [key, g] of elOf) {
    g.addEventListener('click', ev => { if (drag && drag.moved) return; ev.stopPropagation(); select(key); });
  }
  window.harnessGraph = {select, refresh, fit, view: () => ({...view}), visible: () => Array.from(visibleSet())};
  initialView();
  refresh();
  root.dataset.ready = 'true';
})();
