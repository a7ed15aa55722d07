"""Stage 2: a batch refused for something outside its nodes (here: an imported module changed
under the run) reaches the repair step with the gate's diagnostics — no candidate is charged,
no node is blocked one by one, and the accepted proofs survive for the next session."""

from __future__ import annotations

from harness.orchestrator.events import read_events
from harness.orchestrator.stage2_gate import outside_batch
from tests.orchestrator.support import run_session, scripted_runner, workspace
from tests.orchestrator.test_stage2 import real_gate

BASE = "/-! Base definitions. -/\n\nnamespace B\n\ndef two : Nat := 2\n\nend B\n"
MAIN = '''import Blueprint.Base

namespace M

@[blueprint "lem:a"
  (statement := /-- $n + 0 = n$. -/)]
theorem a (n : Nat) : n + 0 = n := by
  sorry

@[blueprint "lem:b"
  (statement := /-- $0 + n = n$. -/)]
theorem b (n : Nat) : 0 + n = n := by
  sorry

end M
'''


def test_outside_batch_classification() -> None:
    msgs = ["F.lean:7:2: [lean] lem:a: unknown identifier", "F.lean:1:0: [environment] "
            "Blueprint/Base.lean changed", "F.lean:9:0: [scope] lem:z: not allowed",
            "F.lean:12:0: [lean] lem:up: type mismatch"]
    assert outside_batch(msgs, {"lem:a"}) == [msgs[1], msgs[3]]


def test_import_changed_mid_run_stops_with_diagnostics_nothing_blocked(tmp_path) -> None:
    f = workspace(tmp_path, MAIN, "Main.lean")
    base = f.parent / "Base.lean"
    base.write_text(BASE)
    edited = {"done": False}

    def body(job):
        if not edited["done"]:  # someone edits an imported module while the run goes on
            base.write_text(BASE.replace("2", "3"))
            edited["done"] = True
        return "by\n  omega"

    s, res = run_session(f, scripted_runner(body), gate=real_gate, workers=1, batch_size=2)
    assert res.exit_code == 1, res.stop_reason
    assert "outside the batch" in res.stop_reason and "Base.lean" in res.stop_reason
    assert "nothing was blocked" in res.stop_reason
    assert res.counts["blocked"] == 0
    evs = read_events(s.dir / "events.jsonl").events
    brk = [e for e in evs if e["kind"] == "breakage"]
    assert len(brk) == 1 and not brk[0]["repaired"] and brk[0]["messages"]
    gates = [e for e in evs if e["kind"] == "gate"]
    assert all(not g["rejected"] for g in gates)  # no candidate was charged for it
    assert not any(e["kind"] == "blocked" for e in evs)
    # the import is restored: the next session gates the kept proofs, with no new attempt
    base.write_text(BASE)
    attempts = sum(1 for e in evs if e["kind"] == "attempt")
    s2, res2 = run_session(f, scripted_runner(body), gate=real_gate, workers=1)
    assert res2.exit_code == 0, res2.stop_reason
    evs2 = read_events(s2.dir / "events.jsonl").events
    assert sum(1 for e in evs2 if e["kind"] == "attempt") == attempts


def test_repair_step_restates_and_audits_a_broken_upstream_statement(tmp_path) -> None:
    """The repair step itself (services.make_record_repair), on a record whose statements Lean
    rejects: stage 1's restate with the diagnostics, then the audit of what changed."""
    import json

    from harness.agents.config import load_config, resolve_endpoint
    from harness.agents.llm import LLMClient
    from harness.lean.toolchain import find_toolchain
    from harness.orchestrator.record import Record
    from harness.orchestrator.run import Session
    from harness.orchestrator.runmodels import RunSettings
    from harness.orchestrator.breakage import make_record_repair
    from harness.orchestrator.services import LLMStage1, make_check, make_diagnose
    from tests.orchestrator.support import FAKES
    from tests.orchestrator.test_stage1_compile import BROKEN, GOOD, WEAK, auditor, config, fenced
    from tests.support.llm_server import ScriptedLLM, role_of, text

    for answer, want in ((GOOD, True), (WEAK, False)):
        f = workspace(tmp_path / str(want), BROKEN, "C.lean")
        ws = f.parent.parent
        with ScriptedLLM(lambda req: text(fenced("lean", answer)) if role_of(req) == "refine"
                         else auditor(req)) as srv:
            config(ws, srv.base_url)
            cfg = load_config(None, ws)
            session = Session(f, RunSettings(stage="2", max_rounds=2), workspace=ws)
            session.log, _ = session.open()
            try:
                record = Record(ws, f)
                record.ensure_committed("start\n")
                tc = find_toolchain(ws, str(FAKES / "lake"))
                repair = make_record_repair(
                    session, record, LLMStage1(LLMClient(resolve_endpoint(cfg), cfg), cfg),
                    make_check(record, tc, 60), make_diagnose(record, tc, 60))
                ok, why = repair(["Blueprint/C.lean:7:26: [lean] lem:add-zero: Application "
                                  "type mismatch"])
                evs = list(session.log.events)
            finally:
                session.log.close()
                session.lock.release()
        assert ok is want, why
        audit = next(e for e in evs if e["kind"] == "audit")
        assert audit["changed"] == ["lem:add-zero", "lem:zero-add"]
        if want:
            assert why.startswith("restated lem:add-zero, lem:zero-add")
            assert record.head_text() == GOOD
        else:
            assert "the audit of the restated statements failed" in why and "tautology" in why
        assert json.dumps(evs)  # the events are plain JSON
