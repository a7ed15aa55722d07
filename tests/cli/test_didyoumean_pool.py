"""The prepared did-you-mean pool (didyoumean.Suggester: character bags screen the choices with
numpy before difflib) answers exactly what plain difflib over every choice answers."""

from __future__ import annotations

import difflib
import random

from harness.didyoumean import BAG_MIN, Suggester, _one_swap

ALPHABET = "abcdefghijklmnopqrstuvwxyz_-.:'₁₂ΛσℝαABCDEFGHIJ0123456789"


def reference(word: str, pool: list[str], cutoff: float) -> str | None:
    """suggest() as it was: every choice through difflib."""
    pool = list(dict.fromkeys(pool))
    lower = {c.lower(): c for c in pool}
    if word.lower() in lower and lower[word.lower()] != word:
        return lower[word.lower()]
    swapped = [c for c in pool if _one_swap(word.lower(), c.lower())]
    if len(swapped) == 1:
        return swapped[0]
    hit = difflib.get_close_matches(word, pool, n=1, cutoff=cutoff)
    return hit[0] if hit else None


def _mutate(rng: random.Random, s: str) -> str:
    chars = list(s)
    for _ in range(rng.randint(0, 4)):
        op, i = rng.random(), rng.randrange(len(chars) + 1)
        if op < 0.4 and i < len(chars):
            chars[i] = rng.choice(ALPHABET)
        elif op < 0.7:
            chars.insert(i, rng.choice(ALPHABET))
        elif i < len(chars):
            del chars[i]
    return "".join(chars) or "x"


def test_the_prepared_pool_answers_as_difflib_does() -> None:
    rng = random.Random(7)
    stems = ["".join(rng.choice(ALPHABET) for _ in range(rng.randint(4, 30))) for _ in range(300)]
    pool = [_mutate(rng, rng.choice(stems)) for _ in range(BAG_MIN + 500)]
    pool += pool[:200]  # duplicates, as a project's labels and names have
    s = Suggester(pool)
    words = [_mutate(rng, rng.choice(pool)) for _ in range(60)] + \
            [rng.choice(pool).upper(), "".join(rng.choice(ALPHABET) for _ in range(12))]
    found = 0
    for w in words:
        for cutoff in (0.6, 0.75):
            want = reference(w, pool, cutoff)
            assert s(w, cutoff) == want, (w, cutoff)
            found += want is not None
    assert found > 40  # the comparison is about real suggestions, not only "none"


def test_a_name_that_is_not_utf8_is_screened_too() -> None:
    """A file name of undecodable bytes reaches the pool as lone surrogates (os.fsdecode):
    the bags count it (no UnicodeEncodeError, an 'internal error' exit 3 for a typo'd path in a
    directory of BAG_MIN entries), and the answer is difflib's."""
    pool = [f"entry{i:05d}" for i in range(BAG_MIN)] + ["caf\udce9_notes.txt"]
    for word in ("caf\udce9_notez.txt", "cafe_notes.txt", "entry0001x"):
        assert Suggester(pool)(word) == reference(word, pool, 0.6)
    assert Suggester(pool)("caf\udce9_notez.txt") == "caf\udce9_notes.txt"
