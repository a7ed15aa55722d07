"""The index on disk: one SQLite file with an FTS5 table, under `.harness/index/`.

- Keyed by package and revision: a package whose revision is unchanged is reused untouched; a
  changed one is diffed file by file (size + mtime), and only changed files are re-scanned.
- Built into a new file beside the old one (a copy of it, for an incremental build) and swapped
  in with one `rename`: a reader always sees a complete index, and readers that opened the old
  file keep reading it (the inode lives on) while the new one is built and swapped in.
- Never trusted blindly: a file that is not SQLite, has another schema version, was not marked
  complete, or does not match the checksum its build wrote, is rebuilt from scratch (and the
  build says why). The checksum is re-computed only when the file's size/mtime/inode differ
  from what the build recorded (`verify_checksum`); damage a query finds is handled by readers.
- Bounded memory: files are scanned in worker processes and inserted in batches.
"""

from __future__ import annotations

import fcntl
import json
import os
import shutil
import sqlite3
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Protocol

from harness.errors import UsageError
from harness.library.integrity import (SCHEMA_VERSION, CorruptIndex, _sum_line, _sum_path,
                                       check_index, file_inode, verify_checksum)
from harness.library.mentions import mentions
from harness.library.model import BuildReport, PackageReport
from harness.library.names import name_tokens, text_tokens
from harness.library.postings import SCHEMA as POSTINGS_SCHEMA
from harness.library.postings import Removed, build_postings, update_postings
from harness.library.rank import binder_names
from harness.library.refs import write_refs
from harness.library.scanner import Scanned, scan_file_text
from harness.library.sources import Package, SourceFile, discover, fingerprint, lean_files
from harness.library.usage import write_usage
from harness.library.workers import worker_init
from harness.workspace import harness_dir

INDEX_FILE = "library.sqlite"
BATCH = 2_000
CORPUS = "corpus"
POOL_MIN_FILES = 64  # below this, scanning in-process is faster than starting workers

SCHEMA = """
CREATE TABLE meta(key TEXT PRIMARY KEY, value TEXT);
CREATE TABLE packages(name TEXT PRIMARY KEY, rev TEXT, root TEXT);
CREATE TABLE files(id INTEGER PRIMARY KEY, package TEXT, rel TEXT UNIQUE, module TEXT,
                   size INTEGER, mtime_ns INTEGER);
CREATE TABLE decls(id INTEGER PRIMARY KEY AUTOINCREMENT, file_id INTEGER, package TEXT, name TEXT,
                   short TEXT, kind TEXT, module TEXT, rel TEXT, line INTEGER, signature TEXT,
                   doc TEXT, attrs TEXT, private INTEGER, protected INTEGER, origin TEXT,
                   exact INTEGER, consts TEXT, namespace TEXT, name_tok TEXT, sig_tok TEXT,
                   opens TEXT, uses TEXT);
CREATE VIRTUAL TABLE fts USING fts5(name_tok, sig_tok, doc, content='decls',
                                    content_rowid='id', tokenize='unicode61 remove_diacritics 2');
CREATE VIRTUAL TABLE fts_vocab USING fts5vocab(fts, 'row');
"""
INDEXES = """
CREATE INDEX IF NOT EXISTS decls_name ON decls(name);
CREATE INDEX IF NOT EXISTS decls_short ON decls(short);
CREATE INDEX IF NOT EXISTS decls_file ON decls(file_id);
CREATE INDEX IF NOT EXISTS decls_ns ON decls(namespace);
CREATE INDEX IF NOT EXISTS decls_module ON decls(module, line);
"""
DECL_COLS = ("file_id, package, name, short, kind, module, rel, line, signature, doc, attrs, "
             "private, protected, origin, exact, consts, namespace, name_tok, sig_tok, opens, "
             "uses")
N_COLS = DECL_COLS.count(",") + 1

Progress = Callable[[str, int, int], None]  # (package, files done, files total)


class BuildStep(Protocol):
    """An extra pass inside a build (the exact pass, `harness/library/exact.py`)."""

    def stale(self, path: Path) -> bool: ...  # would it change the current complete index?

    def apply(self, con: sqlite3.Connection, live_fts: bool,  # before FTS/indexes/postings
              note: Callable[[str, tuple], None] | None = None) -> None: ...


def index_path(workspace: Path) -> Path:
    return harness_dir(workspace) / "index" / INDEX_FILE


def _rows(f: SourceFile, package: str, decls: list[Scanned]) -> list[tuple]:
    return [(package, d.name, d.name.rsplit(".", 1)[-1], d.kind, f.module, f.rel,
               d.line, d.signature, d.doc, json.dumps(d.attrs) if d.attrs else "",
               int(d.private), int(d.protected), d.origin, 0, " ".join(d.consts), d.namespace,
               " ".join(name_tokens(d.name)), " ".join(text_tokens(d.signature)),
               " ".join(d.opens), _uses(d)) for d in decls]


def _uses(d: Scanned) -> str:
    """What the proof mentions (locals, case tags and named arguments dropped; mentions.py),
    as written: resolved to rows after every build (usage.py), when all names are known."""
    if not d.body or d.has_sorry:
        return ""
    return " ".join(mentions(d.body, binder_names(d.signature)))


def _scan_one(job: tuple[SourceFile, str]) -> tuple[SourceFile, list[tuple], str]:
    """One file -> its rows (without the file id), in a worker process."""
    f, package = job
    try:
        text = f.path.read_bytes().decode("utf-8")
    except (OSError, UnicodeDecodeError) as err:
        why = err.strerror if isinstance(err, OSError) and err.strerror else str(err)
        return f, [], f"{f.rel}:1:0: cannot read: {why}"
    decls, problem = scan_file_text(text.removeprefix("\ufeff"), f.rel, uses="body")
    return f, _rows(f, package, decls), problem


def _scan_all(files: list[SourceFile], package: str, workers: int | None) -> Iterator[tuple]:
    jobs = [(f, package) for f in files]
    if len(files) < POOL_MIN_FILES or workers == 1:
        yield from map(_scan_one, jobs)
        return
    import multiprocessing as mp

    n = workers or min(4, os.cpu_count() or 1)
    # fork: workers only scan text (no locks, no I/O beyond reading their file)
    ctx = mp.get_context("fork" if "fork" in mp.get_all_start_methods() else "spawn")
    pool = ctx.Pool(n, initializer=worker_init)
    try:
        yield from pool.imap(_scan_one, jobs, chunksize=16)
        pool.close()
    finally:
        pool.terminate()
        pool.join()


def _new_db(path: Path) -> sqlite3.Connection:
    con = sqlite3.connect(path, timeout=10)
    con.execute("PRAGMA journal_mode=OFF")
    con.execute("PRAGMA synchronous=OFF")
    con.execute("PRAGMA cache_size=-65536")
    return con


class _Builder:
    def __init__(self, con: sqlite3.Connection, report: BuildReport, progress: Progress | None,
                 workers: int | None, live_fts: bool) -> None:
        self.con, self.report, self.progress, self.workers = con, report, progress, workers
        self.live_fts = live_fts  # incremental: keep the FTS table in step row by row
        self.removed = Removed()  # incremental: rows deleted (their posting lists change)

    def drop_files(self, ids: list[int]) -> None:
        c = self.con
        for k in range(0, len(ids), 500):
            part = ids[k:k + 500]
            q = ",".join("?" * len(part))
            self.removed.note(c, f"file_id IN ({q})", part)
            c.execute("INSERT INTO fts(fts, rowid, name_tok, sig_tok, doc) SELECT 'delete', id, "
                      f"name_tok, sig_tok, doc FROM decls WHERE file_id IN ({q})", part)
            c.execute(f"DELETE FROM decls WHERE file_id IN ({q})", part)
            c.execute(f"DELETE FROM files WHERE id IN ({q})", part)

    def add_files(self, pkg: str, files: list[SourceFile]) -> int:
        c, batch, done = self.con, [], 0
        first_id = (c.execute("SELECT max(id) FROM decls").fetchone()[0] or 0) + 1
        for f, rows, problem in _scan_all(files, pkg, self.workers):
            if problem:
                self.report.problems.append(problem)
            cur = c.execute("INSERT INTO files(package, rel, module, size, mtime_ns) "
                            "VALUES (?,?,?,?,?)", (pkg, f.rel, f.module, f.size, f.mtime_ns))
            fid = (cur.lastrowid,)
            batch.extend(fid + r for r in rows)
            done += 1
            if len(batch) >= BATCH:
                self._flush(batch)
                batch = []
            if self.progress and (done % 50 == 0 or done == len(files)):
                self.progress(pkg, done, len(files))
        self._flush(batch)
        if self.live_fts:
            c.execute("INSERT INTO fts(rowid, name_tok, sig_tok, doc) SELECT id, name_tok, "
                      "sig_tok, doc FROM decls WHERE id >= ?", (first_id,))
        self.report.scanned += len(files)
        return len(files)

    def _flush(self, batch: list[tuple]) -> None:
        if batch:
            self.con.executemany(f"INSERT INTO decls({DECL_COLS}) VALUES "
                                 f"({','.join('?' * N_COLS)})", batch)


def build_index(workspace: Path, *, rebuild: bool = False, progress: Progress | None = None,
                workers: int | None = None, path: Path | None = None,
                corpus: bool = False, corrupt: tuple[str, int] | None = None,
                step: BuildStep | None = None) -> BuildReport:
    """Build or refresh the workspace's index; returns what was done (see module docstring).
    ``corpus``: index ``workspace`` as one plain Lean tree (benchmarks), at ``path``.
    ``corrupt``: (why, inode) — a reader found the file with that inode damaged: rebuilt from
    scratch, unless another process has already replaced it.
    ``step``: an extra pass run on the new file before it is finished (the exact pass)."""
    if not workspace.is_dir():
        raise UsageError(f"{workspace}: no such workspace directory")
    t0 = time.perf_counter()
    path = path or index_path(workspace)
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
    except OSError as err:
        raise UsageError(f"{path.parent}: cannot create the index directory: {err.strerror}") \
            from None
    report = BuildReport(path=str(path))
    with open(path.parent / "build.lock", "a+") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)  # one builder at a time; readers never wait
        tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
        try:
            try:
                if corrupt is not None and file_inode(path) not in (None, corrupt[1]):
                    raise _UpToDate()  # another reader's rebuild already replaced it
                _build(workspace, path, tmp, rebuild or corrupt is not None, report, progress,
                       workers, corpus, step)
                if corrupt is not None:
                    report.reason = f"previous index unusable ({corrupt[0]}); rebuilt"
            except _UpToDate:
                pass  # nothing changed: the current file stays, untouched
            else:
                from harness.fsutil import atomic_write

                atomic_write(_sum_path(path), _sum_line(tmp), durable=False)
                os.replace(tmp, path)
        finally:
            tmp.unlink(missing_ok=True)
    report.bytes = path.stat().st_size
    report.seconds = round(time.perf_counter() - t0, 3)
    return report


def _sparse(path: Path) -> bool:
    """Ids are never reused (AUTOINCREMENT) and the per-row arrays of postings.py are indexed by
    id: after many incremental builds (each exact pass re-inserts its rows) they would outgrow
    the rows. Rebuild when fewer than half the ids are live."""
    con = sqlite3.connect(f"file:{path}?mode=ro", uri=True, timeout=10)
    try:
        top, n = con.execute("SELECT max(id), count(*) FROM decls").fetchone()
    finally:
        con.close()
    return (top or 0) > 2 * n + 10_000


def _build(workspace: Path, path: Path, tmp: Path, rebuild: bool, report: BuildReport,
           progress: Progress | None, workers: int | None, corpus: bool,
           step: BuildStep | None = None) -> None:
    old_ok = False
    if rebuild:
        report.reason = "requested"
    elif path.exists():
        try:
            check_index(path).close()
            if not verify_checksum(path):
                raise CorruptIndex("its checksum does not match the last build")
            old_ok = True
        except CorruptIndex as err:
            report.reason = f"previous index unusable ({err}); rebuilt"
    else:
        report.reason = "no index yet"
    if old_ok and _sparse(path):
        old_ok, report.reason = False, "row ids grew sparse (posting arrays follow the ids); rebuilt"
    tmp.unlink(missing_ok=True)
    pkgs = [Package(CORPUS, workspace, "", False)] if corpus else discover(workspace)
    if old_ok and not changed(path, pkgs, workspace) and not (step and step.stale(path)):
        report.packages, report.decls, report.files = _unchanged_report(path)
        raise _UpToDate()
    if old_ok:
        shutil.copyfile(path, tmp)
        con = _new_db(tmp)
        con.execute("UPDATE meta SET value='0' WHERE key='complete'")
    else:
        report.rebuilt = True
        con = _new_db(tmp)
        con.executescript(SCHEMA + POSTINGS_SCHEMA)
        con.execute("INSERT INTO meta VALUES ('schema', ?), ('complete', '0')",
                    (SCHEMA_VERSION,))
    try:
        first_new = (con.execute("SELECT max(id) FROM decls").fetchone()[0] or 0) + 1
        b = _Builder(con, report, progress, workers, live_fts=old_ok)
        _refresh(pkgs, workspace, con, b, report)
        if step is not None:
            # rows the step deletes or rewrites change their terms' posting lists
            step.apply(con, old_ok, note=(lambda where, args: b.removed.note(con, where, args))
                       if old_ok else None)  # a full build counts every posting afresh
        if not old_ok:
            con.execute("INSERT INTO fts(fts) VALUES ('rebuild')")
        con.executescript(INDEXES)
        # the ranked search's posting lists and document frequencies (postings.py)
        if old_ok:
            update_postings(con, b.removed, first_new)
        else:
            build_postings(con, tmp, workers)
        write_refs(con)  # the centrality prior (refs.py) when it has a weight; else dropped
        # which rows each proof uses (usage.py: k-NN votes, centrality)
        write_usage(con, first_new if old_ok else None)
        report.decls = con.execute("SELECT count(*) FROM decls").fetchone()[0]
        report.files = con.execute("SELECT count(*) FROM files").fetchone()[0]
        con.execute("UPDATE meta SET value='1' WHERE key='complete'")
        con.execute("INSERT OR REPLACE INTO meta VALUES ('built', ?)", (str(time.time()),))
        con.commit()
        con.execute("PRAGMA journal_mode=DELETE")
    finally:
        con.close()


class _UpToDate(Exception):
    """Every package and file is as the current index has it: no new file is built."""


def changed(path: Path, pkgs: list[Package], workspace: Path) -> bool:
    """Would a refresh change anything? (read-only, on the current index)"""
    con = check_index(path)
    try:
        have = {n: (rev, root) for n, rev, root in con.execute(
            "SELECT name, rev, root FROM packages")}
        if set(have) != {p.name for p in pkgs}:
            return True
        for pkg in pkgs:
            if pkg.pinned:
                if have[pkg.name] != (pkg.rev, str(pkg.root)):
                    return True
                continue
            files = {(f.rel, f.size, f.mtime_ns) for f in lean_files(pkg.root, workspace)}
            known = set(con.execute("SELECT rel, size, mtime_ns FROM files WHERE package=?",
                                    (pkg.name,)))
            if files != known:
                return True
        return False
    finally:
        con.close()


def _unchanged_report(path: Path) -> tuple[list[PackageReport], int, int]:
    con = check_index(path)
    try:
        out = [PackageReport(name=n, rev=rev, reused=True,
                             files=con.execute("SELECT count(*) FROM files WHERE package=?",
                                               (n,)).fetchone()[0],
                             decls=con.execute("SELECT count(*) FROM decls WHERE package=?",
                                               (n,)).fetchone()[0])
               for n, rev in con.execute("SELECT name, rev FROM packages ORDER BY rowid")]
        return (out, con.execute("SELECT count(*) FROM decls").fetchone()[0],
                con.execute("SELECT count(*) FROM files").fetchone()[0])
    finally:
        con.close()


def _refresh(pkgs: list[Package], workspace: Path, con: sqlite3.Connection, b: _Builder,
             report: BuildReport) -> None:
    have = {n: (rev, root) for n, rev, root in con.execute("SELECT name, rev, root FROM packages")}
    for gone in set(have) - {p.name for p in pkgs}:
        b.drop_files([i for (i,) in con.execute("SELECT id FROM files WHERE package=?",
                                                (gone,))])
        con.execute("DELETE FROM packages WHERE name=?", (gone,))
    for pkg in pkgs:
        old = have.get(pkg.name)
        if pkg.pinned and old == (pkg.rev, str(pkg.root)):
            n = con.execute("SELECT count(*) FROM files WHERE package=?", (pkg.name,)).fetchone()[0]
            d = con.execute("SELECT count(*) FROM decls WHERE package=?", (pkg.name,)).fetchone()[0]
            report.packages.append(PackageReport(name=pkg.name, rev=pkg.rev, files=n, decls=d,
                                                 reused=True))
            continue
        report.packages.append(_refresh_package(workspace, con, b, pkg))


def _refresh_package(workspace: Path, con: sqlite3.Connection, b: _Builder,
                     pkg: Package) -> PackageReport:
    files = lean_files(pkg.root, workspace)
    rev = pkg.rev or fingerprint(files)
    known = {rel: (i, size, mt) for i, rel, size, mt in con.execute(
        "SELECT id, rel, size, mtime_ns FROM files WHERE package=?", (pkg.name,))}
    current = {f.rel for f in files}
    stale = [i for rel, (i, _, _) in known.items() if rel not in current]
    todo: list[SourceFile] = []
    for f in files:
        k = known.get(f.rel)
        if k is None or (k[1], k[2]) != (f.size, f.mtime_ns):
            todo.append(f)
            if k is not None:
                stale.append(k[0])
    b.drop_files(stale)
    # a file listed under another package (a package moved) must not collide on `rel`
    b.drop_files([i for (i,) in con.execute(
        f"SELECT id FROM files WHERE rel IN ({','.join('?' * len(todo))})",
        [f.rel for f in todo])] if todo else [])
    scanned = b.add_files(pkg.name, todo)
    con.execute("INSERT OR REPLACE INTO packages VALUES (?,?,?)", (pkg.name, rev, str(pkg.root)))
    n = con.execute("SELECT count(*) FROM decls WHERE package=?", (pkg.name,)).fetchone()[0]
    return PackageReport(name=pkg.name, rev=rev, files=len(files), decls=n, scanned=scanned)
