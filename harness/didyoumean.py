""""Did you mean …?" for commands, options, labels and names (one closest match, or none)."""

from __future__ import annotations

import difflib
from collections.abc import Iterable
from pathlib import Path


def suggest(word: str, choices: Iterable[str], cutoff: float = 0.6) -> str | None:
    """The closest of ``choices`` to ``word`` (case-insensitive first), or None."""
    return Suggester(choices)(word, cutoff)


BAG_MIN = 2000  # from this many choices on, candidates are screened by character bags (numpy)
_BAG_CHARS = 128  # ASCII one bin each; every other character shares the last bin


class Suggester:
    """:func:`suggest` against one pool prepared once: a project's ~10 000 labels and names
    asked about each of its dangling references (PrimeNumberTheoremAnd: 46 of them took 1.3 s
    in difflib alone, most of it `quick_ratio` in Python for each choice)."""

    def __init__(self, choices: Iterable[str]) -> None:
        self.pool = list(dict.fromkeys(choices))
        lowered = [c.lower() for c in self.pool]
        self.lower = dict(zip(lowered, self.pool))
        self.by_length: dict[int, list[tuple[str, str]]] = {}  # a swap keeps the length
        for c, lc in zip(self.pool, lowered):
            self.by_length.setdefault(len(lc), []).append((c, lc))
        self._bags = None

    def __call__(self, word: str, cutoff: float = 0.6) -> str | None:
        low = word.lower()
        if low in self.lower and self.lower[low] != word:
            return self.lower[low]
        swapped = [c for c, lc in self.by_length.get(len(low), ()) if _one_swap(low, lc)]
        if len(swapped) == 1:  # two letters typed in the wrong order (`modle`: `model`, not `mode`)
            return swapped[0]
        hit = difflib.get_close_matches(word, self._near(word, cutoff), n=1, cutoff=cutoff)
        return hit[0] if hit else None

    def _near(self, word: str, cutoff: float) -> list[str]:
        """The choices that can reach ``cutoff``: 2 x the characters shared (as bags) over the
        two lengths bounds difflib's ratio from above (its `quick_ratio`, which
        `get_close_matches` checks one choice at a time); here for all choices at once. Shared
        bins only enlarge the bound, so nothing that could match is dropped: the same answer."""
        if len(self.pool) < BAG_MIN:
            return self.pool
        import numpy as np

        if self._bags is None:
            self._bags = (np.stack([_bag(np, c) for c in self.pool]),
                          np.array([len(c) for c in self.pool]))
        bags, lens = self._bags
        shared = np.minimum(bags, _bag(np, word)).sum(axis=1)
        keep = 2 * shared >= cutoff * (lens + len(word)) - 1e-9  # float slack: keep, not drop
        return [self.pool[i] for i in np.flatnonzero(keep)]


def _bag(np, text: str):
    # a file name of undecodable bytes holds lone surrogates (os.fsdecode): counted, not refused;
    # little-endian on every machine, as encoded
    codes = np.frombuffer(text.encode("utf-32-le", "surrogatepass"), dtype="<u4")
    return np.bincount(np.minimum(codes, _BAG_CHARS), minlength=_BAG_CHARS + 1).astype(np.int32)


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
