"""The memory room's pure parts and its file store (real files, no mocks)."""

from __future__ import annotations

import json

from harness.memory.digest import digest_of, error_class
from harness.memory.model import MAX_DIGESTS, Blocker
from harness.memory.store import MemoryStore, statement_hash
from harness.memory.summary import MAX_SUMMARY_CHARS, TITLE, summarise

LEAN_FAIL = ("prove: no accepted result after 1 answers; last problem: FAILED (error): "
             "Unknown identifier `Nat.add_zero'`\n- body 2:8: error: unknown identifier "
             "'Nat.add_zero''\n- body 3:2: error: unsolved goals\nn : ℕ\n⊢ n + 0 = n")


def test_digest_reads_lean_failures() -> None:
    d = digest_of(aid="lem:one#2", reason=LEAN_FAIL,
                  body="by\n  have h : 0 + n = n := by sorry\n  exact Nat.add_zero' n",
                  role="prove", model="m", cost=0.02)
    assert d.error_class == "unknown_identifier"
    assert d.unknown_names == ["Nat.add_zero'"]
    assert d.first_goal == "n + 0 = n"
    assert d.wished_lemmas == ["h"]
    assert d.approach.startswith("by / have h")
    assert error_class("deterministic timeout at whnf") == "timeout"
    assert error_class("the gate rejected the merged file: [scope]") == "gate"
    assert error_class("") == ""


def test_summary_is_bounded_and_deterministic(tmp_path) -> None:
    st = MemoryStore(tmp_path)
    h = statement_hash("(n : Nat) : n + 0 = n")
    for i in range(30):
        st.record("lem:one", h, digest_of(aid=f"lem:one#{i}", reason=LEAN_FAIL * 3,
                                          body="by\n  simp" + " [x]" * 200, cost=0.01, at=1.0))
    mem = st.load("lem:one", h)
    assert mem.attempts == 30 and len(mem.digests) == MAX_DIGESTS
    assert abs(mem.spent_usd - 0.30) < 1e-9
    a, b = summarise(mem), summarise(st.load("lem:one", h))
    assert a == b and a.startswith(TITLE) and len(a) <= MAX_SUMMARY_CHARS
    assert "`Nat.add_zero'`" in a and "30 failed attempt(s)" in a


def test_replayed_result_is_recorded_once(tmp_path) -> None:
    st = MemoryStore(tmp_path)
    d = digest_of(aid="x#1", reason="unsolved goals")
    st.record("x", "h", d)
    st.record("x", "h", d)
    assert st.load("x", "h").attempts == 1


def test_restated_node_starts_fresh_and_corrupt_file_is_set_aside(tmp_path) -> None:
    st = MemoryStore(tmp_path)
    st.record("x", statement_hash("(n : Nat) : n = n"), digest_of(aid="x#1", reason="boom"))
    assert st.load("x", statement_hash("(n  :  Nat) :\n n = n")).attempts == 1  # whitespace only
    assert st.load("x", statement_hash("(n : Int) : n = n")).attempts == 0  # restated
    p = st.path("x")
    p.write_text("{not json")
    assert st.load("x", "h").attempts == 0
    assert p.with_suffix(".corrupt").exists() and not p.exists()


def test_escalation_is_kept_and_cleared(tmp_path) -> None:
    st = MemoryStore(tmp_path)
    st.escalate("lem:false", "h", Blocker(kind="statement_false",
                                          explanation="n = 0 is a counterexample"))
    assert list(st.blockers()) == ["lem:false"]
    raw = json.loads(st.path("lem:false").read_text())
    assert raw["blocker"]["kind"] == "statement_false" and raw["schema_version"] == 1
    assert st.clear_blocker("lem:false") and st.blockers() == {}
    assert not st.clear_blocker("lem:false")


def test_run_memory_reads_every_file_of_a_project(tmp_path) -> None:
    """A project run analyses an empty root with the files beside it: the statement hashes (and
    so escalations and memory) must come from the files."""
    from harness.blueprint.dag import analyse
    from harness.blueprint.parse import parse_text
    from harness.orchestrator.nodememory import RunMemory
    from tests.orchestrator.test_feedback import ONE

    (tmp_path / "lakefile.lean").write_text("import Lake\n")
    f = parse_text(ONE, tmp_path / "One.lean")
    mem = RunMemory(tmp_path)
    mem.refresh(analyse(parse_text("", tmp_path / "Root.lean")), [f])
    mem.store.escalate("lem:one", mem._hash("lem:one"),
                       Blocker(kind="other", explanation="a person should look at this"))
    assert mem._hash("lem:one") and list(mem.needs_person()) == ["lem:one"]


def test_hyphenated_command_loads_only_its_module() -> None:
    from harness.cli import _requested

    assert _requested(["resume-node", "F.lean", "x"]) == "resume_node"
    assert _requested(["plan", "x"]) == "plan" and _requested(["nope"]) is None
