"""What Lean says a compiled file declares: compile to an `.olean`, then read it with our own
Lean program (``harness/gate/lean/AuditModule.lean``) — the constants the module adds (names,
kinds, ``unsafe``/``partial`` flags, type and value hashes, auxiliary declarations included), the
environment-extension entries it adds (instances, reducibility, simp sets, notation, macros …)
and a kernel replay of every new constant (as ``leanchecker`` does).

Why a second process reading the `.olean` rather than a query appended to the file: code the
candidate defines (an ``elab_rules`` for ``#print axioms``, a macro that shadows our query) runs
inside the compile and can rewrite what an in-file query prints; it cannot reach a program that
reads the compiled data and never imports the module. Protocol: the program's header.

Every failure to get a complete answer (timeout, crash, garbage, no ``done`` line, a missing
`.olean` for a file without errors) is :class:`harness.errors.CannotCertify` — never a pass.
"""

from __future__ import annotations

import hashlib
import os
import shutil
import uuid
from pathlib import Path

from pydantic import BaseModel, ValidationError

from harness.errors import CannotCertify
from harness.fsutil import atomic_write
from harness.gate.environment import CONFIG_FILES, import_digests, module_imports
from harness.lean.messages import Message, parse_lean_json
from harness.lean.compile import certify
from harness.lean.jsonlines import done_count, read_lines
from harness.lean.run import DEFAULT_MEM_MB, RunResult, run
from harness.lean.toolchain import Toolchain
from harness.workspace import harness_dir

PROGRAM = Path(__file__).with_name("lean") / "AuditModule.lean"
AUDIT_TIMEOUT_S = 600.0  # the replay of a long proof is as slow as its compile


class AuditConst(BaseModel):
    name: str  # Lean's raw name (a private one as `_private.<module>.0.<name>`)
    kind: str  # theorem def axiom opaque quot inductive constructor recursor
    unsafe: bool = False
    partial: bool = False
    type: str  # hash of the type (Expr.hash)
    value: str = ""  # hash of a definition's / opaque constant's value; "" otherwise


class Audit(BaseModel):
    module: str
    imports: list[str] = []
    constants: list[AuditConst] = []
    ext: dict[str, int] = {}  # extension name -> entries the module adds
    kernel_ok: bool
    kernel_message: str | None = None

    def by_name(self) -> dict[str, AuditConst]:
        return {c.name: c for c in self.constants}


def parse_audit(stdout: str, module: str) -> Audit:
    """The program's JSON lines -> :class:`Audit`; CannotCertify on anything incomplete."""
    head: dict | None = None
    consts: list[AuditConst] = []
    ext: dict[str, int] = {}
    kernel: dict | None = None
    done: int | None = None
    for n, text, obj in read_lines(stdout.splitlines()):
        try:
            if obj is None:
                raise ValueError("not an object")
            if (count := done_count(obj)) is not None:
                done = count
            elif "imports" in obj:
                head = obj
            elif "kernel" in obj:
                kernel = obj
            elif "ext" in obj:
                ext[str(obj["ext"])] = int(obj["entries"])
            else:
                consts.append(AuditConst.model_validate(obj))
        except (ValueError, TypeError, KeyError, ValidationError):
            raise CannotCertify(f"audit: output line {n} is not part of the protocol: "
                                f"{text[:120]!r}") from None
    if head is None or kernel is None or done is None:
        raise CannotCertify("audit: the answer is incomplete (no header, kernel verdict or "
                            "`done` line)")
    if done != len(consts):
        raise CannotCertify(f"audit: Lean reported {done} constants but {len(consts)} arrived")
    ok = kernel.get("kernel") == "ok"
    return Audit(module=module, imports=[str(x) for x in head.get("imports", [])],
                 constants=consts, ext=ext, kernel_ok=ok,
                 kernel_message=None if ok else str(kernel.get("message", "kernel error")))


def run_audit(tc: Toolchain, workspace: Path, olean: Path, module: str, *,
              timeout_s: float = AUDIT_TIMEOUT_S, mem_mb: int | None = None) -> Audit:
    res = run(tc.lean("--run", str(PROGRAM), str(olean)), cwd=workspace, timeout_s=timeout_s,
              mem_mb=DEFAULT_MEM_MB if mem_mb is None else mem_mb)
    if res.timed_out:
        raise CannotCertify(f"audit: Lean did not finish within {timeout_s:g}s (killed)")
    if res.returncode != 0:
        tail = (res.stderr.strip().splitlines() or res.stdout.strip().splitlines()
                or ["no output"])[-1][:200]
        raise CannotCertify(f"audit: `lean --run {PROGRAM.name}` failed (exit "
                            f"{res.returncode}): {tail}")
    return parse_audit(res.stdout, module)


def compile_audited(tc: Toolchain, workspace: Path, text: str, *, module: str, stem: str,
                    timeout_s: float, mem_mb: int | None, source: str | None = None
                    ) -> tuple[list[Message], RunResult, Audit | None]:
    """Compile ``text`` as module ``module`` in a scratch directory with an `.olean`, then audit
    it. The audit is None only when Lean reported an error (no `.olean` is trusted then).
    ``source``: the blueprint text ``text`` was made from (queries appended add no constant),
    the key under which the audit is remembered."""
    scratch = harness_dir(workspace) / "tmp" / f"{stem}-{uuid.uuid4().hex[:10]}"
    src = scratch.joinpath(*module.split(".")).with_suffix(".lean")
    olean = src.with_suffix(".olean")
    src.parent.mkdir(parents=True, exist_ok=True)
    src.write_text(text, encoding="utf-8", newline="")
    try:
        rel = lambda p: str(p.relative_to(workspace))  # noqa: E731
        res = run(tc.lean("--json", f"--root={rel(scratch)}", "-o", rel(olean), rel(src),
                          module=module),  # Lake's options for the module (lean/options.py)
                  cwd=workspace, timeout_s=timeout_s, mem_mb=mem_mb)
        messages, other = parse_lean_json(res.stdout)
        certify(res, messages, other, label=stem, timeout_s=timeout_s, mem_mb=mem_mb)
        if any(m.is_error for m in messages):
            return messages, res, None
        if not olean.is_file():
            raise CannotCertify(f"{stem}: Lean reported no error but wrote no .olean to audit")
        audit = cached_audit(tc, workspace, text if source is None else source, module, olean,
                             mem_mb=mem_mb, timeout_s=timeout_s)
        return messages, res, audit
    finally:
        if not os.environ.get("HARNESS_KEEP_TMP"):
            shutil.rmtree(scratch, ignore_errors=True)


def cached_audit(tc: Toolchain, workspace: Path, text: str, module: str, olean: Path, *,
                 mem_mb: int | None = None, timeout_s: float = AUDIT_TIMEOUT_S) -> Audit:
    """Run the audit, remembering it under :func:`_cache_path` (text, module, toolchain, pins,
    the project modules it imports) so the base of the next gate (this head) needs no second
    compile."""
    path = _cache_path(tc, workspace, text, module)
    audit = run_audit(tc, workspace, olean, module, mem_mb=mem_mb, timeout_s=timeout_s)
    if path is not None:
        atomic_write(path, audit.model_dump_json())
    return audit


def audit_of_text(tc: Toolchain, workspace: Path, text: str, module: str, *,
                  timeout_s: float, mem_mb: int | None) -> Audit | None:
    """The audit of ``text`` (a base revision): from the cache, else one compile. None: the
    text has Lean errors (a base that does not build cannot explain anything)."""
    path = _cache_path(tc, workspace, text, module)
    if path is not None:
        try:
            return Audit.model_validate_json(path.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            pass
    _m, _r, audit = compile_audited(tc, workspace, text, module=module, stem="base",
                                    timeout_s=timeout_s, mem_mb=mem_mb)
    return audit


def _cache_path(tc: Toolchain, workspace: Path, text: str, module: str) -> Path | None:
    """Where the audit of ``text`` is remembered. The key is everything the compile reads: the
    text, its module name, the toolchain, the audit program, the Lake pins and configuration
    (packages: the manifest pins them) and the content of every project module the text
    imports, transitively — an edited import must not bring back a stale audit. None: too
    many modules to hash (no cache; the compile decides). A project module that cannot be read
    is CannotCertify: an audit cannot be keyed, so none is trusted."""
    own = workspace.joinpath(*module.split(".")).with_suffix(".lean")
    try:
        deps, complete = import_digests(workspace, module_imports(text), own.resolve())
    except OSError as err:
        raise CannotCertify(f"audit cache: cannot read the imported project module "
                            f"`{err.filename}`: {err.strerror or err}") from None
    if not complete:
        return None
    h = hashlib.sha256()
    for part in (text, module, tc.lean_version or "", PROGRAM.read_text(encoding="utf-8")):
        h.update(part.encode("utf-8"))
        h.update(b"\0")
    for pin in CONFIG_FILES:
        try:
            h.update((workspace / pin).read_bytes())
        except OSError:
            h.update(b"-")
        h.update(b"\0")
    for rel in sorted(deps):
        h.update(f"{rel}\0{deps[rel]}\0".encode("utf-8"))
    d = harness_dir(workspace) / "audit"
    d.mkdir(parents=True, exist_ok=True)
    return d / f"{h.hexdigest()[:32]}.json"
