"""A project run's importer check and roll-backs, on a two-file project (`Gen/A.lean`, and
`Gen/B.lean` importing it): real git, the fake Lean compiling from the workspace root (an
importer sees the merged module: tests/fakes/README.md rule 18), scripted attempts.

- a proof that drops (or adds) a `where` clause changes declarations: its importers compile;
- a merge whose importers are being compiled is not visible to a job dispatched meanwhile;
- a failed repair leaves no commit, and its restate/audit events are voided;
- an importer still broken after its import's repair is repaired after it, not held against it.
"""

from __future__ import annotations

import json
import os
import re
import threading
from pathlib import Path

import git

from harness.blueprint.parse import parse_text
from harness.orchestrator import project_importers as pi
from harness.orchestrator.batchmerge import Candidate
from harness.orchestrator.executor import AttemptResult
from harness.orchestrator.project_session import ProjectSession
from harness.orchestrator.project_status import per_file, render
from harness.orchestrator.record import GateOutcome, Record
from harness.orchestrator.run import RunSettings, Services
from harness.orchestrator.spanindex import SpanIndex
from harness.orchestrator.stage1 import changed_statements
from harness.orchestrator.state import rebuild
from tests.orchestrator.support import FAKES, ROOT, fake_certifier

PROOF = "by\n  exact Iff.rfl"
WAIT_S = 60  # a test's own hand-shakes between threads: a failing test does not hang
BROKEN_A = "theorem broken_a : fake_elab_mismatch := trivial\n"
BROKEN_B = "theorem broken_b : fake_elab_mismatch := trivial\n"


def node(label: str, name: str, body: str = "by\n  sorry") -> str:
    return (f'@[blueprint "{label}"\n  (statement := /-- Claim {name}. -/)]\n'
            f"theorem {name} : (True) ↔ (True) := {body}\n")


def project(ws: Path, a: str, b: str) -> tuple[Path, Path]:
    """``Gen/A.lean`` (namespace Gen.A) with ``a``, ``Gen/B.lean`` importing it with ``b``."""
    (ws / "lakefile.lean").write_text("import Lake\nopen Lake DSL\n\npackage gen\n\n"
                                      "lean_lib Gen\n")
    (ws / "lean-toolchain").write_text("leanprover/lean4:v4.32.0\n")
    (ws / "Gen").mkdir()
    fa, fb = ws / "Gen" / "A.lean", ws / "Gen" / "B.lean"
    fa.write_text("import Architect\n\nset_option autoImplicit false\n\nnamespace Gen.A\n\n"
                  f"{a}\nend Gen.A\n")
    fb.write_text("import Architect\nimport Gen.A\n\nset_option autoImplicit false\n\n"
                  f"namespace Gen.B\n\n{b}\nend Gen.B\n")
    (ws / "Gen.lean").write_text("import Gen.A\nimport Gen.B\n")
    return fa, fb


def ws_gate(record: Record, ws: Path):
    """The fake Lean on the merged text from the workspace root (imports: the modules on disk),
    messages in the real gate's shape (`FILE:L:C: [lean] …`, read by stage2.outside_batch)."""
    from harness.lean.toolchain import find_toolchain
    from harness.lean.verdict import check_file

    tc = find_toolchain(ws, str(FAKES / "lake"))

    class WsGate:  # like services.LockedGate: the toolchain and timeout are attributes
        def __init__(self) -> None:
            self.tc, self.timeout_s = tc, 60

        def __call__(self, text: str, base: str, labels: list[str], **kw) -> GateOutcome:
            v = check_file(tc, ws, parse_text(text, record.file), labels=labels, timeout_s=60)
            msgs = [m.line(str(record.file)) for n in v.nodes for m in n.messages if m.is_error]
            msgs += [m.line(str(record.file)) for m in v.errors_anywhere]
            msgs = [re.sub(r": (error|warning): ", ": [lean] ", m) for m in msgs]
            return GateOutcome(not msgs, True, msgs)

    return WsGate()


def run(ws: Path, monkeypatch, runner, *, repair=None, gate=None, **settings):
    monkeypatch.setenv("PATH", f"{ROOT / 'tests' / 'fakes'}{os.pathsep}{os.environ['PATH']}")

    def factory(session, record):
        g = (gate or ws_gate)(record, ws)
        return Services(runner=runner, make_gate=lambda: g, certifier=fake_certifier(record),
                        repair_record=repair(session, record) if repair else None)

    s = ProjectSession(ws / "Gen", RunSettings(stage="2", **{"batch_window": 0.05, **settings}),
                       workspace=ws)
    res = s.run(factory)
    log = [json.loads(x) for x in (s.dir / "events.jsonl").read_text().splitlines()]
    return s, res, log


def proving(job) -> AttemptResult:
    return AttemptResult(aid=job.aid, node=job.node, ok=True, body=PROOF, role="prove",
                         cost=0.01, tokens=100)


# ---- 1. a `where` clause: more than a proof body ----------------------------------------------

WHERE_NODE = node("lem:a1", "a1", "by\n  sorry\nwhere\n  aux : True := trivial")


def test_a_proof_that_has_or_replaces_a_where_clause_changes_declarations():
    text = "namespace Gen.A\n\n" + WHERE_NODE + "\n" + node("lem:a2", "a2") + "\nend Gen.A\n"
    idx = SpanIndex.of(parse_text(text, None))

    def cand(n: str, body: str = PROOF, helpers: str = "", role: str = "prove") -> Candidate:
        return Candidate(f"{n}#1", n, body, helpers, role)

    assert pi.needs_check([cand("lem:a1")], idx)  # drops `a1.aux`: an importer may use it
    assert pi.needs_check([cand("lem:a2", PROOF + "\nwhere\n  aux2 : True := trivial")], idx)
    assert pi.needs_check([cand("lem:a2", "by\n  exact (let rec go : True := trivial; "
                                          "Iff.rfl)")], idx)
    assert not pi.needs_check([cand("lem:a2")], idx)  # a proof body alone
    assert not pi.needs_check([cand("lem:a2", PROOF + "  -- where to go next")], idx)
    assert pi.needs_check([cand("lem:a2", helpers="theorem h : True := trivial\n")], idx)
    assert pi.needs_check([cand("lem:a2", role="repair")], idx)
    assert pi.needs_check([cand("lem:a2")])  # nothing to judge it by: assumed (fail closed)
    defn = SpanIndex.of(parse_text('@[blueprint "def:d"]\ndef d : Nat := sorry\n', None))
    assert pi.needs_check([cand("def:d", "3")], defn)  # a definition's value is visible


def test_a_proof_only_merge_that_drops_a_where_clause_compiles_the_importers(tmp_path,
                                                                           monkeypatch):
    fa, fb = project(tmp_path, WHERE_NODE, "theorem b0 : True := trivial\n")
    s, res, log = run(tmp_path, monkeypatch, proving)
    assert res.exit_code == 0, res.stop_reason
    assert res.nodes["lem:a1"].status == "proved"
    assert "aux" not in fa.read_text()  # the proof replaced the body and its `where` clause
    ev = [e for e in log if e["kind"] == "importers" and e["file"] == "Gen/A.lean"]
    assert len(ev) == 1, ev
    assert ev[0]["checked"] == ["Gen/B.lean"] and ev[0]["skipped"] == [], ev[0]
    assert not ev[0]["broken"]


# ---- 2. a merge under its importers' check is not visible to new jobs -------------------------

def test_a_job_dispatched_while_importers_compile_never_carries_the_unjudged_merge(
        tmp_path, monkeypatch):
    # `guilty`'s helper is declared by B too (B breaks: rolled back); `other`'s first attempt
    # ends while B compiles, so its second one is dispatched then
    helper = "theorem aux_guilty : True := trivial\n"
    project(tmp_path, node("lem:guilty", "guilty") + "\n" + node("lem:other", "other"),
            "theorem _root_.Gen.A.aux_guilty : True := trivial\n")
    checking, dispatched = threading.Event(), threading.Event()
    jobs: dict[str, tuple[str | None, str]] = {}

    def runner(job) -> AttemptResult:
        if job.node == "lem:guilty":
            return AttemptResult(aid=job.aid, node=job.node, ok=True, body=PROOF,
                                 helpers=helper, role="prove", cost=0.01, tokens=100)
        if job.attempt == 1:
            checking.wait(WAIT_S)
            return AttemptResult(aid=job.aid, node=job.node, ok=False, reason="not yet",
                                 role="prove", cost=0.01, tokens=100)
        jobs[job.aid] = (job.commit, job.text)
        dispatched.set()
        return proving(job)

    def gate(record, ws):
        inner = ws_gate(record, ws)

        def g(text, base, labels, **kw):
            if record.rel == "Gen/B.lean" and not labels and text == base:  # importer check
                checking.set()
                dispatched.wait(WAIT_S)
            return inner(text, base, labels, **kw)

        g.tc, g.timeout_s = inner.tc, inner.timeout_s  # type: ignore[attr-defined]
        return g

    s, res, log = run(tmp_path, monkeypatch, runner, gate=gate, workers=2, max_attempts=2)
    rolled = [e["rolled_back"] for e in log if e["kind"] == "importers" and e.get("rolled_back")]
    assert rolled and "lem:other#2" in jobs, (rolled, jobs, res.stop_reason)
    commit, text = jobs["lem:other#2"]
    sent = next(e for e in log if e["kind"] == "dispatch" and e["aid"] == "lem:other#2")
    # the job carries the judged head (the commit before the merge), never the rolled-back one
    assert commit not in rolled and sent["commit"] == commit
    assert "aux_guilty" not in text
    assert Record(tmp_path, tmp_path / "Gen" / "A.lean").text_at(commit) == text
    assert res.nodes["lem:other"].status == "proved" and res.nodes["lem:guilty"].status != \
        "proved"


# ---- 3a/4. a failed repair: no commit, its events voided --------------------------------------

def restating(fixed: dict[str, str], ok: bool, calls: list[str]):
    """A stand-in for breakage.make_record_repair: restates (commits) like stage 1's rounds,
    logs their events, then the audit passes or fails (``ok``)."""

    def make(session, record):
        def repair(messages):
            calls.append(record.rel)
            log = session.log
            text = record.head_text()
            old = next(k for k in fixed if k in text)
            label = re.search(r"theorem (\w+)", old).group(1)
            log.append("restate", round=1, ok=True, reason="", tokens=10, cost=0.5,
                       nodes=[label], file=record.rel)  # tagged as breakage.FileEvents does
            record.commit_text(text.replace(old, fixed[old]), "restate\n")
            log.append("restated", round=1, commit=record.head(), nodes=[label],
                       before={label: old}, errors_left=0, file=record.rel)
            log.append("audit", round=0, ok=True, findings=[], blocking=0 if ok else 1,
                       reason="", tokens=10, cost=0.25, changed=[label], file=record.rel)
            return (True, f"restated {label} (audited)") if ok else (
                False, f"the audit of the restated statements failed: {label}: unfaithful")

        return repair

    return make


def test_a_failed_repair_leaves_no_commit_and_its_events_are_voided(tmp_path, monkeypatch):
    fa, fb = project(tmp_path, node("lem:a1", "a1") + "\n" + BROKEN_A,
                     "theorem b0 : True := trivial\n")
    calls: list[str] = []
    s, res, log = run(tmp_path, monkeypatch, proving, repair=restating(
        {BROKEN_A: "theorem broken_a : True := trivial\n"}, False, calls))
    assert calls == ["Gen/A.lean"] and res.exit_code == 1, res.stop_reason
    assert "not repaired" in res.stop_reason and "audit" in res.stop_reason
    # the record: A as before the repair, its restate commit only in the reflog
    repo = git.Repo(tmp_path)
    restated = next(e["commit"] for e in log if e["kind"] == "restated")
    assert restated not in {c.hexsha for c in repo.iter_commits()}
    rec = Record(tmp_path, fa)
    assert BROKEN_A in rec.head_text() and BROKEN_A in fa.read_text()
    assert not repo.is_dirty()
    # its restate/restated/audit events are voided: they count neither as rounds nor as
    # changed statements; their spend still counts
    from harness.orchestrator.events import voided

    seqs = {e["seq"] for e in log if e["kind"] in ("restate", "restated", "audit")}
    void = [e for e in log if e["kind"] == "voided"]
    assert len(void) == 1 and set(void[0]["seqs"]) == seqs and void[0]["file"] == "Gen/A.lean"
    assert voided(log) == seqs and changed_statements(log) == {}
    assert rebuild(log).cost >= 0.75
    live = per_file({"events": log, "run_id": s.run_id}, None, [], tmp_path)
    assert live["voided"][0]["restated"] == ["broken_a"] and live["voided"][0]["events"] == 3
    assert any("a repair of Gen/A.lean was rolled back" in line and "do not count" in line
               for line in render(live))


def test_voided_events_do_not_count_as_restate_rounds_or_changed_statements():
    log = [{"seq": 1, "kind": "restated", "nodes": ["x"], "before": {"x": "old x"}},
           {"seq": 2, "kind": "audit", "round": 3, "cost": 1.0},
           {"seq": 3, "kind": "restated", "nodes": ["y"], "before": {"y": "old y"}},
           {"seq": 4, "kind": "voided", "seqs": [1, 2], "file": "A.lean", "reason": "r"}]
    assert changed_statements(log) == {"y": "old y"}
    assert changed_statements(log[:3]) == {"x": "old x", "y": "old y"}
    st = rebuild(log)
    assert st.stage1_rounds == 0 and st.cost == 1.0  # not a round; paid all the same
    assert rebuild(log[:3]).stage1_rounds == 3


# ---- 3b. an importer broken too is repaired after its import ---------------------------------

def test_an_importer_still_broken_after_its_imports_repair_is_repaired_next(tmp_path,
                                                                          monkeypatch):
    fa, fb = project(tmp_path, node("lem:a1", "a1") + "\n" + BROKEN_A,
                     node("lem:b1", "b1") + "\n" + BROKEN_B)
    calls: list[str] = []
    both = threading.Barrier(2, timeout=WAIT_S)

    def runner(job) -> AttemptResult:
        if job.attempt == 1:
            both.wait()  # one gate batch with a candidate of each file
        return proving(job)

    s, res, log = run(tmp_path, monkeypatch, runner, workers=2, batch_window=0.5,
                      repair=(
        restating({BROKEN_A: "theorem broken_a : True := trivial\n",
                   BROKEN_B: "theorem broken_b : True := trivial\n"}, True, calls)))
    brk = [e for e in log if e["kind"] == "breakage"]
    # whether B's own gate found it broken in the same round as A (the batches race) or only
    # the importer check after A's repair: A's repair is kept, B is repaired after it
    assert brk and set(brk[0]["files"]) <= {"Gen/A.lean", "Gen/B.lean"}, brk
    assert calls == ["Gen/A.lean", "Gen/B.lean"] and brk[0]["repaired"], brk
    assert res.exit_code == 0, res.stop_reason
    assert {res.nodes[n].status for n in ("lem:a1", "lem:b1")} == {"proved"}
    assert "fake_elab_mismatch" not in fa.read_text() + fb.read_text()
    assert not [e for e in log if e["kind"] == "voided"]


def test_an_importer_found_broken_only_after_its_imports_repair_is_repaired_next(
        tmp_path, monkeypatch):
    # B's own gate has not run yet when A's repair ends (its only attempt waits for that): B is
    # found failing by the importer check, and goes to its repair step instead of A's repair
    # being rolled back (the order the gate's batches ran in does not decide)
    fa, fb = project(tmp_path, node("lem:a1", "a1") + "\n" + BROKEN_A,
                     node("lem:b1", "b1") + "\n" + BROKEN_B)
    calls: list[str] = []
    repaired = threading.Event()
    fix = restating({BROKEN_A: "theorem broken_a : True := trivial\n",
                     BROKEN_B: "theorem broken_b : True := trivial\n"}, True, calls)

    def repair(session, record):
        step = fix(session, record)

        def run_step(messages):
            out = step(messages)
            if len(calls) == 2:
                repaired.set()
            return out
        return run_step

    def runner(job) -> AttemptResult:
        if job.node == "lem:b1" and job.attempt == 1:
            assert repaired.wait(WAIT_S)
        return proving(job)

    s, res, log = run(tmp_path, monkeypatch, runner, workers=2, repair=repair)
    brk = [e for e in log if e["kind"] == "breakage"]
    assert brk[0]["files"] == ["Gen/A.lean"] and brk[0]["repaired"], brk
    assert calls == ["Gen/A.lean", "Gen/B.lean"], calls
    assert res.exit_code == 0, res.stop_reason
    assert "fake_elab_mismatch" not in fa.read_text() + fb.read_text()
    assert not [e for e in log if e["kind"] == "voided"]


def test_an_importer_whose_repair_fails_takes_its_imports_repair_back_with_it(tmp_path,
                                                                           monkeypatch):
    fa, fb = project(tmp_path, node("lem:a1", "a1") + "\n" + BROKEN_A,
                     "theorem b0 : True := trivial\n" + BROKEN_B)
    calls: list[str] = []
    ok_a = restating({BROKEN_A: "theorem broken_a : True := trivial\n"}, True, calls)
    bad_b = restating({BROKEN_B: "theorem broken_b : True := trivial\n"}, False, calls)

    def repair(session, record):
        return (ok_a if record.rel == "Gen/A.lean" else bad_b)(session, record)

    s, res, log = run(tmp_path, monkeypatch, proving, repair=repair)
    assert calls == ["Gen/A.lean", "Gen/B.lean"] and res.exit_code == 1, (calls, res)
    assert "Gen/A.lean: a file importing it still fails and was not repaired: Gen/B.lean" in \
        res.stop_reason and "(the repair was rolled back)" in res.stop_reason
    # both files as before the round; both repairs' events voided
    assert BROKEN_A in fa.read_text() and BROKEN_B in fb.read_text()
    assert {e["file"] for e in log if e["kind"] == "voided"} == {"Gen/A.lean", "Gen/B.lean"}
    assert not git.Repo(tmp_path).is_dirty()


def test_a_failed_round_undoes_every_repair_after_the_one_it_takes_back(tmp_path, monkeypatch):
    # A, B and C share one branch; B and C import A. A's repair leaves B and C failing: both
    # are repaired next; B's repair is kept, C's fails, so A's goes — and B's, made on top of
    # it, with it (the branch cannot drop A's commit and keep B's): no file left ahead of the
    # branch, nothing voided twice
    fa, fb = project(tmp_path, node("lem:a1", "a1") + "\n" + BROKEN_A,
                     "theorem b0 : True := trivial\n" + BROKEN_B)
    broken_c = "theorem broken_c : fake_elab_mismatch := trivial\n"
    fc = tmp_path / "Gen" / "C.lean"
    fc.write_text("import Architect\nimport Gen.A\n\nset_option autoImplicit false\n\n"
                  f"namespace Gen.C\n\ntheorem c0 : True := trivial\n{broken_c}\nend Gen.C\n")
    (tmp_path / "Gen.lean").write_text("import Gen.A\nimport Gen.B\nimport Gen.C\n")
    before = {f: f.read_text() for f in (fa, fb, fc)}
    calls: list[str] = []
    fixes = {BROKEN_A: "theorem broken_a : True := trivial\n",
             BROKEN_B: "theorem broken_b : True := trivial\n"}
    good = restating(fixes, True, calls)
    bad = restating({broken_c: "theorem broken_c : True := trivial\n"}, False, calls)

    def repair(session, record):
        return (bad if record.rel == "Gen/C.lean" else good)(session, record)

    s, res, log = run(tmp_path, monkeypatch, proving, repair=repair)
    assert calls == ["Gen/A.lean", "Gen/B.lean", "Gen/C.lean"], calls
    assert res.exit_code == 1 and "(the repair was rolled back)" in res.stop_reason
    assert {f: f.read_text() for f in (fa, fb, fc)} == before
    assert not git.Repo(tmp_path).is_dirty()
    void = [e for e in log if e["kind"] == "voided"]
    assert sorted(e["file"] for e in void) == ["Gen/A.lean", "Gen/B.lean", "Gen/C.lean"]
    seqs = [q for e in void for q in e["seqs"]]
    assert len(seqs) == len(set(seqs))  # each repair's events voided once, under its file
