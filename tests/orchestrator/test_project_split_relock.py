"""A repair split merged in a project run relocks only the file it was merged into
(ProjectStage2._relock): the split's new placeholder nodes are pinned there; every other file's
statements did not change, and relocking one of them is a Lean compile of its text — which, for
a file broken outside any batch (Lean rejects it), cannot be done (CannotCertify: exit 3 instead
of that file's repair round). Two files, `Gen/B.lean` importing `Gen/A.lean`; B's node is split.
"""

from __future__ import annotations

from harness.orchestrator.executor import AttemptResult
from tests.orchestrator.test_project_rollback import PROOF, node, project, run
from harness.orchestrator.record import GateOutcome

PART = ('@[blueprint "lem:b1-part"\n  (statement := /-- A part of b1. -/)]\n'
        "theorem b1_part : (True) ↔ (True) := by\n  sorry")


def test_a_split_relocks_only_the_file_it_was_merged_into(tmp_path, monkeypatch):
    project(tmp_path, node("lem:a1", "a1"), node("lem:b1", "b1"))
    relocked: list[str] = []

    def gate(record, ws):
        class Relocking:  # every text passes; the relocks are what is observed
            def __call__(self, text, base, labels, **kw) -> GateOutcome:
                return GateOutcome(True, True, [])

            def relock(self, text: str) -> None:
                relocked.append(record.rel)

        return Relocking()

    def runner(job) -> AttemptResult:
        if job.kind == "repair":
            return AttemptResult(aid=job.aid, node=job.node, kind="repair", ok=True,
                                 repair="split", helpers=PART,
                                 body="by\n  sorry_using [b1_part]")
        if job.node == "lem:b1" and job.attempt == 1:
            return AttemptResult(aid=job.aid, node=job.node, ok=False, reason="too hard")
        return AttemptResult(aid=job.aid, node=job.node, ok=True, body=PROOF, role="prove")

    s, res, log = run(tmp_path, monkeypatch, runner, gate=gate, attempts_before_repair=1)
    assert [e["split"] for e in log if e["kind"] == "merged" and e.get("split")] == \
        [["lem:b1"]], res.stop_reason
    assert "theorem b1_part" in (tmp_path / "Gen" / "B.lean").read_text()
    assert relocked == ["Gen/B.lean"], relocked
    assert [e["reason"] for e in log if e["kind"] == "locked"] == ["split added nodes"]
