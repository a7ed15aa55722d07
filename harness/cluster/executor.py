"""Attempts as Ray tasks on a cluster: ``harness run --executor ray`` (docs/cluster.md).

Only imported when a run asks for Ray. The head process keeps the orchestrator, the scheduler,
the gate and the git record; a worker gets a job (JSON) and the run's :class:`WorkerSpec` (JSON,
no secrets) and sends back an :class:`AttemptResult` with its cost and where it ran.

- Each attempt is one task needing one CPU and ``lean_memory_gb`` of Ray's ``memory`` resource,
  so Ray never places more Lean processes on a node than fit.
- One :class:`~harness.cluster.node.NodeService` actor per node (created by the head for every
  live node, also for nodes that join later) checks the node once — workspace, Lake packages, toolchain, the key's
  variable — and keeps a warm REPL with the blueprint's header elaborated; the attempts placed
  on that node use it for their goal queries (advisory; certification stays a full compile).
- A task whose worker process or node dies is re-dispatched (up to ``MAX_LOST`` times), logged
  as a ``lost`` event with the node it died on; the run goes on.
"""

from __future__ import annotations

import os
import socket
import time
from dataclasses import dataclass, field
from typing import Any, Callable

import ray
from ray.exceptions import GetTimeoutError, RayError
from ray.util.scheduling_strategies import NodeAffinitySchedulingStrategy

from harness.errors import UsageError
from harness.orchestrator.executor import AttemptJob, AttemptResult, safe_run
from harness.cluster.node import NAMESPACE, NodeService, RemotePool, service_name
from harness.cluster.worker import GIB, WorkerSpec, node_problem, runner_for

MAX_LOST = 3  # re-dispatches of one attempt after worker/node deaths, then it fails
LOAD_EVERY_S = 2.0  # how often the head asks the nodes for their load (and finds new nodes)
CHECK_TIMEOUT_S = 120.0  # a node's one-time check (lake/lean --version) and actor start-up
LOST_ERRORS = ("WorkerCrashedError", "NodeDiedError", "ObjectLostError", "OwnerDiedError",
               "ActorDiedError", "ActorUnavailableError", "LocalRayletDiedError",
               "TaskCancelledError")

Notify = Callable[[str, dict[str, Any]], None]


# ---- the attempt task ----------------------------------------------------------------------
_checked: dict[str, str | None] = {}  # no service on this node: the check, once per process
_services: dict[str, tuple[Any, str | None]] = {}  # service name -> (handle, its check)


@ray.remote(max_retries=0)
def run_attempt(job_json: str, spec_json: str) -> str:
    spec = WorkerSpec.model_validate_json(spec_json)
    job = AttemptJob.model_validate_json(job_json)
    node_id = ray.get_runtime_context().get_node_id()
    pid, host = os.getpid(), socket.gethostname()
    os.environ["HARNESS_ATTEMPT_OWNER"] = str(pid)  # Lean children carry it: orphans are reaped
    name = service_name(node_id, spec)
    if name not in _services:  # once per worker process: the handle and the node's verdict
        try:
            h = ray.get_actor(name, namespace=NAMESPACE)
            _services[name] = (h, ray.get(h.check.remote(), timeout=CHECK_TIMEOUT_S)[0])
        except (ValueError, RayError):  # the head has not made this node's service (yet)
            if spec.digest() not in _checked:
                _checked[spec.digest()] = node_problem(spec)
            svc, problem = None, _checked[spec.digest()]
    if name in _services:
        svc, problem = _services[name]
        svc.started.remote(job.aid, pid)
    if problem:
        res = AttemptResult(aid=job.aid, node=job.node, kind=job.kind, ok=False,
                            reason=f"node {host}: {problem}", fatal=f"ray node {host}: {problem}")
    else:
        res = safe_run(runner_for(spec, RemotePool(svc) if svc is not None else None), job)
    res.node_id, res.host, res.pid = node_id, host, pid
    if svc is not None:
        svc.finished.remote(job.aid)
    return res.model_dump_json()


# ---- the head side -------------------------------------------------------------------------
@dataclass
class _Flight:
    job: AttemptJob
    lost: int = 0
    submitted: float = field(default_factory=time.monotonic)


class RayExecutor:
    """:class:`harness.orchestrator.executor.Executor` on Ray. ``events()`` hands the session
    what it should log or show: ``lost`` (an attempt re-dispatched), ``cluster`` (node loads)."""

    def __init__(self, spec: WorkerSpec, *, started: bool = False,
                 notify: Notify | None = None) -> None:
        self.spec = spec
        self._spec_json = spec.model_dump_json()
        self._spec_ref = ray.put(self._spec_json)
        self._mem = int(spec.lean_memory_gb * GIB)
        self._started = started  # we started the Ray instance: we stop it
        self._notify = notify or (lambda kind, data: None)
        self._flights: dict[Any, _Flight] = {}
        self._events: list[tuple[str, dict[str, Any]]] = []
        self._services: dict[str, Any] = {}  # node id -> its service (None: unusable)
        self._checking: dict[str, tuple[Any, Any, float]] = {}  # node id -> (handle, ref, t0)
        self._load_refs: dict[str, Any] = {}
        self._header: str | None = None
        self._next_load = 0.0
        self._placed: dict[str, dict[str, Any]] = {}  # aid -> where it was seen running
        self.lost = 0
        self.submitted = 0
        self._closed = False
        self._discover(strict=True)

    # ---- nodes
    def _discover(self, strict: bool = False) -> None:
        """A service for every live node we have none for. ``strict`` (at start): each is
        checked now, and a node that cannot run attempts stops the run before any work (exit
        2); later (nodes that join during the run) the checks are collected by ``_tick``."""
        for n in ray.nodes():
            nid = n["NodeID"]
            if not n.get("Alive") or nid in self._services or nid in self._checking:
                continue
            if n["Resources"].get("memory", 0) < self._mem:
                continue  # cannot hold the warm Lean: its attempts run without one
            h = NodeService.options(
                name=service_name(nid, self.spec), namespace=NAMESPACE, get_if_exists=True,
                memory=self._mem, scheduling_strategy=NodeAffinitySchedulingStrategy(nid, False),
            ).remote(self._spec_json)
            self._checking[nid] = (h, h.check.remote(), time.monotonic())
        if strict:
            for nid, (h, ref, _) in list(self._checking.items()):
                try:
                    answer = ray.get(ref, timeout=CHECK_TIMEOUT_S)
                except (GetTimeoutError, RayError) as err:
                    answer = (f"its service did not start: {type(err).__name__}", nid[:12], nid)
                self._checked(nid, answer, strict=True)

    def _checked(self, nid: str, answer: tuple[str | None, str, str], strict: bool) -> None:
        h, _, _ = self._checking.pop(nid)
        problem, host, _ = answer
        if problem:
            ray.kill(h)
            if strict:
                self.shutdown()
                raise UsageError(f"run: Ray node {host} ({nid[:12]}): {problem}")
            self._events.append(("note", {"message": f"Ray node {host}: {problem}"}))
            self._services[nid] = None
            return
        self._services[nid] = h
        if self._header is not None:
            h.warm.remote(self._header)

    def _collect_checks(self) -> None:
        for nid, (h, ref, t0) in list(self._checking.items()):
            ready, _ = ray.wait([ref], timeout=0)
            if ready:
                try:
                    answer = ray.get(ref)
                except RayError as err:
                    answer = (f"its service did not start: {type(err).__name__}", nid[:12], nid)
                self._checked(nid, answer, strict=False)
            elif time.monotonic() - t0 > CHECK_TIMEOUT_S:
                self._checked(nid, (f"no answer to its check within {CHECK_TIMEOUT_S:g}s",
                                    nid[:12], nid), strict=False)

    def nodes(self, timeout: float = 5.0) -> list[dict[str, Any]]:
        """Each node's load (its service's answer), for the live view and the benchmark."""
        refs = {nid: h.load.remote() for nid, h in self._services.items() if h is not None}
        return self._loads(refs, timeout)

    @staticmethod
    def _loads(refs: dict[str, Any], timeout: float) -> list[dict[str, Any]]:
        out = []
        for nid, ref in refs.items():
            try:
                out.append(ray.get(ref, timeout=timeout))
            except (GetTimeoutError, RayError):
                out.append({"node_id": nid, "host": "?", "running": [], "gone": True})
        return out

    # ---- the Executor protocol
    def submit(self, job: AttemptJob) -> None:
        if self._header is None:
            self._header = _header(job.text, job.file)
            for h in self._services.values():
                if h is not None and self._header is not None:
                    h.warm.remote(self._header)
        self._dispatch(_Flight(job))

    def _dispatch(self, flight: _Flight) -> None:
        ref = run_attempt.options(num_cpus=1, memory=self._mem).remote(
            flight.job.model_dump_json(), self._spec_ref)
        self._flights[ref] = flight
        self.submitted += 1

    def poll(self, timeout: float) -> list[AttemptResult]:
        self._tick()
        if not self._flights:
            time.sleep(max(0.0, min(timeout, LOAD_EVERY_S)))
            return []
        refs = list(self._flights)
        try:
            ready, _ = ray.wait(refs, num_returns=1, timeout=max(timeout, 0.0))
        except KeyboardInterrupt:  # Ctrl-C / SIGTERM: cancel the tasks now, so that the
            self.abort()  # session's clean-up does not wait for attempts on other machines
            raise
        if ready:
            ready, _ = ray.wait(refs, num_returns=len(refs), timeout=0)
        out: list[AttemptResult] = []
        for ref in ready:
            flight = self._flights.pop(ref)
            try:
                res = AttemptResult.model_validate_json(ray.get(ref))
            except RayError as err:
                res = self._lost(flight, err)
                if res is None:
                    continue
            self._placed.pop(flight.job.aid, None)
            res.lost = flight.lost
            out.append(res)
        return out

    def _lost(self, flight: _Flight, err: RayError) -> AttemptResult | None:
        """A dead worker or node: re-dispatch (None), or give up after MAX_LOST losses."""
        name = type(err).__name__
        why = f"{name}: {str(err).strip().splitlines()[0][:200] if str(err).strip() else ''}"
        if not any(n in name for n in LOST_ERRORS) or self._closed:
            return AttemptResult(aid=flight.job.aid, node=flight.job.node, kind=flight.job.kind,
                                 ok=False, reason=f"ray: {why}")
        flight.lost += 1
        self.lost += 1
        where = self._placed.pop(flight.job.aid, {})
        # what the dead attempt spent died with it: it is charged its cap (the worst case)
        self._events.append(("lost", {"aid": flight.job.aid, "node": flight.job.node,
                                      "times": flight.lost, "reason": why,
                                      "cost": flight.job.budget_usd or 0.0, **where}))
        if flight.lost > MAX_LOST:
            return AttemptResult(aid=flight.job.aid, node=flight.job.node, kind=flight.job.kind,
                                 ok=False, reason=f"lost {flight.lost} times to dying Ray "
                                 f"workers (last: {why})")
        self._dispatch(flight)
        return None

    def _tick(self) -> None:
        """Every LOAD_EVERY_S: collect the loads asked for last time (never waiting on them)
        and ask again; find nodes that joined; collect their checks."""
        now = time.monotonic()
        if now < self._next_load or self._closed:
            return
        self._next_load = now + LOAD_EVERY_S
        if self._load_refs:
            ready, _ = ray.wait(list(self._load_refs.values()),
                                num_returns=len(self._load_refs), timeout=0)
            done = {nid: r for nid, r in self._load_refs.items() if r in ready}
            self._report(self._loads(done, 0.0)
                         + [{"node_id": nid, "host": "?", "running": [], "busy": True}
                            for nid in self._load_refs if nid not in done])
        self._load_refs = {nid: h.load.remote() for nid, h in self._services.items()
                           if h is not None}
        self._discover()
        self._collect_checks()

    def _report(self, nodes: list[dict[str, Any]]) -> None:
        mine = {f.job.aid for f in self._flights.values()}
        for n in nodes:
            for r in n.get("running", []):
                if r["aid"] in mine and r["aid"] not in self._placed:
                    where = {"node_id": n["node_id"], "host": n["host"], "pid": r["pid"]}
                    self._placed[r["aid"]] = where
                    self._events.append(("placed", {"aid": r["aid"], **where}))
        self._events.append(("cluster", {"nodes": nodes, "in_flight": len(self._flights),
                                         "lost": self.lost}))

    def events(self) -> list[tuple[str, dict[str, Any]]]:
        out, self._events = self._events, []
        return out

    remote = True  # attempts run on Ray workers: an interrupt cancels them, never waits

    def running(self) -> int:
        return len(self._flights)

    def shutdown(self) -> None:
        self._stop(wait=True)

    def abort(self) -> None:
        self._stop(wait=False)

    def _stop(self, wait: bool) -> None:
        if self._closed:
            return
        self._closed = True
        if wait and self._flights:
            ray.wait(list(self._flights), num_returns=len(self._flights), timeout=30.0)
        for ref in self._flights:
            try:
                ray.cancel(ref, force=True)
            except RayError:
                pass
        self._flights.clear()
        for h in self._services.values():
            if h is None:
                continue
            try:
                ray.get(h.close.remote(), timeout=10.0)  # the warm REPL and orphaned Lean
            except (GetTimeoutError, RayError):
                pass
            ray.kill(h)
        self._services.clear()
        for h, _, _ in self._checking.values():
            ray.kill(h)
        self._checking.clear()
        if self._started:
            ray.shutdown()


def _header(text: str, file: str) -> str | None:
    from harness.blueprint.parse import parse_text
    from harness.errors import HarnessError

    try:
        bp = parse_text(text, file)
    except HarnessError:
        return None
    return bp.text[:bp.header_span.end]
