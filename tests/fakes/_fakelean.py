"""Shared core of the Lean test doubles (`lake`, `lean`, `repl` in this directory).

The judgement is deterministic and computed from the file text (contract: tests/fakes/README.md);
message *shapes* are copied from real recorded output (/work/shared/reference/lean-interfaces.md
§1.5–1.7, recorded copies in tests/fixtures/lean/). This module deliberately does not import
`harness`: the doubles must not share code (or bugs) with the parser they test.
"""

from __future__ import annotations

import json
import os
import re
import sys
import time
from dataclasses import dataclass, field

FAKES_DIR = os.path.dirname(os.path.abspath(__file__))
DECL_KEYWORDS = ("theorem", "lemma", "def", "abbrev", "instance", "example", "axiom", "opaque",
                 "structure", "inductive", "class")
MODIFIERS = ("private", "protected", "noncomputable", "partial", "unsafe", "nonrec")
CONTINUATION = ("|", "termination_by", "decreasing_by", "deriving", "where", "with", ")", "]",
                "}", "·", ".")
SORRY_TOKENS = ("sorry", "sorry_using", "admit")
STD_AXIOMS = ["propext", "Classical.choice", "Quot.sound"]
IDENT = re.compile(r"[^\W\d][\w'!?.\u2070-\u209f]*")
SIMP_TACTICS = ("simp", "simp_all", "simpa")
USED_FN = "harnessUsedConstsOf"  # harness.lean.usedconsts: the used-constants query
TRIVIAL_BODY = re.compile(r"^(by\s+)?(rfl|trivial|decide|sorry|admit|\d+)$")


# Statements Lean rejects (README rule 8): a token in a declaration -> a real-format elaboration
# error at it. Shapes: "Application type mismatch: The argument …" (Lean >= 4.22, as quoted in
# public prompts/tests collected for lean-interfaces.md) and "failed to synthesize" with Lean's
# diagnostics hint (as the heartbeat message above).
ELAB_ERRORS = ("fake_elab_mismatch", "fake_elab_instance")


def elab_error(tok: str, statement: str) -> str:
    if tok == "fake_elab_mismatch":
        return ("Application type mismatch: The argument\n  fake_elab_mismatch\nhas type\n  ℕ : "
                f"Type\nbut is expected to have type\n  Prop : Type\nin the application\n  "
                f"{statement}")
    return ("failed to synthesize\n  HAdd ℕ ℝ ?m.12\n\nHint: Additional diagnostic information "
            "may be available using the `set_option diagnostics true` command.")


# ----------------------------------------------------------------------------- versions, logging

def version() -> str:
    return os.environ.get("FAKE_LEAN_VERSION", "4.32.0")


def version_tuple() -> tuple[int, int]:
    m = re.match(r"(\d+)\.(\d+)", version())
    return (int(m.group(1)), int(m.group(2))) if m else (4, 32)


def log_invocation(tool: str, argv: list[str]) -> None:
    path = os.environ.get("FAKE_LEAN_LOG")
    if path:
        with open(path, "a", encoding="utf-8") as fh:
            fh.write(json.dumps([tool, *argv]) + "\n")


def lean_version_line() -> str:
    return (f"Lean (version {version()}, x86_64-unknown-linux-gnu, "
            f"commit 4f7a1c2b9e0d3f5a6b8c7d9e0f1a2b3c4d5e6f70, Release)")


# ----------------------------------------------------------------------------- masking

def mask(text: str) -> str:
    """Comments and string contents -> spaces (newlines kept), so token scans never see them."""
    out = list(text)
    i, n = 0, len(text)

    def blank(a: int, b: int) -> None:
        for k in range(a, b):
            if out[k] != "\n":
                out[k] = " "

    while i < n:
        c = text[i]
        if text.startswith("--", i):
            j = text.find("\n", i)
            j = n if j == -1 else j
            blank(i, j)
            i = j
        elif text.startswith("/-", i):
            depth, j = 1, i + 2
            while j < n and depth:
                if text.startswith("/-", j):
                    depth, j = depth + 1, j + 2
                elif text.startswith("-/", j):
                    depth, j = depth - 1, j + 2
                else:
                    j += 1
            blank(i, j)
            i = j
        elif c == '"':
            j = i + 1
            while j < n and text[j] != '"':
                j += 2 if text[j] == "\\" else 1
            blank(i + 1, min(j, n))
            i = j + 1
        else:
            i += 1
    return "".join(out)


def line_starts(text: str) -> list[int]:
    starts = [0]
    for i, c in enumerate(text):
        if c == "\n":
            starts.append(i + 1)
    return starts


def pos_of(starts: list[int], offset: int) -> tuple[int, int]:
    lo, hi = 0, len(starts) - 1
    while lo < hi:
        mid = (lo + hi + 1) // 2
        if starts[mid] <= offset:
            lo = mid
        else:
            hi = mid - 1
    return lo + 1, offset - starts[lo]


# ----------------------------------------------------------------------------- commands

@dataclass
class Decl:
    kind: str
    name: str | None  # full name
    ns: str
    start: int  # command start (attributes included)
    kw_start: int
    name_start: int
    name_end: int
    end: int
    body: str = ""  # masked text after the name
    has_sorry: bool = False
    has_error: bool = False
    native: bool = False
    trivial: bool = False
    refs: set[str] = field(default_factory=set)
    simp: bool = False  # carries `@[simp]`


@dataclass
class Msg:
    severity: str  # information | warning | error
    start: int
    end: int | None
    data: str
    kind: str = "[anonymous]"
    line0: bool = False  # REPL tactic mode: pos {0,0}


def _command_starts(masked: str) -> list[int]:
    starts, offset = [], 0
    for line in masked.split("\n"):
        if line and not line[0].isspace():
            tok = line.split()[0]
            if not any(tok == c or (c in "|)]}·" and tok.startswith(c)) for c in CONTINUATION):
                starts.append(offset)
        offset += len(line) + 1
    return starts


def _skip_attrs(masked: str, i: int, end: int) -> int:
    while True:
        while i < end and masked[i].isspace():
            i += 1
        if masked.startswith("@[", i):
            depth, j = 0, i + 1
            while j < end:
                if masked[j] == "[":
                    depth += 1
                elif masked[j] == "]":
                    depth -= 1
                    if depth == 0:
                        break
                j += 1
            i = j + 1
            continue
        m = re.match(r"(%s)\b" % "|".join(MODIFIERS), masked[i:end])
        if m:
            i += m.end()
            continue
        return i


def _resolve_hidden(token: str, ns: str, names: dict[str, "Decl"], opened: list[str]
                    ) -> str | None:
    """Real Lean also finds what the text does not name plainly: a field access on a
    constant (`h.symm` uses `h`) and names under an `open NS in` inside the body."""
    for ns_try in [ns, *(f"{ns}.{o}" if ns else o for o in opened), *opened]:
        parts = token.split(".")
        for k in range(len(parts), 0, -1):
            hit = _resolve(".".join(parts[:k]), ns_try, names)
            if hit is not None:
                return hit
    return None


def _resolve(token: str, ns: str, names: dict[str, "Decl"]) -> str | None:
    if token.startswith("_root_."):
        token = token[len("_root_."):]
        return token if token in names else None
    parts = ns.split(".") if ns else []
    for k in range(len(parts), -1, -1):
        cand = ".".join(parts[:k] + [token])
        if cand in names:
            return cand
    return None


def _elaboration_cost(masked: str, decls: int) -> None:
    """The cost model (off unless set): FAKE_LEAN_IMPORT_S seconds per `import` line elaborated
    (a REPL pays it once, for its header command) and FAKE_LEAN_DECL_S per declaration."""
    imp = float(os.environ.get("FAKE_LEAN_IMPORT_S") or 0)
    per = float(os.environ.get("FAKE_LEAN_DECL_S") or 0)
    if imp or per:
        n = len(re.findall(r"(?m)^import\s", masked))
        time.sleep(imp * n + per * decls)


class Judge:
    """Judge a file's text: declarations, messages, `#print axioms` answers."""

    def __init__(self, text: str, prior: list[Decl] | None = None) -> None:
        self.text = text
        self.masked = mask(text)
        self.decls: list[Decl] = []
        self.messages: list[Msg] = []
        self.names: dict[str, Decl] = {d.name: d for d in (prior or []) if d.name}
        self.hang = self.oom = self.garbage = self.crash = False
        self.crash_at: int | None = None
        self._run()
        _elaboration_cost(self.masked, len(self.decls))

    # -- scanning
    def _run(self) -> None:
        masked = self.masked
        starts = _command_starts(masked) + [len(masked)]
        ns_stack: list[str] = []
        for k in range(len(starts) - 1):
            a, b = starts[k], starts[k + 1]
            chunk = masked[a:b]
            head = chunk.split()
            if not head:
                continue
            ns = ".".join(ns_stack)
            if head[0] == "namespace" and len(head) > 1:
                ns_stack.extend(head[1].split("."))
            elif head[0] == "end":
                if len(head) > 1 and ns_stack:
                    del ns_stack[len(ns_stack) - len(head[1].split(".")):]
            elif head[0] in ("#check", "set_option") and self._check(a, chunk, ns):
                pass  # `[set_option … in] #check (@X)`: see _fakecheck.py
            elif head[0] == "#print" and len(head) > 2 and head[1] == "axioms":
                self._print_axioms(a, head[2], ns)
            elif head[0] == "#eval" and len(head) > 1 and head[1] == USED_FN:
                self._used(a, head)
            else:
                i = _skip_attrs(masked, a, b)
                m = re.match(r"(%s)\b" % "|".join(DECL_KEYWORDS), masked[i:b])
                if m:
                    self._decl(m.group(1), i, b, ns, attrs=masked[a:i])
            if self.crash:
                self.crash_at = a
                break

    def _decl(self, kind: str, kw: int, end: int, ns: str, attrs: str = "") -> None:
        masked = self.masked
        j = kw + len(kind)
        m = re.compile(r"\s+(?:\(priority\s*:=\s*\w+\)\s*)?([^\s(:{\[⦃]+)").match(masked, j)
        name = None
        ns_start, ns_end = kw, kw + len(kind)
        if kind != "example" and m and m.group(1) not in (":", ":="):
            short = m.group(1)
            name = short[len("_root_."):] if short.startswith("_root_.") else (
                f"{ns}.{short}" if ns else short)
            ns_start, ns_end = m.start(1), m.end(1)
            j = m.end(1)
        while end > j and masked[end - 1].isspace():
            end -= 1
        d = Decl(kind, name, ns, kw, kw, ns_start, ns_end, end, body=masked[j:end])
        d.simp = bool(re.search(r"@\[[^\]]*\bsimp\b", attrs))
        opened = re.findall(r"\bopen\s+([\w.]+)\s+in\b", d.body)  # `open NS in` inside the body
        body_after = d.body.split(":=", 1)[1].strip() if ":=" in d.body else ""
        d.trivial = kind in ("axiom", "structure", "inductive", "class") or bool(
            TRIVIAL_BODY.match(" ".join(body_after.split())))
        for t in IDENT.finditer(d.body):
            tok, pos = t.group(0), j + t.start()
            if tok in SORRY_TOKENS:
                d.has_sorry = True
            elif tok.startswith("bogus"):
                d.has_error = True
                newer = version_tuple() >= (4, 28)
                data = f"Unknown identifier `{tok}`" if newer else f"unknown identifier '{tok}'"
                knd = "lean.unknownIdentifier._namedError" if version_tuple() >= (4, 22) else "[anonymous]"
                self.messages.append(Msg("error", pos, pos + len(tok), data, knd))
            elif tok == "fake_heartbeat":
                d.has_error = True
                self.messages.append(Msg(
                    "error", pos, pos + len(tok), "(deterministic) timeout at `whnf`, maximum number "
                    "of heartbeats (200000) has been reached\n\nNote: Use `set_option maxHeartbeats "
                    "<num>` to set the limit.\n\nHint: Additional diagnostic information may be "
                    "available using the `set_option diagnostics true` command."))
            elif tok in ELAB_ERRORS:
                d.has_error = True
                self.messages.append(Msg("error", pos, pos + len(tok),
                                         elab_error(tok, self._statement(d))))
            elif tok == "native_decide":
                d.native = True
            elif tok == "fake_hang":
                self.hang = True
            elif tok == "fake_oom":
                self.oom = True
            elif tok == "fake_garbage":
                self.garbage = True
            elif tok == "fake_crash":
                self.crash = True
            else:
                target = _resolve_hidden(tok, ns, self.names, opened)
                if target and target != name:
                    d.refs.add(target)
                if tok in SIMP_TACTICS:  # the default simp set: every earlier `@[simp]` lemma
                    d.refs.update(n for n, e in self.names.items() if e.simp and n != name)
        if d.has_sorry:
            sorry = "declaration uses `sorry`" if version_tuple() >= (4, 28) else "declaration uses 'sorry'"
            self.messages.append(Msg("warning", ns_start, ns_end, sorry, "hasSorry"))
        self.decls.append(d)
        if name:
            self.names[name] = d

    @staticmethod
    def _statement(d: Decl) -> str:
        """The declared type (after the top-level `:`), whitespace collapsed."""
        import _fakecheck  # imported lazily: it imports this module
        _binders, typ, _body = _fakecheck.signature(d)
        return typ or "?"

    def _check(self, start: int, chunk: str, ns: str) -> bool:
        import _fakecheck  # imported lazily: it imports this module
        return _fakecheck.handle(self, start, chunk, ns)

    # -- axioms
    def axioms_of(self, name: str) -> list[str]:
        seen: list[Decl] = []
        todo = [name]
        while todo:
            d = self.names.get(todo.pop())
            if d is None or d in seen:
                continue
            seen.append(d)
            todo.extend(d.refs)
        ax: list[str] = []
        if not all(d.trivial for d in seen):
            ax += STD_AXIOMS
        if any(d.has_sorry or d.has_error for d in seen):
            ax.append("sorryAx")
        ax += [f"{d.name}._native.native_decide.ax_1_1" for d in seen if d.native]
        ax += [d.name for d in seen if d.kind == "axiom" and d.name]
        return ax

    def _print_axioms(self, start: int, token: str, ns: str) -> None:
        end = start + len("#print")
        target = _resolve(token, ns, self.names)
        if target is None:
            data = (f"Unknown constant `{token}`" if version_tuple() >= (4, 28)
                    else f"unknown constant '{token}'")
            self.messages.append(Msg("error", start + len("#print axioms "),
                                     start + len("#print axioms ") + len(token), data))
            return
        ax = self.axioms_of(target)
        data = (f"'{target}' depends on axioms: [{', '.join(ax)}]" if ax
                else f"'{target}' does not depend on any axioms")
        self.messages.append(Msg("information", start, end, data))

    def _used(self, start: int, head: list[str]) -> None:
        """`#eval harnessUsedConstsOf harnessUsedTargets `X`: the targets X uses, walking
        through the file's other declarations (as Lean walks auxiliary constants). Real Lean
        needs the `Lean` namespace: without any `import` the query is an error."""
        if not re.search(r"^import\s", self.masked, re.M):
            self.messages.append(Msg("error", start, start + 5, "unknown namespace `Lean`"))
            return
        targets = set(re.findall(r"`([^\s,\]]+)", self._targets_text()))
        root = head[-1].lstrip("`").replace("«", "").replace("»", "")
        hit: list[str] = []
        seen: set[str] = set()
        todo = sorted(self.names[root].refs) if root in self.names else []
        while todo:
            c = todo.pop(0)
            if c in seen or c == root:
                continue
            seen.add(c)
            if c in targets:
                hit.append(c)
            elif c in self.names:
                todo = sorted(self.names[c].refs) + todo
        self.messages.append(Msg("information", start, start + 5,
                                 f"harness-used {root}: [{', '.join(hit)}]"))

    def _targets_text(self) -> str:
        m = re.search(r"^def harnessUsedTargets\b[^\n]*", self.text, re.M)
        return m.group(0) if m else ""

    @property
    def has_error(self) -> bool:
        return any(m.severity == "error" for m in self.messages)

    def sorted_messages(self) -> list[Msg]:
        return sorted(self.messages, key=lambda m: m.start)


# ----------------------------------------------------------------------------- behaviours

def hang_forever() -> None:
    """`fake_hang`: spawn a grandchild in our process group, record both pids, sleep forever."""
    import subprocess
    child = subprocess.Popen([sys.executable, "-c", "import time\nwhile True: time.sleep(60)"])
    pidfile = os.environ.get("FAKE_LEAN_PIDFILE")
    if pidfile:
        with open(pidfile, "w", encoding="utf-8") as fh:
            fh.write(f"{os.getpid()} {child.pid}\n")
    while True:
        time.sleep(60)


def eat_memory() -> None:
    """`fake_oom`: allocate until RLIMIT_AS stops us, then die like Lean's allocator does."""
    import resource
    soft, _hard = resource.getrlimit(resource.RLIMIT_AS)
    if soft == resource.RLIM_INFINITY:  # never eat the machine: cap ourselves at 2 GiB
        resource.setrlimit(resource.RLIMIT_AS, (2 << 30, resource.RLIM_INFINITY))
    hoard = []
    try:
        while True:
            hoard.append(bytearray(32 << 20))
    except MemoryError:
        hoard.clear()
        os.write(2, b"INTERNAL PANIC: out of memory\n")
        os._exit(1)


def crash() -> None:
    sys.stderr.write("INTERNAL PANIC: unreachable code has been reached\n")
    sys.stderr.flush()
    os._exit(134)
