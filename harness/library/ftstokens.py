"""FTS5's `unicode61 remove_diacritics 2` tokenizer (categories "L* N* Co"), in Python: the
posting lists (postings.py) must hold exactly the FTS5 table's own tokens. ASCII is folded by a
table; every new non-ASCII character is classified once by asking FTS5 itself (sqlite/sqlite
ext/fts5/fts5_tokenize.c, `fts5UnicodeTokenize`).
"""

from __future__ import annotations

import re
import sqlite3
from collections.abc import Iterable

_ASCII_TOKEN = re.compile(r"[a-z0-9]+")
_SEP, _ALNUM, _DIACRITIC = 0, 1, 2
_CLASS: dict[str, tuple[int, str]] = {}  # non-ASCII character -> (class, folded form)
_PROBE: sqlite3.Connection | None = None


def _classify(chars: Iterable[str]) -> None:
    """Ask FTS5 itself how it tokenizes each new non-ASCII character: inside a word (`q?q`)
    and at its start (`?q`). A separator splits the first; a diacritic (a combining mark, not a
    letter) is kept inside a word but separates at its start (`fts5UnicodeTokenize`)."""
    global _PROBE
    todo = sorted({c for c in chars if c not in _CLASS})
    if not todo:
        return
    if _PROBE is None:
        _PROBE = sqlite3.connect(":memory:", check_same_thread=False)
        _PROBE.executescript(
            "CREATE VIRTUAL TABLE p USING fts5(t, tokenize='unicode61 remove_diacritics 2');"
            "CREATE VIRTUAL TABLE v USING fts5vocab(p, 'instance');")
    con = _PROBE
    con.execute("DELETE FROM p")
    con.executemany("INSERT INTO p(rowid, t) VALUES (?, ?)",
                    [(2 * i + k + 1, f"q{c}q" if k == 0 else f"{c}q")
                     for i, c in enumerate(todo) for k in (0, 1)])
    toks: dict[int, list[tuple[int, str]]] = {}
    for term, doc, off in con.execute("SELECT term, doc, offset FROM v"):
        toks.setdefault(doc, []).append((off, term))
    for i, c in enumerate(todo):
        inside = [t for _, t in sorted(toks.get(2 * i + 1, []))]
        start = [t for _, t in sorted(toks.get(2 * i + 2, []))]
        if len(inside) == 1 and inside[0].startswith("q") and inside[0].endswith("q"):
            fold = inside[0][1:-1]
            _CLASS[c] = (_ALNUM if start == [fold + "q"] else _DIACRITIC, fold)
        else:
            _CLASS[c] = (_SEP, "")
    con.execute("DELETE FROM p")


_TABLE: dict[int, str] = {c: chr(c).lower() if chr(c).isalnum() else " " for c in range(128)}


_KNOWN = {chr(c) for c in range(128)}


def _learn(chars: set[str]) -> None:
    _classify(chars)
    for c in chars:
        cls, fold = _CLASS[c]
        _TABLE[ord(c)] = " " if cls == _SEP else fold if cls == _ALNUM else f"\x01{fold}\x02"
        _KNOWN.add(c)


def fts_tokens(text: str) -> list[str]:
    """The tokens FTS5's `unicode61 remove_diacritics 2` tokenizer makes of ``text``."""
    if text.isascii():
        return _ASCII_TOKEN.findall(text.lower())
    new = set(text) - _KNOWN
    if new:
        _learn(new)
    folded = text.translate(_TABLE)
    if "\x01" not in folded:
        return folded.split()
    # a diacritic is part of a word, but a separator at a word's start
    out = [_LEADING_MARKS.sub("", t).replace("\x01", "").replace("\x02", "")
           for t in folded.split(" ")]
    return [t for t in out if t]


_LEADING_MARKS = re.compile("^(?:\x01[^\x02]*\x02)+")
