"""A failed repair round keeps the earlier repairs of files that do not depend on the failed one
(docs/orchestrator.md, "Breakage repair per file"), and takes back the repairs the failed one
depends on: `Gen/A.lean` and `Gen/B.lean` (independent), `Gen/C.lean` importing B, found
failing only after B's repair. A and B are broken in one gate batch; A's repair is kept, B's is
kept, C's fails: B's goes back (C was queued by it), A's stays — merged, relocked, its events
counted — and the next run repairs only B and C, and proves A's node through A's lock as the
round left it on disk. The real lock gate, real git, the fake Lean.
"""

from __future__ import annotations

import hashlib
import threading

import git

from harness.gate.lock import load_lock
from harness.gate.verify import verify
from harness.orchestrator.executor import AttemptResult
from harness.orchestrator.events import voided
from tests.orchestrator.repair_support import (BROKEN_A, BROKEN_B, FIXED_A, FIXED_B, fake_path,
                                               restating, run_locked)
from tests.orchestrator.test_project_rollback import WAIT_S, node, project, proving

BROKEN_C = "theorem broken_c : fake_elab_mismatch := trivial\n"
FIXED_C = "theorem broken_c : True := trivial\n"
FIXES = {"Gen/A.lean": {BROKEN_A: FIXED_A}, "Gen/B.lean": {BROKEN_B: FIXED_B},
         "Gen/C.lean": {BROKEN_C: FIXED_C}}
AUDITED = {"Gen/A.lean": ["broken_a"], "Gen/B.lean": ["broken_b"], "Gen/C.lean": ["broken_c"]}


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


def test_a_failed_round_keeps_earlier_independent_repairs_and_takes_back_its_causes(
        tmp_path, monkeypatch):
    monkeypatch.setenv("PATH", fake_path())
    fa, fb, fc = three_files(tmp_path)
    before = {f: f.read_text() for f in (fa, fb, fc)}
    one_batch = threading.Barrier(2, timeout=WAIT_S)

    def runner(job) -> AttemptResult:
        if job.attempt == 1:
            one_batch.wait()  # A's and B's first candidates in one gate batch: one round
        return proving(job)

    calls: list[str] = []
    repair = restating(FIXES, AUDITED, calls, ok={"Gen/C.lean": False})
    s, res, log = run_locked(tmp_path, repair, runner=runner, workers=2, batch_window=0.5)
    assert calls == ["Gen/A.lean", "Gen/B.lean", "Gen/C.lean"], (calls, res.stop_reason)
    assert res.exit_code == 1 and "not repaired" in res.stop_reason, res.stop_reason
    assert "Gen/B.lean: the restated file breaks the files importing it: Gen/C.lean" in \
        res.stop_reason and "(the repair was rolled back)" in res.stop_reason
    brk = [e for e in log if e["kind"] == "breakage"]
    # one round, or (the gate's batches race) A's own round first: the same end state
    assert not brk[-1]["repaired"] and "Gen/B.lean" in brk[-1]["files"], brk
    assert all(e["repaired"] for e in brk[:-1]) and len(brk) <= 2, brk
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
