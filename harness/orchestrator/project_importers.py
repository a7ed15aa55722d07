"""A project run's merges and the files importing them: fail closed.

A merge into F that adds declarations (helper lemmas) or splits a node can break a file that
imports F (a helper named as one of its declarations: Lean's "already declared"). The gate of F
cannot see that, so after the commit the importers are compiled; when one fails, the commit is
rolled back with git (the branch moved back by a compare-and-swap `git update-ref`, the
working file restored) and the merged candidates come back rejected with the reason. The
commit stays in the reflog for a person to look at, never on the branch.

Kill-safe: before such a merge a marker (``importers-pending.json`` in the run's directory)
names the file, the head before and the batch; it is removed once the importers were judged.
A run resumed with the marker still there rolls back that batch's commit if it is the head —
a merge whose importers were never checked does not stay in the record (its accepted
candidates go back to the gate from the log).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import git

from harness.orchestrator.gitrepo import Repo
from harness.orchestrator.record import GIT_TIMEOUT_S, TRAILER, Candidate, Record
from harness.orchestrator.state import atomic_write

PENDING = "importers-pending.json"


def needs_check(cands: list[Candidate]) -> bool:
    """More than proof bodies: a repair split or helper lemmas (new declarations). A proof body
    alone cannot break an importer (Lean does not re-check an importer's uses of a proof)."""
    return any(c.role == "repair" or c.helpers.strip() for c in cands)


def mark(path: Path | None, rel: str, parent: str | None, batch: str) -> None:
    if path is not None:
        atomic_write(path, json.dumps({"file": rel, "parent": parent, "batch": batch}) + "\n")


def clear(path: Path | None) -> None:
    if path is not None:
        path.unlink(missing_ok=True)


def _move_back(repo: git.Repo, rel: str, commit: str, parent: str, why: str) -> None:
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
        _move_back(record.repo, record.rel, commit, parent, why)
    return parent


def undo_pending(path: Path, workspace: Path) -> str | None:
    """On resume: a merge killed before its importers were judged is rolled back (if its commit
    is the head). Returns a note for the run's notes, or None when there was nothing to undo."""
    if not path.is_file():
        return None
    try:
        data: dict[str, Any] = json.loads(path.read_text(encoding="utf-8"))
        rel, parent, batch = data["file"], data["parent"], data["batch"]
    except (OSError, ValueError, KeyError, TypeError):
        clear(path)  # a torn marker: written before any commit (atomic write), nothing to undo
        return None
    repo = Repo(workspace)
    try:
        head = repo.head.commit
        tr = dict(TRAILER.findall(head.message))
        ours = (parent is not None and head.parents and head.parents[0].hexsha == parent
                and tr.get("Harness-Batch") == batch and tr.get("Harness-File") == rel)
        if not ours:
            return None
        _move_back(repo, rel, head.hexsha, parent, "its importers were never checked")
        return (f"rolled back {head.hexsha[:10]} (batch {batch} into {rel}): the run stopped "
                "before the files importing it were compiled; its proofs go back to the gate")
    finally:
        repo.close()
        clear(path)
