"""Conclusion-shape signals (fifth round, docs/benchmarks.md "Fifth round"): pure functions of
a query's and a declaration's *statement* text — never of a proof, so the query's own proof can
never count.

A goal is closed by a lemma whose conclusion has its shape (`exact?` matches a goal against
conclusions), and a theorem whose conclusion looks like the query's was proved with the same
kind of lemmas. Both are read off the signature text: the conclusion is what follows the
type's colon, the last top-level `→` and leading `∀ …,` / `∃ …,` binders; its head is the
top-level relation (`≤`, `=`, `∈`, …) or else the first name applied (`Tendsto`).

- ``W_CONCL``: the IDF-weighted share of the query's conclusion constants that a candidate's
  conclusion names (apart from the hypotheses, which rank.W_CONST already counts with them);
- ``W_HEAD``: a candidate whose conclusion has the query's head symbol;
- ``KNN_CONCL`` / ``KNN_HEAD``: the same two, added to a k-NN neighbour's similarity
  (retrieval.neighbours), so that theorems with the query's kind of conclusion vote most;
- ``SHAPE_BARE_ONLY``: all four only for a query with no place (plain `harness search`): with a
  place, recency and the file's imports already say more (the fifth round tuned them so).
"""

from __future__ import annotations

from functools import lru_cache

from harness.library.names import identifiers, last

# frozen 2026-12-04 on the development projects only (docs/benchmarks.md, "Fifth round")
W_CONCL, W_HEAD = 0.5, 0.25
KNN_CONCL, KNN_HEAD = 1.0, 0.25
SHAPE_BARE_ONLY = True

_RELATIONS = ("↔", "=", "≠", "≤", "≥", "<", ">", "∈", "∉", "⊆", "⊂", "∣")
_OPEN, _CLOSE = "([{⟨⦃", ")]}⟩⦄"


def _depth0(text: str):
    """(index, char) of the characters of ``text`` outside every bracket."""
    depth = 0
    for i, ch in enumerate(text):
        if ch in _OPEN:
            depth += 1
        elif ch in _CLOSE:
            depth = max(0, depth - 1)
        elif depth == 0:
            yield i, ch


@lru_cache(maxsize=100_000)
def conclusion(signature: str) -> str:
    """The conclusion of a signature `binders : ∀ x, h → concl` (see the module docstring)."""
    colon = next((i for i, ch in _depth0(signature) if ch == ":"
                  and signature[i + 1:i + 2] != "=" and signature[i - 1:i] != ":"), None)
    t = signature[colon + 1:] if colon is not None else signature
    arrows = [i for i, ch in _depth0(t) if ch == "→"]
    if arrows:
        t = t[arrows[-1] + 1:]
    t = t.strip()
    while t[:1] in ("∀", "∃"):
        comma = next((i for i, ch in _depth0(t) if ch == ","), None)
        if comma is None:
            break
        t = t[comma + 1:].strip()
    return t


@lru_cache(maxsize=100_000)
def head_symbol(concl: str) -> str:
    """The top of a conclusion: its top-level relation (`≥` as `≤`, `>` as `<`), else the
    first name applied, by its last component; "" for neither."""
    for _, ch in _depth0(concl):
        if ch in _RELATIONS:
            return {"≥": "≤", ">": "<"}.get(ch, ch)
    ids = identifiers(concl)
    return last(ids[0]) if ids else ""


@lru_cache(maxsize=100_000)
def conclusion_keys(signature: str) -> frozenset[str]:
    """The identifiers of a signature's conclusion, by full name and by last component (as
    rank.const_keys compares constants)."""
    out: set[str] = set()
    for c in identifiers(conclusion(signature)):
        if len(c) > 1 and c[0] != "_":
            out.update((c, last(c)))
    return frozenset(out)


Shape = tuple[frozenset[str], str]  # the query's conclusion constant keys, its head symbol


def query_shape(text: str, qconsts: set[str], placed: bool) -> Shape | None:
    """The query's conclusion constants (among ``qconsts``, the query's constants with its
    binder names dropped) and head; None when no signal applies."""
    if placed and SHAPE_BARE_ONLY:
        return None
    return conclusion_keys(text) & qconsts, head_symbol(conclusion(text))


def shape_score(shape: Shape, signature: str, c_idf: dict[str, float],
                w_concl: float, w_head: float) -> float:
    """``w_concl`` × the IDF share of the query's conclusion constants found in
    ``signature``'s conclusion + ``w_head`` when the heads agree."""
    keys, head = shape
    s = 0.0
    if w_concl and keys:
        total = sum(c_idf.get(k, 1.0) for k in keys) or 1.0
        s += w_concl * sum(c_idf.get(k, 1.0) for k in keys & conclusion_keys(signature)) / total
    if w_head and head and head_symbol(conclusion(signature)) == head:
        s += w_head
    return s
