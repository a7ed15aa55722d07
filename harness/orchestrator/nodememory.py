"""Stage 2's use of the per-node memory (harness.memory) and of model tiers: what a job carries
(the memory summary, the tier's model) and what a finished attempt leaves behind (a digest, or
an escalation that hands the node to a person)."""

from __future__ import annotations

from pathlib import Path

from harness.blueprint.dag import Analysis
from harness.blueprint.model import Blueprint
from harness.memory.digest import digest_of
from harness.memory.model import Blocker
from harness.memory.store import MemoryStore, statement_hash
from harness.memory.summary import summarise
from harness.orchestrator.executor import AttemptResult
from harness.workspace import harness_dir


def memory_store(workspace: Path) -> MemoryStore:
    return MemoryStore(harness_dir(workspace) / "memory")


class RunMemory:
    def __init__(self, workspace: Path, tiers: list[tuple[int, str]] | None = None) -> None:
        self.store = memory_store(workspace)
        self.tiers = sorted(tiers or [])  # (after this many failures, model)
        self._stmt: dict[str, str] = {}

    def refresh(self, a: Analysis, files: list[Blueprint] | None = None) -> None:
        """Statement hashes of the parts (a restated node's memory no longer applies);
        ``files``: a project run's blueprints (its analysis has an empty root)."""
        for bp in [a.blueprint, *(files or [])]:
            for d in bp.decls:
                if d.is_node:
                    sig = d.signature_span
                    self._stmt[d.key] = statement_hash(bp.text[sig.start:sig.end])

    def failures(self, node: str) -> int:
        """Failed attempts the memory holds for the node's current statement (all runs)."""
        return self.store.load(node, self._hash(node)).attempts

    def _hash(self, node: str) -> str:
        return self._stmt.get(node, "")

    def summary(self, node: str) -> str:
        return summarise(self.store.load(node, self._hash(node)))

    def needs_person(self) -> dict[str, Blocker]:
        """Escalated nodes whose statement is unchanged since the report."""
        out = {}
        for node, b in self.store.blockers().items():
            mem = self.store.load(node, self._hash(node))
            if mem.blocker is not None and node in self._stmt:
                out[node] = b
        return out

    def model_for(self, failures: int) -> str | None:
        """The tier for a node with this many failures: the last whose threshold is reached."""
        model = None
        for after, m in self.tiers:
            if failures >= after:
                model = m
        return model

    def failed(self, r: AttemptResult) -> None:
        self.store.record(r.node, self._hash(r.node), digest_of(
            aid=r.aid, reason=r.reason, body=r.body, role=r.role, model=r.model, cost=r.cost,
            seconds=r.seconds))

    def escalated(self, r: AttemptResult) -> str:
        """Keep the report; the reason the run shows."""
        assert r.escalation is not None
        b = r.escalation
        self.store.escalate(r.node, self._hash(r.node), b)
        return f"needs a person ({b.kind}): {b.explanation}"
