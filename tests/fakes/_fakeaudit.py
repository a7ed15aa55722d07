"""Fake `lean -o OLEAN` output and `lean --run AuditModule.lean OLEAN` (harness/gate/lean/
AuditModule.lean's protocol; README rule 13).

`lean --json --root=DIR -o OLEAN FILE` without errors writes OLEAN as JSON: the constants the
module adds, read from the text independently of the harness (its own masked scan, namespaces
tracked): each declaration (`theorem`/`lemma` -> theorem, `def`/`abbrev`/`instance` -> def, …),
`S.mk`/`S.rec` for structures and inductives, `instFoo` for an anonymous `instance : Foo`,
`_private.<module>.0.<name>` for `private`; `unsafe`/`partial` from the modifiers; the type hash
from the normalised signature, a definition's value hash from its body; extension entries:
instances (`instance`, `attribute [instance]`), `@[simp]`, reducibility (`abbrev`, `@[reducible]`,
`@[irreducible]`), notation/macro/syntax (with a `_aux_…` constant each). The module name is the
file's path under DIR.

What Lean sees and the text does not (directives, found anywhere in the raw text, comments
included — exactly what a lexer disagreement hides):
`fake_hidden_decl KIND NAME` an extra constant; `fake_hidden_instance` one more instance entry;
`fake_hidden_irreducible` one more reducibility entry; `fake_type_drift NAME` NAME's type hash
differs; `fake_unsafe NAME` NAME is unsafe; `fake_kernel_reject NAME` the replay fails at NAME with
the kernel's message shape. Knob FAKE_AUDIT=fail|garbage|cut|hang.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import sys

import _fakelean as F

KIND = {"theorem": "theorem", "lemma": "theorem", "def": "def", "abbrev": "def",
        "instance": "def", "axiom": "axiom", "opaque": "opaque", "structure": "inductive",
        "class": "inductive", "inductive": "inductive"}
DECL = re.compile(r"(?m)^[ \t]*(?P<attrs>(?:@\[[^\]]*\]\s*)*)(?P<mods>(?:(?:private|protected|"
                  r"noncomputable|partial|unsafe|nonrec)\s+)*)(?P<kw>theorem|lemma|def|abbrev|"
                  r"instance|axiom|opaque|structure|class|inductive|example)\b(?P<rest>[^\n]*)")
SCOPE = re.compile(r"(?m)^[ \t]*(namespace|end|section)\b[ \t]*([^\s]*)")
DIRECTIVE = re.compile(r"\b(fake_hidden_decl)\s+(\w+)\s+([\w.']+)|\b(fake_type_drift|fake_unsafe|"
                       r"fake_kernel_reject)\s+([\w.']+)|\b(fake_hidden_instance|"
                       r"fake_hidden_irreducible)\b")


def _h(text: str) -> str:
    # Lean's terms do not depend on layout: whitespace is dropped before hashing
    return str(int(hashlib.sha256("".join(text.split()).encode()).hexdigest()[:15], 16))


def audit_of(text: str, module: str) -> dict:
    masked = F.mask(text)
    events = sorted([(m.start(), "scope", m) for m in SCOPE.finditer(masked)]
                    + [(m.start(), "decl", m) for m in DECL.finditer(masked)], key=lambda e: e[0])
    ns: list[list[str]] = []
    consts: list[dict] = []
    ext = {"Lean.Meta.instanceExtension": 0, "Lean.Meta.simpExtension": 0,
           "Lean.reducibilityExtraExt": 0, "Lean.Parser.parserExtension": 0}
    ends = [e[0] for e in events] + [len(masked)]
    commands = F._command_starts(masked) + [len(masked)]
    for k, (at, what, m) in enumerate(events):
        if what == "scope":
            word, arg = m.group(1), m.group(2)
            if word == "namespace" and arg:
                ns.append(arg.split("."))
            elif word == "section":
                ns.append([])
            elif word == "end" and ns:
                ns.pop()
            continue
        kw, mods, attrs = m.group("kw"), m.group("mods").split(), m.group("attrs")
        if kw == "example":  # elaborated, then dropped: ends the previous chunk, adds nothing
            continue
        stop = min([ends[k + 1]] + [c for c in commands if c > m.start("kw")])
        chunk = masked[m.start("rest"):stop]
        prefix = [p for part in ns for p in part]
        name_m = re.match(r"\s+(?:\(priority\s*:=\s*\w+\)\s*)?([^\s(:{\[⦃]+)", chunk)
        if name_m and name_m.group(1) not in (":", ":="):
            short = name_m.group(1)
            full = short[7:] if short.startswith("_root_.") else ".".join(prefix + [short])
        elif kw == "instance":
            cls = re.findall(r"[A-Z]\w*", chunk.split(":=")[0].split(" where")[0])
            full = ".".join(prefix + ["inst" + "".join(cls[:2])])
        else:
            continue
        if "private" in mods:
            full = f"_private.{module}.0.{full}"
        sig, _, body = chunk.partition(":=")
        rec = {"name": full, "kind": KIND[kw], "unsafe": "unsafe" in mods,
               "partial": "partial" in mods, "type": _h(sig),
               "value": _h(body) if KIND[kw] == "def" else ""}
        consts.append(rec)
        if kw in ("structure", "class", "inductive"):
            consts.append(rec | {"name": full + ".rec", "kind": "recursor", "value": ""})
            consts.append(rec | {"name": full + ".mk", "kind": "constructor", "value": ""})
        ext["Lean.Meta.instanceExtension"] += kw == "instance"
        ext["Lean.Meta.simpExtension"] += "simp" in attrs
        ext["Lean.reducibilityExtraExt"] += kw == "abbrev" or "reducible" in attrs
    for m in re.finditer(r"(?m)^[ \t]*attribute\s*\[([^\]]*)\][^\n]*", masked):
        if re.search(r"\blocal\b", m.group(1)) or re.search(r"\bin\s*$", m.group(0)):
            continue  # local, or scoped to the next command: not exported in the .olean
        ext["Lean.Meta.instanceExtension"] += "instance" in m.group(1)
        ext["Lean.reducibilityExtraExt"] += "reducible" in m.group(1)
    for n, m in enumerate(re.finditer(r"(?m)^[ \t]*(?:local\s+|scoped\s+)?(notation|infixl?|"
                                      r"infixr|prefix|postfix|macro|syntax|macro_rules|elab|"
                                      r"elab_rules)\b", masked)):
        ext["Lean.Parser.parserExtension"] += 1
        consts.append({"name": f"{module}._aux_{m.group(1)}_{n}", "kind": "def", "unsafe": False,
                       "partial": False, "type": _h(m.group(1)), "value": _h(m.group(0))})
    kernel = {"kernel": "ok"}
    by = {c["name"]: c for c in consts}
    for d in DIRECTIVE.finditer(text):
        if d.group(1):
            consts.append({"name": d.group(3), "kind": KIND.get(d.group(2), d.group(2)),
                           "unsafe": False, "partial": False, "type": _h(d.group(0)),
                           "value": ""})
        elif d.group(4):
            c = by.get(d.group(5)) or by.get(f"_private.{module}.0.{d.group(5)}")
            if d.group(4) == "fake_type_drift" and c:
                c["type"] = _h(c["type"] + "drift")
            elif d.group(4) == "fake_unsafe" and c:
                c["unsafe"] = True
            elif d.group(4) == "fake_kernel_reject":
                kernel = {"kernel": "error", "message": f"(kernel) declaration type mismatch, "
                          f"'{d.group(5)}' has type\n  True\nbut it is expected to have type\n"
                          "  False"}
        elif d.group(6) == "fake_hidden_instance":
            ext["Lean.Meta.instanceExtension"] += 1
        else:
            ext["Lean.reducibilityExtraExt"] += 1
    imports = re.findall(r"(?m)^import\s+(\S+)", masked)
    return {"module": module, "imports": imports, "constants": consts,
            "ext": {k: v for k, v in ext.items() if v}, "kernel": kernel}


def write_olean(argv: list[str], source: str) -> None:
    """`lean … --root=DIR -o OLEAN FILE`: the 'olean' of a file that elaborated without error."""
    out = argv[argv.index("-o") + 1]
    root = next((a.split("=", 1)[1] for a in argv if a.startswith("--root=")), ".")
    src = next(a for a in argv if a.endswith(".lean"))
    module = os.path.relpath(src, root)[:-5].replace(os.sep, ".")
    with open(source, encoding="utf-8") as fh:
        data = audit_of(fh.read(), module)
    with open(out, "w", encoding="utf-8") as fh:
        json.dump(data, fh)


def main(args: list[str]) -> int:
    """`lean --run AuditModule.lean OLEAN`."""
    mode = os.environ.get("FAKE_AUDIT", "")
    if mode == "fail" or len(args) != 1:
        sys.stdout.write("AuditModule.lean:97:2: error: Unknown constant `Lean.Environment.replay`\n")
        return 1
    try:
        with open(args[0], encoding="utf-8") as fh:
            data = json.load(fh)
    except (OSError, ValueError):
        sys.stderr.write(f"uncaught exception: failed to read file '{args[0]}', invalid header\n")
        return 1
    w = sys.stdout.write
    w(json.dumps({"module": data["module"], "imports": data["imports"], "isModule": False}) + "\n")
    for n, c in enumerate(data["constants"]):
        w(json.dumps(c, ensure_ascii=False) + "\n")
        if mode == "garbage" and n == 0:
            w("PANIC at Lean.Environment.replay\n")
        if mode == "hang" and n == 0:
            sys.stdout.flush()
            F.hang_forever()
    for k, v in data["ext"].items():
        w(json.dumps({"ext": k, "entries": v}) + "\n")
    w(json.dumps(data["kernel"], ensure_ascii=False) + "\n")
    if mode != "cut":
        w(json.dumps({"done": len(data["constants"])}) + "\n")
    sys.stdout.flush()
    return 0
