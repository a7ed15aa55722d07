"""A finished session leaves no git helper process behind (gitpython's `cat-file --batch`
pair), without waiting for the garbage collector: real git, the fake Lean."""

from __future__ import annotations

import os
from pathlib import Path

from harness.orchestrator.record import Record
from harness.orchestrator.run import Session
from harness.orchestrator.runmodels import RunSettings, Services
from tests.orchestrator.support import (fake_certifier, lean_gate, scripted_runner,
                                        workspace)
from tests.orchestrator.test_feedback import ONE


def _git_children(under: Path | None = None) -> list[str]:
    """This process's live `git cat-file` children (in ``under``: their working directory)."""
    me, out = str(os.getpid()), []
    for d in Path("/proc").iterdir():
        try:
            stat = (d / "stat").read_text()
            cmd = (d / "cmdline").read_bytes().replace(b"\0", b" ").decode()
        except (OSError, ValueError):
            continue
        fields = stat.rsplit(")", 1)[-1].split()
        if d.name.isdigit() and len(fields) > 2 and fields[1] == me and fields[0] != "Z" \
                and "cat-file" in cmd:
            cwd = os.readlink(d / "cwd")
            if under is None or Path(cwd).is_relative_to(under):
                out.append(f"{cmd} @{cwd}")
    return out


def test_a_finished_session_ends_its_git_helpers(tmp_path) -> None:
    f = workspace(tmp_path, ONE)
    held: list[Record] = []  # as a caller's services may hold it after the run

    def factory(session: Session, record: Record) -> Services:
        held.append(record)
        return Services(runner=scripted_runner(lambda job: "by\n  omega"),
                        make_gate=lambda: lean_gate(record), certifier=fake_certifier(record))

    res = Session(f, RunSettings(stage="2", batch_window=0.05)).run(factory)
    assert res.counts["proved"] == 1 and held
    assert _git_children(tmp_path) == []


def test_a_closed_record_reads_again(tmp_path) -> None:
    f = workspace(tmp_path, ONE)
    rec = Record(f.parent.parent, f)
    rec.ensure_committed("start\n")
    text = rec.text_at()
    assert _git_children(tmp_path)  # the read started the helpers
    rec.close()
    assert _git_children(tmp_path) == []
    assert rec.text_at() == text
    rec.close()


def test_a_project_runs_records_share_one_repository_and_close_it(tmp_path, monkeypatch):
    """A project run holds one record per file: they share one gitpython repository (two
    `cat-file` helpers, not two per file), and the run ends them."""
    from tests.orchestrator.support import ROOT
    from tests.orchestrator.test_project_session import project, run_project

    monkeypatch.setenv("PATH", f"{ROOT / 'tests' / 'fakes'}{os.pathsep}{os.environ['PATH']}")
    target = project(tmp_path)
    s, res = run_project(target, workers=2)
    assert res.exit_code == 0, res.stop_reason
    recs = [rec for _, rec in s._subs]
    assert len(recs) == 10 and len({id(r.repo) for r in recs}) == 1
    assert len({id(r._lock) for r in recs}) == 1
    assert _git_children(tmp_path) == []
