/* Pure helpers of the blueprint graph component (graph.js): typeset text, the layered
   placement of a focus, breadth-first neighbourhoods, the statistics table. No state. */
(function () {
  'use strict';
  function esc(s) { const d = document.createElement('div'); d.textContent = s == null ? '' : String(s); return d.innerHTML; }
  function el(tag, text, cls) {
    const e = document.createElement(tag);
    if (text != null) e.textContent = text;
    if (cls) e.className = cls;
    return e;
  }

  // statement / proof text: paragraphs; $…$, $$…$$, \(…\), \[…\] typeset by KaTeX (vendored,
  // unpacked after load: until then the source is shown; a formula KaTeX cannot parse is shown
  // in red); `code`; \ref{label} / \cref{a,b} as links where `link(label, text)` gives one
  const MATH = /(\$\$[\s\S]+?\$\$|\\\[[\s\S]+?\\\]|\\\([\s\S]+?\\\)|\$[^$\n]+?\$)/;
  const REF = /\\(?:c|C)?ref\{([^}]*)\}/g;
  function mathText(text, link) {
    const out = el('div', null, 'math-text');
    for (const para of String(text).split(/\n\s*\n/)) {
      const p = el('p');
      para.split(MATH).forEach((part, i) => {
        if (!part) return;
        if (i % 2 === 0) { prose(p, part, link); return; }
        const display = part.startsWith('$$') || part.startsWith('\\[');
        const tex = display || part.startsWith('\\(') ? part.slice(2, -2) : part.slice(1, -1);
        const span = el('span', null, 'tex');
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
  function prose(p, text, link) {
    text.split(/`([^`\n]+)`/).forEach((part, i) => {
      if (i % 2) p.appendChild(el('code', part));
      else refs(p, part, link);
    });
  }
  function refs(p, text, link) {
    let last = 0;
    for (const m of text.matchAll(REF)) {
      p.appendChild(document.createTextNode(text.slice(last, m.index)));
      m[1].split(',').map(s => s.trim()).filter(Boolean).forEach((lab, i) => {
        if (i) p.appendChild(document.createTextNode(', '));
        p.appendChild(link(lab) || document.createTextNode(lab));
      });
      last = m.index + m[0].length;
    }
    p.appendChild(document.createTextNode(text.slice(last)));
  }

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

  // key -> [x, y] for the nodes `keys`, in layers as late as possible (a node just above its
  // first user inside the set: a source far up the graph does not drag everything to one wide
  // top row), each layer in the full layout's left-to-right order, wrapped at `rowMax`
  function layers(keys, succs, byKey, gapX, gapY, rowMax) {
    const pos = new Map(), height = new Map();
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
    const rows = [];
    for (const k of order) (rows[top - height.get(k)] = rows[top - height.get(k)] || []).push(k);
    let row = 0;
    for (const ks of rows) {
      if (!ks) continue;
      ks.sort((a, b) => byKey.get(a).x - byKey.get(b).x);
      let line = [], width = 0;
      const flush = () => {
        let x = -width / 2;
        for (const k of line) {
          const w = byKey.get(k).w;
          pos.set(k, [x + w / 2, row * gapY]);
          x += w + gapX;
        }
        row += 1; line = []; width = 0;
      };
      for (const k of ks) {
        const w = byKey.get(k).w;
        if (line.length && width + gapX + w > rowMax) flush();
        width += (line.length ? gapX : 0) + w;
        line.push(k);
      }
      flush();
    }
    return pos;
  }

  // blueprint nodes of this project (not imported, not ordinary declarations) per module
  const STATES = ['proved', 'ready', 'waiting', 'blocked'];
  function statistics(nodes, isDecl) {
    const per = new Map(), total = {module: 'total', n: 0};
    for (const n of nodes) {
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
  function statsTable({rows, total}, colours) {
    const cols = [...STATES, ...Object.keys(colours).filter(s => !STATES.includes(s) && total[s])];
    const line = (r, tag) => `<tr${tag ? ' class="total"' : ''}><td class="mod" title="${esc(r.module)}">` +
      (tag ? '<b>total</b>' : `<a class="module-link" data-module="${esc(r.module)}">${esc(r.module)}</a>`) +
      `<span class="bar"><span style="width:${r.n ? Math.round(100 * (r.proved || 0) / r.n) : 0}%"></span></span></td>` +
      cols.map(c => `<td class="num">${r[c] || 0}</td>`).join('') + `<td class="num">${r.n}</td></tr>`;
    const head = '<tr><th>module</th>' + cols.map(c =>
      `<th><span class="badge" style="background:${colours[c] || '#999'}">${c}</span></th>`).join('') +
      '<th>all</th></tr>';
    return `<h4>Statistics</h4><p class="muted">blueprint nodes of this project (imported nodes ` +
      `and ordinary declarations not counted); click a module to show it</p>` +
      `<table class="stats"><thead>${head}</thead><tbody>${line(total, true)}` +
      rows.map(r => line(r)).join('') + '</tbody></table>';
  }

  // the side panel for node `n`: what it says, its Lean signature, its run, its neighbours
  function nodeDetail(n, {colours, mathText, usedBy, link, focus}) {
    const out = document.createDocumentFragment();
    const where = n.external ? (n.file || 'imported') : (n.file || n.module || '');
    const head = el('div');
    head.innerHTML = `<h4>${esc(n.key)}</h4><p><span class="badge" style="background:${colours[n.state] || '#999'}">` +
      `${esc(n.state)}</span> ${esc(n.kind)} <b>${esc(n.name || '')}</b><br>` +
      `<span class="muted">${esc(n.module || '')}${n.module && where !== n.module ? ' · ' + esc(where) : ''}` +
      `${n.line ? ', line ' + n.line : ''}${n.external ? ' (imported)' : ''}</span></p>` +
      (n.title ? `<p><i>${esc(n.title)}</i></p>` : '');
    out.appendChild(head);
    const fb = el('p', 'focus: ', 'focus-buttons');
    for (const d of ['1', '2', '3', 'all']) {
      const b = el('button', d === 'all' ? 'all' : `depth ${d}`);
      b.dataset.depth = d;
      b.addEventListener('click', () => focus(d));
      fb.appendChild(b);
    }
    out.appendChild(fb);
    if (n.statement) out.append(el('h5', 'Statement'), mathText(n.statement));
    if (n.proof) out.append(el('h5', 'Proof'), mathText(n.proof));
    if (n.signature || n.name) {
      out.append(el('h5', 'Lean signature'), el('pre', n.signature || `${n.kind} ${n.name}`, 'lean'));
    }
    if (n.run) {
      const p = el('p');
      p.innerHTML = `status <b>${esc(n.run.status)}</b>, ${esc(n.run.attempts)} attempt(s)` +
        (n.run.reason ? `<br>${esc(n.run.reason)}` : '');
      out.append(el('h5', 'Run'), p);
      if (n.run.message) out.append(el('h5', 'Last gate message'), el('pre', n.run.message));
    }
    const links = keys => {
      const span = el('span', keys.length ? null : '-');
      keys.forEach((k, i) => {
        if (i) span.appendChild(document.createTextNode(', '));
        span.appendChild(link(k) || document.createTextNode(k));
      });
      return span;
    };
    const uses = el('p');
    uses.append('statement: ', links(n.statement_deps || []), el('br'), 'proof: ',
      links(n.proof_deps || []));
    const by = el('p', null, 'muted');
    by.append('used by: ', links(usedBy));
    out.append(el('h5', 'Uses'), uses, by);
    return out;
  }

  // The module map: the collapsed view graph.py lays out (one box per module, the count of
  // edges between two modules), scaled to the window -- readable where 1 000 nodes are not.
  function moduleMap(data, colours) {
    const size = data.layout && data.layout.collapsed;
    if (!size) return '';
    const mods = data.modules.filter(m => m.collapsed);
    const arrows = data.module_edges.filter(e => e.dc).map(e =>
      `<path d="${e.dc}" fill="none" stroke="#8a929c" stroke-width="${Math.min(6, 1 + Math.log2(e.count))}"` +
      ` marker-end="url(#mm-arrow)"><title>${esc(e.source)} → ${esc(e.target)}: ${e.count}</title></path>`);
    const boxes = mods.map(m => {
      const [x, y, w, h] = m.collapsed, all = Object.values(m.counts).reduce((a, b) => a + b, 0);
      const done = all ? (m.counts.proved || 0) / all : 0;
      return `<g class="mm-module" data-module="${esc(m.name)}"><rect x="${x}" y="${y}" width="${w}"` +
        ` height="${h}" rx="4" fill="#fff" stroke="#555"><title>${esc(m.name)}</title></rect>` +
        `<rect x="${x}" y="${y + h - 4}"` +
        ` width="${(w * done).toFixed(1)}" height="4" fill="${colours.proved || '#2e8b57'}"/>` +
        `<text x="${x + w / 2}" y="${y + h / 2 + 4}" text-anchor="middle" font-size="11">` +
        `${esc(m.short || m.name)} (${all})</text></g>`;
    });
    return `<svg class="module-map" viewBox="0 0 ${size.width} ${size.height}"` +
      ` preserveAspectRatio="xMidYMin meet"><defs><marker id="mm-arrow" viewBox="0 0 10 10"` +
      ` refX="10" refY="5" markerWidth="6" markerHeight="6" orient="auto"><path d="M0,0L10,5L0,10z"` +
      ` fill="#8a929c"/></marker></defs>${arrows.join('')}${boxes.join('')}</svg>`;
  }

  window.harnessGraphParts = {esc, el, mathText, within, layers, statistics, statsTable,
    nodeDetail, moduleMap};
})();
