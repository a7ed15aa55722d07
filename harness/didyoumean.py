""""Did you mean …?" for commands, options, labels and names (one closest match, or none)."""

from __future__ import annotations

import difflib
from collections.abc import Iterable


def suggest(word: str, choices: Iterable[str], cutoff: float = 0.6) -> str | None:
    """The closest of ``choices`` to ``word`` (case-insensitive first), or None."""
    pool = list(dict.fromkeys(choices))
    lower = {c.lower(): c for c in pool}
    if word.lower() in lower and lower[word.lower()] != word:
        return lower[word.lower()]
    hit = difflib.get_close_matches(word, pool, n=1, cutoff=cutoff)
    return hit[0] if hit else None


def hint(word: str, choices: Iterable[str], cutoff: float = 0.6) -> str:
    """`` (did you mean `x`?)`` or the empty string."""
    best = suggest(word, choices, cutoff)
    return f" (did you mean `{best}`?)" if best else ""


def node_hint(bp, word: str) -> str:
    """`` (did you mean `lem:sum-to-zero`?)`` among a blueprint's labels and Lean names."""
    names = [d.label for d in bp.nodes if d.label] + [n for d in bp.decls for n in d.names]
    short = [d.short_name for d in bp.decls if d.short_name]
    return hint(word, [*names, *short])
