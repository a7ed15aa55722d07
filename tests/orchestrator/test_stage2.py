"""Stage 2 through a real git record, the fake Lean and test attempt runners."""

from __future__ import annotations

import json
import threading

import git

from harness.blueprint.parse import parse_text
from harness.blueprint.dag import analyse
from harness.orchestrator.events import read_events
from tests.orchestrator.support import fake_certifier, run_session, scripted_runner, workspace


def test_demo_all_proved_pipelined(tmp_path) -> None:
    f = workspace(tmp_path)
    seen: list = []
    s, res = run_session(f, scripted_runner(lambda job: "by\n  omega"), events=seen, workers=4)
    assert res.exit_code == 0 and res.stop_reason == "all nodes proved"
    assert res.counts["open"] == 0 and res.counts["blocked"] == 0 and res.counts["proved"] > 5
    a = analyse(parse_text(f.read_text(), f))
    assert all(a.decl(k).status.is_complete for k in a.graph.nodes)
    repo = git.Repo(f.parent.parent)
    assert not repo.is_dirty(untracked_files=False)
    evs = read_events(s.dir / "events.jsonl").events
    merged = [n for e in evs if e["kind"] == "merged" for n in e["nodes"]]
    assert sorted(merged) == sorted(set(merged))  # no node merged twice
    assert json.loads((s.dir / "result.json").read_text())["final_commit"] == repo.head.commit.hexsha
    # dependents are dispatched only after their dependencies merged
    t = {}
    for e in evs:
        if e["kind"] == "merged":
            for n in e["nodes"]:
                t.setdefault(("m", n), e["seq"])
        if e["kind"] == "dispatch":
            t.setdefault(("d", e["node"]), e["seq"])
    g = a.graph
    for u, v in g.edges:
        if ("d", v) in t and ("m", u) in t:
            assert t[("m", u)] < t[("d", v)]


def test_poisoned_candidate_is_bisected_out(tmp_path) -> None:
    f = workspace(tmp_path)
    poisoned = "lem:add-shuffle"

    def body(job):
        return "by\n  exact bogus_lemma" if job.node == poisoned and job.attempt == 1 \
            else "by\n  omega"

    # one worker slot per leaf and a large window: the first batch holds all leaves
    s, res = run_session(f, scripted_runner(body), workers=8, batch_size=6, batch_window=5.0)
    evs = read_events(s.dir / "events.jsonl").events
    gates = [e for e in evs if e["kind"] == "gate"]
    first_bad = next(e for e in gates if e["rejected"])
    assert list(first_bad["rejected"]) == [f"{poisoned}#1"]
    assert "bogus_lemma" in " ".join(first_bad["rejected"][f"{poisoned}#1"])
    assert first_bad["merged"]  # the rest of the batch went in
    assert res.exit_code == 0  # attempt 2 proved it
    assert res.nodes[poisoned].attempts == 2


def test_budget_exhaustion_stops_with_a_result(tmp_path) -> None:
    f = workspace(tmp_path)
    s, res = run_session(f, scripted_runner(lambda job: None), workers=2, budget=0.03)
    assert res.exit_code == 1
    assert res.stop_reason.startswith("budget spent")
    assert 3 <= res.attempts <= 4  # stopped dispatching once $0.03 was spent (2 in flight)
    assert res.cost_usd >= 0.03


def test_blocked_after_repair_and_dependents_reported(tmp_path) -> None:
    f = workspace(tmp_path)
    bad = "lem:sum-to-succ"
    s, res = run_session(f, scripted_runner(lambda job: None if job.node == bad else "by omega"),
                         workers=3, attempts_before_repair=2)
    assert res.exit_code == 1
    assert res.nodes[bad].status == "blocked" and "repair" in res.nodes[bad].reason
    assert res.nodes[bad].attempts == 3  # 2 proof attempts + the repair
    a = analyse(parse_text(f.read_text(), f))
    for k in a.graph.successors(bad):
        if a.decl(k).is_node and k in res.nodes:
            assert res.nodes[k].status in ("blocked", "open")
            assert res.nodes[k].status != "proved"


def test_four_workers_no_conflicts_on_generated_blueprint(tmp_path) -> None:
    from harness.blueprint.generate import generate_blueprint

    f = workspace(tmp_path, generate_blueprint(40, seed=7), name="Gen.lean")
    active = {"now": 0, "max": 0}
    lock = threading.Lock()
    import time

    def body(job):
        with lock:
            active["now"] += 1
            active["max"] = max(active["max"], active["now"])
        time.sleep(0.02)
        with lock:
            active["now"] -= 1
        return "by\n  omega"

    s, res = run_session(f, scripted_runner(body), workers=4)
    assert res.exit_code == 0, res.stop_reason
    assert active["max"] <= 4
    evs = read_events(s.dir / "events.jsonl").events
    assert not any(e["kind"] == "gate" and e["rejected"] for e in evs)
    commits = list(git.Repo(f.parent.parent).iter_commits())
    merges = [c for c in commits if "Harness-Batch:" in c.message]
    assert len(merges) == len([e for e in evs if e["kind"] == "merged"])


def real_gate(record):
    """harness.gate.verify over the fake Lean, with a lock of the record's statements."""
    from harness.gate.lock import make_lock
    from harness.lean.toolchain import find_toolchain
    from harness.orchestrator.services import make_gate
    from tests.orchestrator.support import FAKES

    tc = find_toolchain(record.file.parent, str(FAKES / "lake"))
    return make_gate(record, make_lock(parse_text(record.head_text(), record.file)), tc, 60)


SPLIT_HELPER = '''@[blueprint "lem:sum-to-succ-part"
  (statement := /-- A part of the step. -/)
  (proof := /-- Arithmetic. -/)
  (latexEnv := "lemma")]
theorem sum_to_succ_part (n : Nat) : n + 0 = n := by
  sorry'''


def test_repair_split_goes_through_the_gate_and_dag_is_recomputed(tmp_path) -> None:
    from tests.orchestrator.support import AttemptResult

    f = workspace(tmp_path)
    target = "lem:sum-to-succ"
    seen: list[str] = []

    def runner(job):
        seen.append(f"{job.kind}:{job.node}")
        if job.kind == "repair":
            return AttemptResult(aid=job.aid, node=job.node, kind="repair", ok=True,
                                 repair="split", helpers=SPLIT_HELPER,
                                 body="by\n  sorry_using [sum_to_succ_part]")
        if job.node == target and not any(s == f"repair:{target}" for s in seen):
            return AttemptResult(aid=job.aid, node=job.node, ok=False, reason="too hard")
        return AttemptResult(aid=job.aid, node=job.node, ok=True, body="by\n  omega",
                             role="prove")

    s, res = run_session(f, runner, gate=real_gate, workers=2, attempts_before_repair=2)
    assert res.exit_code == 0, (res.stop_reason, res.nodes)
    assert res.nodes["lem:sum-to-succ-part"].status == "proved"
    evs = read_events(s.dir / "events.jsonl").events
    assert any(e["kind"] == "merged" and e.get("split") == [target] for e in evs)
    i_split = next(i for i, e in enumerate(evs) if e["kind"] == "merged" and e.get("split"))
    # the helper node is worked on after the split, and the target only after the helper merged
    later = [e for e in evs[i_split:] if e["kind"] == "dispatch"]
    assert later[0]["node"] == "lem:sum-to-succ-part"
    text = f.read_text()
    assert "theorem sum_to_succ_part" in text and text.index("sum_to_succ_part") < \
        text.index("theorem sum_to_succ ")


def test_real_gate_rejects_statement_change(tmp_path) -> None:
    f = workspace(tmp_path)

    def runner(job):
        from tests.orchestrator.support import AttemptResult

        helpers = "theorem add_shuffle_aux : True := trivial" if job.node == "lem:pow-ten" \
            else ""
        body = "by\n  omega"
        return AttemptResult(aid=job.aid, node=job.node, ok=True, body=body, helpers=helpers,
                             role="prove")

    s, res = run_session(f, runner, gate=real_gate, workers=3)
    assert res.exit_code == 0, res.stop_reason
    assert "add_shuffle_aux" in f.read_text()  # helpers directly before their node are in scope


def test_resume_keeps_blocked_nodes_blocking(tmp_path) -> None:
    f = workspace(tmp_path)
    bad = "lem:sum-to-succ"
    runner = scripted_runner(lambda job: None if job.node == bad else "by omega")
    s, res = run_session(f, runner, workers=2, attempts_before_repair=1)
    assert res.nodes[bad].status == "blocked"
    first = len(read_events(s.dir / "events.jsonl").events)
    s2, res2 = run_session(f, runner, workers=2, attempts_before_repair=1)
    later = read_events(s.dir / "events.jsonl").events[first:]
    assert not [e for e in later if e["kind"] == "dispatch"]  # nothing new can run
    assert res2.nodes[bad].status == "blocked" and res2.sessions == 2
    assert {k for k, n in res2.nodes.items() if n.status != "proved"} == \
        {k for k, n in res.nodes.items() if n.status != "proved"}


def _rewrite_log(path, keep) -> None:
    evs = read_events(path).events
    path.write_text("".join(json.dumps(e) + "\n" for e in evs if keep(e)))


def test_commit_without_log_entry_is_adopted_not_merged_again(tmp_path) -> None:
    f = workspace(tmp_path)
    runner = scripted_runner(lambda job: "by omega")
    s, res = run_session(f, runner, workers=2)
    log = s.dir / "events.jsonl"
    evs = read_events(log).events
    last = [e for e in evs if e["kind"] == "merged"][-1]
    # as if killed right after the commit: no gate / merged / finish entries for the last batch
    _rewrite_log(log, lambda e: not (e.get("batch") == last["batch"]
                                     and e["kind"] in ("gate", "merged"))
                 and e["kind"] != "run_finished")
    n_before = len(read_events(log).events)
    s2, res2 = run_session(f, runner, workers=2)
    later = read_events(log).events[n_before:]
    assert any(e["kind"] == "reconciled" and e["batch"] == last["batch"] for e in later)
    assert any("adopted from the record" in n for n in res2.notes)
    assert not [e for e in later if e["kind"] == "dispatch"]
    assert res2.exit_code == 0 and res2.final_commit == res.final_commit


def test_logged_merge_missing_from_branch_goes_back_to_the_gate(tmp_path) -> None:
    f = workspace(tmp_path)
    runner = scripted_runner(lambda job: "by omega")
    s, res = run_session(f, runner, workers=2)
    repo = git.Repo(f.parent.parent)
    last = repo.head.commit
    lost = [ln.split(":", 1)[1].strip().split(",") for ln in last.message.splitlines()
            if ln.startswith("Harness-Nodes:")][0]
    repo.git.reset("--hard", "HEAD~1")  # someone rewound the branch
    s2, res2 = run_session(f, runner, workers=2)
    assert any("not on the branch" in n for n in res2.notes)
    assert res2.exit_code == 0
    evs = read_events(s.dir / "events.jsonl").events
    i = next(i for i, e in enumerate(evs) if e["kind"] == "unmerged")
    assert not [e for e in evs[i:] if e["kind"] == "dispatch"]  # the logged proofs are reused
    remerged = {n for e in evs[i:] if e["kind"] == "merged" for n in e["nodes"]}
    assert remerged == set(lost)
    merged = [n for c in repo.iter_commits() for ln in c.message.splitlines()
              if ln.startswith("Harness-Nodes:") for n in ln.split(":", 1)[1].strip().split(",")]
    assert len(merged) == len(set(merged))


class JsonWireExecutor:
    """An executor that ships every job and result as JSON (what a Ray/Slurm executor does),
    running them on its own threads: the seam needs nothing but the serialisable models."""

    def __init__(self, runner, workers: int) -> None:
        from harness.orchestrator.executor import LocalExecutor

        self.wire: list[str] = []

        def remote(job):
            from harness.orchestrator.executor import AttemptJob, AttemptResult

            payload = job.model_dump_json()
            self.wire.append(payload)
            res = runner(AttemptJob.model_validate_json(payload))
            return AttemptResult.model_validate_json(res.model_dump_json())

        self.inner = LocalExecutor(remote, workers)

    def submit(self, job):
        self.inner.submit(job)

    def poll(self, timeout):
        return self.inner.poll(timeout)

    def running(self):
        return self.inner.running()

    def shutdown(self):
        self.inner.shutdown()


def test_executor_seam_with_serialised_jobs(tmp_path) -> None:
    from harness.orchestrator.run import Session
    from harness.orchestrator.runmodels import RunSettings, Services
    from tests.orchestrator.support import lean_gate

    f = workspace(tmp_path)
    made: list[JsonWireExecutor] = []

    def make(runner, workers):
        made.append(JsonWireExecutor(runner, workers))
        return made[-1]

    s = Session(f, RunSettings(stage="2", workers=3, batch_window=0.05))
    res = s.run(lambda sess, rec: Services(runner=scripted_runner(lambda j: "by omega"),
                                           make_gate=lambda: lean_gate(rec),
                                           make_executor=make, certifier=fake_certifier(rec)))
    assert res.exit_code == 0
    jobs = [json.loads(w) for w in made[0].wire]
    assert len(jobs) == res.attempts and all(j["text"] and j["commit"] for j in jobs)


def test_candidate_that_crashes_lean_is_bisected_out(tmp_path) -> None:
    f = workspace(tmp_path)
    crash = "lem:pow-ten"

    def body(job):
        return "by\n  fake_crash" if job.node == crash and job.attempt == 1 else "by\n  omega"

    s, res = run_session(f, scripted_runner(body), gate=real_gate, workers=8, batch_size=8,
                         batch_window=5.0)
    assert res.exit_code == 0, res.stop_reason
    assert res.nodes[crash].attempts == 2
    evs = read_events(s.dir / "events.jsonl").events
    bad = [e for e in evs if e["kind"] == "gate" and e["rejected"]]
    assert len(bad) == 1 and list(bad[0]["rejected"]) == [f"{crash}#1"]
    assert "could not certify" in bad[0]["rejected"][f"{crash}#1"][0]
    assert not any(e["kind"] == "gate" and not e["certified"] for e in evs)


def test_gate_that_never_certifies_stops_with_exit_3(tmp_path) -> None:
    from harness.orchestrator.batchmerge import GateOutcome

    f = workspace(tmp_path)
    calls = []

    def dead_gate(record):
        def gate(text, base, labels, **kw):
            calls.append(labels)
            return GateOutcome(False, False, ["lake env lean: timed out after 300s"])
        return gate

    s, res = run_session(f, scripted_runner(lambda j: "by omega"), gate=dead_gate, workers=8,
                         batch_size=8, batch_window=5.0)
    assert res.exit_code == 3 and "cannot certify" in res.stop_reason
    assert calls[1] == []  # the batch, then a probe of the record's own text: stop
    repo = git.Repo(f.parent.parent)
    assert not [c for c in repo.iter_commits() if "Harness-Batch" in c.message]
    s2, res2 = run_session(f, scripted_runner(lambda j: "by omega"), workers=8)
    assert res2.exit_code == 0  # the accepted proofs were kept and merged on resume
    evs = read_events(s.dir / "events.jsonl").events
    assert sum(1 for e in evs if e["kind"] == "dispatch") == res2.attempts
