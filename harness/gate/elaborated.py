"""Elaborated-type hashes: what Lean says a declaration's type *is*, not how its source reads.

The source fingerprints (:mod:`harness.gate.fingerprint`) cannot see meaning that comes from
elsewhere: a dependency that redefines a name, notation or an instance that the statement's text
does not mention, `variable`s pulled in by elaboration. With a Lean toolchain, the lock also stores
a SHA-256 of each declaration's type as ``set_option pp.all true in #check (@X)`` prints it (no
notation, every implicit argument and universe explicit), and the gate compares it.

API::

    type_hash(type_text) -> str
    elaborated_hashes(bp, keys, lean, *, workspace=None, timeout_s=None) -> dict[key, hash]
        # one compile; CannotCertify when Lean fails on the file (errors, timeout, crash)
"""

from __future__ import annotations

import hashlib
import inspect
import re
from pathlib import Path
from typing import Iterable

from harness.blueprint.model import Blueprint
from harness.errors import CannotCertify
from harness.gate.declared import compile_audited
from harness.lean.toolchain import Toolchain
from harness.lean.verdict import FileVerdict, check_file
from harness.workspace import find_workspace

# A private name carries its module (`_private.Blueprint.Demo.0.x`); the check copy is a scratch
# module with a random name, so the module part is not part of the type's meaning.
_PRIVATE = re.compile(r"_private(?:\.(?:[^\s.()\[\]{}]+|«[^»]*»))*?\.0\.")


def normal_type(text: str) -> str:
    """Whitespace-collapsed (the pretty-printer wraps by width), private prefixes dropped."""
    return _PRIVATE.sub("_private.0.", " ".join(text.split()))


def type_hash(text: str) -> str:
    return hashlib.sha256(normal_type(text).encode("utf-8")).hexdigest()


def value_hash(text: str) -> str:
    """A definition's printed value: lines kept (the printer's output is a function of the
    term), trailing spaces and private prefixes dropped."""
    lines = [_PRIVATE.sub("_private.0.", ln.rstrip()) for ln in text.strip().splitlines()]
    return hashlib.sha256("\n".join(lines).encode("utf-8")).hexdigest()


VALUE_SUFFIX = "#value"  # elaborated_hashes: key + this -> the hash of a definition's value


def takes_types(runner: object, arg: str = "types") -> bool:
    """Does a pre-bound Lean runner ``(bp, labels, *, types=…)`` accept ``arg``?"""
    try:
        params = inspect.signature(runner).parameters  # type: ignore[arg-type]
    except (TypeError, ValueError):
        return False
    return arg in params or any(p.kind == p.VAR_KEYWORD for p in params.values())


def run_with_types(lean: Toolchain | object, bp: Blueprint, labels: list[str] | None,
                   types: list[str], *, workspace: Path | None,
                   timeout_s: float | None, values: list[str] | None = None,
                   audit: bool = False) -> FileVerdict:
    """One compile that also prints the elaborated types of ``types`` (keys) and, for
    ``values``, the definitions' elaborated values (``audit``: harness.gate.declared too)."""
    if isinstance(lean, Toolchain):
        ws = workspace or find_workspace(bp.path or Path.cwd())
        kwargs = {"timeout_s": timeout_s} if timeout_s else {}
        return check_file(lean, ws, bp, labels=labels, types=types, values=values,
                          audit=compile_audited if audit else None, **kwargs)
    extra = {"audit": True} if audit and takes_types(lean, "audit") else {}
    if not takes_types(lean):
        raise CannotCertify("the Lean runner cannot print elaborated types (it takes no "
                            "`types` argument)")
    if values:
        if not takes_types(lean, "values"):
            raise CannotCertify("the Lean runner cannot print elaborated values (it takes no "
                                "`values` argument)")
        return lean(bp, labels or [], types=types, values=values,  # type: ignore[operator]
                    **extra)
    return lean(bp, labels or [], types=types, **extra)  # type: ignore[operator]


def elaborated_hashes(bp: Blueprint, keys: Iterable[str], lean: Toolchain | object, *,
                      workspace: Path | None = None,
                      timeout_s: float | None = None) -> dict[str, str]:
    """Hashes of the elaborated types of ``keys``, from one compile of the whole file. Any Lean
    error in the file, a timeout or a crash raises CannotCertify: a lock is not written from a
    file Lean does not accept."""
    wanted = [k for k in dict.fromkeys(keys) if bp.by_key(k).name]
    defs = [k for k in wanted if bp.by_key(k).kind.is_definition]
    verdict = run_with_types(lean, bp, None, wanted, workspace=workspace, timeout_s=timeout_s,
                             values=defs or None)
    errors = list(verdict.file_errors) + [m for n in verdict.nodes for m in n.messages
                                          if m.is_error]
    if errors:
        first = errors[0]
        line = (first.data.strip().splitlines() or ["error"])[0]
        raise CannotCertify(f"{bp.display_path}:{first.pos.line}:{first.pos.col}: Lean reports "
                            f"an error, so the elaborated types cannot be locked: {line}")
    got = verdict.types or {}
    missing = [k for k in wanted if k not in got]
    if missing:
        raise CannotCertify(f"Lean gave no elaborated type for {', '.join(missing[:5])}")
    vals = verdict.values or {}
    missing = [k for k in defs if k not in vals]
    if missing:
        raise CannotCertify(f"Lean gave no elaborated value for {', '.join(missing[:5])}")
    return {**{k: type_hash(got[k]) for k in wanted},
            **{k + VALUE_SUFFIX: value_hash(vals[k]) for k in defs}}


def locked_types(bp: Blueprint, lock) -> list[tuple]:
    """(declaration, locked type hash) for every lock entry with a hash that is still in ``bp``
    under a name (a missing one is the lock check's business)."""
    return _locked(bp, lock, "type_hash")


def locked_values(bp: Blueprint, lock) -> list[tuple]:
    """(definition, locked value hash) like :func:`locked_types`."""
    return _locked(bp, lock, "value_hash")


def _locked(bp: Blueprint, lock, field: str) -> list[tuple]:
    by_key: dict[str, object] = {}
    for d in bp.decls:
        if d.name:
            by_key.setdefault(d.key, d)
    return [(by_key[e.key], getattr(e, field)) for e in lock.entries
            if getattr(e, field) and e.key in by_key]
