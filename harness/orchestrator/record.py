"""The record: the blueprint file on a git branch (gitpython), and the gated batch merge.

Attempts never touch it. A batch of accepted candidates is applied to the *current* head text,
the gate checks the *merged* text, and only then does the branch move — one commit per batch with
a structured message (trailers). A failing batch is bisected: position blame first (one extra gate
call when the gate's messages point into a candidate's region), halving otherwise; the rest is
merged and the culprits come back with the gate's messages.

Commit order (kill -9 safe): objects -> branch ref (atomic) -> working file (atomic rename) ->
index entry. The branch is the truth; :meth:`Record.sync_worktree` repairs a working file left
one step behind and refuses a file someone else edited.
"""

from __future__ import annotations

import re
import threading
import time
from dataclasses import dataclass, field
from io import BytesIO
from pathlib import Path
from typing import Callable, Iterable, Iterator

import git
from git import Actor, Commit, IndexFile
from git.index.typ import BaseIndexEntry, IndexEntry
from git.db import GitCmdObjectDB
from gitdb import IStream, LooseObjectDB

from harness.blueprint.model import Blueprint, BodyStatus
from harness.blueprint.parse import parse_text
from harness.blueprint.source import decode
from harness.errors import HarnessError, InputError, UsageError
from harness.orchestrator.gitrepo import Repo
from harness.orchestrator.gitrepo import serialised as _git
from harness.orchestrator.gitrepo import serialised_read as _git_read
from harness.orchestrator.spanindex import SpanIndex
from harness.orchestrator.state import atomic_write

AUTHOR = Actor("harness", "harness@localhost")
GIT_TIMEOUT_S = 60  # `git init`, the only git subprocess started per run (reads use cat-file)
TRAILER = re.compile(r"^(Harness-[A-Za-z]+):\s*(.*)$", re.M)
_LINE = re.compile(r":(\d+):(\d+):")


@dataclass(frozen=True)
class Candidate:
    aid: str  # attempt id, "<node>#<n>"
    node: str  # blueprint label
    body: str
    helpers: str = ""
    role: str = "prove"


@dataclass
class GateOutcome:
    passed: bool
    certified: bool  # False: the gate could not decide (no Lean, timeout): fail closed
    messages: list[str] = field(default_factory=list)


# gate(merged text, base text, labels, structural, splits): ``structural`` when the batch holds
# a repair split (new placeholder nodes); ``splits`` names the split nodes: the scope check runs
# in split mode for them (harness.gate.scope), the lock pins every existing statement.
Gate = Callable[..., GateOutcome]


@dataclass
class MergeOutcome:
    commit: str | None
    merged: list[Candidate]
    rejected: dict[str, list[str]]  # aid -> reasons (gate messages)
    superseded: list[str]  # aids whose node was already proved in the record
    gate_calls: int
    seconds: float = 0.0


class _InProcessWrites(GitCmdObjectDB):
    """Reads through git (cat-file --batch); writes loose objects in-process (atomic temp file +
    rename, as git does) instead of one `git hash-object` subprocess per blob/tree/commit."""

    store = LooseObjectDB.store


class CannotDecide(HarnessError):
    """The gate could not certify: nothing of this batch is merged."""


class Record:
    def __init__(self, workspace: Path, file: Path, *, init: bool = True) -> None:
        self.file = file.resolve()
        self.run_id: str | None = None  # when set, every commit carries `Harness-Run: <id>`
        self.created = False  # True when this record initialised the repository
        self._lock = threading.RLock()
        self.file.parent.mkdir(parents=True, exist_ok=True)
        try:
            self.repo = Repo(self.file.parent, search_parent_directories=True,
                             odbt=_InProcessWrites)
        except (git.InvalidGitRepositoryError, git.NoSuchPathError):
            if not init:
                raise UsageError(f"{file}: not in a git repository") from None
            Repo.init(workspace, initial_branch="main", kill_after_timeout=GIT_TIMEOUT_S)
            self.repo = Repo(workspace, odbt=_InProcessWrites)
            self.created = True
        root = Path(self.repo.working_tree_dir).resolve()  # type: ignore[arg-type]
        self.rel = self.file.relative_to(root).as_posix()
        self.bom = False
        self.index = IndexCache(self.file)

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
        text, merged, rejected, calls = _bisect(base, live, gate, self.index)
        out.gate_calls = calls
        out.rejected.update(rejected)
        if merged:
            msg = commit_message(run_id, batch_id, merged, out.rejected, calls, extra_trailers)
            out.commit = self.commit_text(text, msg)
            out.merged = merged
        out.seconds = time.perf_counter() - t0
        return out


class IndexCache:
    """Span indexes of recent texts (bounded): a merge parses at most the texts it has not seen."""

    def __init__(self, path: Path | None, size: int = 8) -> None:
        self.path, self.size = path, size
        self.by_text: dict[str, SpanIndex] = {}
        self.parses = 0

    def get(self, text: str) -> SpanIndex:
        idx = self.by_text.get(text)
        if idx is None:
            self.parses += 1
            idx = self.put(SpanIndex.of(parse_text(text, self.path)))
        return idx

    def put(self, idx: SpanIndex) -> SpanIndex:
        self.by_text[idx.text] = idx
        while len(self.by_text) > self.size:
            self.by_text.pop(next(iter(self.by_text)))
        return idx


def apply_all(base: str, cands: list[Candidate], cache: IndexCache
              ) -> tuple[str, dict[str, tuple[int, int]]]:
    """Apply every candidate to ``base`` in one pass (edits touch disjoint spans: each node's body
    and the text just before it). Returns the text and, per attempt id, the line range of its
    helpers + declaration in the new text (for blaming gate messages)."""
    text, idx = cache.get(base).apply([(c.node, c.body, c.helpers) for c in cands])
    idx = cache.put(idx) if idx is not None else cache.get(text)
    regions: dict[str, tuple[int, int]] = {}
    for c in cands:
        n = idx.node(c.node)
        extra = (c.helpers.strip("\r\n").count("\n") + 2) if c.helpers.strip() else 0
        regions[c.aid] = (max(1, idx.line_of(n.span.start) - extra), idx.line_of(n.span.end))
    return text, regions


def _blame(messages: list[str], regions: dict[str, tuple[int, int]]) -> set[str]:
    hit: set[str] = set()
    for m in messages:
        mm = _LINE.search(m)
        if not mm:
            continue
        line = int(mm.group(1))
        hit |= {aid for aid, (a, b) in regions.items() if a <= line <= b}
    return hit


def _bisect(base: str, cands: list[Candidate], gate: Gate, cache: IndexCache
            ) -> tuple[str, list[Candidate], dict[str, list[str]], int]:
    """(final text, merged, rejected aid -> messages, gate calls)."""
    calls = 0
    certified = 0  # gate calls that reached a verdict (pass or fail)
    rejected: dict[str, list[str]] = {}

    def check(text: str, items: list[Candidate], base_text: str) -> GateOutcome:
        """An uncertified answer is bisected like a failure — one candidate may be what crashes
        or times out Lean — unless the gate never certifies anything (Lean itself is gone, or
        times out on any text): then nothing of the batch is merged and the run stops."""
        nonlocal calls, certified
        calls += 1
        splits = [c.node for c in items if c.role == "repair"]
        r = gate(text, base_text, [c.node for c in items], structural=bool(splits),
                 splits=splits)
        if r.certified:
            certified += 1
        elif certified == 0:  # probe once: can the gate certify the record's own text?
            calls += 1
            if not gate(base, base, [], structural=False).certified:
                raise CannotDecide("; ".join(r.messages[:3]) or "the gate could not certify")
            certified += 1
        return r

    def attempt(items: list[Candidate], text0: str) -> tuple[str | None, dict, GateOutcome | None]:
        try:
            text, regions = apply_all(text0, items, cache)
        except (KeyError, ValueError, InputError) as err:
            return None, {}, GateOutcome(False, True, [f"candidate does not apply: {err}"])
        return text, regions, None

    def solve(items: list[Candidate], text0: str, failed: GateOutcome | None
              ) -> tuple[str, list[Candidate]]:
        if not items:
            return text0, []
        if failed is None:
            text, regions, bad = attempt(items, text0)
            r = bad or check(text, items, text0)  # type: ignore[arg-type]
            if r.passed:
                return text, list(items)  # type: ignore[return-value]
            failed = r
        if len(items) == 1:
            msgs = failed.messages or ["the gate rejected the merged file"]
            if not failed.certified:
                msgs = ["Lean could not certify the merged file with this proof: "
                        + "; ".join(msgs[:3])]
            rejected[items[0].aid] = msgs
            return text0, []
        mid = len(items) // 2
        left, right = items[:mid], items[mid:]
        text1, ok_l = solve(left, text0, None)
        known = failed if failed.certified and len(ok_l) == len(left) else None
        text2, ok_r = solve(right, text1, known)
        return text2, ok_l + ok_r

    if not cands:
        return base, [], {}, 0
    text, regions, bad = attempt(cands, base)
    if bad is not None:  # some candidate does not apply at all: find it by halving
        final, ok = solve(cands, base, bad)
        return final, ok, rejected, calls
    r = check(text, cands, base)  # type: ignore[arg-type]
    if r.passed:
        return text, list(cands), {}, calls  # type: ignore[return-value]
    blamed = _blame(r.messages, regions) if r.certified else set()
    if blamed and len(blamed) < len(cands):  # try without the blamed ones: usually one call
        rest = [c for c in cands if c.aid not in blamed]
        text_r, _, bad_r = attempt(rest, base)
        r2 = bad_r or check(text_r, rest, base)  # type: ignore[arg-type]
        if r2.passed and certified:
            mine = {aid: [m for m in r.messages if aid in _blame([m], regions)] or r.messages
                    for aid in blamed}
            rejected.update(mine)
            return text_r, rest, rejected, calls  # type: ignore[return-value]
    final, ok = solve(cands, base, r)
    return final, ok, rejected, calls


def commit_message(run_id: str, batch_id: str, merged: list[Candidate],
                   rejected: dict[str, list[str]], gate_calls: int,
                   extra: dict[str, str] | None = None) -> str:
    nodes = [c.node for c in merged]
    head = f"harness: merge {batch_id}: {len(nodes)} node{'s' * (len(nodes) != 1)}"
    lines = [head, "", "Proved: " + ", ".join(nodes)]
    for aid, msgs in rejected.items():
        lines.append(f"Returned {aid}: {msgs[0][:200] if msgs else 'rejected'}")
    verdict = f"passed; {gate_calls} gate call{'s' * (gate_calls != 1)}"
    if rejected:
        verdict += f"; {len(rejected)} culprit{'s' * (len(rejected) != 1)} returned"
    trailers = {
        "Harness-Run": run_id, "Harness-Batch": batch_id, "Harness-Nodes": ",".join(nodes),
        "Harness-Attempts": ",".join(c.aid for c in merged),
        "Harness-Roles": ",".join(f"{c.node}={c.role}" for c in merged),
        "Harness-Verdict": verdict, **(extra or {}),
    }
    return "\n".join(lines) + "\n\n" + "\n".join(f"{k}: {v}" for k, v in trailers.items()) + "\n"
