"""The blueprint data model: what a parsed LeanArchitect file is made of.

Offsets (``Span.start``/``Span.end``) index the decoded text (a Python ``str``, CRLF kept as is),
so ``text[span.start:span.end]`` is the exact source. Positions are Lean-style: 1-based line,
0-based column counted in code points.
"""

from __future__ import annotations

import gc
from bisect import bisect_right
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from enum import Enum
from pathlib import Path


class DeclKind(str, Enum):
    DEF = "def"
    ABBREV = "abbrev"
    STRUCTURE = "structure"
    INDUCTIVE = "inductive"
    CLASS = "class"
    INSTANCE = "instance"
    LEMMA = "lemma"
    THEOREM = "theorem"
    EXAMPLE = "example"
    AXIOM = "axiom"
    OPAQUE = "opaque"

    @property
    def is_definition(self) -> bool:
        """Definitions are the library's meaning: their whole text is part of what statements say."""
        return self in DEFINITION_KINDS

    @property
    def is_proof(self) -> bool:
        return self in (DeclKind.LEMMA, DeclKind.THEOREM, DeclKind.EXAMPLE)


DEFINITION_KINDS = frozenset(
    {DeclKind.DEF, DeclKind.ABBREV, DeclKind.STRUCTURE, DeclKind.INDUCTIVE, DeclKind.CLASS,
     DeclKind.INSTANCE, DeclKind.OPAQUE}
)


class BodyStatus(str, Enum):
    """What the body text says on its own (not transitive; see ``dag`` for *proved*)."""

    COMPLETE = "complete"  # a lemma/theorem body with no sorry/admit
    DEFINITION = "definition"  # a definition-like declaration with no sorry/admit
    SORRY = "sorry"
    SORRY_USING = "sorry_using"
    ADMIT = "admit"
    NO_BODY = "no_body"  # `axiom`, bodiless `opaque`, or a declaration cut short

    @property
    def is_complete(self) -> bool:
        return self in (BodyStatus.COMPLETE, BodyStatus.DEFINITION)


@dataclass(frozen=True, slots=True)
class Pos:
    line: int  # 1-based
    col: int  # 0-based, code points

    def __str__(self) -> str:
        return f"{self.line}:{self.col}"


@dataclass(frozen=True, slots=True)
class Span:
    start: int  # offset into the decoded text, inclusive
    end: int  # exclusive

    def slice(self, text: str) -> str:
        return text[self.start:self.end]

    def contains(self, offset: int) -> bool:
        return self.start <= offset < self.end

    def __len__(self) -> int:
        return self.end - self.start


@dataclass(frozen=True, slots=True)
class Scope:
    """The `namespace`/`section`/`open`/`variable`/`universe` context in force at a declaration.

    Each entry is the normalised text of the command that introduced it, outermost first;
    ``opens`` holds the opened namespaces (for name resolution).
    """

    namespaces: tuple[str, ...] = ()
    opens: tuple[str, ...] = ()
    commands: tuple[str, ...] = ()  # every scope command in force, normalised, in order

    @property
    def namespace(self) -> str:
        return ".".join(self.namespaces)


@dataclass(slots=True)
class BlueprintAttr:
    """The parsed `@[blueprint "label" (field := value) …]` attribute."""

    label: str
    statement: str | None = None
    proof: str | None = None
    title: str | None = None
    uses: list[str] = field(default_factory=list)
    proof_uses: list[str] = field(default_factory=list)
    latex_env: str | None = None
    latex_label: str | None = None
    not_ready: bool | None = None
    has_proof: bool | None = None
    discussion: str | None = None  # a GitHub issue number (`discussion := 123`)
    span: Span = Span(0, 0)  # the whole `@[ … ]` that contains it
    fields: dict[str, str] = field(default_factory=dict)  # raw text of every field, by name


@dataclass(slots=True)
class Decl:
    """One top-level declaration, annotated (a blueprint node) or not (context)."""

    kind: DeclKind
    name: str | None  # full Lean name, namespace applied; None for `example`/anonymous instances
    short_name: str | None  # as written after the keyword
    modifiers: tuple[str, ...]
    attributes: tuple[str, ...]  # raw text of each attribute entry other than `blueprint`
    blueprint: BlueprintAttr | None
    scope: Scope
    span: Span  # doc comment + attributes + modifiers + declaration, up to the end of the body
    head_span: Span  # from the keyword up to the end of the declaration
    signature_span: Span  # after the name, up to (not including) `:=` / `where` / first `|` arm
    body_span: Span  # after `:=` (or from `where` / first `|`), trailing whitespace excluded
    body_sep: str  # ":=", "where", "|" or "" (no body)
    status: BodyStatus
    sorry_using: list[str]
    pos: Pos  # position of the keyword
    name_pos: Pos  # position of the name (where Lean reports `declaration uses sorry`)
    end_pos: Pos
    doc: str | None = None  # a `/-- … -/` doc comment before the declaration
    group: int | None = None  # members of one `mutual … end` block share a group
    shared: bool = False  # its label is carried by other declarations of the file too
    proof_docs: list[str] = field(default_factory=list)  # `/-- … -/` before tactics in the body
    aliases: tuple[str, ...] = ()  # other Lean names of the same node (`to_additive`)

    @property
    def label(self) -> str | None:
        return self.blueprint.label if self.blueprint else None

    @property
    def key(self) -> str:
        """The declaration's identity in its file: its blueprint label, or — when several
        declarations share that label (one node, several parts) — its Lean name; the Lean name
        for context declarations. Lock entries, verdicts, edits and prover jobs use it."""
        if self.blueprint:
            if self.shared and self.name:
                return self.name
            return self.blueprint.label
        return self.name or f"<{self.kind.value}@{self.pos}>"

    @property
    def node_key(self) -> str:
        """Graph vertex id: the blueprint label (shared by all parts of a node), else ``key``."""
        return self.blueprint.label if self.blueprint else self.key

    @property
    def proof_text(self) -> str | None:
        """The informal proof: `proof := /-- … -/`, else the proof docstrings joined by a blank
        line (LeanArchitect `Architect/Attribute.lean`, `mkProofPart`)."""
        if self.blueprint is not None and self.blueprint.proof is not None:
            return self.blueprint.proof
        return "\n\n".join(self.proof_docs) if self.proof_docs else None

    @property
    def names(self) -> tuple[str, ...]:
        return tuple(n for n in (self.name, *self.aliases) if n)

    @property
    def has_proof(self) -> bool:
        """Whether the node has a proof part: `hasProof`, else `proof :=` given or a theorem
        (Architect/Attribute.lean `hasProof`). Without one, everything it uses is a statement
        use (`mkNode`: `statementUsed ∪ proofUsed`)."""
        b = self.blueprint
        if b is not None and b.has_proof is not None:
            return b.has_proof
        return (b is not None and b.proof is not None) or self.kind.is_proof

    @property
    def is_node(self) -> bool:
        return self.blueprint is not None


class CommandKind(str, Enum):
    IMPORT = "import"
    DECL = "decl"
    NAMESPACE = "namespace"
    SECTION = "section"
    END = "end"
    OPEN = "open"
    VARIABLE = "variable"
    UNIVERSE = "universe"
    SET_OPTION = "set_option"
    ATTRIBUTE = "attribute"
    MODULE_DOC = "module_doc"
    BLUEPRINT_COMMENT = "blueprint_comment"  # LeanArchitect's `blueprint_comment /-- … -/`
    OTHER = "other"  # #check, macro, notation, … — kept verbatim for the gate


@dataclass(slots=True)
class Command:
    kind: CommandKind
    keyword: str  # the leading keyword as written (`namespace`, `#eval`, `macro`, `decl` …)
    span: Span
    pos: Pos
    decl: Decl | None = None


class InformalKind(str, Enum):
    INFORMAL = "informal"

    @property
    def is_definition(self) -> bool:
        return False

    @property
    def is_proof(self) -> bool:
        return False


@dataclass(slots=True)
class InformalNode:
    """A LaTeX environment with its own `\\label{…}` inside a `blueprint_comment`: a blueprint
    node with no Lean declaration. It has the attributes of a :class:`Decl` that the DAG and its
    reports read (never proved, never work for a prover; it has no body)."""

    blueprint: BlueprintAttr  # label, env (`latex_env`), statement, proof, title, uses
    pos: Pos  # of `\\begin{…}`
    end_pos: Pos
    span: Span  # the environment (and its proof) inside the comment
    kind: InformalKind = InformalKind.INFORMAL
    status: BodyStatus = BodyStatus.NO_BODY
    name: None = None
    short_name: None = None
    group: None = None
    shared: bool = False
    sorry_using: list[str] = field(default_factory=list)
    aliases: tuple[str, ...] = ()
    proof_docs: list[str] = field(default_factory=list)

    @property
    def label(self) -> str:
        return self.blueprint.label

    key = label
    node_key = label

    @property
    def is_node(self) -> bool:
        return True

    @property
    def proof_text(self) -> str | None:
        return self.blueprint.proof

    @property
    def names(self) -> tuple[str, ...]:
        return ()


@dataclass(slots=True)
class Finding:
    """A problem in a blueprint that does not stop parsing (duplicate label, dangling ref …)."""

    code: str  # e.g. "duplicate-label", "dangling-cref", "cycle"
    message: str
    path: str
    pos: Pos
    label: str | None = None

    def line(self) -> str:
        return f"{self.path}:{self.pos.line}:{self.pos.col}: {self.message}"


@dataclass(slots=True)
class Blueprint:
    path: Path | None
    text: str
    bom: bool  # the file started with a UTF-8 byte-order mark (kept on write)
    commands: list[Command]
    decls: list[Decl]
    header_span: Span  # leading imports / options / module doc before the first other command
    findings: list[Finding] = field(default_factory=list)
    _line_starts: list[int] | None = field(default=None, repr=False)
    masked: str = field(default="", repr=False)  # text with comments/literals blanked
    tagged: dict[str, str] = field(default_factory=dict)  # label -> name, `attribute [blueprint]`
    informal: list[InformalNode] = field(default_factory=list)  # from `blueprint_comment`s
    prose_labels: set[str] = field(default_factory=set)  # `\\label{…}`s in blueprint comments
    warnings: list[Finding] = field(default_factory=list)  # reported, but not findings (exit 0)

    def masked_text(self) -> str:
        if not self.masked:
            from harness.blueprint.lexer import mask

            self.masked = mask(self.text, self.path)
        return self.masked

    @property
    def nodes(self) -> list[Decl]:
        """The annotated declarations, in file order."""
        return [d for d in self.decls if d.blueprint is not None]

    def node(self, label: str) -> Decl:
        """The node declaration with this key (a part's Lean name, when a label is shared),
        else the first declaration carrying this label."""
        first = None
        for d in self.decls:
            if d.blueprint is not None:
                if d.key == label:
                    return d
                if first is None and d.blueprint.label == label:
                    first = d
        if first is None:
            raise KeyError(label)
        return first

    def parts(self, node_key: str) -> list[Decl]:
        """The declarations that make up one DAG vertex (several when a label is shared)."""
        return [d for d in self.decls if d.node_key == node_key]

    def by_name(self, name: str) -> Decl | None:
        for d in self.decls:
            if d.name == name:
                return d
        return None

    def by_key(self, key: str) -> Decl:
        for d in self.decls:
            if d.key == key:
                return d
        raise KeyError(key)

    @property
    def display_path(self) -> str:
        return str(self.path) if self.path is not None else "<input>"

    def pos_of(self, offset: int) -> Pos:
        """Lean-style position (1-based line, 0-based column) of a text offset."""
        if self._line_starts is None:
            self._line_starts = line_starts(self.text)
        return pos_from_starts(self._line_starts, offset)

    def offset_of(self, pos: Pos) -> int:
        """Text offset of a Lean-style position (inverse of :meth:`pos_of`)."""
        if self._line_starts is None:
            self._line_starts = line_starts(self.text)
        return self._line_starts[pos.line - 1] + pos.col


@contextmanager
def gc_paused() -> Iterator[None]:
    """Pause the cyclic GC while building large acyclic object graphs (parse, analyse): its
    full collections otherwise rescan every node already built, making big files superlinear."""
    was = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was:
            gc.enable()


def line_starts(text: str) -> list[int]:
    starts = [0]
    find = text.find
    i = find("\n")
    while i != -1:
        starts.append(i + 1)
        i = find("\n", i + 1)
    return starts


def pos_from_starts(starts: list[int], offset: int) -> Pos:
    line = bisect_right(starts, offset)
    return Pos(line, offset - starts[line - 1])


def offset_to_pos(text: str, offset: int) -> Pos:
    line = text.count("\n", 0, offset) + 1
    start = text.rfind("\n", 0, offset) + 1
    return Pos(line, offset - start)
