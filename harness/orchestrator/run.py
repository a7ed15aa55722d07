"""`harness run`: one session of a run — set up or resume, stage 1, stage 2, result.json.

A session: take the run lock (a dead holder's lock is taken over, reported), open the event log
(a torn last line from a kill is truncated, reported), rebuild the state from the log, reconcile
it with the record (a batch whose commit is on the branch is merged, whatever the log says),
make the working file equal the branch head, then run the stages. Every exit path writes
``result.json`` (atomically) and releases the lock.
"""

from __future__ import annotations

import signal
import time
from pathlib import Path
from typing import Any, Callable

from harness import signals
from harness.blueprint.dag import analyse
from harness.blueprint.views import lean_proved
from harness.blueprint.imports import load_imports
from harness.blueprint.parse import parse_text
from harness.blueprint.source import parse_file
from harness.errors import CannotCertify, ExitCode, HarnessError, InputError
from harness.orchestrator import procs
from harness.orchestrator.leanview import clean_at
from harness.orchestrator.certify import apply_lean_view, lean_backed, reopened_events
from harness.orchestrator.events import EventLog
from harness.orchestrator.batchmerge import GateOutcome
from harness.orchestrator.record import Record
from harness.orchestrator.runmodels import (INTERRUPTED, TERMINATED, NodeResult, RunResult,
                                            RunSettings, Services)
from harness.orchestrator.stage1 import source_text, stage1
from harness.orchestrator.stage2 import Stage2
from harness.orchestrator.stage2_base import Stage2Config
from harness.orchestrator.workgraph import OPEN_STATUSES, unproved_imports
from harness.orchestrator.state import (RunLock, RunState, atomic_write, rebuild, run_dir,
                                        run_id_for)
from harness.workspace import find_workspace, harness_dir
from harness.orchestrator.nodememory import memory_store

Notify = Callable[[str, dict[str, Any]], None]


class Session:
    def __init__(self, file: Path, settings: RunSettings, *, workspace: Path | None = None,
                 notify: Notify | None = None) -> None:
        self.file = file.resolve()
        self.workspace = (workspace or find_workspace(file)).resolve()
        self.settings = settings
        self.notify: Notify = notify or (lambda kind, data: None)
        self.run_id = run_id_for(self.workspace, self.file)
        self.dir = run_dir(self.workspace, self.file)
        self.lock = RunLock(self.dir / "lock.json")
        self.notes: list[str] = []
        self.source: Path | None = None  # stage 1's informal source (--source)
        self.adjust: Callable[[dict], None] | None = None  # LeanArchitect's edges (with Lean)
        self.tiers: list[tuple[int, str]] = []  # roles.prove.tiers: (after N failures, model)
        self.log: EventLog | None = None  # set by run(): the services may log (e.g. locking)
        self.state: RunState = RunState()
        self.result: RunResult | None = None  # set once result.json is written (any exit path)
        self.certification: str | None = None  # stage 2's final certification, when it ran
        self.phase = "taking the run lock"  # what it does now: result.json says where it stopped
        self.t0 = time.time()

    # ---- setup ------------------------------------------------------------------------------
    def open(self) -> tuple[EventLog, RunState]:
        self.lock.acquire()
        try:
            return self._open_log()
        except BaseException:  # e.g. a corrupt event log (exit 2): never leave the lock behind
            self.lock.release()
            raise

    def _open_log(self) -> tuple[EventLog, RunState]:
        if self.lock.took_over is not None:
            info = self.lock.took_over
            self._note("took over a stale run lock" + (
                f" (pid {info['pid']} is gone)" if info.get("pid") else " (it was unreadable)"))
        log = EventLog(self.dir / "events.jsonl")
        if log.repaired:
            self._note("the event log ended in a torn line (interrupted write): truncated")
        state = rebuild(log.events)
        cfg = self.settings.model_dump()
        if not log.events:
            log.append("run_started", run_id=self.run_id, file=str(self.file), config=cfg)
        else:
            log.append("run_resumed", run_id=self.run_id, file=str(self.file), config=cfg,
                       inflight=sorted(state.inflight))
            if state.inflight:
                self._note(f"re-dispatching {len(state.inflight)} attempt(s) that were in "
                           "flight when the last session ended")
        return log, state

    def reconcile(self, record: Record, log: EventLog, state: RunState) -> RunState:
        """The branch is the truth: adopt merges whose commit exists; distrust the others."""
        on_branch = {c["Harness-Batch"]: c for c in record.runs_commits(self.run_id,
                                                                        self._since(state))
                     if "Harness-Batch" in c}
        changed = False
        for batch, c in on_branch.items():
            if batch not in state.merged_batches:
                aids = [a for a in c.get("Harness-Attempts", "").split(",") if a]
                log.append("reconciled", batch=batch, commit=c["commit"], aids=aids,
                           nodes=[a.rsplit("#", 1)[0] for a in aids])
                self._note(f"batch {batch} was committed ({c['commit'][:10]}) but not logged: "
                           "adopted from the record")
                changed = True
        merged_events = {e["batch"]: e for e in log.events if e["kind"] in ("merged",
                                                                          "reconciled")}
        for batch, commit in state.merged_batches.items():
            if batch not in on_branch:
                ev = merged_events.get(batch, {})
                log.append("unmerged", batch=batch, commit=commit, nodes=ev.get("nodes", []),
                           aids=ev.get("aids", []))
                self._note(f"batch {batch} ({commit[:10]}) is logged as merged but is not on "
                           "the branch: its proofs go back to the gate")
                changed = True
        return rebuild(log.events) if changed else state

    @staticmethod
    def _since(state: RunState) -> float:
        """Nothing of this run is older than its first event (a minute of clock slack)."""
        return (state.started or time.time()) - 60

    def _note(self, msg: str) -> None:
        self.notes.append(msg)
        self.notify("note", {"message": msg})

    # ---- the whole session --------------------------------------------------------------------
    def run(self, services_factory: Callable[["Session", Record], Services],
            preflight: Callable[["Session"], None] | None = None) -> RunResult:
        log, state = self.open()
        self.log, self.state = log, state
        record: Record | None = None
        result: RunResult | None = None
        ended = False  # the session ran to its end: no thread still reads the record
        try:
            if preflight is not None:  # e.g. find Lean: without it, stop before touching anything
                self.phase = "preflight (Lean, Ray)"
                preflight(self)
            self.phase = "opening the record"
            record = Record(self.workspace, self.file)
            record.run_id = self.run_id
            if record.exclude(harness_dir(self.workspace)):  # run state: never untracked noise
                self._note(f"added {harness_dir(self.workspace).name}/ to .git/info/exclude")
            if self.file.exists() and not record.runs_commits(self.run_id, self._since(state)):
                if record.ensure_committed(f"harness: start run {self.run_id}\n"):
                    self._note(f"committed {record.rel} as the record's starting point")
            elif record.text_at() is not None:
                fixed = record.sync_worktree()
                if fixed:
                    self._note(fixed)
            elif self.settings.stage == "2":
                raise InputError(self.file, 1, 0, "no such file (stage 1 constructs it from "
                                 "--source)")
            state = self.state = self.reconcile(record, log, state)
            self.phase = "setting up the services"
            services = services_factory(self, record)
            for n in services.notes:
                self._note(n)
            stop, code = "nothing to do", ExitCode.OK
            blocked: dict[str, str] = dict(state.blocked)
            if self.settings.stage in ("1", "all"):
                self.phase = "stage 1"
                src = source_text(self.source, self.dir / "source.txt")
                out1 = stage1(record=record, log=log, state=state, agents=services.stage1,
                              source=src, max_rounds=self.settings.max_rounds,
                              check=services.check or _no_check, lock=services.lock or _no_lock,
                              notify=self.notify, diagnose=services.diagnose)
                stop = out1.reason
                if not out1.done:
                    code = ExitCode.FINDINGS
                state = self.state = rebuild(log.events)
            if self.settings.stage == "2" or (self.settings.stage == "all"
                                              and code == ExitCode.OK):
                log.append("stage", stage=2)
                cfg = Stage2Config(workers=self.settings.workers,
                                   batch_size=self.settings.batch_size,
                                   batch_window=self.settings.batch_window,
                                   attempts_before_repair=self.settings.attempts_before_repair,
                                   max_attempts=self.settings.max_attempts,
                                   budget=self.settings.budget, adjust=self.adjust,
                                   attempt_usd=self.settings.attempt_usd,
                                   race=self.settings.race, tiers=self.tiers)
                self.phase = "starting workers"
                executor = services.make_executor(services.runner, self.settings.workers)
                try:
                    self.phase = "stage 2"
                    out = Stage2(run_id=self.run_id, record=record, log=log, state=state,
                                 executor=executor, gate=services.make_gate(), cfg=cfg,
                                 notify=self.notify, certifier=services.certifier,
                                 repair_record=services.repair_record).run()
                except KeyboardInterrupt:  # Stage2 killed the Lean runs; do not wait for more
                    procs.stop_interrupted(executor)
                    raise
                except BaseException:
                    executor.shutdown()
                    raise
                executor.shutdown()
                stop, blocked = out.stop_reason, out.blocked
                self.certification = out.certification
                if out.no_lean:
                    code = ExitCode.CANNOT_CERTIFY
                elif out.usage_error:
                    code = ExitCode.USAGE
            result = self._result(record, rebuild(log.events), stop, blocked, code)
            ended = True
            return result
        except HarnessError as err:
            st = rebuild(log.events)
            # a child killed by the same signal may fail first (harness/signals.py)
            stop, code = _interrupted() or (err.line(), err.exit_code)
            result = self._result(record, st, stop, dict(st.blocked), code)
            raise
        except KeyboardInterrupt as err:  # Ctrl-C, or SIGTERM (the CLI raises it for both)
            procs.shield()  # a second signal must not cut the clean-up short
            procs.abort(lambda: False, timeout_s=2.0)
            # the CLI's exit status: 130 for SIGINT, 143 for SIGTERM (its `Terminated`)
            sig = signals.received()
            term = sig == signal.SIGTERM or (sig is None and isinstance(err, signals.Terminated))
            if term:
                self._note("terminated by SIGTERM")
            st = rebuild(log.events)
            result = self._result(record, st, "interrupted", dict(st.blocked),
                                  TERMINATED if term else INTERRUPTED)
            raise
        finally:
            procs.shield()  # whatever ended the session: its record is written in full
            try:
                if result is None:  # an error: still leave a result behind
                    try:
                        st = rebuild(log.events)
                        stop, code = _interrupted() or ("stopped by an error",
                                                        ExitCode.CANNOT_CERTIFY)
                        result = self._result(record, st, stop, dict(st.blocked), code)
                    except Exception:  # noqa: BLE001 — never mask the original error
                        result = None
                if result is not None:
                    log.append("run_finished", stop_reason=result.stop_reason,
                               exit_code=result.exit_code, final_commit=result.final_commit)
                    result.wall_time_s = round(rebuild(log.events).elapsed_before, 3)
                    atomic_write(self.dir / "result.json",
                                 result.model_dump_json(indent=2) + "\n")
                    self.result = result
                    _write_report(self.dir)
            finally:
                log.close()
                if record is not None and ended:  # else the process exits: the OS reaps
                    record.close()
                self.lock.release()
                procs.unshield()

    def _analysis(self, record: Record | None) -> Any:
        """The record's head with its imports; without a record or a commit (no Lean: nothing
        was created) the file on disk, so the result still shows every node. None when neither
        parses (the result then lists no nodes)."""
        bp = None
        try:
            if record is not None and record.head() is not None:
                bp = parse_text(record.head_text(), record.file)
        except (HarnessError, OSError, ValueError):
            bp = None  # e.g. git's reader broken by the interrupt: the file on disk instead
        try:
            if bp is None and self.file.is_file():
                bp = parse_file(self.file)
            if bp is None:
                return None
            a = analyse(bp, load_imports(bp, self.workspace), adjust=self.adjust)
        except (HarnessError, OSError):
            return None
        if self.log is not None:  # the nodes Lean re-opened, with their hidden edges
            apply_lean_view(a, reopened_events(self.log.events))
            if record is not None:  # Lean's clean report of this head: proved
                lean_proved(a, clean_at(self.log.events, record.head()))
        return a

    def _uncertified(self) -> str:
        if self.settings.stage == "1":
            why = "stage 1 does not certify proofs"
        elif self.certification in ("clean", "contradicted"):
            why = "Lean's final certification gave no clean report for it"
        elif self.certification == "cannot certify":
            why = "Lean's final certification could not run (see the notes)"
        elif self.certification == "not run":
            why = "no final certification ran"
        else:
            why = "the run stopped before Lean's final certification"
        return f"complete, but no axiom report of Lean confirms it: {why}"

    def _result(self, record: Record | None, st: RunState, stop: str, blocked: dict[str, str],
                code: int) -> RunResult:
        nodes: dict[str, NodeResult] = {}
        head = record.head() if record is not None else None
        a = self._analysis(record)
        lean_reopened = reopened_events(self.log.events) if self.log is not None else {}
        backed = lean_backed(self.log.events) if self.log is not None else set()
        waiting_on_imports = 0  # open nodes whose only missing proofs are in imported files
        uncertified = 0  # complete in the text, not (yet) backed by Lean's axiom report
        if a is not None:
            ours = {id(d) for d in a.blueprint.decls}
            for k in a.own:
                d = a.decl(k)
                if not d.is_node or not d.kind.is_proof:
                    continue
                units = list(dict.fromkeys([k, *(p.key for p in a.parts(k))]))  # shared label
                n = sum(st.attempts.get(u, 0) for u in units)
                stuck = [u for u in units if u in blocked]
                commit = next((st.merged_nodes[u] for u in units if u in st.merged_nodes), None)
                # Lean certifies declarations: a shared label's parts, each under its own key
                own_parts = [p.key for p in a.parts(k) if id(p) in ours] or [k]
                if k in a.proved and all(u in backed for u in own_parts):
                    nodes[k] = NodeResult(status="proved", attempts=n, commit=commit)
                elif k in a.proved:  # complete in the text; Lean has not said so (yet)
                    uncertified += 1
                    nodes[k] = NodeResult(status="open", reason=self._uncertified(), attempts=n,
                                          commit=commit)
                elif stuck:
                    nodes[k] = NodeResult(status="blocked", reason=blocked[stuck[0]], attempts=n)
                elif any(p.status in OPEN_STATUSES and id(p) in ours for p in a.parts(k)):
                    nodes[k] = NodeResult(status="open", reason="needs a proof", attempts=n)
                elif k in lean_reopened:
                    nodes[k] = NodeResult(status="open", reason=lean_reopened[k]["reason"],
                                          attempts=n)
                elif ext_parts := [p.name or p.key for p in a.parts(k)
                                   if p.status in OPEN_STATUSES and id(p) not in ours]:
                    waiting_on_imports += 1  # a shared label: its open part is another file's
                    nodes[k] = NodeResult(status="open", attempts=n, reason=(
                        "rests on unproved nodes of imported files: " + ", ".join(ext_parts)))
                else:
                    ext = unproved_imports(a, k)
                    if ext is not None:
                        waiting_on_imports += 1
                    why = "rests on unproved nodes" + (
                        f" of imported files: {', '.join(ext[:5])}"
                        + (f" (+{len(ext) - 5} more)" if len(ext) > 5 else "") if ext else "")
                    nodes[k] = NodeResult(status="open", reason=why, attempts=n)
        counts = {s: sum(1 for r in nodes.values() if r.status == s)
                  for s in ("proved", "open", "blocked")}
        if code == ExitCode.OK and (counts["open"] - uncertified or counts["blocked"]) \
                and self.settings.stage != "1":  # stage 1 alone succeeds by locking
            code = ExitCode.FINDINGS
        if code == ExitCode.OK and self.certification not in (None, "clean"):
            # proved only when Lean says so: no exit 0 without a clean final certification
            code = ExitCode.FINDINGS if self.certification == "contradicted" \
                else ExitCode.CANNOT_CERTIFY
            stop = f"final certification: {self.certification}"
        if code == ExitCode.OK and uncertified and self.settings.stage != "1":
            code = ExitCode.CANNOT_CERTIFY
            stop = f"no axiom report of Lean confirms {uncertified} complete node(s)"
        finished = stop in ("nothing to do", "no progress possible", "all nodes proved")
        if finished and not counts["open"] and not counts["blocked"] and code == ExitCode.OK:
            stop = "all nodes proved"
        elif finished and counts["open"] and waiting_on_imports == counts["open"] \
                and not counts["blocked"]:
            # nothing in this file can be attempted: the missing proofs are in earlier layers
            o = counts["open"]
            stop = (f"no work left here: {o} open node{'s' * (o != 1)} rest{'s' * (o == 1)} on "
                    "unproved nodes (of imported files)")
        elif stop == "all nodes proved" and (counts["open"] or counts["blocked"]):
            stop = "no progress possible"  # the scheduler's view must not hide open nodes
        escalated = {n: b for n, b in memory_store(self.workspace).blockers().items()
                     if n in blocked and blocked[n].startswith("needs a person")}
        return RunResult(run_id=self.run_id, file=str(self.file), final_commit=head,
                         stop_reason=stop, exit_code=int(code), phase=self.phase,
                         nodes=nodes, counts=counts,
                         attempts=sum(st.attempts.values()), tokens=st.tokens,
                         cost_usd=round(st.cost, 6), sessions=st.sessions, notes=self.notes,
                         needs_person=escalated)


def _interrupted() -> tuple[str, int] | None:
    """("interrupted", 130 / 143) once a signal stopped this process (harness/signals.py)."""
    sig = signals.received()
    return ("interrupted", signals.exit_status(sig)) if sig else None


def _write_report(d: Path) -> None:
    """``report.html`` beside result.json (harness/report/runreport.py; it never raises)."""
    from harness.report.runreport import write_run_report

    write_run_report(d)


def _no_check(text: str) -> GateOutcome:
    return GateOutcome(False, False, ["no stage-1 check configured"])


def _no_lock(text: str) -> None:
    raise CannotCertify("no statement lock writer configured")
