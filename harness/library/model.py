"""The index's data at its boundaries: one declaration, one search hit, one build report."""

from __future__ import annotations

from pydantic import BaseModel, Field

# where an entry comes from: the source text, a name `to_additive` generates from a source
# declaration, a structure field / constructor, or Lean's own environment (the exact pass)
ORIGINS = ("source", "to_additive", "field", "exact")


class LibDecl(BaseModel):
    name: str  # full name, namespaces resolved (private names keep their user-facing name)
    kind: str  # theorem | lemma | def | abbrev | instance | structure | class | inductive | …
    package: str
    module: str
    file: str  # relative to the workspace
    line: int
    signature: str = ""  # binders and type, no proof
    doc: str = ""
    attrs: list[str] = Field(default_factory=list)
    private: bool = False  # usable only inside its own module (Lean: `_private.<Module>.0.n`)
    protected: bool = False  # never reachable by its last component through `open`
    origin: str = "source"
    exact: bool = False  # the exact pass found it in Lean's environment
    consts: list[str] = Field(default_factory=list)  # identifiers its signature mentions
    namespace: str = ""  # the namespace it was declared in


class Hit(LibDecl):
    score: float = 0.0


class PackageReport(BaseModel):
    name: str
    rev: str
    files: int
    decls: int
    scanned: int = 0  # files read and scanned this build (the rest were reused)
    reused: bool = False  # the whole package was reused (same revision)


class ExactReport(BaseModel):
    """What the exact pass did (`harness/library/exact.py`)."""

    ran: bool = False  # the pass completed and was merged (or its answer was still current)
    skipped: str = ""  # why it did not run
    error: str = ""  # why it failed (one line); the scanned index was kept
    modules: list[str] = Field(default_factory=list)  # what it imported
    constants: int = 0  # declarations Lean printed
    confirmed: int = 0  # scanned entries Lean knows (exact = 1)
    added: int = 0  # names only Lean knows (origin `exact`)
    typed: int = 0  # entries whose signature now is Lean's type
    unplaced: int = 0  # constants of modules the index has no file for (not added)
    seconds: float = 0.0


class BuildReport(BaseModel):
    path: str
    packages: list[PackageReport] = Field(default_factory=list)
    decls: int = 0
    files: int = 0
    scanned: int = 0
    rebuilt: bool = False  # a full build (no usable previous index)
    reason: str = ""  # why a full build happened (corrupt / schema / requested)
    problems: list[str] = Field(default_factory=list)  # FILE:LINE:COL: a file skipped, and why
    seconds: float = 0.0
    bytes: int = 0
    exact: ExactReport | None = None  # None: no exact pass was asked for
