"""A project run's repair round, kill-safe: a journal written before the round starts and
removed only once the round's outcome is in the run's record (project_importers._repair_files).

The round commits restatements on the shared branch, relocks files and pins the repaired
modules' digests in other files' locks, then compiles the importers; the record says
"repaired" only with the `breakage` event logged after the round. In between (a ^C, SIGTERM, an
exception while the importers compile, a kill -9) disk and record would disagree: the branch
repaired, the record not. So the journal (`repair-pending.json`, atomic) holds the head before
the round, the log's `seq` then, and the text of every file's lock file:

- an exception or a signal inside the round: the round is undone at once (:func:`undo`: the
  branch moved back by a compare-and-swap `git update-ref` over this run's own commits, every
  changed working file and index entry restored, the lock files rewritten, the round's events
  `voided`); the journal stays, naming the files whose modules must be built again;
- a resumed run finding it: a `breakage` event after its `seq` means the round was recorded
  (only the journal goes); otherwise the round is undone as above (a kill -9), then the
  modules of the files it changed are built again and the journal goes.

Both sides then say "not repaired"; the resumed run finds the file broken again and repairs it.
A branch that moved meanwhile by a commit not of this run is never touched (exit 2).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import git

from harness.errors import UsageError
from harness.orchestrator.events import VOIDABLE, voided
from harness.orchestrator.record import GIT_TIMEOUT_S, TRAILER
from harness.orchestrator.state import atomic_write

JOURNAL = "repair-pending.json"


def begin(path: Path | None, head: str | None, seq: int, locks: dict[str, str]) -> None:
    """Before the round: ``locks`` maps each lock file (absolute) to its text now."""
    if path is not None:
        atomic_write(path, json.dumps({"head": head, "seq": seq, "locks": locks}) + "\n")


def clear(path: Path | None) -> None:
    if path is not None:
        path.unlink(missing_ok=True)


def read(path: Path) -> dict[str, Any] | None:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        return None
    except (OSError, ValueError):
        return {}  # torn: impossible with atomic writes; an unreadable journal is still one
    return data if isinstance(data, dict) else {}


def recorded(data: dict[str, Any], events: list[dict[str, Any]]) -> bool:
    """The round's outcome reached the run's record (its `breakage` event)."""
    seq = int(data.get("seq", 0))
    return any(e.get("kind") == "breakage" and e.get("seq", 0) > seq for e in events)


def undo(path: Path, repo: git.Repo, log: Any, run_id: str) -> list[str] | None:
    """Undo an unrecorded round (idempotent: a kill during it is undone again); returns the
    files whose modules must be built again (also kept in the journal), None when there was no
    round to undo (no journal, or the round was recorded: the journal is removed)."""
    data = read(path)
    if data is None:
        return None
    if recorded(data, log.events):
        clear(path)
        return None
    before = data.get("head")
    if not isinstance(before, str):
        raise UsageError(f"{path}: an interrupted repair round's journal is unreadable; "
                         "restore the branch to the head before the round, then remove it")
    changed = _move_back(repo, before, run_id, path)
    for p, text in (data.get("locks") or {}).items():
        if Path(p).parent.is_dir():
            atomic_write(Path(p), text)
    seq = int(data.get("seq", 0))
    # a repair the round already undid itself (a kill after its branch reset, before its
    # module was built again) left no commit to diff, but its module may be built from the
    # repaired text: every file the round's events name is built again too
    touched = {e["file"] for e in log.events if e.get("seq", 0) > seq
               and e.get("kind") in VOIDABLE and isinstance(e.get("file"), str)}
    _void(log, seq)
    files = sorted(set(data.get("rebuild") or ()) | set(changed) | touched)
    if files != data.get("rebuild"):
        atomic_write(path, json.dumps({**data, "rebuild": files}) + "\n")
    return files


def _move_back(repo: git.Repo, before: str, run_id: str, path: Path) -> list[str]:
    """The branch from its head back to ``before`` when every commit in between is this run's
    (compare-and-swap), then every file they changed as it was; the files."""
    head = repo.head.commit.hexsha
    if head == before:
        return []
    ours = [c for c in repo.iter_commits(f"{before}..{head}")]
    foreign = [c.hexsha[:10] for c in ours
               if dict(TRAILER.findall(c.message)).get("Harness-Run") != run_id]
    if foreign or not repo.is_ancestor(before, head):
        raise UsageError(f"{path}: a repair round of this run was interrupted, and the branch "
                         f"has moved since ({', '.join(foreign) or 'history rewritten'}); move "
                         f"it back to {before[:10]} or remove this file, then resume")
    rels = [r for r in repo.git.diff("--name-only", before, head,
                                     kill_after_timeout=GIT_TIMEOUT_S).splitlines() if r]
    repo.git.update_ref("-m", f"harness: undo an interrupted repair round (to {before[:10]})",
                        repo.active_branch.path, before, head,
                        kill_after_timeout=GIT_TIMEOUT_S)
    root = Path(repo.working_tree_dir or ".")
    tree = repo.commit(before).tree
    for rel in rels:
        try:
            atomic_write(root / rel, (tree / rel).data_stream.read())
            repo.index.add([rel])
        except KeyError:  # a file the round added
            (root / rel).unlink(missing_ok=True)
            repo.index.remove([rel])
    return rels


def _void(log: Any, seq0: int) -> None:
    """The round's events (restate rounds, changed statements, audits) no longer count."""
    gone = voided(log.events)
    by_file: dict[str, list[int]] = {}
    for e in log.events:
        if e.get("seq", 0) > seq0 and e["kind"] in VOIDABLE and e["seq"] not in gone:
            by_file.setdefault(e.get("file") or "", []).append(e["seq"])
    for rel, seqs in by_file.items():
        log.append("voided", file=rel or None, seqs=seqs,
                   reason="the repair round was interrupted before its outcome was recorded")
