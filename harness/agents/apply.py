"""Write one proof candidate into a blueprint file, only if the gate accepts it, never losing a
concurrent write (the I/O edge of `harness prove --apply`).

Under the file's write lock (:mod:`harness.gate.writelock`) the file is re-read. If it is still the
text the attempt saw, the candidate is applied to it; if another writer changed it meanwhile, the
same candidate (body + helpers) is re-applied to the new text — the gate then judges *that* text,
with Lean, under the lock. Right before the write the file is compared once more (a writer that
does not take the lock is refused, not overwritten).

API::

    statement_lock(path, bp, lock_path) -> Lock   # --lock, <stem>.lock.json, or bp's statements
    apply_gated(path, bp, label, body, helpers, *, workspace, toolchain, lock, timeout_s)
        -> (written: bool, reasons: list[str])
    # reasons[0] == "cannot certify" when the gate could not decide; "refused: …" when the file
    # could not be safely written (changed by a writer outside the lock, node gone, lock timeout)
"""

from __future__ import annotations

from pathlib import Path

from harness.blueprint.model import Blueprint
from harness.blueprint.parse import parse_text
from harness.blueprint.source import parse_file
from harness.blueprint.write import apply_edit, render
from harness.errors import CannotCertify, ExitCode, HarnessError
from harness.fsutil import atomic_write
from harness.gate.lock import Lock, check_lock_for, default_lock_path, load_lock, make_lock
from harness.gate.verify import verify
from harness.gate.writelock import WriteLockTimeout, blueprint_write_lock
from harness.lean.toolchain import Toolchain


def statement_lock(path: Path, bp: Blueprint, lock_path: Path | None) -> Lock:
    """``--lock``, else ``<stem>.lock.json`` if present, else a lock of the text the attempt saw
    (so a statement changed by anyone since then is a gate failure, not silently accepted)."""
    if lock_path is None and default_lock_path(path).is_file():
        lock_path = default_lock_path(path)
    if lock_path is None:
        return make_lock(bp)
    lock = load_lock(lock_path)
    check_lock_for(lock, bp, lock_path)
    return lock


def apply_gated(path: Path, bp: Blueprint, label: str, body: str, helpers: str, *,
                workspace: Path, toolchain: Toolchain, lock: Lock,
                timeout_s: float) -> tuple[bool, list[str]]:
    # a waiting run may sit behind a few gates (each up to one Lean timeout)
    wait_s = 3 * timeout_s + 30
    try:
        with blueprint_write_lock(workspace, path, timeout_s=wait_s):
            return _under_lock(path, bp, label, body, helpers, lock, workspace, toolchain,
                               timeout_s)
    except WriteLockTimeout as err:
        return False, [f"refused: {err.line()}"]


def _under_lock(path: Path, seen: Blueprint, label: str, body: str, helpers: str, lock: Lock,
                workspace: Path, tc: Toolchain, timeout_s: float) -> tuple[bool, list[str]]:
    try:
        cur = parse_file(path)
    except HarnessError as err:
        return False, [f"refused: {path} changed meanwhile and cannot be read: {err.line()}"]
    if (cur.text, cur.bom) != (seen.text, seen.bom):
        try:
            node = cur.node(label)
        except KeyError:
            return False, [f"refused: {path} changed meanwhile and has no node `{label}` any "
                           "more; nothing written"]
        if node.status.is_complete:
            return False, [f"refused: {path} changed meanwhile and `{label}` is already proved "
                           "there; nothing written"]
    try:
        new_text = apply_edit(cur, label, body, helpers)
        new_bp = parse_text(new_text, path, bom=cur.bom)
        report = verify(new_text, path, lock, base_text=cur.text, allow={label}, lean=tc,
                        workspace=workspace, timeout_s=timeout_s)
    except CannotCertify as err:
        return False, ["cannot certify", err.line()]
    except HarnessError as err:
        return False, [f"the edited file is not acceptable: {err.line()}"]
    except KeyError:
        return False, [f"refused: no node `{label}` in {path}; nothing written"]
    if report.exit_code == ExitCode.CANNOT_CERTIFY:
        return False, ["cannot certify", report.lean_detail or report.lean_status]
    if report.exit_code != ExitCode.OK:
        return False, [f.render() for f in report.failures] or [f"gate: {report.lean_status}"]
    try:
        unchanged = path.read_bytes() == render(cur)
    except OSError:
        unchanged = False
    if not unchanged:  # a writer that ignores the lock: refuse rather than overwrite it
        return False, [f"refused: {path} was changed by another writer during the gate; "
                       "nothing written"]
    atomic_write(path, render(new_bp))  # UsageError (exit 2) if the file cannot be written
    return True, []
