"""The record's repository: gitpython with its helper processes out of the terminal's reach.

gitpython keeps two `git cat-file --batch` processes per repository alive for object reads. In
our process group they receive the terminal's ^C (the tty signals the whole foreground group)
and die; the run's clean-up then writes to their dead pipes. So every git process starts in a
process group of its own (same session: :func:`harness.orchestrator.procs.kill_children` kills
only session leaders, the Lean runs, and must leave git alone), and :func:`revive` restarts a
helper that died anyway (a `kill` of every process of a Slurm job, an OOM kill);
:func:`serialised` / :func:`serialised_read` serialise the record's git access around it.
"""

from __future__ import annotations

import functools
from typing import Any

import git


class HelperGit(git.Git):
    """Every git subprocess in its own process group (Popen's ``process_group=0``)."""

    def execute(self, *args: Any, **kwargs: Any) -> Any:  # type: ignore[override]
        kwargs.setdefault("process_group", 0)
        return super().execute(*args, **kwargs)


class Repo(git.Repo):
    GitCommandWrapperType = HelperGit


_HELPERS = ("cat_file_all", "cat_file_header")  # gitpython's persistent `cat-file` processes


def revive(repo: git.Repo) -> bool:
    """Drop a dead helper (the next read starts a new one); True when one was dead — a read
    made while it died may have returned a truncated answer and must be repeated."""
    dead = False
    for attr in _HELPERS:
        cmd = getattr(repo.git, attr, None)
        proc = getattr(cmd, "proc", None)
        if cmd is not None and (proc is None or proc.poll() is not None):
            dead = True
    if dead:
        repo.git.clear_cache()
    return dead


def serialised(fn: Any) -> Any:
    """A method of an object with ``repo`` and ``_lock``: gitpython's repo (its `cat-file`
    pipes) is not thread-safe, and the gate thread commits while the main thread reads the
    head for new jobs. A dead helper is replaced first."""

    @functools.wraps(fn)
    def wrapper(self: Any, *args: Any, **kwargs: Any) -> Any:
        with self._lock:
            revive(self.repo)
            return fn(self, *args, **kwargs)

    return wrapper


def serialised_read(fn: Any) -> Any:
    """:func:`serialised` for a read, repeated once when a helper died during it (EPIPE, or a
    truncated answer that would read as "no such commit")."""
    inner = serialised(fn)

    @functools.wraps(fn)
    def wrapper(self: Any, *args: Any, **kwargs: Any) -> Any:
        with self._lock:
            try:
                out = inner(self, *args, **kwargs)
            except BrokenPipeError:
                revive(self.repo)
                return inner(self, *args, **kwargs)
            return inner(self, *args, **kwargs) if revive(self.repo) else out

    return wrapper
