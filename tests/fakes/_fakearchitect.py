"""Fake LeanArchitect facets for the fake `lake`: `lake build :blueprintJson` / `:blueprint`.

Writes what LeanArchitect writes (hanwenzhu/LeanArchitect: lakefile.lean `buildModuleBlueprint`,
Architect/Output.lean `outputJsonResults`, `outputLibraryJson`, `NodeWithPos.toJson`,
`NodePart.toLatex`): `.lake/build/blueprint/module/<A/B>.json`, `.lake/build/blueprint/library/
<Lib>.json` = `{"modules": [...]}`, and for `:blueprint` the artifacts
`.lake/build/blueprint/module/<A/B>.artifacts/<label>.tex`.

The "elaboration" is this double's own (it shares no code with the harness): a declaration uses
the earlier declarations its tokens name (namespaces, `open`, trailing projections dropped),
and — what no text reading sees — every earlier `@[simp]` declaration when its proof runs
`simp`. Used constants are collected transitively through non-blueprint declarations, stopping
at blueprint nodes, statement (type) and proof (value) apart, as Architect/CollectUsed.lean does.

Knob: FAKE_ARCHITECT_SCHEMA=inferred (default: parts `{leanOk, text, uses, latexEnv}`, uses =
labels, inferred included) or explicit (newer versions: `{text, uses, excludes, usesLabels,
excludesLabels, latexEnv}`, only the attribute's own uses; inferred ones in the LaTeX only).
"""

from __future__ import annotations

import json
import os
import re

import _fakelean as F

_LIB = re.compile(r"^\s*lean_lib\s+«?([A-Za-z_][\w.]*)»?", re.M)
_IMPORT = re.compile(r"^import\s+([\w.]+)", re.M)
_OPEN = re.compile(r"^open\s+([^\n]+)", re.M)
_TOKEN = re.compile(r"[^\W\d][\w'!?\u2070-\u209f]*(?:\.[^\W\d][\w'!?\u2070-\u209f]*)*")


class Node:
    def __init__(self, decl, label, opts, simp, sig, val, opens, module):
        self.decl, self.label, self.opts, self.simp = decl, label, opts, simp
        self.sig, self.val, self.opens, self.module = sig, val, opens, module
        self.sig_refs: set[str] = set()
        self.val_refs: set[str] = set()


def libraries() -> list[tuple[str, list[str]]]:
    try:
        text = open("lakefile.lean", encoding="utf-8").read()
    except OSError:
        return []
    out = []
    for lib in _LIB.findall(text):
        mods = [lib] if os.path.isfile(lib.replace(".", "/") + ".lean") else []
        root = lib.replace(".", "/")
        for d, dirs, files in os.walk(root):
            dirs.sort()
            for f in sorted(files):
                if f.endswith(".lean"):
                    rel = os.path.relpath(os.path.join(d, f), ".")[:-5]
                    mods.append(rel.replace(os.sep, "."))
        out.append((lib, mods))
    return out


def _attr_block(masked: str, text: str, lo: int, kw: int) -> tuple[str, str] | None:
    """The last `@[…]` between ``lo`` and the keyword: (masked, real) text."""
    at = masked.rfind("@[", lo, kw)
    return None if at == -1 else (masked[at:kw], text[at:kw])


def _options(real: str) -> dict:
    opts: dict = {"uses": [], "proofUses": []}
    m = re.search(r'blueprint\??\s*"([^"]*)"', real)
    opts["label"] = m.group(1) if m else None
    for key in ("uses", "proofUses"):
        mm = re.search(r"\(\s*%s\s*:=\s*\[([^\]]*)\]" % key, real)
        if mm:
            opts[key] = [x.strip() for x in mm.group(1).split(",") if x.strip()]
    mm = re.search(r"\(\s*hasProof\s*:=\s*(true|false)", real)
    opts["hasProof"] = None if mm is None else mm.group(1) == "true"
    opts["proof"] = re.search(r"\(\s*proof\s*:=", real) is not None
    mm = re.search(r"\(\s*statement\s*:=\s*/--(.*?)-/", real, re.S)
    opts["statement"] = mm.group(1).strip() if mm else ""
    return opts


def _split(body: str) -> tuple[str, str]:
    """Signature (type) and value of a declaration's masked text after its name."""
    depth = 0
    for i, c in enumerate(body):
        if c in "([{⟨":
            depth += 1
        elif c in ")]}⟩":
            depth -= 1
        elif depth == 0 and (body.startswith(":=", i) or body.startswith(" where", i)):
            return body[:i], body[i:]
    return body, ""


class Module:
    def __init__(self, name: str, path: str, prior: dict[str, Node]) -> None:
        self.name, self.path = name, path
        self.text = open(path, encoding="utf-8").read()
        self.judge = F.Judge(self.text)
        masked = self.judge.masked
        self.nodes: list[Node] = []
        names: dict[str, Node] = dict(prior)
        lo = 0
        for d in self.judge.decls:
            block = _attr_block(masked, self.text, lo, d.kw_start)
            lo = d.end
            opts = _options(block[1]) if block and "blueprint" in block[0] else None
            simp = bool(block and re.search(r"\bsimp\b", block[0]))
            sig, val = _split(d.body)
            opens = [o for line in _OPEN.findall(masked[:d.kw_start]) for o in line.split()]
            n = Node(d, None, opts, simp, sig, val, opens, name)
            if opts is not None:
                n.label = opts["label"] or d.name
            for part, refs in ((sig, n.sig_refs), (val, n.val_refs)):
                for t in _TOKEN.finditer(part):
                    hit = self._resolve(t.group(0), d.ns, opens, names)
                    if hit is not None and hit != d.name:
                        refs.add(hit)
            if re.search(r"\bsimp\b", val):
                n.val_refs.update(k for k, v in names.items() if v.simp and k != d.name)
            self.nodes.append(n)
            if d.name:
                names[d.name] = n
        self.names = names

    @staticmethod
    def _resolve(tok: str, ns: str, opens: list[str], names: dict) -> str | None:
        parts = tok.split(".")
        for k in range(len(parts), 0, -1):  # trailing components may be projections
            cand = ".".join(parts[:k])
            hit = F._resolve(cand, ns, names)
            if hit is not None:
                return hit
            for o in opens:
                if f"{o}.{cand}" in names:
                    return f"{o}.{cand}"
        return None


def _collect(node: Node, names: dict[str, Node]) -> tuple[set[str], set[str], bool, bool]:
    """(statement labels, proof labels, statement sorry-free, proof sorry-free)."""
    def walk(refs: set[str], seen: set[str]) -> tuple[set[str], bool]:
        used: set[str] = set()
        sorry = False
        todo = list(refs)
        while todo:
            c = todo.pop()
            if c in seen:
                continue
            seen.add(c)
            n = names.get(c)
            if n is None:
                continue
            if n.label is not None:
                used.add(n.label)
                continue
            sorry = sorry or n.decl.has_sorry
            todo += list(n.sig_refs | n.val_refs)
        return used, sorry

    seen = {node.decl.name}
    st, st_sorry = walk(node.sig_refs, seen)
    pf, pf_sorry = walk(node.val_refs, seen)
    pf_sorry = pf_sorry or node.decl.has_sorry
    return st, pf - st, not st_sorry, not (pf_sorry or st_sorry)


def _pos(starts: list[int], offset: int) -> dict:
    line, col = F.pos_of(starts, offset)
    return {"line": line, "column": col}


def build(targets: list[str]) -> int:
    facet = "blueprintJson" if any(t.endswith(":blueprintJson") for t in targets) else "blueprint"
    explicit = os.environ.get("FAKE_ARCHITECT_SCHEMA") == "explicit"
    base = os.path.join(".lake", "build", "blueprint")
    libs = libraries()
    modules: dict[str, Module] = {}
    order: list[str] = []

    def load(mod: str) -> Module | None:
        if mod in modules:
            return modules[mod]
        path = mod.replace(".", "/") + ".lean"
        if not os.path.isfile(path):
            return None
        prior: dict[str, Node] = {}
        for imp in _IMPORT.findall(open(path, encoding="utf-8").read()):
            m = load(imp)
            if m is not None:
                prior.update(m.names)
        modules[mod] = Module(mod, path, prior)
        order.append(mod)
        return modules[mod]

    for _, mods in libs:
        for mod in mods:
            load(mod)
    failed = [m for m in order if modules[m].judge.has_error]
    log = []
    for i, mod in enumerate(order, 1):
        ok = mod not in failed
        log.append(f"{'✔' if ok else '✖'} [{i}/{len(order)}] {'Built' if ok else 'Building'} "
                   f"{mod}:{facet} (0.{i}s)")
        if not ok:
            log.append("error: Lean exited with code 1")
    if failed:
        log += ["Some required builds logged failures:", *[f"- {m}" for m in failed],
                "error: build failed"]
        print("\n".join(log))
        return 1
    for lib, mods in libs:
        rels = []
        for mod in mods:
            m = modules[mod]
            rel = "module/" + mod.replace(".", "/") + ".json"
            rels.append(rel)
            entries = [{"type": "node", "data": _node_json(m, n, explicit)}
                       for n in m.nodes if n.label is not None]
            _write(os.path.join(base, rel), json.dumps(entries, indent=2, ensure_ascii=False))
            if facet == "blueprint":
                for n in m.nodes:
                    if n.label is not None:
                        art = os.path.join(base, "module", *mod.split(".")[:-1],
                                           mod.split(".")[-1] + ".artifacts", n.label + ".tex")
                        _write(art, _node_tex(m, n))
        if facet == "blueprintJson":
            _write(os.path.join(base, "library", lib + ".json"),
                   json.dumps({"modules": rels}, indent=2))
    log.append(f"Build completed successfully ({len(order) + len(libs)} jobs).")
    print("\n".join(log))
    return 0


def _write(path: str, text: str) -> None:
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w", encoding="utf-8") as fh:
        fh.write(text)


def _has_proof(n: Node) -> bool:
    if n.opts["hasProof"] is not None:
        return n.opts["hasProof"]
    return n.opts["proof"] or n.decl.kind in ("theorem", "lemma")


def _explicit_labels(m: Module, items: list[str]) -> tuple[list[str], list[str]]:
    names, labels = [], []
    for it in items:
        if it.startswith('"'):
            labels.append(it.strip('"'))
        else:
            hit = Module._resolve(it, "", [], m.names) or it
            names.append(hit)
    return names, labels


def _part_labels(m: Module, n: Node, items: list[str], inferred: set[str]) -> list[str]:
    names, raw = _explicit_labels(m, items)
    out = set(inferred)
    for nm in names:
        node = m.names.get(nm)
        if node is not None and node.label is not None:
            out.add(node.label)
    out.discard(n.label)
    return sorted(out) + raw


def _node_json(m: Module, n: Node, explicit: bool) -> dict:
    starts = F.line_starts(m.text)
    st, pf, st_ok, pf_ok = _collect(n, m.names)
    has_proof = _has_proof(n)
    if not has_proof:
        st, pf, st_ok = st | pf, set(), st_ok and pf_ok
    env = "theorem" if has_proof else "definition"

    def part(text, items, inferred, ok, latex_env):
        if explicit:
            names, labels = _explicit_labels(m, items)
            return {"text": text, "uses": names, "excludes": [], "usesLabels": labels,
                    "excludesLabels": [], "latexEnv": latex_env}
        return {"leanOk": ok, "text": text, "uses": _part_labels(m, n, items, inferred),
                "latexEnv": latex_env}

    d = n.decl
    return {
        "name": d.name, "latexLabel": n.label,
        "statement": part(n.opts["statement"], n.opts["uses"], st, st_ok, env),
        "proof": part("", n.opts["proofUses"], pf, pf_ok, "proof") if has_proof else None,
        "notReady": False, "discussion": None, "title": None, "hasLean": True,
        "file": os.path.abspath(m.path),
        "location": {"module": m.name, "range": {"pos": _pos(starts, d.kw_start),
                                                 "endPos": _pos(starts, d.end)}},
    }


def _node_tex(m: Module, n: Node) -> str:
    st, pf, st_ok, pf_ok = _collect(n, m.names)
    has_proof = _has_proof(n)
    if not has_proof:
        st, pf, st_ok = st | pf, set(), st_ok and pf_ok
    env = "theorem" if has_proof else "definition"
    out = [f"\\begin{{{env}}}"]
    uses = _part_labels(m, n, n.opts["uses"], st)
    if uses:
        out.append("\\uses{" + ",".join(uses) + "}")
    out += [f"\\label{{{n.label}}}", f"\\lean{{{n.decl.name}}}"]
    if st_ok:
        out.append("\\leanok")
    out += [n.opts["statement"], f"\\end{{{env}}}"]
    if has_proof:
        out.append("\\begin{proof}")
        puses = _part_labels(m, n, n.opts["proofUses"], pf)
        if puses:
            out.append("\\uses{" + ",".join(puses) + "}")
        if pf_ok:
            out.append("\\leanok")
        out.append("\\end{proof}")
    return "\n".join(out) + "\n"
