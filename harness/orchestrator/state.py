"""Run state, rebuilt from the event log (the record — git — stays the truth for merges).

Also: where a run lives (``.harness/runs/<id>/``), the run lock (PID + host + process start
time; a dead holder is detected and taken over, a live one refuses), atomic small-file writes,
and :func:`live_status` for ``harness status``.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import socket
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from harness.errors import HarnessError, UsageError
from harness.orchestrator.events import read_events, voided
from harness.fsutil import atomic_write  # noqa: F401  (re-exported for the orchestrator)
from harness.workspace import harness_dir


def run_id_for(workspace: Path, file: Path) -> str:
    """Deterministic per blueprint file, so `run FILE` again finds (and resumes) its run."""
    try:
        rel = file.resolve().relative_to(workspace.resolve()).as_posix()
    except ValueError:
        rel = file.resolve().as_posix()
    slug = re.sub(r"[^A-Za-z0-9._-]", "-", Path(rel).stem)[:40]
    return f"{slug}-{hashlib.sha1(rel.encode()).hexdigest()[:8]}"


def run_dir(workspace: Path, file: Path) -> Path:
    return harness_dir(workspace) / "runs" / run_id_for(workspace, file)


# ---- the run lock ----------------------------------------------------------------------------

def _proc_start(pid: int) -> str | None:
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
        return stat.rsplit(")", 1)[1].split()[19]  # field 22: start time in clock ticks
    except (OSError, IndexError):
        return None


def _alive(pid: int, start: str | None) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    if start is not None and _proc_start(pid) not in (None, start):
        return False  # the PID was reused by another process
    return _proc_start(pid) is None or not _zombie(pid)


def _zombie(pid: int) -> bool:
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0] == "Z"
    except (OSError, IndexError):
        return False


def read_lock(path: Path) -> dict[str, Any] | None:
    try:
        info = json.loads(path.read_text())
        return info if isinstance(info, dict) and isinstance(info.get("pid"), int) else {}
    except FileNotFoundError:
        return None
    except (OSError, ValueError):
        return {}  # unreadable / half-written: present but untrustworthy


def lock_holder_alive(info: dict[str, Any] | None) -> bool:
    if not info:
        return False
    if info.get("host") != socket.gethostname():
        return True  # cannot check another machine: assume alive
    return _alive(int(info["pid"]), info.get("start"))


class RunLock:
    """``lock.json`` in the run directory, created atomically with ``os.link``."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.held = False
        self.took_over: dict[str, Any] | None = None

    def acquire(self) -> None:
        me = {"pid": os.getpid(), "host": socket.gethostname(), "start": _proc_start(os.getpid()),
              "since": round(time.time(), 3)}
        self.path.parent.mkdir(parents=True, exist_ok=True)
        tmp = self.path.with_name(f".lock.{os.getpid()}.tmp")
        tmp.write_text(json.dumps(me))
        try:
            for _ in range(3):
                try:
                    os.link(tmp, self.path)
                    self.held = True
                    return
                except FileExistsError:
                    pass
                info = read_lock(self.path)
                if info is None:
                    continue  # released meanwhile
                if info and info.get("host") != me["host"]:
                    raise UsageError(
                        f"{self.path}: run locked by pid {info['pid']} on host {info['host']}; "
                        "remove the lock file if that run is dead")
                if lock_holder_alive(info):
                    raise UsageError(f"{self.path}: a run is already in progress "
                                     f"(pid {info['pid']})")
                # stale (dead holder) or half-written: move it aside, atomically, then retry
                aside = self.path.with_name(f"lock.stale.{int(time.time() * 1000)}.json")
                try:
                    os.rename(self.path, aside)
                    self.took_over = info or {"corrupt": True}
                except FileNotFoundError:
                    pass
            raise UsageError(f"{self.path}: could not take the run lock")
        finally:
            tmp.unlink(missing_ok=True)

    def release(self) -> None:
        if self.held:
            info = read_lock(self.path)
            if info and info.get("pid") == os.getpid():
                self.path.unlink(missing_ok=True)
            self.held = False


# ---- state rebuilt from events ---------------------------------------------------------------

@dataclass
class RunState:
    run_id: str = ""
    stage: str = "new"  # new | 1 | 2 | done
    finished: bool = False
    stop_reason: str | None = None  # the last session's, once it finished
    attempts: dict[str, int] = field(default_factory=dict)  # node -> finished attempts
    failures: dict[str, int] = field(default_factory=dict)  # node -> failures since repair
    inflight: dict[str, dict[str, Any]] = field(default_factory=dict)  # aid -> dispatch event
    accepted: dict[str, dict[str, Any]] = field(default_factory=dict)  # aid -> attempt event
    merged_batches: dict[str, str] = field(default_factory=dict)  # batch id -> commit
    merged_nodes: dict[str, str] = field(default_factory=dict)  # node -> commit
    blocked: dict[str, str] = field(default_factory=dict)
    feedback: dict[str, list[str]] = field(default_factory=dict)  # node -> recent failure notes
    tokens: int = 0
    cost: float = 0.0
    started: float | None = None
    elapsed_before: float = 0.0  # wall time of earlier sessions of this run
    last_t: float | None = None
    sessions: int = 0
    config: dict[str, Any] = field(default_factory=dict)
    stage1_rounds: int = 0
    locked: bool = False
    lost: int = 0  # attempts re-dispatched after their Ray worker or node died
    where: dict[str, dict[str, int]] = field(default_factory=dict)  # host -> attempts, lost


MAX_UNCERTIFIED = 2  # a candidate in that many uncertifiable gate batches is dropped


def rebuild(events: list[dict[str, Any]]) -> RunState:
    st = RunState()
    session_start: float | None = None
    ok_attempts: dict[str, dict[str, Any]] = {}
    uncertified: dict[str, int] = {}
    void = voided(events)  # a rolled-back repair's rounds (their cost still counts)
    for ev in events:
        k, t = ev["kind"], ev.get("t")
        if k in ("run_started", "run_resumed"):
            if session_start is not None and st.last_t is not None:
                st.elapsed_before += st.last_t - session_start
            session_start = t
            st.sessions += 1
            st.run_id = ev.get("run_id", st.run_id)
            st.config = ev.get("config", st.config)
            st.started = st.started or t
            st.finished, st.stop_reason = False, None
            st.inflight.clear()  # the previous session's workers are gone
        elif k == "stage":
            st.stage = str(ev["stage"])
        elif k == "dispatch":
            st.inflight[ev["aid"]] = ev
        elif k == "placed" and ev.get("aid") in st.inflight:  # a Ray executor: where it runs
            st.inflight[ev["aid"]] = {**st.inflight[ev["aid"]], "node_id": ev.get("node_id"),
                                      "host": ev.get("host"), "pid": ev.get("pid")}
        elif k == "lost":  # a dying worker lost it; the executor re-dispatched it
            st.lost += 1
            w = st.where.setdefault(ev.get("host") or "?", {"attempts": 0, "lost": 0})
            w["lost"] += 1
        elif k == "attempt":
            st.inflight.pop(ev["aid"], None)
            if ev.get("host"):
                w = st.where.setdefault(ev["host"], {"attempts": 0, "lost": 0})
                w["attempts"] += 1
            n = ev["node"]
            st.attempts[n] = st.attempts.get(n, 0) + 1
            if ev.get("ok"):
                st.accepted[ev["aid"]] = ev
                ok_attempts[ev["aid"]] = ev
            else:
                st.failures[n] = st.failures.get(n, 0) + 1
                _note(st, n, ev.get("reason", ""))
        elif k == "gate":
            for aid, msgs in (ev.get("rejected") or {}).items():
                if aid in st.accepted:
                    n = st.accepted.pop(aid)["node"]
                    st.failures[n] = st.failures.get(n, 0) + 1
                    _note(st, n, "the gate rejected the merged file: " + "; ".join(msgs))
            for aid in ev.get("superseded", []):
                st.accepted.pop(aid, None)
            for aid in ev.get("uncertified", []):  # the run stopped (exit 3) on this batch
                uncertified[aid] = uncertified.get(aid, 0) + 1
                if uncertified[aid] >= MAX_UNCERTIFIED and aid in st.accepted:
                    # the same candidate stopped the gate again: it goes back to its node
                    n = st.accepted.pop(aid)["node"]
                    st.failures[n] = st.failures.get(n, 0) + 1
                    _note(st, n, "the gate could not certify a merged file with this proof "
                                 f"({MAX_UNCERTIFIED} times): {ev.get('message', '')}")
        elif k in ("merged", "reconciled"):
            st.merged_batches[ev["batch"]] = ev["commit"]
            for aid in ev.get("aids", []):
                st.accepted.pop(aid, None)
            for n in ev.get("nodes", []):
                st.merged_nodes[n] = ev["commit"]
                st.failures.pop(n, None)
        elif k == "unmerged":  # the branch lost this batch: its proofs wait for the gate again
            st.merged_batches.pop(ev["batch"], None)
            for n in ev.get("nodes", []):
                st.merged_nodes.pop(n, None)
            for aid in ev.get("aids", []):
                if aid in ok_attempts:
                    st.accepted[aid] = ok_attempts[aid]
        elif k == "repair":
            st.failures[ev["node"]] = 0
        elif k == "blocked":
            st.blocked[ev["node"]] = ev.get("reason", "")
        elif k == "unblocked":  # resume-node: a person looked at it; fresh attempts
            st.blocked.pop(ev["node"], None)
            st.attempts.pop(ev["node"], None)
            st.failures.pop(ev["node"], None)
        elif k in ("audit", "refine", "construct") and ev.get("seq") not in void:
            st.stage1_rounds = max(st.stage1_rounds, int(ev.get("round", 0)))
        elif k == "locked":
            st.locked = True
        elif k == "run_finished":
            st.finished, st.stop_reason = True, ev.get("stop_reason")
            st.stage = "done"
        st.tokens += int(ev.get("tokens", 0) or 0)
        st.cost += float(ev.get("cost", 0.0) or 0.0)
        st.last_t = t if t is not None else st.last_t
    if session_start is not None and st.last_t is not None:
        st.elapsed_before += st.last_t - session_start
    return st


def _note(st: RunState, node: str, reason: str) -> None:
    if reason:
        notes = st.feedback.setdefault(node, [])
        notes.append(reason[:2000])
        del notes[:-4]


def live_status(workspace: Path, file: Path) -> dict[str, Any] | None:
    """The live (or last) run state for ``file``, for `harness status`; None when no run, and
    ``{"run_id", "error"}`` (one line) when the run's event log cannot be read."""
    d = run_dir(workspace, file)
    log = d / "events.jsonl"
    if not log.exists():
        return None
    try:
        read = read_events(log)
        st = rebuild(read.events)
    except HarnessError as err:  # a corrupt log: status still shows the blueprint, and why
        return {"run_id": d.name, "error": f"run state unreadable: {err.line()}"}
    except (OSError, KeyError, TypeError, ValueError) as err:
        return {"run_id": d.name, "error": f"run state unreadable: {log}: {err}"}
    info = read_lock(d / "lock.json")
    active = lock_holder_alive(info)
    cfgs = [ev.get("config") for ev in read.events if ev.get("kind") in ("run_started",
                                                                        "run_resumed")]
    workers_cfg = next((c.get("workers") for c in reversed(cfgs)
                        if isinstance(c, dict) and c.get("workers")), 1)
    workers = [{"worker": ev.get("worker"), "node": ev["node"], "attempt": ev.get("attempt"),
                "since": ev.get("t"),
                **{k: ev[k] for k in ("host", "pid", "node_id") if ev.get(k)}}  # Ray: placed
               for ev in st.inflight.values()] if active else []
    return {
        "run_id": d.name, "active": active, "pid": (info or {}).get("pid") if active else None,
        "stage": st.stage, "finished": st.finished, "stop_reason": st.stop_reason,
        "workers": workers,
        "attempts": sum(st.attempts.values()), "merged": len(st.merged_nodes),
        "pending_gate": len(st.accepted), "blocked": dict(st.blocked),
        "tokens": st.tokens, "cost": round(st.cost, 6), "last_event": st.last_t,
        "hosts": st.where, "lost": st.lost,
        "stale_lock": bool(info is not None and not active), "torn_log": read.torn_at is not None,
        "events": read.events, "workers_configured": workers_cfg,
    }
