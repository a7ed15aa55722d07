"""The statement lock: what every declaration of a blueprint says, frozen in a versioned JSON file.

API (stable; the orchestrator and the prove agent call it)::

    make_lock(bp, *, elaborated=None, source=None) -> Lock   # elaborated: key -> type hash
    Lock.save(path)            # harness.fsutil.atomic_write; UsageError (exit 2) if unwritable
    load_lock(path) -> Lock    # InputError (CLI exit 2) on a missing, corrupt, foreign or
                               # wrong-version file: a bad lock is never a pass
    check_lock_for(lock, bp, lock_path)   # InputError if the lock was written for another file

One entry per named declaration (blueprint nodes *and* context declarations: an unannotated
`def` is as much part of a statement's meaning as a node). Anonymous instances are keyed by a
digest of their statement; `example`s add nothing to the environment and are not locked.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, model_validator

from harness import __version__
from harness.blueprint.model import Blueprint, DeclKind
from harness.errors import InputError, UsageError
from harness.fsutil import atomic_write
from harness.gate import fingerprint as fp
from harness.gate.environment import blueprint_imports, environment
from harness.gate.forbidden import claims_proved, counts, lock_key, scan
from harness.gate.tokens import divergence, lex

SCHEMA = "slt-harness/statement-lock"
VERSION = 1


class LockEntry(BaseModel):
    model_config = ConfigDict(extra="forbid")

    key: str
    label: str | None = None
    name: str | None = None
    kind: str
    line: int  # where it was at lock time (for messages only)
    statement: str  # fingerprint of the normalised statement (keyword … signature)
    definition: str | None = None  # whole declaration, body included (definition kinds)
    # the same with its line structure (layout-sensitive `do`/tactic blocks); None in locks
    # written before it existed, which are then compared by `definition` alone
    layout: str | None = None
    context: str  # namespace/open/variable/universe/options and other commands in force
    informal: str | None = None  # the blueprint `statement := /-- … -/` text
    # SHA-256 of the pp.all elaborated type (harness.gate.elaborated; only with a Lean toolchain)
    type_hash: str | None = None
    # definitions: SHA-256 of the pp.all `#print` (the elaborated value), with a Lean toolchain
    value_hash: str | None = None
    claims_proved: bool = False

    @model_validator(mode="before")
    @classmethod
    def _legacy(cls, data: Any) -> Any:
        """Locks written before `type_hash` had an always-null `elaborated` entry field."""
        if isinstance(data, dict) and "elaborated" in data and "type_hash" not in data:
            data = dict(data)
            data["type_hash"] = data.pop("elaborated")
        return data

    @property
    def elaborated(self) -> str | None:  # the former name
        return self.type_hash


class Lock(BaseModel):
    model_config = ConfigDict(extra="forbid", populate_by_name=True)

    schema_: Literal["slt-harness/statement-lock"] = Field(alias="schema")
    version: Literal[1]
    tool: str
    source: str | None = None
    header: str
    elaborated: bool = False  # True when entries carry elaborated-type hashes (`type_hash`)
    entries: list[LockEntry]
    forbidden: dict[str, int] = {}  # "rule|owner" -> occurrences present at lock time
    environment: dict[str, str] = {}  # lakefile, toolchain, manifest, imported project modules
    contexts: dict[str, list[str]] = {}  # context fingerprint -> its commands (for messages)

    def entry(self, key: str) -> LockEntry | None:
        for e in self.entries:
            if e.key == key:
                return e
        return None

    def to_json(self) -> str:
        return json.dumps(self.model_dump(mode="json", by_alias=True), indent=2,
                          ensure_ascii=False, sort_keys=False) + "\n"

    def save(self, path: str | Path) -> None:
        """Atomic write: a reader sees the old lock or the new one, never half of one. An
        unwritable path (a directory, under a file, no permission) is a UsageError (exit 2)."""
        p = Path(path)
        try:
            atomic_write(p, self.to_json())
        except OSError as err:  # atomic_write raises UsageError itself; this is a backstop
            raise UsageError(f"{p}: cannot write: {err.strerror or err}") from None


def default_lock_path(file: str | Path) -> Path:
    """`harness lock`'s default output: ``<FILE stem>.lock.json`` beside FILE."""
    f = Path(file)
    return f.with_name(f.stem + ".lock.json")


def make_lock(bp: Blueprint, *, elaborated: dict[str, str] | None = None,
              source: str | None = None) -> Lock:
    """Fingerprint every declaration of ``bp``. ``elaborated`` maps lock keys (or Lean names) to a
    hash of the elaborated type, when a real Lean produced them; without it the lock says so."""
    lexed = lex(bp.text)
    div = divergence(bp.text, lexed)  # a file the gate could never pass is not worth locking
    if div is not None:
        p = bp.pos_of(div[0])
        raise InputError(bp.display_path, p.line, p.col, div[1])
    norm = fp.Normaliser(bp.text, lexed)
    ctx = fp.Contexts(norm, bp)
    entries: list[LockEntry] = []
    contexts: dict[str, list[str]] = {}
    seen: set[str] = set()
    for d in bp.decls:
        if d.kind == DeclKind.EXAMPLE:
            continue
        key = lock_key(d, norm)
        if key in seen:  # duplicate label/name: the parser reported it; lock the first
            continue
        seen.add(key)
        elab = None
        if elaborated:
            elab = elaborated.get(key) or (elaborated.get(d.name) if d.name else None)
        context = ctx.fp(d)
        contexts.setdefault(context, ctx.lines(d))
        entries.append(LockEntry(
            key=key, label=d.label, name=d.name, kind=d.kind.value, line=d.pos.line,
            statement=fp.statement_fp(norm, d),
            definition=fp.definition_fp(norm, d) if d.kind.is_definition else None,
            layout=fp.layout_fp(norm, d) if d.kind.is_definition else None,
            context=context, informal=fp.informal_fp(d), type_hash=elab,
            value_hash=(elaborated or {}).get(d.key + "#value") if d.kind.is_definition
            else None,
            claims_proved=claims_proved(d, norm)))
    return Lock(schema=SCHEMA, version=VERSION, tool=f"harness {__version__}",
                source=source or (str(bp.path) if bp.path else None),
                header=fp.header_fp(norm, bp), elaborated=bool(elaborated), entries=entries,
                forbidden=counts(scan(bp, lexed, norm)),
                environment=environment(bp.path, blueprint_imports(bp)), contexts=contexts)


def load_lock(path: str | Path) -> Lock:
    p = Path(path)
    try:
        raw = p.read_bytes()
    except FileNotFoundError:
        raise InputError(p, 1, 0, "no such lock file") from None
    except IsADirectoryError:
        raise InputError(p, 1, 0, "is a directory, not a lock file") from None
    except OSError as err:
        raise InputError(p, 1, 0, f"cannot read lock file: {err.strerror or err}") from None
    try:
        data = json.loads(raw.decode("utf-8"))
    except UnicodeDecodeError:
        raise InputError(p, 1, 0, "lock file is not UTF-8 text") from None
    except json.JSONDecodeError as err:
        raise InputError(p, err.lineno, err.colno - 1, f"corrupt lock file: {err.msg}") from None
    if not isinstance(data, dict) or data.get("schema") != SCHEMA:
        found = data.get("schema") if isinstance(data, dict) else type(data).__name__
        raise InputError(p, 1, 0, f"not a statement lock (schema {found!r}, expected {SCHEMA!r})")
    if data.get("version") != VERSION:
        raise InputError(p, 1, 0, f"statement lock version {data.get('version')!r} is not "
                         f"supported (this harness reads version {VERSION}); re-run "
                         "`harness lock`")
    try:
        lock = Lock.model_validate(data)
    except ValidationError as err:
        first = err.errors()[0]
        where = ".".join(str(x) for x in first.get("loc", ()))
        raise InputError(p, 1, 0, f"corrupt statement lock: {where}: {first.get('msg')}") from None
    keys = [e.key for e in lock.entries]
    if len(keys) != len(set(keys)):
        raise InputError(p, 1, 0, "corrupt statement lock: duplicate entry keys")
    return lock


def check_lock_for(lock: Lock, bp: Blueprint, lock_path: str | Path) -> None:
    """Raise InputError when ``lock`` was plainly written for another blueprint: none of its
    declarations exists in ``bp`` and its recorded source (if any) names another file. A lock of
    the right file whose nodes were deleted or renamed is a gate finding (exit 1), not this."""
    if not lock.entries:
        return
    here = Path(bp.display_path).name
    if lock.source is not None and Path(lock.source).name == here:
        return
    lexed = lex(bp.text)
    if divergence(bp.text, lexed) is not None:
        return  # the gate's lexer check reports this file
    norm = fp.Normaliser(bp.text, lexed)
    keys = {lock_key(d, norm) for d in bp.decls if d.kind != DeclKind.EXAMPLE}
    names = {d.name for d in bp.decls if d.name}
    labels = {d.label for d in bp.decls if d.label}
    if any(e.key in keys or e.name in names or e.label in labels for e in lock.entries):
        return
    n = len(lock.entries)
    raise InputError(lock_path, 1, 0, f"lock was written for {lock.source or 'another file'}, "
                     f"not for {bp.display_path}: none of its {n} declaration"
                     f"{'s' if n != 1 else ''} is here")
