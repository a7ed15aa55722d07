"""Stage 2's gate queue: one batch at a time is merged on the gate thread (so workers keep being
fed), then its verdict is applied on the loop's thread: merged and superseded nodes are done,
rejected ones go back with the gate's messages, a split re-opens its node and reshapes the DAG.
When every candidate was refused for something outside the batch, the record itself is broken:
none is charged, and the repair step (stage 1's restate + audit) gets the diagnostics."""

from __future__ import annotations

import re
import time

from harness.orchestrator.batchmerge import CannotDecide, Candidate, MergeOutcome
from harness.orchestrator.scheduler_model import NodeState
from harness.orchestrator.stage2_base import Stage2Base, Stage2Outcome

# a gate failure line: "FILE:LINE:COL: [check] KEY: message" (harness.gate.verify.Failure)
_FAILURE = re.compile(r":\d+:\d+: \[(\w+)\](?: (\S+):)? ")


def outside_batch(messages: list[str], nodes: set[str]) -> list[str]:
    """The gate failures that are not about a candidate: a check other than scope whose
    declaration is not in the batch (or that names none: an import, the environment)."""
    out = []
    for m in messages:
        f = _FAILURE.search(m)
        if f and f.group(1) != "scope" and (f.group(2) is None or f.group(2) not in nodes):
            out.append(m)
    return out


class GateQueue(Stage2Base):
    def _start_gate(self, batch: list[str]) -> None:
        cands = [self.pending[n] for n in batch]
        ev = self.log.append("merge_intent", nodes=batch, aids=[c.aid for c in cands],
                             base=self.record.head())
        batch_id = f"b{ev['seq']:06d}"
        fut = self._gate_pool.submit(self._merge, cands, batch_id)
        self._gate_job = (fut, batch_id, cands)
        self.notify("gate", {"batch": batch_id, "nodes": batch})

    def _finish_gate(self) -> Stage2Outcome | None:
        s = self.sched
        assert s is not None and self._gate_job is not None
        fut, batch_id, cands = self._gate_job
        self._gate_job = None
        now = time.monotonic()
        try:
            out: MergeOutcome = fut.result()
        except CannotDecide as err:
            self.log.append("gate", batch=batch_id, certified=False, message=err.message,
                            merged=[], rejected={}, uncertified=[c.aid for c in cands])
            self.notify("note", {"message": f"gate cannot certify: {err.message}"})
            self.blocked.update(s.blocked())
            return Stage2Outcome(f"the gate cannot certify: {err.message}", dict(self.blocked),
                                 no_lean=True)
        if not out.merged and out.rejected:
            broken = self._broken_outside(cands, out.rejected)
            if broken:
                return self._breakage(batch_id, cands, broken, now)
        self.log.append("gate", batch=batch_id, certified=True, gate_calls=out.gate_calls,
                        merged=[c.aid for c in out.merged], rejected=out.rejected,
                        superseded=out.superseded, seconds=round(out.seconds, 4))
        if out.commit:
            self.log.append("merged", batch=batch_id, commit=out.commit,
                            nodes=[c.node for c in out.merged if c.role != "repair"],
                            split=[c.node for c in out.merged if c.role == "repair"],
                            aids=[c.aid for c in out.merged])
            self.notify("merged", {"batch": batch_id, "commit": out.commit,
                                   "nodes": [c.node for c in out.merged]})
        by_aid = {c.aid: c for c in cands}
        proofs = [c.node for c in out.merged if c.role != "repair"]
        proofs += [by_aid[a].node for a in out.superseded if a in by_aid]
        rejected = {by_aid[a].node: "; ".join(m) for a, m in out.rejected.items()}
        for c in cands:
            self.pending.pop(c.node, None)
        for n, why in rejected.items():
            self._remember(n, f"the gate rejected the merged file: {why}")
        s.gate_done(proofs, rejected, now)
        for c in out.merged:
            if c.role == "repair":
                s.reopen(c.node)
        for n in rejected:
            if s.state(n) == NodeState.BLOCKED:
                self._block(n, s.nodes[n].reason)
        if any(c.role == "repair" for c in out.merged):
            if self._relock():
                self.log.append("locked", commit=out.commit, reason="split added nodes")
            self._sync()  # a split changed the DAG's shape: recompute it from the record
        elif out.commit:  # proofs only: the scheduler's incremental update is exact
            self.notify("dag", {"proved": s.count(NodeState.DONE) + self._proved0,
                                "open": len(s.nodes) - s.count(NodeState.DONE),
                                "blocked": len(self.blocked), "commit": out.commit})
        return None

    # ---- what a project run (project_stage2.py) replaces: one file here --------------------
    def _merge(self, cands: list[Candidate], batch_id: str) -> MergeOutcome:
        return self.record.merge_batch(cands, self.gate, run_id=self.run_id, batch_id=batch_id)

    def _relock(self) -> bool:
        relock = getattr(self.gate, "relock", None)
        if relock is not None:
            relock(self.record.head_text())
        return relock is not None

    # ---- the record broke outside the batch ---------------------------------------------
    def _broken_outside(self, cands: list[Candidate], rejected: dict[str, list[str]]
                        ) -> list[str]:
        """When every candidate was refused for something outside the batch, ask the gate
        about the record's own text (one call): its failures, if it fails too."""
        nodes = {c.node for c in cands}
        if not all(outside_batch(m, nodes) for m in rejected.values()):
            return []
        base = self.record.head_text()
        probe = self.gate(base, base, [], structural=False)
        if probe.certified and not probe.passed:
            return probe.messages or ["the record's own text fails the gate"]
        return []

    def _breakage(self, batch_id: str, cands: list[Candidate], messages: list[str],
                  now: float) -> Stage2Outcome | None:
        """Not the candidates' fault: none is charged, all stay accepted; the diagnostics go to
        the repair step (stage 1's restate + audit + a new lock). Unrepaired: stop (exit 1)."""
        s = self.sched
        assert s is not None
        self.log.append("gate", batch=batch_id, certified=True, merged=[], rejected={},
                        broken=messages[:20])
        self.notify("note", {"message": "the record fails the gate outside the batch: "
                                        + "; ".join(messages[:3])})
        s.gate_done([], {}, now)  # the batch waits (PENDING) instead of being rejected
        ok, why = (self.repair_record(messages) if self.repair_record is not None
                   else (False, "no repair step configured"))
        self.log.append("breakage", batch=batch_id, messages=messages[:20], repaired=ok,
                        reason=why, commit=self.record.head())
        if ok:
            if self._relock():
                self.log.append("locked", commit=self.record.head(), reason="record repaired")
            self._sync()
            return None
        self.blocked.update(s.blocked())
        shown = "; ".join(messages[:3]) + (f" (+{len(messages) - 3} more)"
                                           if len(messages) > 3 else "")
        return Stage2Outcome(f"the record does not pass the gate outside the batch: {shown}; "
                             f"not repaired ({why}); nothing was blocked", dict(self.blocked))
