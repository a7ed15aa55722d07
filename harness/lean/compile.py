"""One compile of a scratch text: ``lean --json`` on a copy in ``.harness/tmp/``, and the rule
for when Lean's answer can be trusted at all (:func:`certify`). Below both the per-node verdicts
(:mod:`harness.lean.verdict`) and the gate's `.olean` audit (:mod:`harness.gate.declared`),
which compile the same way; the audit reaches :func:`harness.lean.verdict.check_file` as an
:class:`Auditor` its caller passes, so this room never imports the gate."""

from __future__ import annotations

import os
import re
import uuid
from pathlib import Path
from typing import Any, Protocol

from harness.errors import CannotCertify
from harness.lean.messages import Message, parse_lean_json
from harness.lean.run import RunResult, run
from harness.lean.toolchain import Toolchain
from harness.workspace import harness_dir

_IMPORT_FAILED = re.compile(r"unknown module prefix|object file .* does not exist|"
                            r"unknown package|could not resolve import", re.I)


class Auditor(Protocol):
    """Compile ``text`` as ``module`` to an `.olean` and read what it declares
    (:func:`harness.gate.declared.compile_audited`): messages, the run, the audit (None when
    Lean reported an error)."""

    def __call__(self, tc: Toolchain, workspace: Path, text: str, *, module: str, stem: str,
                 timeout_s: float, mem_mb: int | None, source: str | None = None
                 ) -> tuple[list[Message], RunResult, Any]: ...


def module_name(workspace: Path, path: Path | str | None) -> str:
    """The module a blueprint file is (``Blueprint/Demo.lean`` -> ``Blueprint.Demo``): compiling
    the scratch copy under the same name gives private constants the names a build gives."""
    if path is not None:
        p = Path(path)
        try:
            rel = (p if p.is_absolute() else (workspace / p)).resolve().relative_to(
                workspace.resolve())
        except (ValueError, OSError):
            rel = Path(p.name)
        parts = [x for x in rel.with_suffix("").parts if x not in ("", ".")]
        if parts and all(x.replace("_", "a").isalnum() and not x[0].isdigit() for x in parts):
            return ".".join(parts)
    return "HarnessAudit"


def compile_text(tc: Toolchain, workspace: Path, text: str, *, stem: str, timeout_s: float,
                 mem_mb: int | None, module: str | None = None
                 ) -> tuple[list[Message], RunResult]:
    """Compile ``text`` as a scratch file inside the workspace; certified messages or raise.
    ``module``: the module the text stands for (its Lake options apply; harness.lean.options)."""
    tmp = harness_dir(workspace) / "tmp"
    tmp.mkdir(parents=True, exist_ok=True)
    path = tmp / f"{stem}-{uuid.uuid4().hex[:10]}.lean"
    path.write_text(text, encoding="utf-8", newline="")
    try:
        res = run(tc.lean("--json", str(path.relative_to(workspace)), module=module),
                  cwd=workspace, timeout_s=timeout_s, mem_mb=mem_mb)
    finally:
        if not os.environ.get("HARNESS_KEEP_TMP"):
            path.unlink(missing_ok=True)
    messages, other = parse_lean_json(res.stdout)
    certify(res, messages, other, label=stem, timeout_s=timeout_s, mem_mb=mem_mb)
    return messages, res


def certify(res: RunResult, messages: list[Message], other: list[str], *, label: str,
            timeout_s: float, mem_mb: int | None) -> None:
    if res.timed_out:
        raise CannotCertify(f"{label}: Lean did not finish within {timeout_s:g}s (process group killed)")
    if res.memory_exceeded:
        raise CannotCertify(f"{label}: {res.memory_line()}")
    tail = (res.stderr.strip().splitlines() or other or ["no output"])[-1][:200]
    if res.returncode not in (0, 1):
        raise CannotCertify(f"{label}: Lean exited with code {res.returncode}: {tail}")
    if res.returncode == 1 and not any(m.is_error for m in messages):
        raise CannotCertify(f"{label}: Lean failed without reporting an error: {tail}")
    for m in messages:  # an unbuilt import: nothing after it was elaborated meaningfully
        if m.is_error and _IMPORT_FAILED.search(m.data):
            raise CannotCertify(f"{label}: imports not available "
                                f"({m.data.strip().splitlines()[0][:160]}); run `lake build` first")
