"""Keep the run state (``.harness/``) out of ``git status`` without touching the user's files.

The pattern goes to ``.git/info/exclude`` — the repository's local ignore list, never committed —
and never to ``.gitignore``. In a repository the run created, it is always added; in an existing
one only when git does not already ignore the directory (one ``git check-ignore``, with a timeout).
"""

from __future__ import annotations

from pathlib import Path

import git

from harness.fsutil import atomic_write

GIT_TIMEOUT_S = 60
HEADER = "# harness run state (added by `harness run`)"


def exclude(repo: git.Repo, path: Path, *, check_ignored: bool) -> bool:
    """Exclude directory ``path``; True when ``info/exclude`` was changed. Nothing to do when
    it is outside the work tree, already listed, or (``check_ignored``) already ignored."""
    root = Path(repo.working_tree_dir).resolve()  # type: ignore[arg-type]
    try:
        rel = path.resolve().relative_to(root).as_posix()
    except ValueError:
        return False
    pattern = f"/{rel}/"
    target = Path(repo.common_dir) / "info" / "exclude"
    try:
        old = target.read_text(encoding="utf-8")
    except FileNotFoundError:
        old = ""
    if pattern in old.splitlines():
        return False
    if check_ignored:
        status, _, _ = repo.git.execute(
            ["git", "check-ignore", "-q", f"{rel}/"], with_exceptions=False,
            with_extended_output=True, kill_after_timeout=GIT_TIMEOUT_S)
        if status == 0:  # a .gitignore (or the global excludes) already covers it
            return False
    target.parent.mkdir(parents=True, exist_ok=True)
    sep = "" if not old or old.endswith("\n") else "\n"
    atomic_write(target, f"{old}{sep}{HEADER}\n{pattern}\n", durable=False)
    return True
