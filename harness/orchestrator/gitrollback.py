"""Moving a file's branch back over our own commits: a compare-and-swap `git update-ref` (git
refuses when the branch moved meanwhile), then the working file and its index entry equal to
the commit gone back to (project_importers.py, project_repairs.py)."""

from __future__ import annotations

from pathlib import Path

import git

from harness.orchestrator.record import GIT_TIMEOUT_S, Record
from harness.orchestrator.state import atomic_write


def move_back(repo: git.Repo, rel: str, commit: str, parent: str, why: str) -> None:
    """The branch from ``commit`` back to ``parent`` (git refuses if it moved meanwhile), then
    the working file and its index entry equal to the parent's."""
    ref = repo.active_branch.path  # refs/heads/<branch>
    repo.git.update_ref("-m", f"harness: roll back {commit[:10]}: {why}"[:200], ref, parent,
                        commit, kill_after_timeout=GIT_TIMEOUT_S)
    data = (repo.commit(parent).tree / rel).data_stream.read()
    atomic_write(Path(repo.working_tree_dir or ".") / rel, data)
    repo.index.add([rel])


def roll_back(record: Record, commit: str, why: str) -> str:
    """Undo our own ``commit`` (the branch head): returns the head it went back to."""
    with record._lock:  # the record's git access is serialised (gitrepo.serialised)
        parent = record.repo.commit(commit).parents[0].hexsha
        move_back(record.repo, record.rel, commit, parent, why)
    return parent


def reset_to(record: Record, before: str, why: str) -> None:
    """Undo every commit after ``before`` (the repair step's rounds on ``record``'s file)."""
    with record._lock:
        head = record.repo.head.commit.hexsha
        if head != before:
            move_back(record.repo, record.rel, head, before, why)
