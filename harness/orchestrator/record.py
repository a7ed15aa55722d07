"""The record: the blueprint file on a git branch (gitpython).

Attempts never touch it. :meth:`Record.merge_batch` applies a batch of accepted candidates to the
*current* head text, has the gate check the *merged* text (bisecting a failing batch:
:mod:`harness.orchestrator.batchmerge`), and only then moves the branch — one commit per batch
with a structured message (trailers).

Commit order (kill -9 safe): objects -> branch ref (atomic) -> working file (atomic rename) ->
index entry. The branch is the truth; :meth:`Record.sync_worktree` repairs a working file left
one step behind and refuses a file someone else edited.
"""

from __future__ import annotations

import re
import threading
import time
from io import BytesIO
from pathlib import Path
from typing import Iterable, Iterator

import git
from git import Actor, Commit, IndexFile
from git.index.typ import BaseIndexEntry, IndexEntry
from git.db import GitCmdObjectDB
from gitdb import IStream, LooseObjectDB

from harness.blueprint.model import Blueprint, BodyStatus
from harness.blueprint.parse import parse_text
from harness.blueprint.source import decode
from harness.errors import UsageError
# GateOutcome: re-exported, it is imported from here in many places (and by code being moved)
from harness.orchestrator.batchmerge import (Candidate, Gate, GateOutcome,  # noqa: F401
                                             IndexCache, MergeOutcome, bisect, commit_message)
from harness.orchestrator.gitrepo import Repo
from harness.orchestrator.gitrepo import serialised as _git
from harness.orchestrator.gitrepo import serialised_read as _git_read
from harness.orchestrator.state import atomic_write

AUTHOR = Actor("harness", "harness@localhost")
GIT_TIMEOUT_S = 60  # `git init`, the only git subprocess started per run (reads use cat-file)
TRAILER = re.compile(r"^(Harness-[A-Za-z]+):\s*(.*)$", re.M)


class _InProcessWrites(GitCmdObjectDB):
    """Reads through git (cat-file --batch); writes loose objects in-process (atomic temp file +
    rename, as git does) instead of one `git hash-object` subprocess per blob/tree/commit."""

    store = LooseObjectDB.store


class Record:
    def __init__(self, workspace: Path, file: Path, *, init: bool = True,
                 share: Record | None = None) -> None:
        """``share``: another file's record in the same repository — one gitpython repo and
        one lock for both (a project run's 200 files must not keep 400 `cat-file` helpers)."""
        self.file = file.resolve()
        self.run_id: str | None = None  # when set, every commit carries `Harness-Run: <id>`
        self.created = False  # True when this record initialised the repository
        self.file.parent.mkdir(parents=True, exist_ok=True)
        if share is not None and self.file.is_relative_to(
                Path(share.repo.working_tree_dir).resolve()):  # type: ignore[arg-type]
            self.repo, self._lock = share.repo, share._lock
        else:
            self.repo, self._lock = self._open(workspace, init), threading.RLock()
        root = Path(self.repo.working_tree_dir).resolve()  # type: ignore[arg-type]
        self.rel = self.file.relative_to(root).as_posix()
        self.bom = False
        self.index = IndexCache(self.file)

    def _open(self, workspace: Path, init: bool) -> Repo:
        try:
            return Repo(self.file.parent, search_parent_directories=True, odbt=_InProcessWrites)
        except (git.InvalidGitRepositoryError, git.NoSuchPathError):
            if not init:
                raise UsageError(f"{self.file}: not in a git repository") from None
            Repo.init(workspace, initial_branch="main", kill_after_timeout=GIT_TIMEOUT_S)
            self.created = True
            return Repo(workspace, odbt=_InProcessWrites)

    def close(self) -> None:
        """End gitpython's `cat-file` helpers now, not when the garbage collector finds the
        repository (a project run holds a record per file: two processes each). A later read
        starts them again."""
        with self._lock:
            self.repo.close()

    # ---- reading ------------------------------------------------------------------------------
    @property
    def branch(self) -> str:
        try:
            return self.repo.active_branch.name
        except TypeError:
            raise UsageError(f"{self.repo.working_tree_dir}: HEAD is detached; check out a "
                             "branch for the run") from None

    @_git_read
    def head(self) -> str | None:
        try:
            return self.repo.head.commit.hexsha
        except ValueError:
            return None  # no commit yet

    def _history(self, limit: int | None = None) -> Iterator[Commit]:
        """The branch's first-parent chain, newest first (object reads through the persistent
        `git cat-file`, no `git rev-list` subprocess). Our commits are always on that chain."""
        try:
            c: Commit | None = self.repo.head.commit
        except ValueError:
            return
        n = 0
        while c is not None and (limit is None or n < limit):
            yield c
            n += 1
            c = c.parents[0] if c.parents else None

    @_git_read
    def text_at(self, commit: str | None = None) -> str | None:
        try:
            c = self.repo.commit(commit or "HEAD")
            data = (c.tree / self.rel).data_stream.read()
        except (ValueError, KeyError, git.BadName):
            return None
        text, self.bom = decode(data, self.file)
        return text

    def head_text(self) -> str:
        text = self.text_at()
        if text is None:
            raise UsageError(f"{self.file}: not committed on branch {self.branch}")
        return text

    @_git_read
    def runs_commits(self, run_id: str, since: float | None = None) -> list[dict[str, str]]:
        """Trailers of this run's commits on the branch, newest first; the walk stops at the
        first commit made before ``since`` (the run's start, unix time)."""
        out: list[dict[str, str]] = []
        if self.head() is None:
            return out
        for c in self._history():
            if since is not None and c.committed_date < since:
                break
            tr = dict(TRAILER.findall(c.message))
            if tr.get("Harness-Run") == run_id:
                out.append({**tr, "commit": c.hexsha})
        return out

    # ---- writing ------------------------------------------------------------------------------
    def _bytes(self, text: str) -> bytes:
        return (b"\xef\xbb\xbf" if self.bom else b"") + text.encode("utf-8")

    @_git
    def commit_text(self, text: str, message: str) -> str:
        """One commit changing only the blueprint file; returns its id."""
        repo = self.repo
        if self.run_id and "Harness-Run:" not in message:
            message = message.rstrip("\n") + ("\n" if TRAILER.search(message) else "\n\n") + \
                f"Harness-Run: {self.run_id}\n"
        data = self._bytes(text)
        istream = repo.odb.store(IStream("blob", len(data), BytesIO(data)))
        parent = self.head()
        # an in-memory index of the parent's tree (pure Python, no `git read-tree`), our blob in
        if parent:
            index = IndexFile.new(repo, repo.commit(parent).tree.hexsha)
        else:
            index = IndexFile(repo)
            index.entries = {}
        index.entries[(self.rel, 0)] = IndexEntry.from_base(
            BaseIndexEntry((0o100644, istream.binsha, 0, self.rel)))
        tree = index.write_tree()
        parents = [repo.commit(parent)] if parent else []
        c = Commit.create_from_tree(repo, tree, message, parent_commits=parents, head=False,
                                    author=AUTHOR, committer=AUTHOR)
        if parent:
            repo.active_branch.commit = c  # atomic ref update (lock file + rename)
        else:
            repo.head.reference.commit = c  # unborn branch: create it
        atomic_write(self.file, data, durable=False)  # derived from the branch: no fsync needed
        repo.index.add([self.rel])  # keep `git status` clean for our file only
        return c.hexsha

    @_git
    def ensure_committed(self, message: str) -> str | None:
        """At the start of a run: the file as found becomes the record's starting point."""
        data = self.file.read_bytes()
        text, self.bom = decode(data, self.file)
        if self.text_at() == text:
            return None
        return self.commit_text(text, message)

    @_git
    def sync_worktree(self, known: Iterable[str] = ()) -> str | None:
        """Make the working file equal the branch head; refuse edits made outside the run.

        A file equal to an earlier version on the branch (a kill between moving the ref and
        writing the file) or to a text the run produced (``known``) is rewritten silently-but-
        reported; anything else is someone's edit and stops the run.
        """
        head = self.head_text()
        try:
            text, _ = decode(self.file.read_bytes(), self.file)
        except FileNotFoundError:
            text = None
        if text == head:
            return None
        older = {self.text_at(c.hexsha) for c in self._history(200)}
        if text is None or text in older or text in set(known):
            atomic_write(self.file, self._bytes(head))
            self.repo.index.add([self.rel])
            return f"{self.rel}: working file was behind the record; restored from {self.branch}"
        raise UsageError(f"{self.file}: differs from the record ({self.branch} "
                         f"{self.head()[:10]}); commit or discard the edits, then run again")

    @_git
    def exclude(self, path: Path) -> bool:
        """Keep ``path`` (the run state under ``.harness/``) out of ``git status``:
        :func:`harness.orchestrator.gitexclude.exclude`."""
        from harness.orchestrator.gitexclude import exclude

        return exclude(self.repo, path, check_ignored=not self.created)

    def parsed(self, text: str) -> Blueprint:
        """A full parse (the scheduler's DAG); merges use the span index instead."""
        return parse_text(text, self.file)

    # ---- the gated merge ----------------------------------------------------------------------
    def merge_batch(self, cands: list[Candidate], gate: Gate, *, run_id: str, batch_id: str,
                    extra_trailers: dict[str, str] | None = None) -> MergeOutcome:
        t0 = time.perf_counter()
        base = self.head_text()
        out = MergeOutcome(None, [], {}, [], 0)
        live: list[Candidate] = []
        idx = self.index.get(base)
        seen: set[str] = set()
        for c in cands:
            try:
                d = idx.node(c.node)
            except KeyError:
                out.rejected[c.aid] = [f"node `{c.node}` is no longer in the blueprint"]
                continue
            if d.status not in (BodyStatus.SORRY, BodyStatus.SORRY_USING, BodyStatus.ADMIT) \
                    or c.node in seen:
                out.superseded.append(c.aid)  # never merge a node's proof twice
                continue
            seen.add(c.node)
            live.append(c)
        text, merged, rejected, calls = bisect(base, live, gate, self.index)
        out.gate_calls = calls
        out.rejected.update(rejected)
        if merged:
            msg = commit_message(run_id, batch_id, merged, out.rejected, calls, extra_trailers)
            out.commit = self.commit_text(text, msg)
            out.merged = merged
        out.seconds = time.perf_counter() - t0
        return out
