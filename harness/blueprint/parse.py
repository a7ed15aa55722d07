"""Parse a Lean file with LeanArchitect `@[blueprint …]` annotations into a :class:`Blueprint`.

The parser is structural, not an elaborator: it splits the file into top-level commands (a command
starts at column 0 with a command keyword, an attribute, a modifier or a doc comment — Lean code
indents everything else), tracks `namespace`/`section`/`open`/`variable`/`universe` scopes, and reads
each declaration's attribute, signature and body. All scanning is done on the masked text
(comments and literals blanked), so nothing inside a comment or a string is ever taken for code.
"""

from __future__ import annotations

import re
from bisect import bisect_left
from pathlib import Path

from harness.blueprint import attrs as attr_parse
from harness.blueprint.lexer import IDENT, Region, mask_regions, regions, strip_guillemets
from harness.blueprint.scope import ScopeTracker
from harness.blueprint.model import (
    Blueprint, BodyStatus, Command, CommandKind, Decl, DeclKind, Finding, Span, gc_paused,
    line_starts, pos_from_starts,
)
from harness.blueprint.source import decode, parse_file
from harness.errors import InputError

__all__ = ["decode", "parse_file", "parse_text"]

DECL_KEYWORDS = {k.value for k in DeclKind}
MODIFIERS = {"private", "protected", "noncomputable", "partial", "unsafe", "nonrec", "scoped",
             "local", "public", "meta"}  # `public`/`meta`: the module system (`public import`)
OTHER_COMMANDS = {
    "module", "import", "namespace", "section", "end", "open", "variable", "variables", "universe",
    "universes", "set_option", "attribute", "export", "mutual", "macro", "macro_rules", "syntax",
    "elab", "elab_rules", "notation", "notation3", "infix", "infixl", "infixr", "prefix",
    "postfix", "declare_syntax_cat", "run_cmd", "run_tac", "run_elab", "initialize",
    "builtin_initialize", "include", "omit", "add_decl_doc", "assert_not_exists",
    "suppress_compilation", "alias", "irreducible_def", "unseal", "seal", "register_option",
    "register_simp_attr", "compile_inductive", "library_note", "proof_wanted", "deriving",
    "simproc", "dsimproc", "builtin_simproc", "binder_predicate", "unif_hint", "grind_pattern",
    "initialize_simps_projections", "mk_iff_of_inductive_prop", "add_aesop_rules",
    "declare_aesop_rule_sets", "count_heartbeats", "assert_not_imported", "run_meta",
}
DECL_MODIFIERS = {"private", "protected", "noncomputable", "partial", "unsafe", "nonrec"}
# Words that may start a command on an indented line (members of a `mutual` block, declarations
# indented inside a namespace): none of them can begin a line of a term or a tactic block.
INDENTED_STARTS = DECL_KEYWORDS | DECL_MODIFIERS | {"mutual", "namespace", "section", "end"}
IN_PREFIXES = {"open", "set_option", "variable", "include", "omit", "attribute"}
START_WORDS = DECL_KEYWORDS | MODIFIERS | OTHER_COMMANDS
KIND_OF = {
    "import": CommandKind.IMPORT, "namespace": CommandKind.NAMESPACE,
    "section": CommandKind.SECTION, "end": CommandKind.END, "open": CommandKind.OPEN,
    "variable": CommandKind.VARIABLE, "variables": CommandKind.VARIABLE,
    "universe": CommandKind.UNIVERSE, "universes": CommandKind.UNIVERSE,
    "set_option": CommandKind.SET_OPTION, "attribute": CommandKind.ATTRIBUTE,
}

_LINE_START = re.compile(r"^(@\[|#[A-Za-z_]+|[A-Za-z_][A-Za-z_0-9]*)", re.M)
_INDENTED = re.compile(r"^[ \t]+(@\[|[A-Za-z_][A-Za-z_0-9]*)", re.M)
_EXIT = re.compile(r"^#exit\b", re.M)
_WS = re.compile(r"\s*")
_WORD = re.compile(r"[A-Za-z_#][A-Za-z_0-9]*")
_IN_PREFIX = re.compile(r"[^\n]*?\sin(?=\s|$)")
_SEPARATOR = re.compile(r"[()\[\]{}⟨⟩⦃⦄]|:=|(?<![\w.'])(?:where|let|have)(?![\w'!?])|\|")
_BODY_MARK = re.compile(r"(?<![\w.'!?])(sorry_using|sorry|admit)(?![\w'!?])")
_OPENERS = "([{⟨⦃"
_CLOSERS = ")]}⟩⦄"
_SPACES = re.compile(r"\s+")
_BRACKETS = re.compile(r"[\[\]()]")
_BLUEPRINT_ENTRY = re.compile(r"blueprint\??(?![\w'])")

def parse_text(text: str, path: str | Path | None = None, *, bom: bool = False) -> Blueprint:
    with gc_paused():
        return _Parser(text, Path(path) if path is not None else None, bom).run()


class _Parser:
    def __init__(self, text: str, path: Path | None, bom: bool) -> None:
        self.text = text
        self.path = path
        self.bom = bom
        self.regs: list[Region] = _regions_to_exit(text, path)
        self.masked = mask_regions(text, self.regs)
        # comments blanked but literals kept: where a span may end or a body begin
        self.cmask = mask_regions(text, [r for r in self.regs if r.kind != "string"
                                         and r.kind != "char"])
        self.starts = line_starts(text)
        self.region_at = {r.start: r for r in self.regs}
        self.doc_at = {r.start: r for r in self.regs if r.kind in ("doc_comment", "module_doc")}
        self.doc_starts = sorted(self.doc_at)
        self.doc_by_end = {r.end: r for r in self.doc_at.values()}
        self.doc_ends = sorted(self.doc_by_end)
        self.comments = [r for r in self.regs if r.kind.endswith("comment") or r.kind == "module_doc"]
        self.comment_ends = [r.end for r in self.comments]
        self.findings: list[Finding] = []
        self.scopes = ScopeTracker()
        self.decls: list[Decl] = []
        self.tagged: dict[str, str] = {}  # `attribute [blueprint "l"] X` for X not in this file
        self._brackets: dict[int, int] = {}  # `@[` brackets are matched by segments() and head()

    # -- helpers ---------------------------------------------------------------------------
    def pos(self, offset: int):
        return pos_from_starts(self.starts, offset)

    def error(self, offset: int, message: str) -> InputError:
        p = self.pos(offset)
        return InputError(self.path, p.line, p.col, message)

    def finding(self, code: str, offset: int, message: str, label: str | None = None) -> None:
        self.findings.append(Finding(code, message, self._display, self.pos(offset), label))

    @property
    def _display(self) -> str:
        return str(self.path) if self.path is not None else "<input>"

    def skip_ws(self, i: int, end: int) -> int:
        """Skip whitespace and comments (not literals)."""
        return min(_WS.match(self.cmask, i).end(), end)

    def skip_to_code(self, i: int, end: int) -> int:
        """Skip whitespace and comments, but stop at a doc comment (it belongs to a command)."""
        j = self.skip_ws(i, end)
        k = bisect_left(self.doc_starts, i)
        if k < len(self.doc_starts) and self.doc_starts[k] < j:
            return self.doc_starts[k]
        return j

    def skip_trivia(self, i: int, end: int) -> int:
        """Skip whitespace and ordinary comments; stop at code, a literal or a doc comment."""
        while True:
            i = self.skip_ws_text(i, end)
            r = self.region_at.get(i)
            if r is None or r.kind not in ("line_comment", "block_comment"):
                return i
            i = min(r.end, end)

    def skip_ws_text(self, i: int, end: int) -> int:
        """Like :meth:`skip_ws` but on the real text (does not jump over comments/literals)."""
        return min(_WS.match(self.text, i).end(), end)

    def trim_end_text(self, start: int, end: int) -> int:
        t = self.text
        while end > start and t[end - 1].isspace():
            end -= 1
        return end

    def match_bracket(self, i: int, what: str) -> int:
        """Offset just past the bracket closing the one at ``i`` (on the masked text)."""
        hit = self._brackets.get(i)
        if hit is not None:
            return hit
        depth = 0
        for mm in _BRACKETS.finditer(self.masked, i):
            ch = mm.group(0)
            if ch in "[(":
                depth += 1
            else:
                depth -= 1
                if depth == 0:
                    self._brackets[i] = mm.end()
                    return mm.end()
        raise self.error(i, f"unterminated {what}")

    def trim_end(self, start: int, end: int) -> int:
        """Back over trailing whitespace and comments (a trailing literal stays in the span)."""
        m = self.cmask
        while end > start and m[end - 1].isspace():
            end -= 1
        return end

    def clean(self, start: int, end: int) -> str:
        """Source text of a range with comments removed and whitespace collapsed."""
        parts, last = [], start
        k = bisect_left(self.comment_ends, start)
        for r in self.comments[k:]:
            if r.start >= end:
                break
            parts.append(self.text[last:max(r.start, start)])
            last = min(r.end, end)
        parts.append(self.text[last:end])
        return _SPACES.sub(" ", " ".join(parts)).strip()

    # -- top level -------------------------------------------------------------------------
    def run(self) -> Blueprint:
        segments = self.segments()
        commands: list[Command] = []
        decls: list[Decl] = []
        pending: int | None = None
        for seg_start, seg_end in segments:
            start = seg_start if pending is None else pending
            head = self.head(start, seg_end)
            if head is None:
                pending = start
                continue
            pending = None
            cmd = self.command(start, seg_end, head)
            commands.append(cmd)
            if cmd.decl is not None:
                decls.append(cmd.decl)
                self.decls.append(cmd.decl)
        if pending is not None:
            raise self.error(pending, "attribute, modifier or doc comment not followed by a "
                             "declaration")
        # Scopes still open at the end of the file are closed by Lean itself: not a finding.
        header_end = 0
        for c in commands:
            if (c.kind in (CommandKind.IMPORT, CommandKind.MODULE_DOC, CommandKind.SET_OPTION)
                    or c.keyword == "module"):
                header_end = c.span.end
            else:
                break
        self.check_labels(decls)
        bp = Blueprint(self.path, self.text, self.bom, commands, decls, Span(0, header_end),
                       self.findings, self.starts, self.masked)
        bp.tagged = self.tagged
        return bp

    def segments(self) -> list[tuple[int, int]]:
        """Split points: column-0 command words, attributes, doc comments and module docs."""
        cuts: list[int] = []
        skip_until = -1
        m = self.masked
        doc_starts = sorted(s for s in self.doc_at if s == 0 or self.text[s - 1] == "\n")
        di = 0
        for mm in _LINE_START.finditer(m):
            s = mm.start()
            while di < len(doc_starts) and doc_starts[di] < s:
                if doc_starts[di] >= skip_until:
                    cuts.append(doc_starts[di])
                di += 1
            if s < skip_until:
                continue
            word = mm.group(1)
            if word == "@[":
                cuts.append(s)
                skip_until = self.match_bracket(s + 1, "attribute `@[`")
            elif word.startswith("#") or word in START_WORDS:
                if word == "deriving" and not m.startswith("instance", self.skip_ws(mm.end(), len(m))):
                    continue
                cuts.append(s)
        while di < len(doc_starts):
            if doc_starts[di] >= skip_until:
                cuts.append(doc_starts[di])
            di += 1
        cuts.extend(self.indented_starts())
        cuts = sorted(set(cuts))
        bounds = cuts + [len(self.text)]
        segs = [(bounds[i], bounds[i + 1]) for i in range(len(cuts))]
        first = cuts[0] if cuts else len(m)
        if m[:first].strip():
            raise self.error(self.skip_ws(0, first), "unexpected text before the first command "
                             "(not a Lean file?)")
        return segs

    def indented_starts(self) -> list[int]:
        """Declarations on indented lines (`mutual` members, indented namespace bodies), with the
        doc comment or attributes in front of them."""
        m = self.masked
        out: list[int] = []
        for mm in _INDENTED.finditer(m):
            word = mm.group(1)
            if word not in INDENTED_STARTS and word != "@[":
                continue
            s = mm.start(1)
            if word == "@[" or word in DECL_MODIFIERS:  # must lead to a declaration keyword
                j = s
                while True:
                    j = self.skip_ws(j, len(m))
                    if m.startswith("@[", j):
                        j = self.match_bracket(j + 1, "attribute `@[`")
                        continue
                    w = _WORD.match(m, j)
                    if w is None or w.group(0) not in DECL_MODIFIERS:
                        break
                    j = w.end()
                w = _WORD.match(m, j)
                if w is None or w.group(0) not in DECL_KEYWORDS:
                    continue
            k = bisect_left(self.doc_ends, s) - 1  # a doc comment right before it
            if k >= 0 and not m[self.doc_ends[k]:s].strip():
                r = self.doc_by_end[self.doc_ends[k]]
                if r.kind == "doc_comment":
                    s = r.start
            out.append(s)
        return out

    def head(self, start: int, end: int) -> dict | None:
        """Walk the prefix (doc comment, attributes, modifiers, `open … in`) to the keyword."""
        m = self.masked
        i = self.skip_to_code(start, end)
        doc: Region | None = None
        attrs: list[tuple[int, int]] = []
        mods: list[str] = []
        scope_prefix: list[tuple[int, int]] = []
        while i < end:
            r = self.doc_at.get(i)
            if r is not None:
                if r.kind == "module_doc":
                    return {"keyword": "/-!", "at": i, "doc": None, "attrs": [], "mods": [],
                            "prefix": []}
                doc = r
                i = self.skip_to_code(r.end, end)
                continue
            if m.startswith("@[", i):
                j = self.match_bracket(i + 1, "attribute `@[`")
                attrs.append((i, j))
                i = self.skip_to_code(j, end)
                continue
            w = _WORD.match(m, i)
            if w is None:
                raise self.error(i, f"unexpected `{self.text[i]}` at the start of a command")
            word = w.group(0)
            if word in MODIFIERS:
                mods.append(word)
                i = self.skip_ws(w.end(), end)
                if word == "scoped" and m.startswith("[", i):  # `scoped[NS] notation …`
                    i = self.skip_ws(self.match_bracket(i, "`scoped[…]`"), end)
                continue
            if word in IN_PREFIXES:
                pm = _IN_PREFIX.match(m, w.end())
                if pm is not None and pm.end() <= end:
                    scope_prefix.append((i, pm.end()))
                    i = self.skip_ws(pm.end(), end)
                    continue
            return {"keyword": word, "at": i, "doc": doc, "attrs": attrs, "mods": mods,
                    "prefix": scope_prefix}
        return None

    def command(self, start: int, end: int, head: dict) -> Command:
        kw = head["keyword"]
        at = head["at"]
        span_end = self.trim_end(start, end)
        span = Span(start, span_end)
        pos = self.pos(at)
        if kw == "/-!":
            return Command(CommandKind.MODULE_DOC, kw, span, pos)
        if kw == "class" and self.masked.startswith("inductive", self.skip_ws(at + 5, end)):
            kw_end = self.skip_ws(at + 5, end) + len("inductive")
            return self.decl(span, head, DeclKind.INDUCTIVE, kw_end)
        if kw in DECL_KEYWORDS:
            return self.decl(span, head, DeclKind(kw), at + len(kw))
        report = lambda code, msg: self.finding(code, at, msg)  # noqa: E731
        if kw in ("section", "namespace", "mutual"):
            self.scopes.open(kw, self.clean(at + len(kw), span_end))
        elif kw == "end":
            self.scopes.close(self.clean(at + 3, span_end), report)
        elif kw in ("open", "variable", "variables", "universe", "universes", "set_option"):
            self.scopes.record(kw, self.clean(at, span_end))
        elif kw == "attribute":
            self.tag(at, span_end)
        kind = KIND_OF.get(kw, CommandKind.OTHER)
        if head["attrs"] and kind not in (CommandKind.OTHER, CommandKind.SECTION):
            self.finding("misplaced-attribute", head["attrs"][0][0],
                         f"attribute before `{kw}`, which is not a declaration")
        return Command(kind, kw, span, pos)

    # -- `attribute [blueprint …] name` --------------------------------------------------
    def tag(self, at: int, end: int) -> None:
        """LeanArchitect nodes added after the fact: `attribute [blueprint "l" …] foo bar`."""
        m = self.masked
        i = self.skip_ws(at + len("attribute"), end)
        if not m.startswith("[", i):
            return
        close = self.match_bracket(i, "attribute list `[`")
        entries = attr_parse.split_entries(m, i + 1, close - 1, self.text)
        blueprints = [(s, e) for s, e in entries if _BLUEPRINT_ENTRY.match(m, self.skip_ws(s, e))]
        if not blueprints:
            return
        targets = [t for t in m[close:end].split() if t != "in"]
        for s, e in blueprints:
            for target in targets:
                attr = attr_parse.parse_blueprint(self, self.skip_ws(s, e), e, Span(at, end))
                d = self.lookup(strip_guillemets(target))
                if d is None:
                    self.tagged[attr.label or target] = target
                elif d.blueprint is not None:
                    self.finding("duplicate-attribute", at,
                                 f"`{d.name}` already has a `blueprint` attribute")
                else:
                    attr.label = attr.label or d.name or target
                    d.blueprint = attr

    def lookup(self, name: str) -> Decl | None:
        ns = list(self.scopes.current([]).namespaces)
        for k in range(len(ns), -1, -1):
            full = ".".join([*ns[:k], name])
            for d in reversed(self.decls):
                if d.name == full:
                    return d
        return None

    # -- declarations ----------------------------------------------------------------------
    def decl(self, span: Span, head: dict, kind: DeclKind, kw_end: int) -> Command:
        m = self.masked
        end = span.end
        i = self.skip_ws(kw_end, end)
        if kind == DeclKind.INSTANCE and m.startswith("(", i):  # `instance (priority := …)`
            i = self.skip_ws(self.match_bracket(i, "instance priority"), end)
        short: str | None = None
        name_at = head["at"]
        if kind != DeclKind.EXAMPLE:
            nm = IDENT.match(self.text, i)
            if nm is not None and nm.end() <= end and m[nm.start()] != " ":
                short = nm.group(0)
                name_at = i
                i = nm.end()
        scope = self.scopes.current([self.clean(s, e) for s, e in head["prefix"]])
        full = None
        if short is not None:
            plain = strip_guillemets(short)
            if plain.startswith("_root_."):
                full = plain[len("_root_."):]
            else:
                full = ".".join([*scope.namespaces, plain]) if scope.namespaces else plain
        sig_start = i
        sep, sep_at, body_start = self.separator(kind, sig_start, end)
        sig_end = self.trim_end(sig_start, sep_at) if sep else end
        body_span = Span(body_start, end) if sep else Span(end, end)
        status, sorry_using = self.body_status(kind, body_span)
        attrs_raw: list[str] = []
        blueprint = None
        for a_start, a_end in head["attrs"]:
            for e_start, e_end in attr_parse.split_entries(self.masked, a_start + 2, a_end - 1, self.text):
                e_start = self.skip_ws(e_start, e_end)  # a comment before the entry
                entry = self.masked[e_start:e_end]
                if _BLUEPRINT_ENTRY.match(entry):
                    if blueprint is not None:
                        self.finding("duplicate-attribute", e_start,
                                     "more than one `blueprint` attribute on a declaration")
                        continue
                    blueprint = attr_parse.parse_blueprint(self, e_start, e_end, Span(a_start, a_end))
                else:
                    attrs_raw.append(_SPACES.sub(" ", self.text[e_start:e_end]).strip())
        if blueprint is not None and not blueprint.label:
            blueprint.label = full or f"{kind.value}@{self.pos(head['at'])}"
        doc_r: Region | None = head["doc"]
        decl = Decl(
            kind=kind, name=full, short_name=short, modifiers=tuple(head["mods"]),
            attributes=tuple(attrs_raw), blueprint=blueprint, scope=scope, span=span,
            head_span=Span(head["at"], end), signature_span=Span(sig_start, sig_end),
            body_span=body_span, body_sep=sep, status=status, sorry_using=sorry_using,
            pos=self.pos(head["at"]), name_pos=self.pos(name_at), end_pos=self.pos(end),
            doc=self.text[doc_r.start + 3:doc_r.end - 2].strip() if doc_r else None,
            group=self.scopes.group,
        )
        return Command(CommandKind.DECL, kind.value, span, decl.pos, decl)

    def separator(self, kind: DeclKind, start: int, end: int) -> tuple[str, int, int]:
        """Find `:=`, `where` or the first `|` arm at bracket depth 0."""
        m = self.masked
        depth = 0
        binders = 0  # `let x := …` / `have h := …` in a statement own the next `:=`
        for mm in _SEPARATOR.finditer(m, start, end):
            tok = mm.group(0)
            if tok in _OPENERS:
                depth += 1
            elif tok in _CLOSERS:
                depth = max(0, depth - 1)
            elif depth == 0:
                s = mm.start()
                if tok in ("let", "have"):
                    binders += 1
                    continue
                if tok == ":=":
                    if binders:
                        binders -= 1
                        continue
                    return ":=", s, self.skip_ws(mm.end(), end)
                if tok == "where":
                    return "where", s, s
                # `|`: a match arm (`| pat => …` on its own line) or an inductive constructor
                if m.startswith("||", s) or (s > 0 and m[s - 1] == "|"):
                    continue
                if kind == DeclKind.INDUCTIVE:  # constructors: `| c : T`
                    return "|", s, s
                line_head = m[m.rfind("\n", 0, s) + 1:s]
                line_end = m.find("\n", s)
                line = m[s:line_end if line_end != -1 else end]
                if not line_head.strip() and "=>" in line:
                    return "|", s, s
        return "", end, end

    def body_status(self, kind: DeclKind, body: Span) -> tuple[BodyStatus, list[str]]:
        text = self.masked[body.start:body.end]
        marks = {mm.group(1): mm for mm in _BODY_MARK.finditer(text)}
        sorry_using: list[str] = []
        if "sorry_using" in marks:
            mm = marks["sorry_using"]
            j = self.skip_ws(body.start + mm.end(), body.end)
            if self.masked.startswith("[", j):
                k = self.match_bracket(j, "`sorry_using [` list")
                inner = self.text[j + 1:k - 1]
                masked_inner = self.masked[j + 1:k - 1]
                if masked_inner != inner:
                    self.finding("comment-in-sorry-using", j,
                                 "comment or literal inside a `sorry_using [...]` list")
                sorry_using = [strip_guillemets(x.strip()) for x in masked_inner.split(",")
                               if x.strip()]
            return BodyStatus.SORRY_USING, sorry_using
        if "sorry" in marks:
            return BodyStatus.SORRY, sorry_using
        if "admit" in marks:
            return BodyStatus.ADMIT, sorry_using
        stripped = text.strip()
        if kind == DeclKind.AXIOM or (kind == DeclKind.OPAQUE and not stripped):
            return BodyStatus.NO_BODY, sorry_using
        if kind.is_definition:
            return BodyStatus.DEFINITION, sorry_using
        if not stripped or stripped == "by":  # `:= by` with nothing after it
            return BodyStatus.NO_BODY, sorry_using
        return BodyStatus.COMPLETE, sorry_using

    def check_labels(self, decls: list[Decl]) -> None:
        seen: dict[str, Decl] = {}
        names: dict[str, Decl] = {}
        for d in decls:
            if d.blueprint is not None:
                first = seen.get(d.blueprint.label)
                if first is not None:
                    self.finding("duplicate-label", d.blueprint.span.start,
                                 f"duplicate label `{d.blueprint.label}` (first at "
                                 f"{first.pos.line}:{first.pos.col})", d.blueprint.label)
                else:
                    seen[d.blueprint.label] = d
            if d.name is not None:
                first_n = names.get(d.name)
                if first_n is not None:
                    self.finding("duplicate-name", self.starts[d.name_pos.line - 1] + d.name_pos.col,
                                 f"`{d.name}` is declared twice (first at {first_n.name_pos})",
                                 d.label)
                else:
                    names[d.name] = d


def _regions_to_exit(text: str, path: object) -> list[Region]:
    """Lexical regions; after a column-0 `#exit` Lean reads nothing, so neither do we (the rest
    becomes one blank region, whatever it contains)."""
    for m in _EXIT.finditer(text):
        try:
            regs = regions(text[:m.start()], path)
        except InputError:
            continue  # this `#exit` is inside a comment or a literal
        rest = text.find("\n", m.end())
        if rest == -1:
            return regs
        return [*regs, Region("after_exit", rest, len(text))]
    return regions(text, path)
