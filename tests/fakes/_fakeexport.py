"""Fake `lean --run ExportDecls.lean MOD…` (harness/library/lean/ExportDecls.lean's protocol).

For every requested module whose `.olean` exists under `<root>/.lake/build/lib/lean/` (roots: the
workspace and `.lake/packages/*`), the "environment" is every `.lean` file of that root whose module
is the root module or below it. One compact JSON object per constant, then `{"done": N}`:
`{"name","kind","module","line","type","doc","protected","private"}`. What Lean generates and a
text scanner cannot see is generated here too (independently of the harness's own scanner):
structure projections (`S.f`) and parent projections (`S.toP`), `@[simps]` lemmas (`f_apply`),
their `to_additive` images (`@[to_additive (attr := simps)]`: `mul`->`add`, `one`->`zero`),
anonymous instances (`instFooBar`); private names print their user name with `"private": true`.
A declaration whose name contains `fake_unbuilt` is absent (edited after the last build).
A module without an `.olean` fails the way Lean's `findOLean` does (src/Lean/Util/Path.lean):
`uncaught exception: unknown module prefix 'M'` + the search path, exit 1.
Knob FAKE_EXPORT: `hang` (two lines, then sleep), `garbage` (a non-JSON line among them),
`cut` (no `done` line), `fail` (the program does not elaborate: Lean's error on stdout, exit 1).
"""

from __future__ import annotations

import json
import os
import re
import sys

KW = r"(theorem|lemma|def|abbrev|instance|structure|class|inductive)"
DECL = re.compile(r"^(?P<attrs>(?:@\[[^\]]*\]\s*)*)(?P<mods>(?:(?:private|protected|noncomputable)"
                  rf"\s+)*){KW}\b\s*(?P<rest>.*)$")
ADD = (("Mul", "Add"), ("mul", "add"), ("One", "Zero"), ("one", "zero"), ("prod", "sum"))


def _additive(name: str) -> str:
    last = name.rsplit(".", 1)[-1]
    for a, b in ADD:
        last = last.replace(a, b)
    return name.rsplit(".", 1)[0] + "." + last if "." in name else last


def top_level(text: str, sep: str, *, last: bool = False) -> int:
    """The first (or last) ``sep`` outside every bracket of ``text``; -1 when there is none."""
    depth, cut = 0, -1
    for i, c in enumerate(text):
        depth += c in "([{⦃"
        depth -= c in ")]}⦄"
        if c == sep and depth == 0:
            cut = i
            if not last:
                break
    return cut


def _type(head: str) -> str:
    """`(x : ℝ) {y : ℝ} : T` -> `∀ (x : ℝ) {y : ℝ}, T` (Lean's pretty-printed Π type)."""
    cut = top_level(head, ":")
    if cut < 0:
        return " ".join(head.split())
    binders, target = " ".join(head[:cut].split()), " ".join(head[cut + 1:].split())
    return f"∀ {binders}, {target}" if binders else target


def _file_decls(text: str, module: str) -> list[dict]:
    out: list[dict] = []
    lines = text.splitlines()
    ns: list[str] = []
    doc = pending = ""
    i = 0
    while i < len(lines):
        ln = lines[i]
        s = ln.strip()
        i += 1
        if s.startswith("/--"):
            buf = [s]
            while not buf[-1].endswith("-/") and i < len(lines):
                buf.append(lines[i].strip())
                i += 1
            doc = " ".join(buf)[3:-2].strip()
            continue
        if s.startswith("namespace "):
            ns.extend(s.split()[1].split("."))
            continue
        if s.startswith("end ") and ns:
            del ns[len(ns) - len(s.split()[1].split(".")):]
            continue
        m = DECL.match(s)
        if not m:
            if s.startswith("@[") and s.endswith("]"):  # an attribute line before its declaration
                pending += s
            elif s and not s.startswith("--"):
                doc = pending = ""
            continue
        attrs, mods, kind, rest = m.group("attrs"), m.group("mods"), m.group(3), m.group("rest")
        attrs, pending = pending + attrs, ""
        stmt = rest
        while ":=" not in stmt and " where" not in stmt and i < len(lines) \
                and lines[i].startswith(" ") and not lines[i].strip().endswith(":= by"):
            if re.match(r"\s+\w+\s*:", lines[i]) and kind in ("structure", "class"):
                break
            stmt += " " + lines[i].strip()
            i += 1
        head = re.split(r":=|\bwhere\b", stmt, maxsplit=1)[0]
        if kind == "instance" and (head.lstrip().startswith(":") or not head.strip()):
            cls = re.findall(r"[A-Z]\w*", head)
            name = "inst" + "".join(cls)
        else:
            name, _, head = head.strip().partition(" ")
        full = ".".join(ns + [name])
        if "fake_unbuilt" in full:
            doc = ""
            continue
        typ = _type(head) if kind not in ("structure", "class", "inductive") else "Prop"
        rec = {"name": full, "kind": kind.replace("lemma", "theorem"), "module": module,
               "line": i, "type": typ, "doc": doc, "protected": "protected" in mods,
               "private": "private" in mods}
        out.append(rec)
        doc = ""
        simps = "simps" in attrs
        if "to_additive" in attrs:
            out.append(rec | {"name": _additive(full)})
        if simps:
            lemma = rec | {"name": full + "_apply", "kind": "theorem",
                           "type": f"∀ x, {full} x = {full} x", "doc": ""}
            out.append(lemma)
            if "to_additive" in attrs:
                out.append(lemma | {"name": _additive(full) + "_apply"})
        if kind in ("structure", "class"):
            ext = re.search(r"\bextends\s+([\w.]+)", head)
            if ext:
                parent = ext.group(1).rsplit(".", 1)[-1]
                out.append(rec | {"name": f"{full}.to{parent}", "kind": "def", "doc": "",
                                  "type": f"{full} → {ext.group(1)}"})
            while i < len(lines) and lines[i].startswith(" "):
                f = re.match(r"\s+(\w+)\s*:\s*(.+)$", lines[i])
                i += 1
                if f:
                    out.append({"name": f"{full}.{f.group(1)}", "kind": "def", "module": module,
                                "line": i, "type": f"{full} → {f.group(2).strip()}", "doc": "",
                                "protected": False, "private": False})
    return out


def _roots() -> list[str]:
    roots = ["."]
    pdir = os.path.join(".lake", "packages")
    if os.path.isdir(pdir):
        roots += [os.path.join(pdir, d) for d in sorted(os.listdir(pdir))]
    return roots


def _olean(root: str, mod: str) -> str:
    return os.path.join(root, ".lake", "build", "lib", "lean", *mod.split(".")) + ".olean"


def _modules(root: str, mod: str):
    for dirpath, dirs, files in os.walk(root):
        dirs[:] = sorted(d for d in dirs if not d.startswith("."))
        for fn in sorted(files):
            if not fn.endswith(".lean") or fn == "lakefile.lean":
                continue
            p = os.path.join(dirpath, fn)
            m = os.path.relpath(p, root)[:-5].replace(os.sep, ".")
            if m == mod or m.startswith(mod + "."):
                yield m, p


def main(modules: list[str]) -> int:
    mode = os.environ.get("FAKE_EXPORT", "")
    if mode == "fail":
        sys.stdout.write("ExportDecls.lean:57:4: error: Unknown identifier "
                         "`Core.withCurrHeartbeats`\n")
        return 1
    found = []
    for mod in modules:
        root = next((r for r in _roots() if os.path.isfile(_olean(r, mod))), None)
        if root is None:
            sp = "\n".join(os.path.abspath(os.path.join(r, ".lake", "build", "lib", "lean"))
                           for r in _roots())
            sys.stderr.write(f"uncaught exception: unknown module prefix '{mod.split('.')[0]}'"
                             f"\n\nNo directory '{mod.split('.')[0]}' or file "
                             f"'{mod.split('.')[0]}.olean' in the search path entries:\n{sp}\n")
            return 1
        found.append((root, mod))
    # a constant of Lean's core library (the index may have no file for it)
    decls = [{"name": "Nat.add", "kind": "def", "module": "Init.Prelude", "line": 0,
              "type": "Nat → Nat → Nat", "doc": "Addition of natural numbers.",
              "protected": True, "private": False}]
    for root, mod in found:
        for m, path in _modules(root, mod):
            with open(path, encoding="utf-8") as fh:
                decls.extend(_file_decls(fh.read(), m))
    n = 0
    for d in decls:
        sys.stdout.write(json.dumps(d, ensure_ascii=False, separators=(",", ":")) + "\n")
        n += 1
        if mode == "garbage" and n == 2:
            sys.stdout.write("PANIC at Lean.Expr.instantiate1 (not a declaration)\n")
        if mode == "hang" and n == 2:
            sys.stdout.flush()
            from _fakelean import hang_forever  # a grandchild too: the whole group must die
            hang_forever()
    if mode != "cut":
        sys.stdout.write(json.dumps({"done": n}) + "\n")
    sys.stdout.flush()
    return 0
