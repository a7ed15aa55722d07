"""A repair round relocks each kept repair against the real statement lock (services.LockedGate
over harness/gate/lock.py and lockcheck.py, each file's lock file on disk): a two-file project,
`Gen/A.lean` and `Gen/B.lean` importing it, both with a statement Lean now rejects; real git,
the fake Lean replaying recorded Lean output.

- both repairs kept: each file's lock on disk pins its restated statement (and refuses the old
  one with the lock's reason), B's pins A's repaired module; B's repaired file is not refused by
  a stale lock (its node is proved through its gate after the round);
- a repair that changes a locked statement it did not restate and have audited is refused with
  the lock's reason, and the repair before it that queued it goes back with it: both files and
  both lock files exactly as before the round (no relock of a text Lean rejects).
"""

from __future__ import annotations

import hashlib

import git
import pytest

from harness.gate.lock import load_lock
from harness.gate.verify import verify
from tests.orchestrator.repair_support import (BROKEN_A, BROKEN_B, FIXED_A, FIXED_B, fake_path,
                                               lock_files, restating, run_locked)
from tests.orchestrator.test_project_rollback import node, project
from tests.orchestrator.test_repair_round_rules import Ordering, hold_first_batch


def two_files(ws):
    return project(ws, node("lem:a1", "a1") + "\n" + BROKEN_A,
                   node("lem:b1", "b1") + "\n" + BROKEN_B)


def locks_by_file(ws, s):
    """rel -> (lock file path): each file's session directory is its own run's."""
    out = {}
    for sub, rec in s._subs:
        out[rec.rel] = sub.dir / "statements.lock.json"
    return out


def test_each_kept_repair_is_relocked_and_the_importers_repair_is_not_refused(tmp_path,
                                                                             monkeypatch):
    monkeypatch.setenv("PATH", fake_path())
    fa, fb = two_files(tmp_path)
    calls: list[str] = []
    repair = restating({"Gen/A.lean": {BROKEN_A: FIXED_A}, "Gen/B.lean": {BROKEN_B: FIXED_B}},
                       {"Gen/A.lean": ["broken_a"], "Gen/B.lean": ["broken_b"]}, calls)
    s, res, log = run_locked(tmp_path, repair)
    assert calls == ["Gen/A.lean", "Gen/B.lean"], (calls, res.stop_reason)
    assert res.exit_code == 0, res.stop_reason
    # B's repaired file passed its own gate afterwards: its node was merged with B's lock
    assert {res.nodes[n].status for n in ("lem:a1", "lem:b1")} == {"proved"}
    brk = [e for e in log if e["kind"] == "breakage"]
    assert brk and all(e["repaired"] for e in brk), brk
    assert not [e for e in log if e["kind"] == "voided"]
    locks = locks_by_file(tmp_path, s)
    for rel, f, old, new in (("Gen/A.lean", fa, BROKEN_A, FIXED_A),
                             ("Gen/B.lean", fb, BROKEN_B, FIXED_B)):
        lock = load_lock(locks[rel])  # the lock file on disk, as a resumed run reads it
        text = f.read_text()
        assert new in text and old not in text
        assert lock.elaborated  # relocked with Lean: the repaired text elaborates
        rep = verify(text, f, lock, static_only=True)
        assert rep.passed, [x.render() for x in rep.failures]
        back = verify(text.replace(new, old), f, lock, static_only=True)
        ns = rel[:-5].replace("/", ".")  # the file's namespace: Gen.A / Gen.B
        assert [(x.check, x.key, x.message) for x in back.failures] == [
            ("lock", f"{ns}.{new.split()[1]}", "statement changed")]
    # B's lock pins A's repaired module (a stale pin would refuse every later batch of B)
    digest = hashlib.sha256(fa.read_bytes()).hexdigest()
    assert load_lock(locks["Gen/B.lean"]).environment["Gen/A.lean"] == digest
    assert not git.Repo(tmp_path).is_dirty()


@pytest.mark.parametrize("batches", ["a-first", "one-batch"])
def test_a_repair_changing_a_locked_statement_is_refused_with_the_locks_reason(tmp_path,
                                                                              monkeypatch,
                                                                              batches):
    # A's repair is kept; B's also weakens `b1`'s statement, which it neither restated nor had
    # audited: its lock refuses it, and A's repair (B imports A) goes back with it — whether
    # B was queued by A's repair (A's round first: B's attempt ends once A's repair step ran)
    # or found broken with A in one gate batch (held until both candidates wait): the
    # batches' race decides nothing
    monkeypatch.setenv("PATH", fake_path())
    order = Ordering("Gen/A.lean" if batches == "a-first" else None)
    if batches == "one-batch":
        hold_first_batch(monkeypatch, {"lem:a1", "lem:b1"})
    fa, fb = two_files(tmp_path)
    before = {f: f.read_text() for f in (fa, fb)}
    sneaky = {BROKEN_B: FIXED_B, "theorem b1 : (True) ↔ (True)": "theorem b1 : True"}
    calls: list[str] = []
    repair = restating({"Gen/A.lean": {BROKEN_A: FIXED_A}, "Gen/B.lean": sneaky},
                       {"Gen/A.lean": ["broken_a"], "Gen/B.lean": ["broken_b"]}, calls,
                       after=order.after)
    locks0: dict[str, bytes] = {}

    def lock_gate(session, record, ws):
        from tests.orchestrator.repair_support import locked_gate

        g = locked_gate(session, record, ws)
        locks0[record.rel] = g.lock_file.read_bytes()
        return g

    s, res, log = run_locked(tmp_path, repair, gate=lock_gate, runner=order.runner, workers=2)
    assert order.waited == ([True] if batches == "a-first" else []), order.waited
    assert calls == ["Gen/A.lean", "Gen/B.lean"], (calls, res.stop_reason)
    assert res.exit_code == 1, res.stop_reason
    assert [e["files"] for e in log if e["kind"] == "breakage"] == (
        [["Gen/A.lean"]] if batches == "a-first" else [["Gen/A.lean", "Gen/B.lean"]])
    assert "its statement lock refuses the repaired file" in res.stop_reason, res.stop_reason
    assert "Gen/B.lean:" in res.stop_reason and "[lock] lem:b1: statement changed" in \
        res.stop_reason, res.stop_reason
    assert "(the repair was rolled back)" in res.stop_reason
    # both files, the branch and both locks as before the round
    assert {f: f.read_text() for f in (fa, fb)} == before
    repo = git.Repo(tmp_path)
    assert not repo.is_dirty()
    for rel, f in (("Gen/A.lean", fa), ("Gen/B.lean", fb)):
        assert (repo.head.commit.tree / rel).data_stream.read().decode() == before[f]
    locks = locks_by_file(tmp_path, s)
    assert {rel: p.read_bytes() for rel, p in locks.items()} == locks0
    assert sorted(e["file"] for e in log if e["kind"] == "voided") == ["Gen/A.lean",
                                                                     "Gen/B.lean"]
    assert lock_files(tmp_path)  # (every lock is a file's own session's)


def test_a_round_that_succeeds_leaves_a_file_broken_outside_it_locked_as_it_was(tmp_path,
                                                                               monkeypatch):
    # A and B are independent, both broken; B's only attempt waits until A's round is over, so
    # A's round succeeds while B is still broken: B is not relocked then (Lean rejects its
    # text: no lock can be written), its own round comes later
    import threading

    from harness.orchestrator.executor import AttemptResult
    from tests.orchestrator.test_project_rollback import WAIT_S, proving

    monkeypatch.setenv("PATH", fake_path())
    fa, fb = two_files(tmp_path)
    fb.write_text(fb.read_text().replace("import Gen.A\n", ""))
    calls: list[str] = []
    first_done = threading.Event()
    fix = restating({"Gen/A.lean": {BROKEN_A: FIXED_A}, "Gen/B.lean": {BROKEN_B: FIXED_B}},
                    {"Gen/A.lean": ["broken_a"], "Gen/B.lean": ["broken_b"]}, calls,
                    after=lambda record: first_done.set())

    def runner(job) -> AttemptResult:
        if job.node == "lem:b1" and job.attempt == 1:
            assert first_done.wait(WAIT_S)
        return proving(job)

    s, res, log = run_locked(tmp_path, fix, runner=runner, workers=2)
    assert res.exit_code == 0, res.stop_reason
    assert calls == ["Gen/A.lean", "Gen/B.lean"], calls
    assert [e["files"] for e in log if e["kind"] == "breakage"] == [["Gen/A.lean"],
                                                                   ["Gen/B.lean"]]
