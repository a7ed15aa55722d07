"""A project run's merge that breaks a file importing it is rolled back (fail closed): real git,
the fake Lean compiling every file from the workspace root (so an importer sees the merged
module: tests/fakes/README.md rule 18), a generated project."""

from __future__ import annotations

import json
import os
import re
from pathlib import Path

import git
import pytest
import networkx as nx

from harness.blueprint.genproject import generate_project
from harness.orchestrator import project_importers as pi
from harness.orchestrator.executor import AttemptResult
from harness.orchestrator.project_run import importers, project_work
from harness.orchestrator.project_session import ProjectSession
from harness.orchestrator.record import GateOutcome, Record
from harness.orchestrator.run import RunSettings, Services
from tests.orchestrator.support import FAKES, ROOT, fake_certifier

PROOF = "by\n  exact Iff.rfl"


def ws_gate(record: Record, ws: Path):
    """The fake Lean compiles the merged text with the workspace as its directory: imports
    resolve to the modules on disk (the branch head), as `lake env lean` sees them."""
    from harness.blueprint.parse import parse_text
    from harness.lean.toolchain import find_toolchain
    from harness.lean.verdict import check_file

    tc = find_toolchain(ws, str(FAKES / "lake"))

    class WsGate:  # like services.LockedGate: the toolchain and timeout are attributes
        def __init__(self) -> None:
            self.tc, self.timeout_s = tc, 60

        def __call__(self, text: str, base: str, labels: list[str], **kw) -> GateOutcome:
            v = check_file(tc, ws, parse_text(text, record.file), labels=labels, timeout_s=60)
            msgs = [m.line(str(record.file)) for n in v.nodes for m in n.messages if m.is_error]
            msgs += [m.line(str(record.file)) for m in v.errors_anywhere]  # as the real gate
            return GateOutcome(not msgs, True, msgs)

    return WsGate()


def module_of(ws: Path, path: str) -> str:
    return Path(path).resolve().relative_to(ws.resolve()).with_suffix("").as_posix() \
        .replace("/", ".")


def helper_name(node: str) -> str:
    return "aux_" + re.sub(r"\W", "_", node)


def setup(ws: Path):
    """A generated project; F (a file with open nodes) and G (a file importing F directly),
    G declaring in F's namespace the very names F's helper lemmas will have."""
    generate_project(ws, 8, 5, seed=3)
    (ws / "lean-toolchain").write_text("leanprover/lean4:v4.32.0\n")
    pw = project_work(ws / "Gen", ws)
    for f in pw.files:
        mine = [k for k in pw.work if pw.file_of[k] is f]
        direct = [g for g in importers(pw.project, f)
                  if f"import {module_of(ws, f.path)}\n" in g.text and g.decls]
        if mine and direct:
            break
    else:
        raise AssertionError("the generated project has no file with a direct importer")
    g = direct[0]
    ns = re.search(r"^namespace (\S+)", f.text, re.M).group(1)
    clash = "".join(f"theorem {ns}.{helper_name(k)} : True := trivial\n" for k in mine)
    Path(g.path).write_text(g.text.rstrip("\n") + "\n\n" + clash)
    return pw, f, g, set(mine)


def test_a_merge_that_breaks_an_importer_is_rolled_back_and_its_node_fails(tmp_path,
                                                                          monkeypatch):
    monkeypatch.setenv("PATH", f"{ROOT / 'tests' / 'fakes'}{os.pathsep}{os.environ['PATH']}")
    calls = tmp_path.parent / f"{tmp_path.name}-lean.log"
    monkeypatch.setenv("FAKE_LEAN_LOG", str(calls))
    pw, f, g, mine = setup(tmp_path)
    # one node comes with a helper lemma G already declares; another of F's does not rest on it
    guilty = next({u} for u in sorted(mine) for v in sorted(mine) if u != v
                  and v not in nx.descendants(pw.graph, u))

    def run(job):
        helpers = (f"theorem {helper_name(job.node)} : True := trivial\n"
                   if job.node in guilty else "")
        return AttemptResult(aid=job.aid, node=job.node, ok=True, body=PROOF, helpers=helpers,
                             role="prove", cost=0.01, tokens=100)

    def factory(session, record):
        gate = ws_gate(record, tmp_path)
        return Services(runner=run, make_gate=lambda: gate, certifier=fake_certifier(record))

    s = ProjectSession(tmp_path / "Gen", RunSettings(stage="2", batch_window=0.05,
                                                     max_attempts=2), workspace=tmp_path)
    res = s.run(factory)
    assert res.exit_code == 1, res.stop_reason
    # the guilty nodes failed, with the reason; every node not resting on them was proved,
    # F's other nodes too (rolled back with a guilty one, they waited for the gate uncharged)
    waiting = guilty.union(*(nx.descendants(pw.graph, n) for n in guilty))
    for n in guilty:
        assert res.nodes[n].status != "proved"
    # the record says why (result.json): a node that failed for its importer
    assert any(res.nodes[n].status == "blocked" and "rolled back" in res.nodes[n].reason
               and "broke the files importing it" in res.nodes[n].reason for n in guilty), \
        {n: res.nodes[n] for n in guilty}
    proved = {k for k, n in res.nodes.items() if n.status == "proved"}
    assert set(pw.work) - waiting and set(pw.work) - waiting <= proved
    assert mine - waiting and mine - waiting <= proved
    log = [json.loads(x) for x in (s.dir / "events.jsonl").read_text().splitlines()]
    assert not any("rolled back" in "; ".join(why) for e in log if e["kind"] == "gate"
                   for a, why in (e.get("rejected") or {}).items()
                   if a.rsplit("#", 1)[0] not in guilty)
    rolled = [e for e in log if e["kind"] == "importers" and e.get("rolled_back")]
    assert rolled
    g_rel = Path(g.path).relative_to(tmp_path).as_posix()
    assert all(g_rel in e["broken"] and not e["broken_without_merge"] for e in rolled)
    assert any("has already been declared" in m for e in rolled for m in e["broken"][g_rel])
    fails = [e for e in log if e["kind"] == "attempt_failed" or (
        e["kind"] == "gate" and e.get("rejected"))]
    assert any("rolled back" in json.dumps(e) and "broke the files importing it"
               in json.dumps(e) for e in fails)
    # the record: no rolled-back commit on the branch; the reflog keeps it for a person
    repo = git.Repo(tmp_path)
    on_branch = {c.hexsha for c in repo.iter_commits()}
    assert all(e["rolled_back"] not in on_branch for e in rolled)
    assert all(helper_name(n) not in Path(f.path).read_text() for n in mine)
    assert not any(helper_name(n) in (c.tree / Path(f.path).relative_to(tmp_path).as_posix())
                   .data_stream.read().decode() for c in repo.iter_commits() for n in mine)
    reflog = repo.git.reflog("show", repo.active_branch.name)
    assert "harness: roll back" in reflog
    assert not repo.is_dirty() and not (s.dir / pi.PENDING).exists()
    # the merged module was built before its importers compiled (they read its `.olean`), and
    # again after the roll-back; every module before the final certification
    builds = [c[2:] for c in map(json.loads, calls.read_text().splitlines())
              if c[:2] == ["lake", "build"]]
    f_mod = module_of(tmp_path, f.path)
    assert builds.count([f_mod]) >= 1 + 2 * len(rolled)
    assert {module_of(tmp_path, b.path) for b in pw.files} <= {b[0] for b in builds}
    # and every file of the record compiles at the head, the importer included
    for b in (f, g):
        rec = Record(tmp_path, Path(b.path))
        text = rec.head_text()
        assert ws_gate(rec, tmp_path)(text, text, []).passed


def test_a_merge_killed_before_its_importers_were_judged_is_undone_on_resume(tmp_path):
    (tmp_path / "A.lean").write_text("theorem a : True := sorry\n")
    rec = Record(tmp_path, tmp_path / "A.lean")
    base = rec.commit_text("theorem a : True := sorry\n", "start\n")
    marker = tmp_path / pi.PENDING
    # killed before the commit: nothing to undo, the marker goes
    pi.mark(marker, "A.lean", base, "b000007")
    assert pi.undo_pending(marker, tmp_path) is None and not marker.exists()
    # killed between the commit and the importers' compile: the commit is undone
    pi.mark(marker, "A.lean", base, "b000007")
    merged = rec.commit_text("theorem h : True := trivial\ntheorem a : True := h\n",
                             "prove a\n\nHarness-Batch: b000007\nHarness-File: A.lean\n")
    note = pi.undo_pending(marker, tmp_path)
    assert note and "rolled back" in note and not marker.exists()
    repo = git.Repo(tmp_path)
    assert repo.head.commit.hexsha == base
    assert (tmp_path / "A.lean").read_text() == "theorem a : True := sorry\n"
    assert not repo.is_dirty() and f"roll back {merged[:10]}" in repo.git.reflog()
    # the roll-back itself fails (a stale ref lock from the kill): the marker stays, and the
    # next resume undoes the commit
    pi.mark(marker, "A.lean", base, "b000008")
    again = rec.commit_text("theorem a : True := trivial\n",
                            "prove a\n\nHarness-Batch: b000008\nHarness-File: A.lean\n")
    lock = tmp_path / ".git" / "refs" / "heads" / f"{repo.active_branch.name}.lock"
    lock.write_text("")
    with pytest.raises(git.GitCommandError):
        pi.undo_pending(marker, tmp_path)
    assert marker.exists() and repo.head.commit.hexsha == again
    lock.unlink()
    assert "rolled back" in (pi.undo_pending(marker, tmp_path) or "")
    assert repo.head.commit.hexsha == base and not marker.exists()
    # a head that is not that batch's commit (someone else's): left alone
    other = rec.commit_text("theorem a : True := trivial\n", "someone\n")
    pi.mark(marker, "A.lean", base, "b000007")
    assert pi.undo_pending(marker, tmp_path) is None
    assert repo.head.commit.hexsha == other


def real_gate_lines(gate):
    """The real gate's message shape (`FILE:L:C: [lean] …`, harness.gate.verify), which the
    breakage classification reads (stage2.outside_batch)."""
    def g(text, base, labels, **kw):
        out = gate(text, base, labels, **kw)
        return GateOutcome(out.passed, out.certified,
                           [re.sub(r": (error|warning): ", ": [lean] ", m) for m in out.messages])

    return g


BROKEN = "theorem broken_stmt : fake_elab_mismatch := trivial\n"


def breakage_run(tmp_path, monkeypatch, fixed: str, g_extra: str = ""):
    """F broken outside any batch (a statement Lean rejects, not a node); F's repair step
    (a stand-in for breakage.make_record_repair: it restates the statement as ``fixed``)."""
    monkeypatch.setenv("PATH", f"{ROOT / 'tests' / 'fakes'}{os.pathsep}{os.environ['PATH']}")
    pw, f, g, mine = setup(tmp_path)
    Path(f.path).write_text(Path(f.path).read_text() + "\n" + BROKEN)
    Path(g.path).write_text(Path(g.path).read_text() + g_extra)
    f_rel = Path(f.path).relative_to(tmp_path).as_posix()
    calls: list[tuple[str, list[str]]] = []

    def factory(session, record):
        gate = real_gate_lines(ws_gate(record, tmp_path))

        def repair(messages):
            calls.append((record.rel, messages))
            if BROKEN not in record.head_text():  # as breakage.py: Lean still rejects the file
                return False, "Lean still rejects its statements after 1 restate round"
            record.commit_text(record.head_text().replace(BROKEN, fixed), "restate\n")
            return True, "restated broken_stmt (audited)"

        return Services(runner=lambda job: AttemptResult(
            aid=job.aid, node=job.node, ok=True, body=PROOF, role="prove", cost=0.01,
            tokens=100), make_gate=lambda: gate, certifier=fake_certifier(record),
            repair_record=repair)

    s = ProjectSession(tmp_path / "Gen", RunSettings(stage="2", batch_window=0.05),
                       workspace=tmp_path)
    res = s.run(factory)
    log = [json.loads(x) for x in (s.dir / "events.jsonl").read_text().splitlines()]
    return pw, f, g, mine, f_rel, calls, res, log


def test_a_file_broken_outside_any_batch_goes_to_its_repair_step(tmp_path, monkeypatch):
    pw, f, g, mine, f_rel, calls, res, log = breakage_run(
        tmp_path, monkeypatch, "theorem broken_stmt : True := trivial\n")
    assert res.exit_code == 0, res.stop_reason
    assert set(pw.work) <= {k for k, n in res.nodes.items() if n.status == "proved"}
    # F's own repair step, with F's own diagnostics, once
    assert len(calls) == 1 and calls[0][0] == f_rel
    assert any("broken_stmt" in m or "Application type mismatch" in m for m in calls[0][1])
    brk = [e for e in log if e["kind"] == "breakage"]
    assert len(brk) == 1 and brk[0]["repaired"] and brk[0]["files"] == [f_rel]
    # not the candidates' fault: none of F's was rejected for it
    assert not any(e["kind"] == "gate" and any(a.split("#")[0] in mine for a in e["rejected"])
                   for e in log)
    assert "fake_elab_mismatch" not in Path(f.path).read_text()


def test_a_repair_that_breaks_an_importer_is_rolled_back_and_stops_the_run(tmp_path,
                                                                          monkeypatch):
    # the restated F declares `clash_r`, which G (importing F) declares too
    pw, f, g, mine, f_rel, calls, res, log = breakage_run(
        tmp_path, monkeypatch, "theorem clash_r : True := trivial\n",
        g_extra="theorem _root_.clash_r : True := trivial\n")
    # G fails after F's repair: G's own repair step runs next (a Mathlib bump may have broken
    # it on its own); it cannot undo the clash, so both are rolled back
    g_rel = Path(g.path).relative_to(tmp_path).as_posix()
    assert [c[0] for c in calls] == [f_rel, g_rel] and res.exit_code == 1
    assert "not repaired" in res.stop_reason and "(the repair was rolled back)" in \
        res.stop_reason and "a file importing it still fails and was not repaired" in res.stop_reason
    brk = [e for e in log if e["kind"] == "breakage"]
    assert len(brk) == 1 and not brk[0]["repaired"]
    # the record: F as before the repair (still broken: a person decides), G compiles
    rec = Record(tmp_path, Path(f.path))
    assert BROKEN in rec.head_text() and "clash_r" not in Path(f.path).read_text()
    assert "clash_r" not in "".join(
        (c.tree / f_rel).data_stream.read().decode() for c in git.Repo(tmp_path).iter_commits())
    g_rec = Record(tmp_path, Path(g.path))
    assert ws_gate(g_rec, tmp_path)(g_rec.head_text(), g_rec.head_text(), []).passed
    assert not git.Repo(tmp_path).is_dirty()


def test_a_resumed_run_undoes_a_merge_whose_importers_were_never_compiled(tmp_path,
                                                                          monkeypatch):
    """Killed between a merge's commit and its importers' compile: the run started again rolls
    the commit back before anything else (its note says so), then proves the project."""
    from harness.orchestrator.state import run_dir

    monkeypatch.setenv("PATH", f"{ROOT / 'tests' / 'fakes'}{os.pathsep}{os.environ['PATH']}")
    pw, f, g, mine = setup(tmp_path)
    repo = git.Repo.init(tmp_path, initial_branch="main")
    repo.git.add(A=True)
    repo.git.commit("-m", "start", "--author", "t <t@t>", env={
        **os.environ, "GIT_COMMITTER_NAME": "t", "GIT_COMMITTER_EMAIL": "t@t"})
    base = repo.head.commit.hexsha
    rec = Record(tmp_path, Path(f.path))
    target = tmp_path / "Gen"
    run_id = run_dir(tmp_path, target).name
    clash = f"theorem {helper_name(sorted(mine)[0])} : True := trivial\n"
    text = rec.head_text()
    at = text.index("@[blueprint")
    bad = rec.commit_text(text[:at] + clash + "\n" + text[at:],
                          "harness: batch b000042\n\nHarness-Run: " + run_id + "\nHarness-Batch: "
                          "b000042\nHarness-File: " + rec.rel + "\n")
    pi.mark(run_dir(tmp_path, target) / pi.PENDING, rec.rel, base, "b000042")

    def factory(session, record):
        gate = ws_gate(record, tmp_path)
        return Services(runner=lambda job: AttemptResult(
            aid=job.aid, node=job.node, ok=True, body=PROOF, role="prove", cost=0.01,
            tokens=100), make_gate=lambda: gate, certifier=fake_certifier(record))

    s = ProjectSession(target, RunSettings(stage="2", batch_window=0.05), workspace=tmp_path)
    res = s.run(factory)
    assert any(n.startswith(f"rolled back {bad[:10]}") for n in res.notes), res.notes
    assert res.exit_code == 0, res.stop_reason
    assert bad not in {c.hexsha for c in repo.iter_commits()}
    assert clash not in Path(f.path).read_text()
    assert not (run_dir(tmp_path, target) / pi.PENDING).exists()
