"""Per Ray node: the service actor the attempts placed there share, and its REPL proxy.

:class:`NodeService` checks its node once (:func:`harness.cluster.worker.node_problem`),
keeps a warm REPL pool (the blueprint's header elaborated once), records what runs on the node
for the head's live view, and reaps the Lean processes of workers that died.
"""

from __future__ import annotations

import os
import socket
import time
from typing import Any

import ray

from harness.cluster.worker import (
    WorkerSpec, node_problem, pid_alive, reap_orphans,
)

NAMESPACE = "harness"


@ray.remote(num_cpus=0, max_concurrency=16)
class NodeService:
    """Per node: the one-time check, the warm REPL, and what runs here (the live view)."""

    def __init__(self, spec_json: str) -> None:
        self.spec = WorkerSpec.model_validate_json(spec_json)
        self.node_id = ray.get_runtime_context().get_node_id()
        self.host = socket.gethostname()
        self.problem = node_problem(self.spec)  # once per node, not per attempt
        self.pool: Any = None
        self.running: dict[str, tuple[int, float]] = {}
        self.done = 0
        self.warm_s: float | None = None

    def check(self) -> tuple[str | None, str, str]:
        return self.problem, self.host, self.node_id

    def _pool(self) -> Any:
        if self.pool is None:
            from harness.lean.pool import ReplPool
            from harness.lean.toolchain import find_toolchain
            from harness.cluster.worker import worker_workspace

            ws = worker_workspace(self.spec)
            mb = int(self.spec.lean_memory_gb * 1024)
            self.pool = ReplPool(find_toolchain(ws, self.spec.lake).repl(), cwd=ws,
                                 budget_mb=mb, per_repl_mb=mb, wait_s=30.0)
        return self.pool

    def warm(self, header: str) -> float | None:
        """Start the REPL and elaborate ``header`` (seconds taken; None when it cannot)."""
        if self.problem is not None or not self.spec.needs_lean:
            return None
        t0 = time.monotonic()
        try:
            with self._pool().session(header):
                pass
        except Exception:  # noqa: BLE001 — advisory: attempts fall back to the compiler
            return None
        self.warm_s = round(time.monotonic() - t0, 3)
        return self.warm_s

    def command(self, header: str, code: str, timeout_s: float | None) -> str:
        return self._pool().command(header, code, timeout_s=timeout_s).model_dump_json()

    def started(self, aid: str, pid: int) -> None:
        self.running[aid] = (pid, time.time())

    def finished(self, aid: str) -> None:
        if self.running.pop(aid, None) is not None:
            self.done += 1

    def load(self) -> dict[str, Any]:
        """What runs here; dead attempts' Lean processes are reaped on the way."""
        live = {aid: v for aid, v in self.running.items() if pid_alive(v[0])}
        self.running = live
        reaped = reap_orphans()
        running = [{"aid": a, "pid": p, "since": t} for a, (p, t) in sorted(live.items())]
        return {"node_id": self.node_id, "host": self.host, "running": running,
                "done": self.done, "loadavg": round(os.getloadavg()[0], 2), "reaped": reaped,
                "warm_s": self.warm_s, "problem": self.problem}

    def close(self) -> int:
        if self.pool is not None:
            self.pool.close()
        return reap_orphans()


def service_name(node_id: str, spec: WorkerSpec) -> str:
    return f"harness-node-{node_id[:16]}-{spec.digest()}"


class RemotePool:
    """A ReplPool stand-in that asks the node's service (same interface as ReplPool.command)."""

    def __init__(self, handle: Any) -> None:
        self.handle = handle

    def command(self, header: str, code: str, *, timeout_s: float | None = None) -> Any:
        from harness.lean.repl import ReplResponse

        ref = self.handle.command.remote(header, code, timeout_s)
        return ReplResponse.model_validate_json(ray.get(ref, timeout=(timeout_s or 60) + 60))
