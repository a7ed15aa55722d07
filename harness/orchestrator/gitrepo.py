"""The record's repository: gitpython with its helper processes out of the terminal's reach.

gitpython keeps two `git cat-file --batch` processes per repository alive for object reads. In
our process group they receive the terminal's ^C (the tty signals the whole foreground group)
and die; the run's clean-up then writes to their dead pipes. So every git process starts in a
process group of its own (same session: :func:`harness.orchestrator.procs.kill_children` kills
only session leaders, the Lean runs, and must leave git alone), and :func:`revive` restarts a
helper that died anyway (a `kill` of every process of a Slurm job, an OOM kill).
"""

from __future__ import annotations

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
