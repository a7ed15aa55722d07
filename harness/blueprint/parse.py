"""Parse a Lean file with LeanArchitect `@[blueprint …]` annotations into a :class:`Blueprint`.

The parser is structural, not an elaborator: it splits the file into top-level commands (a command
starts at column 0 with a command keyword, an attribute, a modifier or a doc comment; on an
indented line only a declaration keyword can start one, as in `mutual` blocks — Lean code indents
everything else), tracks scopes (:mod:`harness.blueprint.scope`), and reads each declaration's
attribute, signature and body. Structure is found on the masked text (:mod:`.cursor`), so nothing
inside a comment or a string is ever taken for code. Lean stops at `#exit`; so does the parser.
"""

from __future__ import annotations

import re
from bisect import bisect_left
from pathlib import Path

from harness.blueprint import attrs as attr_parse
from harness.blueprint import labels
from harness.blueprint.body import body_status, separator
from harness.blueprint.cursor import Source
from harness.blueprint.informal import blueprint_comment
from harness.blueprint.lexer import IDENT, Region, strip_guillemets
from harness.blueprint.model import (
    Blueprint, Command, CommandKind, Decl, DeclKind, InformalNode, Span, gc_paused,
)
from harness.blueprint.scope import ScopeTracker

__all__ = ["parse_text"]

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
    "blueprint_comment",  # LeanArchitect (Architect/Command.lean): informal blueprint text
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
    "blueprint_comment": CommandKind.BLUEPRINT_COMMENT,
}

_LINE_START = re.compile(r"^(@\[|#[A-Za-z_]+|[A-Za-z_][A-Za-z_0-9]*)", re.M)
_INDENTED = re.compile(r"^[ \t]+(@\[|[A-Za-z_][A-Za-z_0-9]*)", re.M)
_WORD = re.compile(r"[A-Za-z_#][A-Za-z_0-9]*")
_IN_PREFIX = re.compile(r"[^\n]*?\sin(?=\s|$)")
_SPACES = re.compile(r"\s+")

def parse_text(text: str, path: str | Path | None = None, *, bom: bool = False) -> Blueprint:
    with gc_paused():
        return _Parser(text, Path(path) if path is not None else None, bom).run()


class _Parser(Source):
    """The commands, scopes and declarations of one file. Its helper modules (attrs, body,
    informal, labels) see it only as a :class:`~harness.blueprint.cursor.Scanner`."""

    def __init__(self, text: str, path: Path | None, bom: bool) -> None:
        super().__init__(text, path, bom)
        self.scopes = ScopeTracker()
        self.decls: list[Decl] = []
        self.tagged: dict[str, str] = {}  # `attribute [blueprint "l"] X` for X not in this file
        self.informal: list[InformalNode] = []
        self.prose_labels: set[str] = set()

    # -- top level -------------------------------------------------------------------------
    def run(self) -> Blueprint:
        segments = self.segments()
        commands: list[Command] = []
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
        labels.check_labels(self, self.decls)
        bp = Blueprint(self.path, self.text, self.bom, commands, self.decls,
                       Span(0, header_end), self.findings, self.starts, self.masked)
        bp.tagged = self.tagged
        bp.informal = self.informal
        bp.prose_labels = self.prose_labels
        bp.warnings = self.warnings
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
                if word == "blueprint_comment":  # its doc comment may start the next line
                    doc = self.doc_at.get(self.skip_ws_text(mm.end(), len(m)))
                    if doc is not None:
                        skip_until = doc.end
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
        if kw == "blueprint_comment":  # the comment is the command (trim_end backs over it)
            span_end, nodes, prose = blueprint_comment(self, at, end)
            self.informal.extend(nodes)
            self.prose_labels |= prose
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
            self.tagged.update(attr_parse.tag_command(self, at, span_end, self.lookup))
        kind = KIND_OF.get(kw, CommandKind.OTHER)
        if head["attrs"] and kind not in (CommandKind.OTHER, CommandKind.SECTION):
            self.finding("misplaced-attribute", head["attrs"][0][0],
                         f"attribute before `{kw}`, which is not a declaration")
        return Command(kind, kw, span, pos)

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
        sep, sep_at, body_start = separator(self, kind, sig_start, end)
        sig_end = self.trim_end(sig_start, sep_at) if sep else end
        body_span = Span(body_start, end) if sep else Span(end, end)
        status, sorry_using = body_status(self, kind, body_span)
        attrs_raw: list[str] = []
        blueprint = None
        aliases: tuple[str, ...] = ()
        for a_start, a_end in head["attrs"]:
            for e_start, e_end in attr_parse.split_entries(self.masked, a_start + 2, a_end - 1, self.text):
                e_start = self.skip_ws(e_start, e_end)  # a comment before the entry
                entry = self.masked[e_start:e_end]
                found = None
                if attr_parse.BLUEPRINT_ENTRY.match(entry):
                    found = attr_parse.parse_blueprint(self, e_start, e_end, Span(a_start, a_end))
                else:
                    attrs_raw.append(_SPACES.sub(" ", self.text[e_start:e_end]).strip())
                    if attr_parse.TO_ADDITIVE.match(entry):  # one node, both names
                        found, additive = attr_parse.to_additive(
                            self, e_start, e_end, Span(a_start, a_end), full)
                        if found is not None and additive:
                            aliases = (additive,)
                if found is None:
                    continue
                if blueprint is not None:
                    self.finding("duplicate-attribute", e_start,
                                 "more than one `blueprint` attribute on a declaration")
                    continue
                blueprint = found
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
            group=self.scopes.group, aliases=aliases,
            proof_docs=self.proof_docs(body_span) if sep == ":=" else [],
        )
        return Command(CommandKind.DECL, kind.value, span, decl.pos, decl)

    def lookup(self, name: str) -> Decl | None:
        """This file's declaration a name written here refers to (`attribute [blueprint] x`)."""
        return attr_parse.find_decl(self.decls, self.scopes.current([]).namespaces, name)

    def proof_docs(self, body: Span) -> list[str]:
        """Doc comments before tactics inside a proof ("proof docstrings", LeanArchitect's
        `tacticDocComment` in Architect/Tactic.lean): the proof text when `proof :=` is absent."""
        k = bisect_left(self.doc_starts, body.start)
        out = []
        while k < len(self.doc_starts) and self.doc_starts[k] < body.end:
            r = self.doc_at[self.doc_starts[k]]
            if r.kind == "doc_comment":
                out.append(self.text[r.start + 3:r.end - 2].strip())
            k += 1
        return out
