"""`harness run DIR|ROOT_MODULE`: one session of a run over a whole project (issue 22).

One run lock, one event log, one run id (the target's), one branch: the workspace's, on which
every file's batches are committed (one commit per file and batch, `Harness-File` trailer). One
scheduler over every file's open parts (project_stage2.py), one budget, one result.json and
report. Resume after kill -9 as for a file: the log is replayed and reconciled with the branch
(a batch whose commit is there is merged), every file is made equal to the branch head.

Stage 1 runs per file, in import order: each file's own stage-1 session (`run FILE --stage 1`:
its own log and statement lock, which the project's stage 2 gates with); its cost is logged in
the project's log (one budget). A file whose stage 1 does not finish stops the run (exit 1).
"""

from __future__ import annotations

import signal
from pathlib import Path
from typing import Callable

from harness import signals
from harness.errors import ExitCode, HarnessError, UsageError
from harness.orchestrator import procs
from harness.orchestrator import repairjournal as rj
from harness.orchestrator.gitrepo import Repo
from harness.orchestrator.events import EventLog
from harness.orchestrator.project_importers import PENDING, undo_pending
from harness.orchestrator.project_run import project_files
from harness.orchestrator.project_stage2 import FileUnit, ProjectStage2
from harness.orchestrator.record import Record
from harness.orchestrator.run import Session, _interrupted, _write_report
from harness.orchestrator.runmodels import INTERRUPTED, TERMINATED, RunResult, Services
from harness.orchestrator.stage2_base import Stage2Config
from harness.orchestrator.state import RunState, atomic_write, rebuild
from harness.workspace import harness_dir

# a file's exit code against the others': the first of these that occurs is the run's
_PRIORITY = (TERMINATED, INTERRUPTED, ExitCode.USAGE, ExitCode.CANNOT_CERTIFY,
             ExitCode.FINDINGS)


class ProjectSession(Session):
    """A :class:`Session` whose unit is a directory or a root module (``self.file``)."""

    def __init__(self, target: Path, settings, **kw) -> None:
        super().__init__(target, settings, **kw)
        self._subs: list[tuple[Session, Record]] = []  # per file: a carrier session, record

    def run(self, services_factory: Callable[[Session, Record], Services],
            preflight: Callable[[Session], None] | None = None) -> RunResult:
        log, state = self.open()
        self.log, self.state = log, state
        result: RunResult | None = None
        ended = False  # the run reached its end: no thread still reads the records
        try:
            if preflight is not None:
                self.phase = "preflight (Lean, Ray)"
                preflight(self)
            # a stage-2 merge or repair round cut short by a kill is undone first: a file's
            # stage 1 (one added since) commits on the branch, which the undo then could not
            # tell from the cut-short commit (an unjudged merge kept; a round not undone)
            self.phase = "undoing an interrupted merge or repair round"
            undone = undo_pending(self.dir / PENDING, self.workspace)
            if undone:
                self._note(undone)
            self._undo_round(log)
            self.phase = "stage 1"
            stop1 = (self._stage1(services_factory, preflight, log)
                      if self.settings.stage in ("1", "all") else None)
            self.phase = "opening the records"
            records = self._records(log, state)
            first = records[0][1]
            if stop1 is not None or self.settings.stage == "1":
                code = ExitCode.FINDINGS if stop1 else ExitCode.OK
                result = self._result(first, rebuild(log.events), stop1 or "statements locked "
                                      "in every file", {}, code)
                ended = True
                return result
            state = self.state = self.reconcile(first, log, state)
            units: list[FileUnit] = []
            services: Services | None = None
            self.phase = "setting up the services"
            for sub, rec in self._subs:
                sub.log, sub.state = log, state
                svc = services_factory(sub, rec)
                services = services or svc
                for n in svc.notes:
                    if n not in self.notes:
                        self._note(n)
                units.append(FileUnit(rec.rel, rec, svc.make_gate(), svc.certifier,
                                      svc.repair_record))
            assert services is not None
            log.append("stage", stage=2)
            s = self.settings
            cfg = Stage2Config(workers=s.workers, batch_size=s.batch_size,
                               batch_window=s.batch_window,
                               attempts_before_repair=s.attempts_before_repair,
                               max_attempts=s.max_attempts, budget=s.budget,
                               adjust=self.adjust, attempt_usd=s.attempt_usd, race=s.race,
                               tiers=self.tiers)
            self.phase = "starting workers"
            executor = services.make_executor(services.runner, s.workers)
            try:
                self.phase = "stage 2"
                stage2 = ProjectStage2(target=self.file, workspace=self.workspace, units=units,
                                       run_id=self.run_id, log=log, state=state,
                                       executor=executor, cfg=cfg, notify=self.notify)
                out = stage2.run()
            except KeyboardInterrupt:
                procs.stop_interrupted(executor)
                raise
            finally:
                executor.shutdown()
            self.certification = out.certification
            code = ExitCode.CANNOT_CERTIFY if out.no_lean else (
                ExitCode.FINDINGS if stage2.importers_broken else
                ExitCode.USAGE if out.usage_error else ExitCode.OK)
            result = self._result(first, rebuild(log.events), out.stop_reason, out.blocked,
                                  code)
            ended = True
            return result
        except HarnessError as err:
            st = rebuild(log.events)
            stop, code = _interrupted() or (err.line(), err.exit_code)
            result = self._result(None, st, stop, dict(st.blocked), code)
            raise
        except KeyboardInterrupt as err:
            procs.shield()
            procs.abort(lambda: False, timeout_s=2.0)
            sig = signals.received()
            term = sig == signal.SIGTERM or (sig is None and isinstance(err, signals.Terminated))
            st = rebuild(log.events)
            result = self._result(None, st, "interrupted", dict(st.blocked),
                                  TERMINATED if term else INTERRUPTED)
            raise
        finally:
            procs.shield()
            try:
                if result is None:
                    st = rebuild(log.events)
                    stop, code = _interrupted() or ("stopped by an error",
                                                    ExitCode.CANNOT_CERTIFY)
                    result = self._result(None, st, stop, dict(st.blocked), code)
                log.append("run_finished", stop_reason=result.stop_reason,
                           exit_code=result.exit_code, final_commit=result.final_commit)
                result.wall_time_s = round(rebuild(log.events).elapsed_before, 3)
                atomic_write(self.dir / "result.json", result.model_dump_json(indent=2) + "\n")
                self.result = result
                _write_report(self.dir)
            finally:
                log.close()
                for _, rec in self._subs if ended else ():  # one shared repository: its
                    rec.close()  # git helpers end now (interrupted: the OS reaps them)
                self.lock.release()
                procs.unshield()

    def _undo_round(self, log: EventLog) -> None:
        """A repair round stopped before its outcome was recorded (kill -9; a ^C undoes it
        at once): back to the head before it, its files' lock files too (before any gate
        reads them); ProjectStage2 rebuilds the modules (repairjournal)."""
        if not (self.dir / rj.JOURNAL).exists():
            return
        repo = Repo(self.workspace)
        try:
            files = rj.undo(self.dir / rj.JOURNAL, repo, log, self.run_id)
        finally:
            repo.close()
        if files is not None:
            self._note("a repair round was interrupted before its outcome was recorded: "
                       f"undone ({', '.join(files) or 'its changes were already undone'}); "
                       "its files are repaired again")

    def _stage1(self, factory: Callable[[Session, Record], Services],
                preflight: Callable[[Session], None] | None, log: EventLog) -> str | None:
        """Each file's stage 1 (its own session), in import order; the first that does not
        finish stops the run: its reason. Resumed: a locked file's stage 1 returns at once."""
        project = project_files(self.file, self.workspace)
        settings = self.settings.model_copy(update={"stage": "1", "executor": "local"})
        for b in project.files:
            if not b.decls or b.path is None:
                continue
            sub = Session(Path(b.path), settings, workspace=self.workspace, notify=self.notify)
            sub.tiers = self.tiers
            rel = Path(b.path).resolve().relative_to(self.workspace).as_posix()
            paid = sum(float(e.get("cost", 0.0) or 0.0) for e in log.events
                       if e["kind"] == "stage" and e.get("file") == rel)
            try:
                res = sub.run(factory, preflight)
            finally:  # its cost counts against the project's one budget, once
                if sub.result is not None:
                    log.append("stage", stage=1, file=rel, run_id=sub.run_id,
                               cost=max(0.0, sub.result.cost_usd - paid),
                               exit_code=sub.result.exit_code,
                               stop_reason=sub.result.stop_reason)
            if res.exit_code != ExitCode.OK:
                return f"stage 1 of {rel}: {res.stop_reason}"
        return None

    def _records(self, log: EventLog, state: RunState) -> list[tuple[Session, Record]]:
        """Every blueprint file of the project (import order) on the workspace's branch; a new
        run commits each as its starting point, a resumed one makes each equal the head."""
        project = project_files(self.file, self.workspace)
        files = [Path(b.path) for b in project.files if b.decls and b.path is not None]
        if not files:
            raise UsageError(f"{self.file}: no blueprint file in this project")
        fresh: bool | None = None
        for f in files:
            rec = Record(self.workspace, f, share=self._subs[0][1] if self._subs else None)
            rec.run_id = self.run_id
            if fresh is None:
                if rec.exclude(harness_dir(self.workspace)):
                    self._note(f"added {harness_dir(self.workspace).name}/ to .git/info/exclude")
                fresh = not rec.runs_commits(self.run_id, self._since(state))
            if fresh or rec.text_at() is None:
                if rec.ensure_committed(f"harness: start run {self.run_id}\n"):
                    self._note(f"committed {rec.rel} as the record's starting point")
            else:
                fixed = rec.sync_worktree()
                if fixed:
                    self._note(fixed)
            sub = Session(f, self.settings, workspace=self.workspace, notify=self.notify)
            sub.adjust, sub.tiers = self.adjust, self.tiers
            self._subs.append((sub, rec))
        return self._subs

    def _result(self, record, st: RunState, stop: str, blocked: dict[str, str],
                code: int) -> RunResult:
        """The files' results in one: every node of every file, the worst exit code."""
        if not self._subs:
            return RunResult(run_id=self.run_id, file=str(self.file), final_commit=None,
                             stop_reason=stop, exit_code=int(code), phase=self.phase,
                             notes=self.notes,
                             attempts=sum(st.attempts.values()), tokens=st.tokens,
                             cost_usd=round(st.cost, 6), sessions=st.sessions)
        parts = []
        for sub, rec in self._subs:
            sub.log, sub.certification = self.log, self.certification
            parts.append(sub._result(rec, st, stop, blocked, code))
        codes = {p.exit_code for p in parts}
        final = next((int(c) for c in _PRIORITY if int(c) in codes), int(ExitCode.OK))
        nodes = {k: v for p in parts for k, v in p.nodes.items()}
        counts = {s: sum(1 for r in nodes.values() if r.status == s)
                  for s in ("proved", "open", "blocked")}
        if final == ExitCode.OK or all(p.stop_reason == "all nodes proved" for p in parts):
            reason = parts[0].stop_reason
        else:  # the stop of the file that set the code, when it differs from the loop's
            reason = next(p.stop_reason for p in parts if p.exit_code == final)
            if reason.startswith("no work left here"):
                reason = stop
        needs = {k: v for p in parts for k, v in p.needs_person.items()}
        return RunResult(run_id=self.run_id, file=str(self.file), final_commit=parts[0].
                         final_commit, stop_reason=reason, exit_code=final,
                         phase=self.phase, nodes=nodes,
                         counts=counts, attempts=sum(st.attempts.values()), tokens=st.tokens,
                         cost_usd=round(st.cost, 6), sessions=st.sessions, notes=self.notes,
                         needs_person=needs)
