""""Did you mean …?" for commands, options, labels and names (one closest match, or none)."""

from __future__ import annotations

import difflib
from collections.abc import Iterable
from pathlib import Path


def suggest(word: str, choices: Iterable[str], cutoff: float = 0.6) -> str | None:
    """The closest of ``choices`` to ``word`` (case-insensitive first), or None."""
    pool = list(dict.fromkeys(choices))
    lower = {c.lower(): c for c in pool}
    if word.lower() in lower and lower[word.lower()] != word:
        return lower[word.lower()]
    swapped = [c for c in pool if _one_swap(word.lower(), c.lower())]
    if len(swapped) == 1:  # two letters typed in the wrong order (`modle`: `model`, not `mode`)
        return swapped[0]
    hit = difflib.get_close_matches(word, pool, n=1, cutoff=cutoff)
    return hit[0] if hit else None


def _one_swap(a: str, b: str) -> bool:
    """``b`` is ``a`` with two adjacent letters exchanged."""
    if len(a) != len(b) or a == b:
        return False
    diff = [i for i in range(len(a)) if a[i] != b[i]]
    return len(diff) == 2 and diff[1] == diff[0] + 1 and a[diff[0]] == b[diff[1]] \
        and a[diff[1]] == b[diff[0]]


def hint(word: str, choices: Iterable[str], cutoff: float = 0.6) -> str:
    """`` (did you mean `x`?)`` or the empty string."""
    best = suggest(word, choices, cutoff)
    return f" (did you mean `{best}`?)" if best else ""


def node_hint(bp, word: str) -> str:
    """`` (did you mean `lem:sum-to-zero`?)`` among a blueprint's labels and Lean names."""
    names = [d.label for d in bp.nodes if d.label] + [n for d in bp.decls for n in d.names]
    short = [d.short_name for d in bp.decls if d.short_name]
    return hint(word, [*names, *short])


def path_hint(path: str | Path, limit: int = 5000) -> str:
    """`` (did you mean `Blueprint/Demo.lean`?)`` for a path with a typo in one of its parts:
    the first part that does not exist is replaced by its closest sibling (at most ``limit``
    entries of a directory are looked at)."""
    p = Path(path)
    parts = p.parts
    for i, name in enumerate(parts):
        here = Path(*parts[:i]) if i else Path(".")
        if (here / name).exists():
            continue
        try:
            siblings = [c.name for _, c in zip(range(limit), here.iterdir())]
        except OSError:
            return ""
        best = suggest(name, siblings)
        if best is None:
            return ""
        fixed = Path(*parts[:i], best, *parts[i + 1:]) if i else Path(best, *parts[1:])
        return f" (did you mean `{fixed}`?)" if fixed.exists() else ""
    return ""
