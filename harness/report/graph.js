/* The blueprint graph component: pan/zoom, fit, search, filters, focus, statistics, side panel
   (harness/report/graph.py). The SVG is drawn by Python; this script only moves the view and
   shows, hides and highlights its elements. */
(function () {
  'use strict';
  const root = document.getElementById('hg');
  if (!root) return;
  const DATA = JSON.parse(document.getElementById('graph-data').textContent);
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
    const band = DATA.nodes.filter(n => (n.y - first.y) * k < r.height - 2 * PAD);
    const b = bounds(band.map(n => n.key));
    for (const m of new Set(band.map(n => n.module))) {
      const cl = (DATA.layout.clusters || {})[m];
      if (cl && (cl[1] - first.y) * k < r.height) {
        b.x0 = Math.min(b.x0, cl[0]); b.x1 = Math.max(b.x1, cl[0] + cl[2]);
        b.y0 = Math.min(b.y0, cl[1]);
      }
    }
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

  function within(start, next, depth) {  // breadth first, `depth` steps (Infinity: all)
    const seen = new Set([start]);
    let layer = [start];
    for (let d = 0; d < depth && layer.length; d++) {
      const nxt = [];
      for (const k of layer) for (const m of next.get(k) || []) {
        if (!seen.has(m)) { seen.add(m); nxt.push(m); }
      }
      layer = nxt;
    }
    return seen;
  }
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
  // Focus (and a one-module view) draws its nodes on their own, in layers (a node below
  // everything it uses), each layer in its layout order: on a large graph the nodes of a focus
  // lie far apart in the full layout and would be specks once fitted. Leaving puts them back.
  const FOCUS_LAYOUT_MAX = 400, GAP_X = 36, GAP_Y = 90, ROW_MAX = 1800;
  function placeFocus(keys) {
    pos.clear();
    if (keys) {
      // as late as possible: a node sits just above its first user inside the set (a source
      // far up the graph does not drag everything to one wide top row)
      const height = new Map();
      const ht = k => {
        if (height.has(k)) return height.get(k);
        height.set(k, 0);
        let h = 0;
        for (const v of succs.get(k) || []) if (keys.has(v)) h = Math.max(h, ht(v) + 1);
        height.set(k, h);
        return h;
      };
      const order = Array.from(keys);
      order.forEach(ht);
      const top = Math.max(...order.map(k => height.get(k)));
      const layers = [];
      for (const k of order) (layers[top - height.get(k)] = layers[top - height.get(k)] || []).push(k);
      // a layer wider than the row is wrapped onto several rows
      let row = 0;
      for (const ks of layers) {
        if (!ks) continue;
        ks.sort((a, b) => byKey.get(a).x - byKey.get(b).x);
        let line = [], width = 0;
        const flush = () => {
          let x = -width / 2;
          for (const k of line) {
            const w = byKey.get(k).w;
            pos.set(k, [x + w / 2, row * GAP_Y]);
            x += w + GAP_X;
          }
          row += 1; line = []; width = 0;
        };
        for (const k of ks) {
          const w = byKey.get(k).w + (line.length ? GAP_X : 0);
          if (line.length && width + w > ROW_MAX) flush();
          line.push(k); width += line.length > 1 ? w : byKey.get(k).w;
        }
        flush();
      }
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
  function esc(s) { const d = document.createElement('div'); d.textContent = s == null ? '' : String(s); return d.innerHTML; }
  const MATH = /(\$\$[\s\S]+?\$\$|\\\[[\s\S]+?\\\]|\\\([\s\S]+?\\\)|\$[^$\n]+?\$)/;
  const REF = /\\(?:c|C)?ref\{([^}]*)\}/g;
  function mathText(text) {
    // statement / proof text: paragraphs, $…$, $$…$$, \(…\), \[…\] typeset by KaTeX (vendored,
    // unpacked after load: until then, and where KaTeX fails, the source is shown)
    const out = document.createElement('div');
    out.className = 'math-text';
    for (const para of String(text).split(/\n\s*\n/)) {
      const p = document.createElement('p');
      para.split(MATH).forEach((part, i) => {
        if (!part) return;
        if (i % 2 === 0) { proseInto(p, part); return; }
        const display = part.startsWith('$$') || part.startsWith('\\[');
        const tex = display || part.startsWith('\\(') ? part.slice(2, -2) : part.slice(1, -1);
        const span = document.createElement('span');
        span.className = 'tex';
        if (window.katex) {
          try {
            window.katex.render(tex, span, {throwOnError: false, displayMode: display});
          } catch (err) { span.textContent = part; }
        } else span.textContent = part;
        p.appendChild(span);
      });
      out.appendChild(p);
    }
    return out;
  }
  function proseInto(p, text) {  // `code`, and \ref{label} / \cref{label} as a link to that node
    text.split(/`([^`\n]+)`/).forEach((part, i) => {
      if (i % 2) { const c = document.createElement('code'); c.textContent = part; p.appendChild(c); }
      else refsInto(p, part);
    });
  }
  function refsInto(p, text) {
    let last = 0;
    for (const m of text.matchAll(REF)) {
      p.appendChild(document.createTextNode(text.slice(last, m.index)));
      const labels = m[1].split(',').map(s => s.trim()).filter(Boolean);
      labels.forEach((lab, i) => {
        if (i) p.appendChild(document.createTextNode(', '));
        const key = byLabel.get(lab) || (byKey.has(lab) ? lab : null);
        p.appendChild(key ? nodeLink(key, lab) : document.createTextNode(lab));
      });
      last = m.index + m[0].length;
    }
    p.appendChild(document.createTextNode(text.slice(last)));
  }
  function nodeLink(key, text) {
    const a = document.createElement('a');
    a.className = 'node-link';
    a.textContent = text || key; a.dataset.key = key;
    a.addEventListener('click', () => { select(key); centreOn(key); });
    return a;
  }
  function h5(title) { const h = document.createElement('h5'); h.textContent = title; return h; }
  function pre(text, cls) {
    const p = document.createElement('pre'); p.textContent = text; if (cls) p.className = cls; return p;
  }
  function links(keys) {
    const span = document.createElement('span');
    if (!keys.length) span.textContent = '-';
    keys.forEach((k, i) => {
      if (i) span.appendChild(document.createTextNode(', '));
      span.appendChild(byKey.has(k) ? nodeLink(k) : document.createTextNode(k));
    });
    return span;
  }
  function select(key, opts) {
    if (!byKey.has(key)) return;
    selected = key;
    const n = byKey.get(key);
    const detail = $('#detail');
    detail.textContent = '';
    const where = n.external ? (n.file || 'imported') : (n.file || n.module || '');
    const head = document.createElement('div');
    head.innerHTML = `<h4>${esc(n.key)}</h4><p><span class="badge" style="background:${COLOURS[n.state] || '#999'}">` +
      `${esc(n.state)}</span> ${esc(n.kind)} <b>${esc(n.name || '')}</b><br>` +
      `<span class="muted">${esc(n.module || '')}${n.module && where !== n.module ? ' · ' + esc(where) : ''}` +
      `${n.line ? ', line ' + n.line : ''}${n.external ? ' (imported)' : ''}</span></p>` +
      (n.title ? `<p><i>${esc(n.title)}</i></p>` : '');
    detail.appendChild(head);
    const fb = document.createElement('p');
    fb.className = 'focus-buttons';
    fb.appendChild(document.createTextNode('focus: '));
    for (const d of ['1', '2', '3', 'all']) {
      const b = document.createElement('button');
      b.textContent = d === 'all' ? 'all' : `depth ${d}`;
      b.dataset.depth = d;
      b.addEventListener('click', () => focus(key, d, scope.value === 'all' ? 'both' : scope.value));
      fb.appendChild(b);
    }
    detail.appendChild(fb);
    if (n.statement) { detail.appendChild(h5('Statement')); detail.appendChild(mathText(n.statement)); }
    if (n.proof) { detail.appendChild(h5('Proof')); detail.appendChild(mathText(n.proof)); }
    if (n.signature || n.name) {
      detail.appendChild(h5('Lean signature'));
      detail.appendChild(pre(n.signature || `${n.kind} ${n.name}`, 'lean'));
    }
    if (n.run) {
      detail.appendChild(h5('Run'));
      const p = document.createElement('p');
      p.innerHTML = `status <b>${esc(n.run.status)}</b>, ${esc(n.run.attempts)} attempt(s)` +
        (n.run.reason ? `<br>${esc(n.run.reason)}` : '');
      detail.appendChild(p);
      if (n.run.message) { detail.appendChild(h5('Last gate message')); detail.appendChild(pre(n.run.message)); }
    }
    detail.appendChild(h5('Uses'));
    const uses = document.createElement('p');
    uses.append('statement: ', links(n.statement_deps || []), document.createElement('br'),
      'proof: ', links(n.proof_deps || []));
    detail.appendChild(uses);
    const usedBy = document.createElement('p');
    usedBy.className = 'muted';
    usedBy.append('used by: ', links(succs.get(key) || []));
    detail.appendChild(usedBy);
    if (!opts || opts.hash !== false) writeHash();
    refresh();
    if (scope.value !== 'all' && (!opts || opts.fit !== false)) fit();
  }
  for (const [key, g] of elOf) {
    g.addEventListener('click', ev => { if (drag && drag.moved) return; ev.stopPropagation(); select(key); });
  }

  // ---- statistics ---------------------------------------------------------------------------
  const STAT_STATES = ['proved', 'ready', 'waiting', 'blocked'];
  function statistics() {  // blueprint nodes of this project (not imported), per module
    const per = new Map(), total = {module: 'total', n: 0};
    for (const n of DATA.nodes) {
      if (n.external || isDecl(n)) continue;
      const m = n.module || '(no module)';
      if (!per.has(m)) per.set(m, {module: m, n: 0});
      for (const row of [per.get(m), total]) {
        row.n += 1;
        row[n.state] = (row[n.state] || 0) + 1;
      }
    }
    return {rows: Array.from(per.values()).sort((a, b) => a.module.localeCompare(b.module)), total};
  }
  function showStats() {
    const {rows, total} = statistics();
    const others = Object.keys(COLOURS).filter(s => !STAT_STATES.includes(s) && total[s]);
    const cols = [...STAT_STATES, ...others];
    const cell = (r, c) => `<td class="num">${r[c] || 0}</td>`;
    const line = (r, tag) => `<tr${tag ? ' class="total"' : ''}><td class="mod" title="${esc(r.module)}">` +
      (r.module === 'total' ? '<b>total</b>'
        : `<a class="module-link" data-module="${esc(r.module)}">${esc(r.module)}</a>`) +
      `<span class="bar"><span style="width:${r.n ? Math.round(100 * (r.proved || 0) / r.n) : 0}%"></span></span></td>` +
      cols.map(c => cell(r, c)).join('') + `<td class="num">${r.n}</td></tr>`;
    const head = '<tr><th>module</th>' + cols.map(c =>
      `<th><span class="badge" style="background:${COLOURS[c] || '#999'}">${c}</span></th>`).join('') +
      '<th>all</th></tr>';
    const detail = $('#detail');
    detail.innerHTML = HELP + `<h4>Statistics</h4><p class="muted">blueprint nodes of this project ` +
      `(imported nodes and ordinary declarations not counted); click a module to show it</p>` +
      `<table class="stats"><thead>${head}</thead><tbody>${line(total, true)}` +
      rows.map(r => line(r)).join('') + '</tbody></table>';
    detail.querySelectorAll('.module-link').forEach(a => a.addEventListener('click', () => {
      moduleSel.value = a.dataset.module; scope.value = 'all'; refit();
    }));
  }
  $('#stats').addEventListener('click', showStats);

  window.harnessGraph = {select, refresh, fit, focus, statistics, showStats,
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
