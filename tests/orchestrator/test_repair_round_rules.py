"""A failed repair round keeps the earlier repairs of files that do not depend on the failed one
(docs/orchestrator.md, "Breakage repair per file"), and takes back the repairs the failed one
depends on: `Gen/A.lean` and `Gen/B.lean` (independent), `Gen/C.lean` importing B, found
failing only after B's repair; C's repair fails. The real lock gate, real git, the fake Lean.

The gate's batches race: which broken files one round sees depends on which candidates wait
for the gate when a batch closes (scheduler.take_gate_batch closes one as soon as a candidate
waits and a worker is idle). Each ordering is driven here through an explicit seam, never
through timing:

- A and B in one batch (the first batch is held until both candidates wait), or A's round
  first (B's attempt ends only once A's repair step ran): A's repair is kept — merged,
  relocked, its events counted — B's and C's go back, and the next run repairs only B and C
  and proves A's node through A's lock as the round left it on disk;
- B's round first (A's attempt ends only once B's repair step ran): the round fails and the
  run stops before A's candidate ever reaches the gate — A is untouched (file, lock, branch),
  the stop reason names only what the round saw, and the next run repairs all three.
"""

from __future__ import annotations

import hashlib
import threading

import git
import pytest

from harness.gate.lock import load_lock
from harness.gate.verify import verify
from harness.orchestrator.events import voided
from harness.orchestrator.executor import AttemptResult
from harness.orchestrator.scheduler import Scheduler
from harness.orchestrator.scheduler_model import NodeState
from tests.orchestrator.repair_support import (BROKEN_A, BROKEN_B, FIXED_A, FIXED_B, fake_path,
                                               restating, run_locked)
from tests.orchestrator.test_project_rollback import WAIT_S, node, project, proving

BROKEN_C = "theorem broken_c : fake_elab_mismatch := trivial\n"
FIXED_C = "theorem broken_c : True := trivial\n"
FIXES = {"Gen/A.lean": {BROKEN_A: FIXED_A}, "Gen/B.lean": {BROKEN_B: FIXED_B},
         "Gen/C.lean": {BROKEN_C: FIXED_C}}
AUDITED = {"Gen/A.lean": ["broken_a"], "Gen/B.lean": ["broken_b"], "Gen/C.lean": ["broken_c"]}
NODE_OF = {"Gen/A.lean": "lem:a1", "Gen/B.lean": "lem:b1"}


def three_files(ws):
    fa, fb = project(ws, node("lem:a1", "a1") + "\n" + BROKEN_A,
                     node("lem:b1", "b1") + "\n" + BROKEN_B)
    fb.write_text(fb.read_text().replace("import Gen.A\n", ""))  # B: independent of A
    fc = ws / "Gen" / "C.lean"
    fc.write_text("import Architect\nimport Gen.B\n\nset_option autoImplicit false\n\n"
                  f"namespace Gen.C\n\ntheorem c0 : True := trivial\n{BROKEN_C}\nend Gen.C\n")
    (ws / "Gen.lean").write_text("import Gen.A\nimport Gen.B\nimport Gen.C\n")
    return fa, fb, fc


def lock_of(s, rel):
    return next(sub.dir for sub, rec in s._subs if rec.rel == rel) / "statements.lock.json"


def hold_first_batch(monkeypatch, nodes: set[str]) -> None:
    """The run's first gate batch closes only once every one of ``nodes`` waits for the gate
    (or none of them is still running: then the test's assertions fail, it does not hang)."""
    take = Scheduler.take_gate_batch
    held = [True]

    def take_held(self, now):
        if held[0]:
            states = {self.state(n) for n in nodes}
            if states != {NodeState.PENDING} and NodeState.RUNNING in states:
                return []
            held[0] = False
        return take(self, now)

    monkeypatch.setattr(Scheduler, "take_gate_batch", take_held)


class Ordering:
    """The seam for one ordering: ``runner`` (the attempts) and ``after`` (called by a repair
    step once it committed): the first attempt of the file that goes second ends only once the
    first file's repair step ran, so its candidate cannot be in the first round's batch."""

    def __init__(self, first: str | None) -> None:
        self.first = first
        self.ran = threading.Event()
        self.waited: list[bool] = []

    def runner(self, job) -> AttemptResult:
        if self.first is not None and job.attempt == 1 and job.node != NODE_OF[self.first]:
            self.waited.append(self.ran.wait(WAIT_S))
        return proving(job)

    def after(self, record) -> None:
        if record.rel == self.first:
            self.ran.set()


def first_run(tmp_path, monkeypatch, first: str | None):
    order = Ordering(first)
    if first is None:
        hold_first_batch(monkeypatch, {"lem:a1", "lem:b1"})
    calls: list[str] = []
    repair = restating(FIXES, AUDITED, calls, ok={"Gen/C.lean": False}, after=order.after)
    s, res, log = run_locked(tmp_path, repair, runner=order.runner, workers=2)
    assert order.waited == ([] if first is None else [True]), order.waited
    return s, res, log, calls


@pytest.mark.parametrize("first", [None, "Gen/A.lean"], ids=["one-batch", "a-first"])
def test_a_failed_round_keeps_earlier_independent_repairs_and_takes_back_its_causes(
        tmp_path, monkeypatch, first):
    monkeypatch.setenv("PATH", fake_path())
    fa, fb, fc = three_files(tmp_path)
    before = {f: f.read_text() for f in (fa, fb, fc)}
    s, res, log, calls = first_run(tmp_path, monkeypatch, first)
    assert calls == ["Gen/A.lean", "Gen/B.lean", "Gen/C.lean"], (calls, res.stop_reason)
    assert res.exit_code == 1 and "not repaired" in res.stop_reason, res.stop_reason
    assert "Gen/B.lean: a file importing it still fails and was not repaired: Gen/C.lean" in \
        res.stop_reason and "(the repair was rolled back)" in res.stop_reason
    brk = [e for e in log if e["kind"] == "breakage"]
    if first is None:  # one round: A and B
        assert [(e["files"], e["repaired"]) for e in brk] == \
            [(["Gen/A.lean", "Gen/B.lean"], False)], brk
    else:  # A's own round (kept), then B's (failed)
        assert [(e["files"], e["repaired"]) for e in brk] == \
            [(["Gen/A.lean"], True), (["Gen/B.lean"], False)], brk
    repo = git.Repo(tmp_path)
    assert not repo.is_dirty()
    head = repo.head.commit.tree

    def at_head(rel):
        return (head / rel).data_stream.read().decode()

    # A's repair stays merged: on disk, on the branch, its lock follows it, its events count
    assert fa.read_text() == at_head("Gen/A.lean")  # (a1's proof may be merged by then)
    assert FIXED_A in fa.read_text() and BROKEN_A not in fa.read_text()
    lock_a = load_lock(lock_of(s, "Gen/A.lean"))
    assert verify(fa.read_text(), fa, lock_a, static_only=True).passed
    assert not verify(before[fa], fa, lock_a, static_only=True).passed
    gone = voided(log)
    kept = [e["seq"] for e in log if e.get("file") == "Gen/A.lean" and e["kind"] == "restated"]
    assert kept and not set(kept) & gone
    # B's repair (which C's depended on) and C's are taken back, locks with them
    assert fb.read_text() == at_head("Gen/B.lean") == before[fb]
    assert fc.read_text() == at_head("Gen/C.lean") == before[fc]
    assert verify(before[fb], fb, load_lock(lock_of(s, "Gen/B.lean")), static_only=True).passed
    pin = load_lock(lock_of(s, "Gen/C.lean")).environment["Gen/B.lean"]
    assert pin == hashlib.sha256(before[fb].encode()).hexdigest()
    assert sorted(e["file"] for e in log if e["kind"] == "voided") == ["Gen/B.lean",
                                                                     "Gen/C.lean"]

    # the next run: C's repair step succeeds now; A is not repaired again, and its node is
    # proved through A's gate with the lock the round left on disk (not refused as stale)
    again: list[str] = []
    s2, res2, _ = run_locked(tmp_path, restating(FIXES, AUDITED, again), workers=2)
    assert res2.exit_code == 0, res2.stop_reason
    assert again == ["Gen/B.lean", "Gen/C.lean"], again
    assert {res2.nodes[n].status for n in ("lem:a1", "lem:b1")} == {"proved"}
    assert "fake_elab_mismatch" not in fa.read_text() + fb.read_text() + fc.read_text()


def test_a_failed_round_before_another_files_candidate_was_gated_leaves_that_file_alone(
        tmp_path, monkeypatch):
    monkeypatch.setenv("PATH", fake_path())
    fa, fb, fc = three_files(tmp_path)
    before = {f: f.read_text() for f in (fa, fb, fc)}
    s, res, log, calls = first_run(tmp_path, monkeypatch, "Gen/B.lean")
    assert calls == ["Gen/B.lean", "Gen/C.lean"], (calls, res.stop_reason)
    assert res.exit_code == 1, res.stop_reason
    # the stop names what the round saw (B, and C through it), not A: never gated this run
    assert res.stop_reason.startswith("the record does not pass the gate outside any batch: "
                                      "Gen/B.lean: "), res.stop_reason
    assert "Gen/A.lean" not in res.stop_reason and "not repaired" in res.stop_reason
    brk = [e for e in log if e["kind"] == "breakage"]
    assert [(e["files"], e["repaired"]) for e in brk] == [(["Gen/B.lean"], False)], brk
    # A's accepted candidate was logged (the next run gates it), never judged by a gate
    assert [e["aid"] for e in log if e["kind"] == "attempt" and e["node"] == "lem:a1"] == \
        ["lem:a1#1"]
    assert not [e for e in log if e["kind"] == "merge_intent" and "lem:a1" in e["nodes"]]
    # everything as before the run: the branch, the files, A's lock untouched
    repo = git.Repo(tmp_path)
    head0 = next(e["commit"] for e in log if e["kind"] == "dispatch")
    assert repo.head.commit.hexsha == head0 and not repo.is_dirty()
    assert [f.read_text() for f in (fa, fb, fc)] == list(before.values())
    lock_a0 = load_lock(lock_of(s, "Gen/A.lean"))
    assert verify(before[fa], fa, lock_a0, static_only=True).passed
    assert verify(before[fb], fb, load_lock(lock_of(s, "Gen/B.lean")), static_only=True).passed
    assert sorted(e["file"] for e in log if e["kind"] == "voided") == ["Gen/B.lean",
                                                                     "Gen/C.lean"]

    # the next run repairs all three (C's repair step succeeds now) and proves both nodes
    again: list[str] = []
    s2, res2, _ = run_locked(tmp_path, restating(FIXES, AUDITED, again), workers=2)
    assert res2.exit_code == 0, res2.stop_reason
    assert sorted(again) == ["Gen/A.lean", "Gen/B.lean", "Gen/C.lean"], again
    assert again.index("Gen/B.lean") < again.index("Gen/C.lean"), again
    assert {res2.nodes[n].status for n in ("lem:a1", "lem:b1")} == {"proved"}
    assert "fake_elab_mismatch" not in fa.read_text() + fb.read_text() + fc.read_text()
