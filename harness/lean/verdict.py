"""Per-node verdicts for a whole blueprint file: one `lake env lean --json` run.

The user's file is never touched: a copy goes to ``<workspace>/.harness/tmp/`` with one
``#print axioms <full name>`` line appended per checked declaration (full names resolve even when
the file ends inside an open namespace; the name Lean echoes back is compared with the one we
asked for). Messages are mapped to declarations by position.

Could-not-certify policy: every situation where Lean's answer cannot be trusted — timeout, memory
cap, crash (exit code other than 0/1), exit 1 without any error message, or a missing axiom report
for a declaration without an error — raises :class:`harness.errors.CannotCertify` (CLI exit 3).
A returned :class:`FileVerdict` is therefore always a certified answer.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any, Iterable, Literal

from pydantic import BaseModel

from harness.blueprint.model import Blueprint, Decl, line_starts
from harness.errors import CannotCertify
from harness.lean import usedconsts
from harness.lean.compile import Auditor, compile_text, module_name
from harness.lean.messages import AxiomReport, Message, is_sorry, parse_axioms
from harness.lean.run import DEFAULT_MEM_MB, DEFAULT_TIMEOUT_S
from harness.lean.toolchain import Toolchain

Status = Literal["proved", "sorry", "error", "axioms", "not_checked"]
Region = Literal["decl", "axioms", "head", "body", "helpers", "context", "file"]


class LocatedMessage(Message):
    region: Region | None = None
    candidate_line: int | None = None  # 1-based line inside the candidate body/helpers text
    candidate_col: int | None = None


class NodeVerdict(BaseModel):
    key: str
    label: str | None
    name: str | None
    kind: str
    line: int  # line of the declaration keyword in the user's file
    status: Status
    messages: list[LocatedMessage] = []
    axioms: list[str] | None = None  # None: no axiom report (unnamed declaration, or error)
    forbidden_axioms: list[str] = []
    own_sorry: bool = False
    sorry_via_deps: bool = False  # sorryAx only through declarations it uses
    first_error: str | None = None  # "LINE:COL: message" (user-file or candidate coordinates)
    first_error_line: int | None = None

    @property
    def accepted_modulo_deps(self) -> bool:
        """Own proof complete: the only blemish is `sorryAx` inherited from unproved deps."""
        if self.status == "proved":
            return True
        return (self.status == "sorry" and self.sorry_via_deps
                and self.forbidden_axioms == ["sorryAx"])


class FileVerdict(BaseModel):
    path: str
    workspace: str
    lean_version: str | None = None
    nodes: list[NodeVerdict]
    file_messages: list[LocatedMessage] = []  # outside every checked declaration
    partial: bool = False  # only some nodes were selected
    wall_s: float = 0.0
    # key -> elaborated type (pp.all `#check` output), for the keys asked for with ``types=``;
    # None when none were asked for
    types: dict[str, str] | None = None
    # key -> the target names it uses (harness.lean.usedconsts), for the keys asked for with
    # ``used=``; a key without an answer is missing (the query did not elaborate): fail closed
    used: dict[str, list[str]] | None = None
    # key -> the definition as `#print` shows it under pp.all (its elaborated *value*), for the
    # keys asked for with ``values=``
    values: dict[str, str] | None = None
    # what Lean's environment says the file declares (harness.gate.declared), when asked for
    # with ``audit=``; None also when the file has errors (no `.olean` is audited then)
    audit: Any = None

    @property
    def file_errors(self) -> list[LocatedMessage]:
        """Errors that concern a *diagnosis* of the selection (`harness check --node`): outside
        every declaration, or (full check only) inside an unchecked declaration. Never the
        basis of an acceptance: the gate and the certification use :attr:`errors_anywhere`."""
        return [m for m in self.file_messages
                if m.is_error and (m.region == "file" or not self.partial)]

    @property
    def errors_anywhere(self) -> list[LocatedMessage]:
        """Every error outside the checked declarations, whatever the selection: also inside
        an unchecked one (an `example` helper, a placeholder whose statement does not
        elaborate). A file that does not build is never accepted (docs/trust.md §2)."""
        return [m for m in self.file_messages if m.is_error]

    @property
    def ok(self) -> bool:
        return not self.file_errors and all(n.status == "proved" for n in self.nodes)


_ATOM = re.compile(r"^[^\W\d][\w'!?\u2070-\u209f]*$")

def lean_name(name: str) -> str:
    """A name as Lean source: components that are not plain identifiers get «»."""
    return ".".join(c if _ATOM.match(c) else f"«{c}»" for c in name.split("."))


def root_name(name: str) -> str:
    """``_root_.Full.Name``: resolves to exactly this constant even inside a namespace that
    declares a same-named impostor (``resolveExact`` in leanprover/lean4
    ``src/Lean/ResolveName.lean`` strips the ``_root_`` prefix and also finds private names)."""
    return "_root_." + lean_name(name)


def axiom_lines(decls: Iterable[Decl]) -> list[tuple[Decl, str]]:
    return [(d, f"#print axioms {root_name(d.name)}") for d in decls if d.name]


# The elaborated type, fully explicit: pp.all shows implicit arguments, instances, universes and
# full names, drops notation, and implies pp.deepTerms/pp.proofs (no `⋯`); pp.maxSteps (default
# 5000, not raised by pp.all) would still elide big types. `(@X)` rather than `@X`: a bare
# constant gets the signature printer, a term gets `e : type`.
CHECK_PREFIX = "set_option pp.all true in set_option pp.maxSteps 1000000 in #check "


# `#print X` of a definition shows its header and its elaborated value (``printDefLike`` in
# leanprover/lean4 src/Lean/Elab/Print.lean); under pp.all the value is fully explicit
VALUE_PREFIX = "set_option pp.all true in set_option pp.maxSteps 1000000 in #print "


def value_lines(decls: Iterable[Decl]) -> list[tuple[Decl, str]]:
    return [(d, f"{VALUE_PREFIX}{root_name(d.name)}") for d in decls if d.name]


def type_lines(decls: Iterable[Decl]) -> list[tuple[Decl, str]]:
    return [(d, f"{CHECK_PREFIX}(@{root_name(d.name)})") for d in decls if d.name]


_CHECKED = re.compile(r"@?(?P<name>(?:[^\s:.]+|«[^»]*»)(?:\.(?:[^\s:.{]+|«[^»]*»))*)"
                      r"(?:\.\{[^}]*\})?\s+:\s")


def parse_check(d: Decl, data: str) -> str | None:
    """The type in a `#check` answer ``@Full.Name[.{u}] : <type>`` for ``d``, else None."""
    m = _CHECKED.match(data)
    if m is None or not _same_name(d, m.group("name")):
        return None
    return data[m.end():].strip() or None


def _same_name(d: Decl, got: str) -> bool:
    return same_constant(d.name, got)


# ----------------------------------------------------------------------------- mapping

def _owner(offset: int, decls: list[Decl], msg: Message) -> Decl | None:
    """The declaration a message at ``offset`` belongs to. A parse error reported at the first
    token of the next declaration ("unexpected token 'theorem'") is blamed on the previous one."""
    for i, d in enumerate(decls):
        if d.span.start <= offset <= d.span.end:
            at_start = offset <= d.span.start or offset == _head_offset(d)
            if at_start and i > 0 and msg.is_error and msg.data.startswith("unexpected"):
                return decls[i - 1]
            return d
    return None


def _head_offset(d: Decl) -> int:
    return d.head_span.start


def _located(m: Message, region: Region, path: str) -> LocatedMessage:
    return LocatedMessage(**{**m.model_dump(), "file": path}, region=region)


def verdict_for(d: Decl, msgs: list[LocatedMessage], report: AxiomReport | None, *,
                line: int, axiom_errors: bool, extra_forbidden: Iterable[str] = ()) -> NodeVerdict:
    """Status from a declaration's own messages and its axiom report."""
    mine = [m for m in msgs if m.region != "context"]  # context: earlier declarations' messages
    errors = [m for m in mine if m.is_error]
    own_sorry = any(is_sorry(m) for m in mine if m.region != "helpers")
    helper_sorry = any(is_sorry(m) for m in mine if m.region == "helpers")
    axioms = report.axioms if report else None
    forbidden = list(dict.fromkeys([*(report.forbidden if report else []), *extra_forbidden]))
    via_deps = "sorryAx" in forbidden and not (own_sorry or helper_sorry or errors or axiom_errors)
    if errors or axiom_errors:
        status: Status = "error"
    elif own_sorry or helper_sorry or "sorryAx" in forbidden:
        status = "sorry"
    elif forbidden:
        status = "axioms"
    elif report is None:
        status = "not_checked"
    else:
        status = "proved"
    first = errors[0] if errors else None
    fl = (first.candidate_line or first.pos.line) if first else None
    fc = (first.candidate_col if first and first.candidate_line else first.pos.col if first else None)
    return NodeVerdict(
        key=d.key, label=d.label, name=d.name, kind=d.kind.value, line=line, status=status,
        messages=msgs, axioms=axioms, forbidden_axioms=forbidden, own_sorry=own_sorry or helper_sorry,
        sorry_via_deps=via_deps,
        first_error=f"{fl}:{fc}: {first.data.strip().splitlines()[0] if first.data.strip() else ''}"
        if first else None,
        first_error_line=fl)


def match_report(d: Decl, report: AxiomReport) -> bool:
    """Lean echoes the resolved full name (``printAxiomsOf`` in leanprover/lean4
    ``src/Lean/Elab/Print.lean``: ``'{constName}' depends on axioms: …``), exactly; a private
    name comes back as ``_private.<module>.0.<name>``. Any other name — ``X.Demo.gauss`` for
    ``Demo.gauss`` — is another constant's report."""
    return same_constant(d.name, report.name)


def same_constant(name: str | None, got: str) -> bool:
    if name is None:
        return False
    got = got.replace("«", "").replace("»", "")
    return got == name or _PRIVATE_OF.fullmatch(got) is not None and \
        got.endswith(".0." + name)


_PRIVATE_OF = re.compile(r"_private\.(?:[^.]+\.)+0\..+")


def check_file(tc: Toolchain, workspace: Path, bp: Blueprint, *, labels: list[str] | None = None,
               timeout_s: float = DEFAULT_TIMEOUT_S, mem_mb: int | None = DEFAULT_MEM_MB,
               types: Iterable[str] | None = None, used: Iterable[str] | None = None,
               used_targets: Iterable[str] | None = None,
               values: Iterable[str] | None = None, audit: Auditor | None = None) -> FileVerdict:
    """Verdicts for the blueprint's nodes (``labels`` selects; a file without nodes: every named
    declaration). ``types``: keys whose elaborated type is wanted too (``FileVerdict.types``).
    ``used``: keys whose used declarations are wanted (``FileVerdict.used``; the targets are
    ``used_targets``, default every named declaration of the file).
    ``audit``: compile to an `.olean` with it and read what the module declares, with a kernel
    replay (``FileVerdict.audit``; the gate passes :func:`harness.gate.declared.compile_audited`).
    Raises CannotCertify (see module doc) and KeyError for an unknown label."""
    if labels:
        checked = [bp.by_key(lbl) for lbl in labels]
    else:
        checked = bp.nodes or [d for d in bp.decls if d.name]
    text = bp.text if bp.text.endswith("\n") else bp.text + "\n"
    appended = axiom_lines(checked)
    typed = type_lines([bp.by_key(k) for k in dict.fromkeys(types)]) if types is not None else []
    valued = value_lines([bp.by_key(k) for k in dict.fromkeys(values)]) if values else []
    full = text + "\n" + "".join(line + "\n" for _, line in appended + typed + valued)
    first_used_line = full.count("\n") + 1
    used_decls = [bp.by_key(k) for k in dict.fromkeys(used)] if used is not None else []
    used_decls = [d for d in used_decls if d.name]
    if used is not None:
        names = used_targets if used_targets is not None else [d.name for d in bp.decls if d.name]
        full += "".join(x + "\n" for x in usedconsts.prelude_lines(names))
        full += "".join(usedconsts.query_line(d.name) + "\n" for d in used_decls)
    found_used: dict[str, list[str]] = {}
    first_axiom_line = text.count("\n") + 2
    by_line = {first_axiom_line + i: d for i, (d, _) in enumerate(appended)}
    first_type_line = first_axiom_line + len(appended)
    type_at = {first_type_line + i: d for i, (d, _) in enumerate(typed)}
    value_at = {first_type_line + len(typed) + i: d for i, (d, _) in enumerate(valued)}
    found_values: dict[str, str] = {}
    found_types: dict[str, str] = {}
    stem = Path(bp.display_path).stem or "check"
    found_audit = None
    if audit is not None:
        messages, res, found_audit = audit(
            tc, workspace, full, module=tc.module_of(bp.path) or module_name(workspace, bp.path),
            stem=stem,
            timeout_s=timeout_s, mem_mb=mem_mb, source=bp.text)
    else:
        messages, res = compile_text(tc, workspace, full, stem=stem, timeout_s=timeout_s,
                                     mem_mb=mem_mb, module=tc.module_of(bp.path))

    path = bp.display_path
    starts = line_starts(text)
    per: dict[str, list[LocatedMessage]] = {d.key: [] for d in checked}
    reports: dict[str, AxiomReport] = {}
    axiom_errors: set[str] = set()
    file_msgs: list[LocatedMessage] = []
    checked_keys = set(per)
    for m in messages:
        if used is not None and m.pos.line >= first_used_line:  # our query: answers only
            ans = usedconsts.parse_answer(m.data) if m.severity == "information" else None
            if ans is not None:
                for d in used_decls:
                    if d.name == ans[0]:
                        found_used.setdefault(d.key, ans[1])
            continue
        if m.pos.line in value_at:  # a `#print` line: the definition, or an error
            d = value_at[m.pos.line]
            if m.severity == "information" and d.key not in found_values:
                found_values[d.key] = m.data
            elif m.is_error:
                file_msgs.append(_located(m, "file", path))
            continue
        if m.pos.line in type_at:  # a `#check` line: the type, or an error that fails the file
            d = type_at[m.pos.line]
            typ = parse_check(d, m.data) if m.severity == "information" else None
            if typ is not None and d.key not in found_types:
                found_types[d.key] = typ
            elif m.is_error:
                file_msgs.append(_located(m, "file", path))
            continue
        if m.pos.line in by_line:
            d = by_line[m.pos.line]
            rep = parse_axioms(m)
            if rep is not None and match_report(d, rep):
                reports[d.key] = rep
            elif m.is_error or rep is not None:
                axiom_errors.add(d.key)
                per[d.key].append(_located(m, "axioms", path))
            continue
        if 1 <= m.pos.line <= len(starts):
            offset = starts[m.pos.line - 1] + m.pos.col
            owner = _owner(offset, bp.decls, m)
        else:
            owner = None
        if owner is not None and owner.key in checked_keys:
            per[owner.key].append(_located(m, "decl", path))
        else:
            file_msgs.append(_located(m, "context" if owner else "file", path))

    nodes = []
    for d in checked:
        own_errors = any(m.is_error for m in per[d.key])
        if d.name and d.key not in reports and d.key not in axiom_errors and not own_errors:
            raise CannotCertify(f"{path}:{d.pos.line}:{d.pos.col}: Lean gave no axiom report for "
                                f"{d.name} (output: {len(messages)} messages)")
        nodes.append(verdict_for(d, per[d.key], reports.get(d.key), line=d.pos.line,
                                 axiom_errors=d.key in axiom_errors))
    if not any(m.is_error for m in file_msgs):  # a type that is neither printed nor refused
        for d, _ in typed:
            if d.key not in found_types:
                raise CannotCertify(f"{path}:{d.pos.line}:{d.pos.col}: Lean gave no elaborated "
                                    f"type for {d.name}")
        for d, _ in valued:
            if d.key not in found_values:
                raise CannotCertify(f"{path}:{d.pos.line}:{d.pos.col}: Lean gave no elaborated "
                                    f"value for {d.name}")
    return FileVerdict(path=path, workspace=str(workspace), lean_version=tc.lean_version,
                       nodes=nodes, file_messages=file_msgs, partial=bool(labels),
                       wall_s=res.wall_s, types=found_types if types is not None else None,
                       used=found_used if used is not None else None,
                       values=found_values if values else None, audit=found_audit)

