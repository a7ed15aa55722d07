"""A project run's repair round for files broken outside any batch (project_importers.py).

Each broken file goes to its own repair step (breakage.py: restate + audit), in import order,
after the project files it imports that fail too.
While a file is broken, every file importing it fails too (Lake builds the imports first), so
an importer that still fails after the file's repair is not, by itself, the repair's fault: a
change upstream (a Mathlib bump) may have broken it on its own. Such an importer is repaired
next; if its repair fails (or it still does not compile), the file's repair is rolled back
with it and the run stops for a person (exit 1). Which files were found broken first (the
gate's batches race) does not decide whether a repair is kept."""

from __future__ import annotations

from typing import Any

from harness.orchestrator.events import VOIDABLE
from harness.orchestrator.gitrollback import reset_to
from harness.orchestrator.record import Record


def shown(broken: dict[str, list[str]]) -> str:
    return "; ".join(f"{r}: {m[0]}" for r, m in list(broken.items())[:3])


class BreakageRepairs:
    """Mixed into ImporterChecks: it provides ``units``, ``log``, ``_users``, ``_build``,
    ``_compile`` and ``_advance``."""

    units: dict[str, Any]
    log: Any

    def _void(self, rel: str, seq0: int, why: str) -> None:
        """The repair of ``rel`` was rolled back: its events after ``seq0`` (restate rounds,
        changed statements, the audit) no longer count (events.voided). Logged after the
        roll-back: a kill in between leaves them counted, the conservative side. A repair's
        events carry its file (breakage.FileEvents); untagged ones are taken as its own."""
        seqs = [e["seq"] for e in self.log.events
                if e.get("seq", 0) > seq0 and e["kind"] in VOIDABLE
                and e.get("file") in (None, rel)]
        if seqs:
            self.log.append("voided", file=rel, seqs=seqs, reason=why[:500])

    def _relock_file(self, rel: str) -> None:
        """``rel``'s statement lock follows its head (a gate with no lock check of its own)."""
        relock = getattr(self.units[rel].gate, "relock", None)
        if relock is not None:
            relock(self.units[rel].record.head_text())

    def _restated_by(self, rel: str, seq0: int) -> set[str]:
        """The statements ``rel``'s repair restated and its audit passed (its own `audit`
        events after ``seq0``): the only ones its lock lets change."""
        return {n for e in self.log.events if e.get("seq", 0) > seq0 and e["kind"] == "audit"
                and e.get("file") in (None, rel) and e.get("ok") and not e.get("blocking")
                for n in e.get("changed") or ()}

    def _relock_repaired(self, rel: str, seq0: int) -> list[str]:
        """A kept repair is relocked against its statement lock (services.LockedGate
        .relock_repaired): anything but its audited restatements refuses it (the lock's
        reasons). A gate with no such check (tests' stand-ins) just relocks."""
        u = self.units[rel]
        check = getattr(u.gate, "relock_repaired", None)
        if check is None:
            self._relock_file(rel)
            return []
        return list(check(u.record.head_text(), self._restated_by(rel, seq0)))

    def _lock_before(self, rel: str) -> Any:
        lock = getattr(self.units[rel].gate, "lock", None)
        return None if lock is None else lock.model_copy(deep=True)

    def _restore_lock(self, rel: str, lock: Any) -> None:
        """``rel``'s lock as before its repair (restored text: its old statements again)."""
        restore = getattr(self.units[rel].gate, "restore_lock", None)
        if restore is not None and lock is not None:
            restore(lock)
        else:
            self._relock_file(rel)

    def _undo(self, rel: str, before: str, seq0: int, why: str, lock: Any = None) -> None:
        """The branch back to ``before`` (the files share one branch: only ever the newest
        repair of the round), ``rel``'s working file, lock and module with it."""
        record: Record = self.units[rel].record
        if record.head() != before:
            reset_to(record, before, why)
            self._advance(rel)  # type: ignore[attr-defined]
            self._void(rel, seq0, why)
            self._restore_lock(rel, lock)
            if self._users(rel):  # type: ignore[attr-defined]
                self._build(rel)  # type: ignore[attr-defined]  # its importers read it

    def _repair_broken(self, broken: dict[str, list[str]]) -> tuple[bool, str]:
        """Repair each failing file with its own messages, then the importers that still fail
        after it (each once); a failure rolls back that file's repair and the repairs that
        made it necessary (and, the branch being shared, every repair of the round after
        them)."""
        queue = self._in_import_order(broken)
        done: list[str] = []
        kept: dict[str, tuple[str, int, Any]] = {}  # file -> (head, seq, lock) before it
        cause: dict[str, str] = {}  # an importer queued by -> the file whose repair left it
        while queue:
            rel = next(iter(queue))
            msgs = queue.pop(rel)
            u = self.units[rel]
            if rel not in cause:  # found broken while a file it imports was: that file's
                # repair goes back with its own, whichever batch found it (the race decides
                # only whether it was found before that repair or queued by it)
                imported = self._imported_files(rel) if kept else set()
                ups = [k for k in kept if k in imported]
                if ups:
                    cause[rel] = ups[0]
            if u.repair is None:  # nothing to try: the repairs that queued it go back too
                return False, self._unwind(rel, "no repair step configured", kept, cause)
            before, seq0, lock = u.record.head(), self.log.seq, self._lock_before(rel)
            ok, why = u.repair(msgs)  # ok: Lean accepts the file and the audit passed
            if ok:
                self._advance(rel)  # type: ignore[attr-defined]
                refused = self._relock_repaired(rel, seq0)  # its audited restatements only
                if refused:
                    ok, why = False, ("its statement lock refuses the repaired file: "
                                      + "; ".join(refused[:3]))
            if not ok:
                self._undo(rel, before, seq0, f"{rel}: the repair failed: {why}", lock)
                return False, self._unwind(rel, why, kept, cause)
            kept[rel] = (before, seq0, lock)
            users = [r for r in self._users(rel) if r not in queue]  # type: ignore[attr-defined]
            built = self._build(rel) if self._users(rel) else None  # type: ignore[attr-defined]
            bad = {rel: built} if built else {
                r: m for r in users if (m := self._compile(r)) is not None}  # type: ignore[attr-defined]  # noqa: E501
            again = [r for r in bad if r in kept]  # its own module, or a file repaired before
            if again:
                reason = f"{rel}: the restated file breaks the files importing it: " \
                         f"{shown({r: bad[r] for r in again})}"
                kept.pop(rel)
                self._undo(rel, before, seq0, reason, lock)
                return False, self._unwind(rel, reason, kept, cause, nested=False)
            for r, m in bad.items():  # failing while ``rel`` was broken too: repaired next
                queue[r], cause[r] = m, rel
            done.append(f"{rel}: {why}")
        return True, "; ".join(done) or "nothing to repair"

    def _imported_files(self, rel: str) -> set[str]:
        """The project files ``rel`` imports, transitively."""
        closure = self._project.closure  # type: ignore[attr-defined]
        files = self._files  # type: ignore[attr-defined]
        mine = next((b for b in files if self._rel[id(b)] == rel), None)  # type: ignore[attr-defined]  # noqa: E501
        ids = closure.get(id(mine), set()) if mine is not None else set()
        return {self._rel[id(b)] for b in files  # type: ignore[attr-defined]
                if id(b) in ids and b is not mine}  # (a file's closure holds the file)

    def _in_import_order(self, broken: dict[str, list[str]]) -> dict[str, list[str]]:
        """The broken files and the project files they import that fail too (found broken
        first by whichever batch ran first, a file must not be repaired against a broken
        import), imported files first."""
        files = [self._rel[id(b)] for b in self._files]  # type: ignore[attr-defined]
        closure = self._project.closure  # type: ignore[attr-defined]
        found = dict(broken)
        for b in self._files:  # type: ignore[attr-defined]
            rel = self._rel[id(b)]  # type: ignore[attr-defined]
            if rel in found or rel not in self.units:
                continue
            if any(id(b) in closure.get(id(d), set()) for d in self._files  # type: ignore[attr-defined]  # noqa: E501
                   if self._rel[id(d)] in broken) and (m := self._compile(rel)) is not None:  # type: ignore[attr-defined]  # noqa: E501
                found[rel] = m
        return {r: found[r] for r in sorted(found, key=lambda r: files.index(r)
                                             if r in files else len(files))}

    def _unwind(self, rel: str, why: str, kept: dict[str, tuple[str, int, Any]],
                cause: dict[str, str], nested: bool = True) -> str:
        """``rel``'s repair failed (and was undone): undo the repairs that queued it. The files
        share one branch, so every repair of the round made after the earliest of those goes
        too (newest first: each undo moves the branch back over the newest commit only);
        their files are still broken and the run stops for them."""
        reason, chain, r = (f"{rel}: {why}" if nested else why), [], rel
        while r in cause:
            r = cause[r]
            chain.append(r)
        order = list(kept)
        first = min((order.index(c) for c in chain if c in kept), default=None)
        if first is not None:
            for up in reversed(order[first:]):
                before, seq0, lock = kept.pop(up)
                self._undo(up, before, seq0, f"{up}: rolled back with the round's repair "
                                             f"that failed: {reason}", lock)
        if chain:
            # not "breaks": the importer may have failed on its own (a Mathlib bump)
            return (f"{chain[-1]}: a file importing it still fails and was not repaired: "
                    f"{reason} (the repair was rolled back)")
        return reason + (" (the repair was rolled back)" if not nested else "")
