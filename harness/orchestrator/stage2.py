"""Stage 2: discharge the DAG — pipelined attempts, one gate queue, merges into the record.

The loop owns the scheduler and the event log; attempts run in an :class:`Executor`, the gated
merge runs on its own thread (the gate queue) so that workers keep being fed while a batch is
checked. The DAG is recomputed from the record after every merge. The loop's parts, one module
each: the DAG (``stage2_dag``), attempts and their results (``stage2_attempts``), the gate queue
(``stage2_gate``), the final certification (``stage2_certify``); shared state in ``stage2_base``.
"""

from __future__ import annotations

import time

from harness.orchestrator import procs
from harness.orchestrator.scheduler_model import NodeState
from harness.orchestrator.stage2_attempts import AttemptHandling
from harness.orchestrator.stage2_base import Stage2Outcome
from harness.orchestrator.stage2_certify import FinalCertification
from harness.orchestrator.stage2_dag import DagSync
from harness.orchestrator.stage2_gate import GateQueue


class Stage2(DagSync, AttemptHandling, GateQueue, FinalCertification):
    # ---- the loop -----------------------------------------------------------------------------
    def run(self) -> Stage2Outcome:
        self._sync()
        now = time.monotonic()
        self._restore(now)
        s = self.sched
        assert s is not None
        stop: str | None = None
        wait_gate = True
        try:
            while True:
                now = time.monotonic()
                if stop is None and self._fatal is not None:
                    stop = self._fatal
                    self._note(stop)
                if stop is None and self.cfg.budget is not None and self.spent >= self.cfg.budget:
                    stop = f"budget spent (${self.spent:.4f} of ${self.cfg.budget:.4f})"
                    self._note(stop)
                if stop is None:
                    for d in s.dispatch(now, limit=self._affordable()):
                        self._submit(d.node, d.worker, d.attempt)
                if self._gate_job is None:
                    batch = s.take_gate_batch(now)
                    if batch:
                        self._start_gate(batch)
                elif self._gate_job[0].done():
                    done = self._finish_gate()
                    if done is not None:
                        self._drain()
                        return done
                    continue
                wait = self.cfg.poll_s
                wake = s.next_wakeup()
                if wake is not None:
                    wait = max(0.0, min(wait, wake - now))
                for res in self.executor.poll(wait):
                    self._on_result(res, time.monotonic())
                self._executor_events()
                if self._gate_job is None and self.executor.running() == 0:
                    if stop is not None and not s.in_flight():  # nothing running or pending
                        break
                    if s.finished():
                        if stop is None and self._certify():
                            continue  # Lean re-opened nodes and there is work again
                        stop = stop or self._final_reason()
                        break
        except KeyboardInterrupt:  # Ctrl-C / SIGTERM: stop the Lean runs the threads wait on
            procs.shield()
            wait_gate = procs.abort(self._busy)  # never hang on a thread stuck elsewhere
            raise
        finally:
            self._gate_pool.shutdown(wait=wait_gate)
        self._drain()  # a result that landed after the loop's last poll
        if self._fatal is None:
            self._certify()  # the final head is certified whatever stopped the loop
        self.blocked.update(s.blocked())
        return Stage2Outcome(stop or self._final_reason(), dict(self.blocked),
                             usage_error=self._fatal is not None,
                             certification=self.certification)

    def _busy(self) -> bool:
        """Work on this machine's threads: the gate, and attempts unless they run elsewhere
        (Ray: stop_interrupted cancels them; waiting here would only delay the stop)."""
        return (self._gate_job is not None and not self._gate_job[0].done()) \
            or (not getattr(self.executor, "remote", False) and self.executor.running() > 0)

    def _final_reason(self) -> str:
        s = self.sched
        assert s is not None
        left = [n for n, st in s.nodes.items() if st.state != NodeState.DONE]
        return "all nodes proved" if not left else "no progress possible"
