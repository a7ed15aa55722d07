"""The git record: span index vs the parser, gated merges, bisection, resume repairs."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from hypothesis import given, settings, strategies as st

from harness.blueprint.generate import generate_blueprint
from harness.blueprint.parse import parse_text
from harness.errors import UsageError
from harness.orchestrator.batchmerge import Candidate, CannotDecide, GateOutcome
from harness.orchestrator.record import Record
from harness.orchestrator.spanindex import SpanIndex

BP = generate_blueprint(30, seed=5, proved_fraction=0.0)
OPEN = [d.key for d in parse_text(BP, "x").nodes if d.status.value in ("sorry", "sorry_using")]


@settings(max_examples=30, deadline=None)
@given(st.lists(st.tuples(st.sampled_from(OPEN), st.sampled_from(
    ["by\n  omega", "by simp", "by\n  sorry", "rfl"]), st.sampled_from(
    ["", "theorem aux_h (n : Nat) : n = n := rfl", "/-- doc -/\nlemma aux_k : True := trivial"])),
    min_size=1, max_size=6, unique_by=lambda e: e[0]), st.booleans())
def test_span_index_matches_a_full_parse(edits, twice) -> None:
    idx = SpanIndex.of(parse_text(BP, "x"))
    text, new = idx.apply(edits)
    if twice and new is not None:  # a second round on the shifted index
        rest = [(k, "by decide", "") for k in OPEN if k not in {e[0] for e in edits}][:2]
        if rest:
            text, new = new.apply(rest)
    assert new is not None
    ref = SpanIndex.of(parse_text(text, "x"))
    assert new.nodes == ref.nodes


def record_with(tmp: Path, text: str = BP) -> Record:
    f = tmp / "B.lean"
    f.write_text(text)
    r = Record(tmp, f)
    r.run_id = "R"
    r.ensure_committed("start\n")
    return r


def bogus_gate(calls: list | None = None):
    """Fails on any line mentioning `bogus`, reported at that line (like Lean)."""

    def gate(text: str, base: str, labels: list[str], **kw) -> GateOutcome:
        if calls is not None:
            calls.append(list(labels))
        bad = [f"B.lean:{i + 1}:2: error: unknown identifier" for i, line in
               enumerate(text.splitlines()) if "bogus" in line]
        return GateOutcome(not bad, True, bad)

    return gate


def pair_gate(a: str, b: str):
    """Fails (with no usable position) only when both a and b are proved together: a semantic
    clash that no single candidate shows — found by halving."""

    def gate(text: str, base: str, labels: list[str], **kw) -> GateOutcome:
        bp = parse_text(text, "x")
        both = all(bp.node(k).status.is_complete for k in (a, b))
        return GateOutcome(not both, True, ["duplicate declaration (somewhere)"] if both else [])

    return gate


def cands(keys, body="by\n  omega", bad=()):
    return [Candidate(f"{k}#1", k, "by\n  exact bogus" if k in bad else body) for k in keys]


def test_merge_commits_once_with_trailers(tmp_path) -> None:
    r = record_with(tmp_path)
    out = r.merge_batch(cands(OPEN[:4]), bogus_gate(), run_id="R", batch_id="b1")
    assert out.commit and [c.node for c in out.merged] == OPEN[:4] and out.gate_calls == 1
    msg = r.repo.head.commit.message
    assert re.search(r"^Harness-Nodes: " + re.escape(",".join(OPEN[:4])) + "$", msg, re.M)
    assert "Harness-Batch: b1" in msg and "Harness-Verdict: passed" in msg
    assert r.file.read_text() == r.head_text() and not r.repo.is_dirty()
    # the same proofs again: superseded, never merged twice, no commit
    again = r.merge_batch([Candidate(f"{k}#2", k, "by simp") for k in OPEN[:2]], bogus_gate(),
                          run_id="R", batch_id="b2")
    assert again.commit is None and again.superseded == [f"{k}#2" for k in OPEN[:2]]
    assert r.runs_commits("R")[0]["Harness-Batch"] == "b1"


def test_one_culprit_found_by_blame_in_two_calls(tmp_path) -> None:
    r = record_with(tmp_path)
    calls: list = []
    out = r.merge_batch(cands(OPEN[:8], bad={OPEN[5]}), bogus_gate(calls), run_id="R",
                        batch_id="b1")
    assert list(out.rejected) == [f"{OPEN[5]}#1"] and len(out.merged) == 7
    assert out.gate_calls == 2 == len(calls)
    assert "unknown identifier" in out.rejected[f"{OPEN[5]}#1"][0]


def test_interaction_culprit_found_by_halving(tmp_path) -> None:
    r = record_with(tmp_path)
    a, b = OPEN[1], OPEN[6]
    out = r.merge_batch(cands(OPEN[:8]), pair_gate(a, b), run_id="R", batch_id="b1")
    assert len(out.rejected) == 1 and len(out.merged) == 7
    assert set(out.rejected) <= {f"{a}#1", f"{b}#1"}
    assert out.gate_calls <= 7  # 1 + about 2 log2(8)
    bp = parse_text(r.head_text(), "x")
    assert not (bp.node(a).status.is_complete and bp.node(b).status.is_complete)


def test_all_culprits_nothing_committed_and_cannot_certify(tmp_path) -> None:
    r = record_with(tmp_path)
    head = r.head()
    out = r.merge_batch(cands(OPEN[:3], bad=set(OPEN[:3])), bogus_gate(), run_id="R",
                        batch_id="b1")
    assert out.commit is None and len(out.rejected) == 3 and r.head() == head
    with pytest.raises(CannotDecide):
        r.merge_batch(cands(OPEN[:2]), lambda t, b, l, **kw: GateOutcome(False, False, ["no Lean"]),
                      run_id="R", batch_id="b2")
    assert r.head() == head


def test_worktree_behind_is_restored_user_edit_refused(tmp_path) -> None:
    r = record_with(tmp_path)
    old = r.file.read_text()
    r.merge_batch(cands(OPEN[:2]), bogus_gate(), run_id="R", batch_id="b1")
    r.file.write_text(old)  # as if killed between moving the branch and writing the file
    assert "restored" in (r.sync_worktree() or "")
    assert r.file.read_text() == r.head_text()
    r.file.write_text(r.head_text() + "\n-- my edit\n")
    with pytest.raises(UsageError, match="differs from the record"):
        r.sync_worktree()


def test_commit_touches_only_the_blueprint(tmp_path) -> None:
    r = record_with(tmp_path)
    other = tmp_path / "notes.txt"
    other.write_text("staged by the user\n")
    r.repo.index.add(["notes.txt"])
    r.merge_batch(cands(OPEN[:1]), bogus_gate(), run_id="R", batch_id="b1")
    assert [d.a_path for d in r.repo.head.commit.diff("HEAD~1")] == ["B.lean"]
    assert "notes.txt" in [d.a_path for d in r.repo.index.diff("HEAD")]  # still staged


def test_git_helpers_are_out_of_our_process_group_and_replaced_when_killed(tmp_path) -> None:
    """A terminal's ^C signals our whole process group: gitpython's `cat-file` helpers are not
    in it. One killed anyway (Slurm signals every process) is replaced, never read from dead."""
    import os
    import signal

    rec = record_with(tmp_path)
    head = rec.commit_text(BP, "start\n")
    assert rec.text_at() == BP
    helpers = [c.proc for c in (rec.repo.git.cat_file_all, rec.repo.git.cat_file_header)
               if c is not None]
    assert helpers
    for proc in helpers:
        assert os.getpgid(proc.pid) == proc.pid != os.getpgid(0)  # a group of its own
        assert os.getsid(proc.pid) == os.getsid(0)  # not a session leader: procs.abort spares it
        os.kill(proc.pid, signal.SIGKILL)
        proc.wait(timeout=10)
    assert rec.head() == head
    assert rec.text_at(head) == BP and rec.text_at() == BP
    assert rec.runs_commits("no-such-run") == []
