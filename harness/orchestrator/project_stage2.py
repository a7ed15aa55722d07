"""Stage 2 over a whole project (`run DIR|ROOT_MODULE`, issue 22): one scheduler over every
file's open parts, one executor, one event log, one branch.

:class:`ProjectStage2` is :class:`Stage2` with the file-shaped steps replaced: the DAG is the
project's (every file, as on disk: each merge writes its file, so disk = branch head), a job
carries its own file's text, an accepted batch is merged file by file (one commit per file, the
file's own gate), and the final certification runs per file. Node keys are global (LeanArchitect
labels are; a shared label's parts are keyed by Lean name), so no key is qualified by file.

After a merge that changes more than proof bodies (a repair split, helper lemmas, a
definition's value, a `where` clause or `let rec` in the old or new body:
project_importers.changes_more), the files that import it are compiled by their own gates; a
proof body alone cannot break an importer (Lean does not re-check an importer's uses of a
proof), so then the compile is skipped and the event says so.
"""

from __future__ import annotations

import hashlib
import threading
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import networkx as nx

from harness.blueprint import confirmed
from harness.blueprint.dag import Analysis
from harness.blueprint.project import ParseCache
from harness.blueprint.views import lean_proved
from harness.orchestrator.certify import apply_lean_view, reopened_events
from harness.orchestrator import project_importers as pi
from harness.orchestrator import repairjournal as rj
from harness.orchestrator.leanview import clean_at
from harness.orchestrator.batchmerge import Candidate, Gate, MergeOutcome
from harness.orchestrator.project_importers import ImporterChecks, RepairRecord
from harness.orchestrator.project_run import ProjectWork, project_work
from harness.orchestrator.record import Record
from harness.orchestrator.stage2 import Stage2


@dataclass
class FileUnit:
    """One file of the project run: its record (same branch as every other), gate, certifier."""

    rel: str
    record: Record
    gate: Gate | None = None
    certifier: Any = None
    repair: RepairRecord | None = None  # the single-file run's repair step (breakage.py)


class FileLog:
    """The project's event log as one file's certification sees it: `certified` events carry
    the file, and only this file's count for it (every file is certified at the same head)."""

    def __init__(self, log: Any, rel: str) -> None:
        self._log, self.rel = log, rel

    @property
    def events(self) -> list[dict[str, Any]]:
        return of_file(self._log.events, self.rel)

    def append(self, kind: str, **data: Any) -> dict[str, Any]:
        if kind == "certified":
            data["file"] = self.rel
        return self._log.append(kind, **data)


def of_file(events: list[dict[str, Any]], rel: str) -> list[dict[str, Any]]:
    return [e for e in events if e.get("kind") != "certified" or e.get("file") in (None, rel)]


def advance(gate: Any, rel: str, digest: str) -> bool:
    """A merge of this run changed the imported module ``rel`` (relative to the workspace):
    pin its new content in ``gate``'s lock (a LockedGate: the lock pins imported project
    modules by SHA-256, harness/gate/environment.py). Sound because that change passed its own
    file's gate (lock, scope, compile). False when the lock does not pin ``rel``."""
    lock = getattr(gate, "lock", None)
    env = getattr(lock, "environment", None)
    if not env or rel not in env or env[rel] == digest:
        return False
    env[rel] = digest
    if getattr(gate, "lock_file", None) is not None:
        lock.save(gate.lock_file)
    return True


def _changed_by(record: Record, run_id: str, limit: int = 10_000) -> bool:
    """Whether the newest commit on the branch that changed ``record``'s file is this run's."""
    from harness.orchestrator.record import TRAILER

    for c in record._history(limit):
        try:
            mine = (c.tree / record.rel).binsha
        except KeyError:
            return False
        try:
            before = (c.parents[0].tree / record.rel).binsha if c.parents else None
        except KeyError:
            before = None
        if mine != before:
            return dict(TRAILER.findall(c.message)).get("Harness-Run") == run_id
    return False


class _Certify(Stage2):
    """One file's final certification (Stage2._certify on that file's record and imports);
    never runs a loop: re-opened work goes to the project's scheduler."""

    reopened = False

    def _sync(self) -> None:
        self.reopened = True

    @property
    def sched(self) -> Any:  # _certify asks the scheduler whether work appeared: it did
        return _Unfinished() if self.reopened else None

    @sched.setter
    def sched(self, value: Any) -> None:
        pass


class _Unfinished:
    @staticmethod
    def finished() -> bool:
        return False


class ProjectStage2(ImporterChecks, Stage2):
    def __init__(self, *, target: Path, workspace: Path, units: list[FileUnit],
                 **kw: Any) -> None:
        self.target, self.workspace = target, workspace
        self.units = {u.rel: u for u in units}
        self._file_of: dict[str, str] = {}  # part key -> file (rel)
        self._order: list[str] = [u.rel for u in units]
        self._imported: list[dict[str, Any]] = []  # from the gate thread, logged by the loop
        self.importers_broken: str | None = None
        self._broken: dict[str, list[str]] = {}  # file -> its failures outside any batch
        self._requeue: set[str] = set()  # nodes whose proof was rolled back with another's
        self._split_into: set[str] = set()  # files a kept repair split was merged into
        self._hidden: dict[str, str] = {}  # a file whose merge is being judged -> head before
        self._hidden_lock = threading.Lock()
        self._pw: ProjectWork | None = None
        path = getattr(kw.get("log"), "path", None)
        self._pending = Path(path).parent / pi.PENDING if path is not None else None
        self._journal = Path(path).parent / rj.JOURNAL if path is not None else None
        super().__init__(record=units[0].record, gate=units[0].gate, **kw)
        self.certifier = None  # per file: see _certify
        self._checks = [
            _Certify(run_id=self.run_id, record=u.record, log=FileLog(self.log, u.rel),
                     state=self.state, executor=self.executor, gate=u.gate, cfg=self.cfg,
                     notify=self.notify, certifier=u.certifier) for u in units]

    def run(self) -> Any:
        # resumed after a kill between a merge's commit and the locks' update: a file whose
        # newest change on the branch is this run's own commit is pinned as it is now
        for rel, u in self.units.items():
            if _changed_by(u.record, self.run_id):
                self._advance(rel)
        self._rebuild_undone()
        return super().run()

    def _rebuild_undone(self) -> None:
        """A repair round undone before this session (project_session: repairjournal.undo):
        the modules of its files are built again (importers read their `.olean`), then its
        journal goes."""
        data = rj.read(self._journal) if self._journal is not None else None
        if data is None:
            return
        for rel in data.get("rebuild") or ():
            if rel in self.units and (failed := self._build(rel)):
                self._note(f"after undoing an interrupted repair round: {failed[0]}")
        rj.clear(self._journal)

    # ---- the project's DAG ----------------------------------------------------------------
    def _analysis(self) -> Analysis:
        found: dict[str, Any] = {}

        def adjust(files: list[Any]) -> Any:
            found["edges"] = confirmed.edges(self.workspace, files)
            return confirmed.adjuster(found["edges"], self.cfg.adjust)

        def refine(a: Analysis) -> None:
            confirmed.mark(a, found["edges"])
            apply_lean_view(a, reopened_events(self.log.events))
            head, events = self.record.head(), self.log.events
            lean_proved(a, set().union(*(clean_at(of_file(events, r), head)
                                         for r in self.units)))

        # the one ordering of the project's work (project_run.project_work, tested there)
        pw = self._pw = project_work(self.target, self.workspace, ParseCache(), adjust=adjust,
                                     refine=refine)
        self._project, self._files = pw.project, pw.files
        root = Path(self.record.repo.working_tree_dir or self.workspace).resolve()
        self._rel = {id(b): Path(b.path).resolve().relative_to(root).as_posix()
                     for b in pw.files}
        self._file_of = {d.key: self._rel[id(b)] for b in pw.files for d in b.decls}
        return pw.analysis

    def _work_graph(self, a: Analysis) -> tuple[nx.DiGraph, list[str], list[str],
                                                dict[str, str]]:
        pw = self._pw
        assert pw is not None and pw.analysis is a
        return pw.graph, list(pw.work), list(pw.work), dict(pw.blocked)

    def _record_of(self, node: str) -> Record:
        return self.units[self._file_of[node]].record

    # ---- merges: file by file, one commit each --------------------------------------------
    def _merge(self, cands: list[Candidate], batch_id: str) -> MergeOutcome:
        total = MergeOutcome(None, [], {}, [], 0)
        by_file: dict[str, list[Candidate]] = {}
        for c in cands:
            by_file.setdefault(self._file_of.get(c.node, ""), []).append(c)
        for rel in sorted(by_file, key=lambda r: self._order.index(r) if r in self.units
                          else len(self._order)):
            group = by_file[rel]
            if rel not in self.units:
                for c in group:
                    total.rejected[c.aid] = [f"node `{c.node}` is in no file of the project"]
                continue
            u = self.units[rel]
            assert u.gate is not None
            parent = u.record.head()
            base = u.record.index.get(u.record.head_text())  # the text merged into
            flagged = {c.aid for c in group if pi.changes_more(c, base)}
            users = self._users(rel) if flagged else []
            if users:  # kill-safe: a resumed run undoes a merge whose importers went unjudged
                pi.mark(self._pending, rel, parent, batch_id)
                self._hide(rel, parent)  # until judged, new jobs carry the text before it
            out = u.record.merge_batch(group, u.gate, run_id=self.run_id, batch_id=batch_id,
                                       extra_trailers={"Harness-File": rel})
            if not out.merged and self._broken_file(rel, group, out.rejected):
                out.rejected = {}  # broken outside the batch: nobody's fault, repaired later
            total.rejected.update(out.rejected)
            total.superseded += out.superseded
            total.gate_calls += out.gate_calls
            total.seconds += out.seconds
            if out.commit:
                self._advance(rel)
                calls, broke = self._check_importers(rel, out.commit, out.merged, batch_id,
                                                     flagged)
                total.gate_calls += calls
                if broke:  # rolled back: the candidates that changed more than a proof body
                    for c in out.merged:  # come back rejected, with the reason; the others
                        if c.aid in flagged:  # wait for the gate again, uncharged
                            total.rejected[c.aid] = broke
                        else:
                            self._requeue.add(c.node)
                else:
                    total.commit = out.commit
                    total.merged += out.merged
                    if any(c.role == "repair" for c in out.merged):
                        self._split_into.add(rel)  # relocked once the batch is applied
            self._show(rel)  # judged (kept or rolled back); an exception leaves it held
            pi.clear(self._pending)
        return total

    def _advance(self, rel: str) -> None:
        """Every other file's lock: ``rel``'s content is the one this run's gate accepted."""
        u = self.units[rel]
        digest = hashlib.sha256(u.record.file.read_bytes()).hexdigest()
        key = u.record.file.relative_to(self.workspace.resolve()).as_posix()
        for other in self.units.values():
            if other is not u:
                advance(other.gate, key, digest)

    def _relock(self) -> bool:
        """After a batch merged a repair split (stage2_gate): the lock of each file it was
        merged into pins its new nodes. No other file's statements changed, and relocking one
        is a Lean compile of its text — for a file broken outside any batch, impossible
        (CannotCertify) before its repair round."""
        done = False
        files, self._split_into = self._split_into, set()
        for rel in sorted(files):
            relock = getattr(self.units[rel].gate, "relock", None)
            if relock is not None:
                relock(self.units[rel].record.head_text())
                done = True
        return done

    # ---- certification: per file, at the one head ----------------------------------------
    def _certify(self) -> bool:
        head = self.record.head()
        if self._certified is None or self._certified[0] != head:
            # importers are certified against their imports' `.olean`s: build them at this head
            for rel in self._order:
                failed = self._build(rel)
                if failed:
                    self._note(f"before the certification: {failed[0]}")
        statuses: list[str] = []
        reopened = False
        for c in self._checks:
            c.reopened = False
            c._certify()
            statuses.append(c.certification)
            reopened |= c.reopened
            for n, why in c.blocked.items():
                if n not in self.blocked:
                    self.blocked[n] = why
        rank = ["clean", "not run", "contradicted", "cannot certify"]
        self.certification = max(statuses, key=rank.index) if statuses else "not run"
        self._certified = (head, self.certification)
        if not reopened:
            return False
        self._sync()
        assert self.sched is not None
        return not self.sched.finished()
