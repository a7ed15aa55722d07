"""The exact pass: ask Lean for the environment's constants and merge them into the index.

`lean/ExportDecls.lean` (shipped here, run by `exact_run.py` as `lake env lean --run
ExportDecls.lean MOD…` in the workspace) imports the built root modules of the indexed packages and prints one JSON line per
constant (`ExactDecl`), then `{"done": N}`. The lines are streamed into a staging table inside
the index build (the build hook of `store.build_index`), in one SAVEPOINT:

- a scanned entry Lean knows (same name and module) gets `exact = 1`, Lean's flags, and Lean's
  type when the scanner's signature is empty or guessed (`to_additive` / `field` entries);
- a name Lean has and the scanner did not see (`to_additive`, projections, `@[simps]`, instances)
  is added with origin `exact`, in the file of its module (a module the index does not know is
  skipped);
- a scanned entry Lean does not know stays, with `exact = 0`.

Fail soft: a timeout, a non-zero exit, an unreadable line or a cut-short output rolls the
savepoint back, so the scanned index is swapped in unchanged, and the report says why in one
line. The Lean program is unverified here (no Lean on the development machine): see its header.
"""

from __future__ import annotations

import hashlib
import re
import sqlite3
import time
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path

from harness.library.exact_run import ExactDecl, ExactFailed, stream_export
from harness.library.model import ExactReport
from harness.library.names import identifiers, name_tokens, text_tokens
from harness.library.sources import CORE
from harness.library.store import DECL_COLS

DEFAULT_TIMEOUT_S = 3600.0  # importing and pretty-printing all of Mathlib takes minutes
META_KEY = "exact"
FAILED_KEY = "exact_failed"  # the build an exact pass failed for: auto mode does not retry it
BATCH = 2_000
MAX_TYPE = 4_000
_BINDER = re.compile(r"[({⦃\[]\s*([^:(){}\[\]⦃⦄]+?)\s*:|∀\s+([^,:(){}\[\]]+?)\s*[,:]")
_TYPE_WEAK = ("to_additive", "field")  # scanner signatures that are guesses, not source text


# ---------------------------------------------------------------------------- what to import

def olean_of(root: Path, module: str) -> Path:
    """Where Lake puts a package's compiled module (`.lake/build/lib/lean/A/B.olean`)."""
    return root.joinpath(".lake", "build", "lib", "lean", *module.split(".")).with_suffix(".olean")


def built_roots(packages: Iterable[tuple[str, str | Path]]) -> list[tuple[str, Path]]:
    """The top-level modules of the packages ``(name, root)`` whose `.olean` is built: what to
    import. (Lean's core needs no build; Mathlib's `Mathlib.lean` imports its dependencies.)"""
    out: list[tuple[str, Path]] = []
    for name, root in packages:
        r = Path(root)
        if name == CORE:
            continue
        try:
            tops = sorted(p for p in r.glob("*.lean") if p.name != "lakefile.lean")
        except OSError:
            continue
        for p in tops:
            ol = olean_of(r, p.stem)
            if ol.is_file():
                out.append((p.stem, ol))
    return out


def exact_key(workspace: Path, roots: list[tuple[str, Path]]) -> str:
    """What the exact pass's answer depends on: the toolchain and the built root modules."""
    h = hashlib.sha1()
    try:
        h.update((workspace / "lean-toolchain").read_bytes())
    except OSError:
        pass
    for mod, ol in roots:
        try:
            st = ol.stat()
        except OSError:
            continue
        h.update(f"{mod}\0{ol}\0{st.st_size}\0{st.st_mtime_ns}\n".encode())
    return h.hexdigest()


# ---------------------------------------------------------------------------- merging

def _consts(typ: str) -> list[str]:
    bound = {b for g in _BINDER.findall(typ) for part in g for b in part.split()}
    return [c for c in dict.fromkeys(identifiers(typ)) if c not in bound][:60]


def _stage(con: sqlite3.Connection, decls: Iterator[ExactDecl], report: ExactReport) -> None:
    con.execute("CREATE TEMP TABLE exact_in(name TEXT, kind TEXT, module TEXT, line INTEGER, "
                "type TEXT, doc TEXT, protected INTEGER, private INTEGER)")
    batch: list[tuple] = []
    for d in decls:
        batch.append((d.name, d.kind, d.module, d.line, d.type[:MAX_TYPE], d.doc,
                      int(d.protected), int(d.private)))
        if len(batch) >= BATCH:
            con.executemany("INSERT INTO exact_in VALUES (?,?,?,?,?,?,?,?)", batch)
            batch = []
    con.executemany("INSERT INTO exact_in VALUES (?,?,?,?,?,?,?,?)", batch)
    report.constants = con.execute("SELECT count(*) FROM exact_in").fetchone()[0]
    con.execute("CREATE INDEX temp.exact_in_nm ON exact_in(name, module)")


def _fts(con: sqlite3.Connection, op: str, where: str, args: tuple = ()) -> None:
    if op == "delete":
        con.execute("INSERT INTO fts(fts, rowid, name_tok, sig_tok, doc) SELECT 'delete', id, "
                    f"name_tok, sig_tok, doc FROM decls WHERE {where}", args)
    else:
        con.execute("INSERT INTO fts(rowid, name_tok, sig_tok, doc) SELECT id, name_tok, "
                    f"sig_tok, doc FROM decls WHERE {where}", args)


Note = Callable[[str, tuple], None]  # (WHERE clause on decls, args): rows about to be deleted


def _reset(con: sqlite3.Connection, live_fts: bool, note: Note | None) -> None:
    """Forget an earlier exact pass (a constant Lean no longer has must not stay confirmed)."""
    if note is not None:
        note("origin = 'exact'", ())
    if live_fts:
        _fts(con, "delete", "origin = 'exact'")
    con.execute("DELETE FROM decls WHERE origin = 'exact'")
    con.execute("UPDATE decls SET exact = 0 WHERE exact = 1")


_COLS = [c.strip() for c in DECL_COLS.split(",")]
_I = {c: i for i, c in enumerate(_COLS)}


def _merge(con: sqlite3.Connection, report: ExactReport, live_fts: bool,
           note: Note | None) -> None:
    """Confirm, retype and add (see the module docstring). A row whose text changes is deleted
    and inserted anew (a new id), so that whatever indexes rows by id and text (the FTS table,
    posting lists) sees one deletion and one insertion; a row whose text stays only gets flags."""
    flags: list[tuple] = []
    redo: list[tuple] = []
    gone: list[tuple[int]] = []
    matched: set[int] = set()
    # the join goes decls -> the staging table's (name, module) index: no index on decls needed
    for r in con.execute(
            f"SELECT e.rowid, d.id, {', '.join('d.' + c for c in _COLS)}, e.type, e.doc, "
            "e.protected, e.private FROM decls d JOIN exact_in e "
            "ON e.name = d.name AND e.module = d.module"):
        eid, did, row = r[0], r[1], list(r[2:2 + len(_COLS)])
        typ, edoc, prot, priv = r[2 + len(_COLS):]
        matched.add(eid)
        sig, doc = row[_I["signature"]] or "", row[_I["doc"]] or ""
        new_sig = ": " + typ if typ and (not sig or row[_I["origin"]] in _TYPE_WEAK) else sig
        new_doc = doc or edoc
        if (new_sig, new_doc) == (sig, doc):
            flags.append((prot, priv, did))
            continue
        report.typed += new_sig != sig
        row[_I["signature"]], row[_I["doc"]] = new_sig, new_doc
        row[_I["sig_tok"]] = " ".join(text_tokens(new_sig))
        row[_I["exact"]], row[_I["protected"]], row[_I["private"]] = 1, prot, priv
        gone.append((did,))
        redo.append(tuple(row))
    report.confirmed = len(flags) + len(redo)
    con.executemany("UPDATE decls SET exact = 1, protected = ?, private = ? WHERE id = ?", flags)
    del flags
    con.execute("CREATE TEMP TABLE exact_gone(id INTEGER PRIMARY KEY)")
    con.executemany("INSERT OR IGNORE INTO exact_gone VALUES (?)", gone)
    where = "id IN (SELECT id FROM temp.exact_gone)"
    if note is not None:
        note(where, ())
    if live_fts:
        _fts(con, "delete", where)
    con.execute(f"DELETE FROM decls WHERE {where}")
    con.execute("DROP TABLE temp.exact_gone")
    first_id = (con.execute("SELECT max(id) FROM decls").fetchone()[0] or 0) + 1
    insert = f"INSERT INTO decls({DECL_COLS}) VALUES ({','.join('?' * len(_COLS))})"
    for k in range(0, len(redo), BATCH):
        con.executemany(insert, redo[k:k + BATCH])
    del redo
    # the names only Lean knows, placed in the file of their module
    files: dict[str, tuple[int, str, str]] = {}
    for fid, pkg, rel, module in con.execute("SELECT id, package, rel, module FROM files "
                                             "ORDER BY id DESC"):
        files[module] = (fid, pkg, rel)
    rows: list[tuple] = []
    for (eid, name, kind, module, line, typ, edoc, prot, priv) in con.execute(
            "SELECT rowid, name, kind, module, line, type, doc, protected, private "
            "FROM exact_in"):
        if eid in matched:
            continue
        place = files.get(module)
        if place is None:
            report.unplaced += 1
            continue
        fid, pkg, rel = place
        sig = ": " + typ if typ else ""
        rows.append((fid, pkg, name, name.rsplit(".", 1)[-1], kind, module, rel, line, sig, edoc,
                     "", priv, prot, "exact", 1, " ".join(_consts(typ)),
                     name.rpartition(".")[0], " ".join(name_tokens(name)),
                     " ".join(text_tokens(sig)), "", ""))  # opens, uses: no source
        if len(rows) >= BATCH:
            con.executemany(insert, rows)
            report.added += len(rows)
            rows = []
    con.executemany(insert, rows)
    report.added += len(rows)
    if live_fts:
        _fts(con, "insert", "id >= ?", (first_id,))


def merge_stream(con: sqlite3.Connection, decls: Iterator[ExactDecl], report: ExactReport,
                 *, live_fts: bool, key: str, note: Note | None = None) -> None:
    """Merge an exact answer into an index being built, all or nothing (see module docstring).
    ``live_fts``: the FTS table is kept row by row (an incremental build), else rebuilt later.
    ``note``: told which rows are about to be deleted (for per-row indexes kept incrementally);
    every inserted row has an id above all ids that existed before."""
    con.execute("SAVEPOINT exact")
    try:
        _stage(con, decls, report)
        _reset(con, live_fts, note)
        _merge(con, report, live_fts, note)
        con.execute("INSERT OR REPLACE INTO meta VALUES (?, ?)", (META_KEY, key))
    except BaseException:
        con.execute("ROLLBACK TO exact")
        con.execute("RELEASE exact")
        con.execute("DROP TABLE IF EXISTS temp.exact_in")
        con.execute("DROP TABLE IF EXISTS temp.exact_gone")
        for k in ("constants", "confirmed", "added", "typed", "unplaced"):
            setattr(report, k, 0)
        raise
    con.execute("RELEASE exact")
    con.execute("DROP TABLE temp.exact_in")
    report.ran = True


class ExactPass:
    """The build step `store.build_index` calls (``step=``): decides whether the exact pass is
    due (``stale``) and merges Lean's answer into the connection of the build (``apply``)."""

    def __init__(self, workspace: Path, lake: Path, *, timeout_s: float = DEFAULT_TIMEOUT_S,
                 progress=None, retry: bool = True) -> None:
        self.workspace, self.lake, self.timeout_s = workspace, lake, timeout_s
        self.retry = retry  # False: a build whose pass failed before is not asked again
        self.progress = progress  # (package, done, total) like the scanner's
        self.report = ExactReport()

    def _plan(self, con: sqlite3.Connection) -> tuple[list[str], str]:
        roots = built_roots(con.execute("SELECT name, root FROM packages ORDER BY rowid"))
        return [m for m, _ in roots], exact_key(self.workspace, roots)

    def stale(self, path: Path) -> bool:
        """Would an exact pass change the current (complete) index file?"""
        con = sqlite3.connect(f"file:{path}?mode=ro", uri=True, timeout=10)
        try:
            mods, key = self._plan(con)
            meta = dict(con.execute("SELECT key, value FROM meta WHERE key IN (?, ?)",
                                    (META_KEY, FAILED_KEY)))
        except sqlite3.Error:
            return True
        finally:
            con.close()
        return self._due(mods, key, meta)

    def _due(self, mods: list[str], key: str, meta: dict[str, str]) -> bool:
        if not mods:
            self.report.skipped = "no built module to import (run `lake build` first)"
            return False
        if meta.get(META_KEY) == key:
            self.report.ran, self.report.skipped = True, "unchanged since the last exact pass"
            return False
        if not self.retry and meta.get(FAILED_KEY) == key:
            self.report.skipped = ("it failed for this build before (`harness index --exact` "
                                   "retries)")
            return False
        return True

    def apply(self, con: sqlite3.Connection, live_fts: bool, note: Note | None = None) -> None:
        t0 = time.perf_counter()
        rep = self.report
        mods, key = self._plan(con)
        rep.modules = mods
        meta = dict(con.execute("SELECT key, value FROM meta WHERE key IN (?, ?)",
                                (META_KEY, FAILED_KEY)))
        if not self._due(mods, key, meta if live_fts else {}):
            return  # (a full build starts empty: its earlier answer is not in the new file)

        def counted() -> Iterator[ExactDecl]:
            for i, d in enumerate(stream_export(self.lake, self.workspace, mods,
                                                timeout_s=self.timeout_s), 1):
                if self.progress and i % 5_000 == 0:
                    self.progress("exact pass (Lean)", i, None)  # type: ignore[arg-type]
                yield d

        try:
            merge_stream(con, counted(), rep, live_fts=live_fts, key=key, note=note)
        except ExactFailed as err:
            rep.error = str(err)
            con.execute("INSERT OR REPLACE INTO meta VALUES (?, ?)", (FAILED_KEY, key))
        else:
            con.execute("DELETE FROM meta WHERE key = ?", (FAILED_KEY,))
        rep.seconds = round(time.perf_counter() - t0, 3)


def exact_step(workspace: Path, mode: str, *, lake: str | None = None,
               timeout_s: float | None = None) -> tuple[ExactPass | None, str]:
    """The exact pass for `harness index`: ``mode`` is `on` (required: a missing Lean or an
    unbuilt workspace is a usage error, exit 2), `auto` (when Lean and a build are there) or
    `off`. Returns the step (or None) and, when None, why it is skipped."""
    from harness.errors import UsageError
    from harness.lean.toolchain import find_lake
    from harness.library.sources import discover

    if mode == "off":
        return None, "not requested (--no-exact)"
    try:
        path = find_lake(lake)
    except UsageError as err:
        if mode == "on":
            raise UsageError(f"index --exact: {err}") from None
        return None, "no Lean toolchain found"
    if not built_roots((p.name, p.root) for p in discover(workspace)):
        why = ("nothing is built (no .olean under .lake/build/lib/lean/ of the workspace or any "
               "package); run `lake build` first")
        if mode == "on":
            raise UsageError(f"index --exact: {why}")
        return None, why
    return ExactPass(workspace, path, timeout_s=timeout_s or DEFAULT_TIMEOUT_S,
                     retry=mode == "on"), ""
