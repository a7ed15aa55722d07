"""A project run's merges and the files importing them: fail closed.

A merge into F that adds or removes declarations (helper lemmas, a split node, a `where`
clause of a proof) or changes a definition's value can break a file that imports F (a helper
named as one of its declarations: Lean's "already declared"). The gate of F
cannot see that, so after the commit the importers are compiled; when one fails, the commit is
rolled back with git (the branch moved back by a compare-and-swap `git update-ref`, the
working file restored): the candidates that added declarations come back rejected with the
reason, the proof-only ones wait for the gate again. The commit stays in the reflog for a
person to look at, never on the branch. Before the importers compile, F's module is built
(they read its `.olean`). A file broken outside any batch (or an importer broken on its own)
goes to its own repair step, as in a single-file run.

Not visible to new jobs until judged: from before such a merge's commit until its importers
were judged, a job for a node of F carries F's text at the commit before (``_job_text``): a
text that may yet be rolled back is never sent out (the simplest fail-closed order — the check
still runs after the commit, where the importers see the merged module on disk; a job sent
then is stale at worst, as any job a later merge overtakes, and its candidate is gated again).

Kill-safe: before such a merge a marker (``importers-pending.json`` in the run's directory)
names the file, the head before and the batch; it is removed once the importers were judged.
A run resumed with the marker still there rolls back that batch's commit if it is the head —
a merge whose importers were never checked does not stay in the record (its accepted
candidates go back to the gate from the log).
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any


from harness.blueprint.lexer import mask
from harness.errors import InputError, UsageError
from harness.orchestrator.gitrepo import Repo
from harness.orchestrator.gitrollback import move_back, roll_back
from harness.orchestrator.batchmerge import Candidate
from harness.orchestrator.record import TRAILER, Record
from harness.orchestrator import repairjournal as rj
from harness.orchestrator.project_repairs import BreakageRepairs, shown
from harness.orchestrator.spanindex import SpanIndex
from harness.orchestrator.state import atomic_write

from harness.orchestrator.stage2_base import RepairRecord, Stage2Outcome
from harness.orchestrator.stage2_gate import outside_batch

__all__ = ["RepairRecord", "ImporterChecks", "needs_check", "undo_pending", "PENDING"]

PENDING = "importers-pending.json"


# what in a body declares constants of its own (`t.aux`), which importers see: a `where` clause
# or a `let rec` (leanprover/lean4 src/Lean/Parser/Term.lean: `whereDecls`, `«letrec»`)
_AUX_DECLS = re.compile(r"(?<![\w.'])(?:where|let\s+rec)(?![\w'!?])")


def _declares(body: str) -> bool:
    try:
        return bool(_AUX_DECLS.search(mask(body)))
    except InputError:
        return True  # a body our lexer cannot read: assume it declares (fail closed)


def changes_more(c: Candidate, base: SpanIndex | None) -> bool:
    """Whether ``c`` changes more than a proof body of ``base`` (the text it is merged into): a
    repair split, helper lemmas, a node that is not a theorem's `:= proof` (a definition's value
    is what importers unfold), or a body that declares constants — the new one, or the old one
    it replaces (a `where` clause of the record's text goes with the body it ends)."""
    if c.role == "repair" or c.helpers.strip() or base is None:
        return True
    try:
        n = base.node(c.node)
    except KeyError:
        return True
    if n.kind not in ("theorem", "lemma") or n.body_sep != ":=":
        return True
    return _declares(base.text[n.body_span.start:n.body_span.end]) or _declares(c.body)


def needs_check(cands: list[Candidate], base: SpanIndex | None = None) -> bool:
    """More than proof bodies (:func:`changes_more`; no ``base``: assumed). A proof body alone
    cannot break an importer (Lean does not re-check an importer's uses of a proof)."""
    return any(changes_more(c, base) for c in cands)


def mark(path: Path | None, rel: str, parent: str | None, batch: str) -> None:
    if path is not None:
        atomic_write(path, json.dumps({"file": rel, "parent": parent, "batch": batch}) + "\n")


def clear(path: Path | None) -> None:
    if path is not None:
        path.unlink(missing_ok=True)


def undo_pending(path: Path, workspace: Path) -> str | None:
    """On resume: a merge killed before its importers were judged is rolled back (if its commit
    is the head). Returns a note for the run's notes, or None when there was nothing to undo."""
    if not path.is_file():
        return None
    try:
        data: dict[str, Any] = json.loads(path.read_text(encoding="utf-8"))
        rel, parent, batch = data["file"], data["parent"], data["batch"]
    except (OSError, ValueError, KeyError, TypeError):
        clear(path)  # a torn marker: written before any commit (atomic write), nothing to undo
        return None
    repo = Repo(workspace)
    try:
        head = repo.head.commit
        tr = dict(TRAILER.findall(head.message))
        ours = (parent is not None and head.parents and head.parents[0].hexsha == parent
                and tr.get("Harness-Batch") == batch and tr.get("Harness-File") == rel)
        if not ours:
            clear(path)
            return None
        move_back(repo, rel, head.hexsha, parent, "its importers were never checked")
        clear(path)  # only once the commit is undone: a failed roll-back is tried again
        return (f"rolled back {head.hexsha[:10]} (batch {batch} into {rel}): the run stopped "
                "before the files importing it were compiled; its proofs go back to the gate")
    finally:
        repo.close()


def build_module(gate: Any, file: Path, workspace: Path) -> list[str] | None:
    """`lake build MODULE` after a change to ``file``: `lake env lean` compiles an importer
    against the module's `.olean`, which nothing else rebuilds during a run — without this the
    importers' compile (and their certification) would read the module as it was built before.
    None when built (or when the gate has no toolchain: the tests' stand-in gates read the
    sources); else why not (fail closed: the caller rolls the change back)."""
    from harness.lean.run import run

    tc = getattr(gate, "tc", None)
    if tc is None or not hasattr(tc, "module_of"):
        return None
    mod = tc.module_of(file)
    if mod is None:
        return [f"{file}: not a module of the workspace's libraries; cannot build it"]
    timeout = float(getattr(gate, "timeout_s", 600) or 600)
    res = run([str(tc.lake), "build", mod], cwd=workspace, timeout_s=timeout, mem_mb=None)
    if res.timed_out:
        return [f"{file}: `lake build {mod}` did not finish within {timeout:g}s"]
    if res.returncode != 0:
        tail = (res.stdout.strip().splitlines() or res.stderr.strip().splitlines()
                or ["no output"])
        return [f"{file}: `lake build {mod}` failed: " + "; ".join(tail[-3:])[:300]]
    return None


_shown = shown


class ImporterChecks(BreakageRepairs):
    """ProjectStage2's importer compile, rollback and breakage repair (project_stage2.py;
    it provides ``_advance``, ``_sync``, ``notify`` and ``record``)."""

    units: dict[str, Any]
    log: Any
    sched: Any
    blocked: dict[str, str]
    importers_broken: str | None
    _broken: dict[str, list[str]]
    _requeue: set[str]
    pending: dict[str, Candidate]
    _imported: list[dict[str, Any]]
    _files: list[Any]
    _rel: dict[int, str]
    _project: Any
    _file_of: dict[str, str]
    _hidden: dict[str, str]  # file -> the judged head a job carries while a merge is checked
    _hidden_lock: Any
    _journal: Path | None
    run_id: str
    workspace: Path

    def _hide(self, rel: str, parent: str | None) -> None:
        """From now until :meth:`_show`: a job for a node of ``rel`` carries ``parent``'s text
        (called before the merge's commit: no job ever sees the commit before it is judged)."""
        with self._hidden_lock:
            if parent is not None:
                self._hidden[rel] = parent

    def _show(self, rel: str) -> None:
        with self._hidden_lock:
            self._hidden.pop(rel, None)

    def _job_text(self, record: Record) -> tuple[str | None, str]:
        with self._hidden_lock:  # atomic with :meth:`_hide`: a head read here is judged
            parent = self._hidden.get(record.rel)
            if parent is None:
                return super()._job_text(record)  # type: ignore[misc]
        text = record.text_at(parent)
        if text is None:  # the commit before a merge into the file holds the file
            raise UsageError(f"{record.rel}: not in commit {parent[:10]}")
        return parent, text

    def _users(self, rel: str) -> list[str]:
        """The project's files importing ``rel`` (import order)."""
        from harness.orchestrator.project_run import importers

        file = next((b for b in self._files if self._rel[id(b)] == rel), None)
        users = [self._rel[id(b)] for b in importers(self._project, file)] if file else []
        return [r for r in users if r in self.units]

    def _build(self, rel: str) -> list[str] | None:
        u = self.units[rel]
        return build_module(u.gate, u.record.file, self.workspace)

    def _compile(self, rel: str) -> list[str] | None:
        """``rel``'s head through its own gate: None when it passes, else why not."""
        u = self.units[rel]
        assert u.gate is not None
        text = u.record.head_text()
        out = u.gate(text, text, [], structural=False)
        if out.certified and out.passed:
            return None
        return out.messages or [f"{rel}: the gate could not certify it"]

    def _check_importers(self, rel: str, commit: str, merged: list[Candidate],
                         batch_id: str, flagged: set[str]) -> tuple[int, list[str]]:
        """Compile the files importing ``rel`` when the merge added declarations or changed a
        statement (``flagged``: the attempt ids that change more than a proof body, judged on
        the text merged into; say so and skip when it changed proof bodies only). A broken
        importer: the commit is rolled back (fail closed) and the reasons are returned (else
        []). An importer that fails without the merge too is broken outside any batch: its
        repair step runs (from the loop, :meth:`_finish_gate`)."""
        users = self._users(rel)
        if not users:
            return 0, []
        if not any(c.aid in flagged for c in merged):
            self._imported.append(dict(batch=batch_id, file=rel, checked=[], skipped=users,
                                       reason="proof bodies only: an importer cannot break"))
            return 0, []
        built = self._build(rel)
        broken = {rel: built} if built else {
            r: m for r in users if (m := self._compile(r)) is not None}
        ev: dict[str, Any] = dict(batch=batch_id, file=rel, checked=users, skipped=[],
                                  broken=broken, reason="the merge added or changed "
                                  "declarations")
        self._imported.append(ev)
        if not broken:
            return len(users), []
        why = f"a merge into {rel} broke the files importing it: {_shown(broken)}"
        ev["rolled_back"] = commit
        ev["head"] = roll_back(self.units[rel].record, commit, why)
        self._advance(rel)  # the locks pin the restored content again
        rebuilt = self._build(rel)  # the importers compile against the restored module again
        alone = {r: m for r in broken if r != rel and (m := rebuilt or self._compile(r))}
        ev["broken_without_merge"] = alone
        self._broken.update(alone)  # broken on their own: their repair steps run
        return len(users) + len(broken), [f"rolled back ({commit[:10]}): {why}"]

    def _broken_file(self, rel: str, group: list[Candidate],
                     rejected: dict[str, list[str]]) -> bool:
        """Every candidate of ``rel`` refused for something outside the batch, and the file's
        own text fails its gate too (one call): the file is broken outside any batch — not the
        candidates' fault (none is charged); its repair step runs from the loop."""
        nodes = {c.node for c in group}
        mine = [rejected[c.aid] for c in group if c.aid in rejected]
        if not mine or not all(outside_batch(m, nodes) for m in mine):
            return False
        msgs = self._compile(rel)
        if msgs is None:
            return False
        self._broken[rel] = msgs
        return True

    def _broken_outside(self, cands: list[Candidate], rejected: dict[str, list[str]]
                        ) -> list[str]:
        return []  # per file, in the merge (:meth:`_broken_file`), whatever the other files

    def _finish_gate(self) -> Any:
        for ev in self._imported:  # the gate thread is done: the loop owns the log
            self.log.append("importers", **ev)
        self._imported.clear()
        job = getattr(self, "_gate_job", None)
        cands, batch = (job[2], job[1]) if job else ([], None)
        done = super()._finish_gate()  # type: ignore[misc]
        broken, self._broken = self._broken, {}
        again, self._requeue = self._requeue, set()
        from harness.orchestrator.scheduler import NodeState

        for c in cands:  # not their fault (a broken file; a proof rolled back with a helper
            # that broke an importer): they wait for the gate again, uncharged
            if (self._file_of.get(c.node) in broken or c.node in again) and \
                    self.sched.state(c.node) == NodeState.PENDING:
                self.pending.setdefault(c.node, c)
        if done is not None or not broken:
            return done
        return self._repair_files(broken, batch)

    def _repair_files(self, broken: dict[str, list[str]], batch: str | None) -> Any:
        msgs = [m for ms in broken.values() for m in ms]
        self.notify("note", {"message": "the record fails the gate outside any batch: "
                             + _shown(broken)})
        locks = {rel: self._lock_before(rel) for rel in self.units}
        files = {rel: str(f) for rel, u in self.units.items()
                 if (f := getattr(u.gate, "lock_file", None)) is not None and Path(f).is_file()}
        rj.begin(self._journal, self.record.head(), self.log.seq,
                 {p: Path(p).read_text(encoding="utf-8") for p in files.values()})
        try:
            ok, why = self._repair_broken(broken)
        except BaseException:  # a signal or an error before the outcome is recorded
            self._abandon_round(locks)
            raise
        self.log.append("breakage", batch=batch, messages=msgs[:20], repaired=ok, reason=why,
                        files=sorted(broken), commit=self.record.head())
        rj.clear(self._journal)  # recorded: kept repairs stay, undone ones are gone
        if ok:  # each kept repair was relocked (project_repairs); a file outside the round
            # keeps its lock (relocking one Lean rejects, broken too, cannot be done)
            if any(getattr(u.gate, "relock", None) for u in self.units.values()):
                self.log.append("locked", commit=self.record.head(), reason="record repaired")
            self._sync()
            return None
        self.importers_broken = (f"the record does not pass the gate outside any batch: "
                                 f"{_shown(broken)}; not repaired ({why}); nothing was blocked")
        self.blocked.update(self.sched.blocked())
        return Stage2Outcome(self.importers_broken, dict(self.blocked))

    def _abandon_round(self, locks: dict[str, Any]) -> None:
        """The round stops before its outcome is recorded: undo it now (branch, working files,
        lock files, its events voided: repairjournal.undo); a second signal must not cut that
        short (the session unshields). If it cannot be done now, a resumed run does it."""
        from harness.orchestrator import procs

        procs.shield()
        try:
            with self.record._lock:
                rj.undo(self._journal, self.record.repo, self.log, self.run_id)
            for rel, lock in locks.items():  # the lock files were rewritten: the gates too
                if lock is not None:
                    self.units[rel].gate.lock = lock
        except Exception as err:  # noqa: BLE001  # the first error is the one to report
            self.notify("note", {"message": "an interrupted repair round could not be undone "
                                 f"now ({err}); the next run undoes it"})
