"""repairjournal.undo on its own (real git): which modules a resumed run builds again after an
interrupted repair round. A kill can land inside the round's own undo of a failed repair —
after the branch was reset, before the module was built again from the restored text — so the
branch is back at the journal's head (no commit to diff) while the module on disk may still be
built from the repaired text: the file is named by the round's events and built again."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import git

from harness.orchestrator import repairjournal as rj
from harness.orchestrator.events import voided
from harness.orchestrator.project_importers import PENDING
from harness.orchestrator.project_session import ProjectSession
from harness.orchestrator.run import RunSettings, Services
from tests.orchestrator.repair_support import (events, fake_path, locked_gate, restating,
                                               run_locked)
from tests.orchestrator.support import fake_certifier
from tests.orchestrator.test_project_rollback import node, project, proving


class Log:
    def __init__(self, events: list[dict[str, Any]]) -> None:
        self.events = events

    def append(self, kind: str, **data: Any) -> dict[str, Any]:
        ev = {"seq": len(self.events) + 1, "kind": kind, **data}
        self.events.append(ev)
        return ev


def repo_with(ws: Path) -> git.Repo:
    repo = git.Repo.init(ws)
    (ws / "Gen").mkdir()
    (ws / "Gen" / "A.lean").write_text("theorem a : True := trivial\n")
    (ws / "Gen" / "B.lean").write_text("theorem b : True := trivial\n")
    repo.index.add(["Gen/A.lean", "Gen/B.lean"])
    repo.index.commit("start")
    return repo


def test_a_repair_undone_by_the_round_before_the_kill_is_built_again(tmp_path):
    repo = repo_with(tmp_path)
    head = repo.head.commit.hexsha
    lock = tmp_path / "runs" / "A" / "statements.lock.json"
    lock.parent.mkdir(parents=True)
    lock.write_text("after the round\n")
    journal = tmp_path / "runs" / rj.JOURNAL
    rj.begin(journal, head, 2, {str(lock): "before the round\n"})
    # the round: A's repair committed and was reset by the round itself (the branch is back
    # at the journal's head); the kill came before A's module was built again
    log = Log([{"seq": 1, "kind": "stage"}, {"seq": 2, "kind": "note"},
               {"seq": 3, "kind": "restate", "file": "Gen/A.lean"},
               {"seq": 4, "kind": "restated", "file": "Gen/A.lean", "commit": "0" * 40},
               {"seq": 5, "kind": "audit", "file": "Gen/A.lean", "changed": ["a"]}])
    assert rj.undo(journal, repo, log, "run-1") == ["Gen/A.lean"]
    assert rj.read(journal)["rebuild"] == ["Gen/A.lean"]  # what the resumed run builds
    assert lock.read_text() == "before the round\n"
    assert {3, 4, 5} <= voided(log.events)
    assert repo.head.commit.hexsha == head


def test_only_the_rounds_own_events_name_files_to_build_again(tmp_path):
    repo = repo_with(tmp_path)
    journal = tmp_path / rj.JOURNAL
    rj.begin(journal, repo.head.commit.hexsha, 2, {})
    log = Log([{"seq": 1, "kind": "stage"},
               {"seq": 2, "kind": "restated", "file": "Gen/A.lean"},  # an earlier round's
               {"seq": 3, "kind": "restate", "file": "Gen/B.lean"},
               {"seq": 4, "kind": "note", "file": "Gen/A.lean"}])
    assert rj.undo(journal, repo, log, "run-1") == ["Gen/B.lean"]


def test_a_resumed_run_undoes_an_interrupted_round_before_any_files_stage_1(tmp_path,
                                                                             monkeypatch):
    """Stage 1 of a file (one added to the project since) commits on the branch: the round's
    undo comes first, or it would find a commit not of this run and refuse (exit 2)."""
    monkeypatch.setenv("PATH", fake_path())
    project(tmp_path, node("lem:a1", "a1"), node("lem:b1", "b1"))
    s, res, log = run_locked(tmp_path, restating({}, {}, []))
    assert res.exit_code == 0, res.stop_reason
    # a repair round of this run cut short (kill -9) at the head it started from
    rj.begin(s.dir / rj.JOURNAL, git.Repo(tmp_path).head.commit.hexsha, log[-1]["seq"], {})
    # and a merge's importer marker (one naming no commit of the branch: only cleared)
    (s.dir / PENDING).write_text('{"file": "Gen/A.lean", "parent": null, "batch": "b0"}\n')
    seen: list[tuple[bool, bool]] = []

    def stage1(self, factory, preflight, log):
        seen.append((any("a repair round was interrupted" in n for n in self.notes),
                     (self.dir / PENDING).exists()))
        return None  # every file's statements are locked already

    monkeypatch.setattr(ProjectSession, "_stage1", stage1)

    def factory(session, record):
        g = locked_gate(session, record, tmp_path)
        return Services(runner=proving, make_gate=lambda: g, certifier=fake_certifier(record))

    again = ProjectSession(tmp_path / "Gen", RunSettings(stage="all", batch_window=0.05),
                           workspace=tmp_path)
    res2 = again.run(factory)
    assert seen == [(True, False)], seen
    assert res2.exit_code == 0, res2.stop_reason
    assert not (s.dir / rj.JOURNAL).exists()
    assert events(s.dir)[-1]["kind"] == "run_finished"
