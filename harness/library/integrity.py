"""Is an index file one a build finished and nobody changed since? (schema, completeness,
checksum; store.py writes them, query.py and store.py check them before trusting a file)."""

from __future__ import annotations

import sqlite3
from pathlib import Path

SCHEMA_VERSION = "5"


class CorruptIndex(Exception):
    """The file is not a complete index of this schema (never used; rebuilt)."""


def _digest(path: Path) -> str:
    import hashlib

    h = hashlib.sha1()
    with open(path, "rb") as fh:
        while chunk := fh.read(1 << 20):
            h.update(chunk)
    return f"{path.stat().st_size} {h.hexdigest()}"


def _sum_path(path: Path) -> Path:
    return path.with_name(path.name + ".sum")


def _stat_stamp(path: Path) -> str:
    st = path.stat()
    return f"{st.st_mtime_ns} {st.st_ino}"


def file_inode(path: Path) -> int | None:
    try:
        return path.stat().st_ino
    except OSError:
        return None


def _sum_line(tmp: Path) -> str:
    """`size sha1 mtime_ns inode` of the new file (a rename keeps all four)."""
    return f"{_digest(tmp)} {_stat_stamp(tmp)}\n"


def verify_checksum(path: Path, *, deep: bool = False) -> bool:
    """The file is byte for byte what the last build wrote (a build reuses only such a file).

    The build recorded the file's size, mtime and inode beside its digest: while they still
    match, nothing has written the file since, and the digest is trusted without reading 200 MB
    (``deep`` re-hashes anyway). A file written, truncated or replaced since is re-hashed. What
    a stat cannot see (a bit flipped in place on disk) SQLite reports when a query reads the
    page; :class:`harness.library.query.LibraryIndex` then rebuilds the index."""
    try:
        fields = _sum_path(path).read_text().split()
        if len(fields) < 2:
            return False
        if not deep and len(fields) == 4 and fields[0] == str(path.stat().st_size) \
                and " ".join(fields[2:]) == _stat_stamp(path):
            return True
        return " ".join(fields[:2]) == _digest(path)
    except OSError:
        return False


def check_index(path: Path, *, deep: bool = False) -> sqlite3.Connection:
    """A read-only connection to a complete index, or CorruptIndex saying why not."""
    try:
        con = sqlite3.connect(f"file:{path}?mode=ro", uri=True, timeout=10,
                              check_same_thread=False)
    except sqlite3.Error as err:
        raise CorruptIndex(f"cannot open: {err}") from None
    try:
        meta = dict(con.execute("SELECT key, value FROM meta").fetchall())
        if meta.get("schema") != SCHEMA_VERSION:
            raise CorruptIndex(f"schema {meta.get('schema')!r}, expected {SCHEMA_VERSION}")
        if meta.get("complete") != "1":
            raise CorruptIndex("an incomplete build")
        if deep:
            row = con.execute("PRAGMA quick_check(1)").fetchone()
            if not row or row[0] != "ok":
                raise CorruptIndex(f"integrity check: {row[0] if row else 'no answer'}")
        con.execute("SELECT rowid FROM fts WHERE fts MATCH 'x' LIMIT 1").fetchall()
    except sqlite3.Error as err:
        con.close()
        raise CorruptIndex(str(err)) from None
    except CorruptIndex:
        con.close()
        raise
    return con
