"""The run's event log: ``.harness/runs/<id>/events.jsonl``.

One JSON object per line, append-only, written per event with one unbuffered write (and fsynced
for the events that carry accepted work), each with the schema
version ``v``, a sequence number ``seq`` and a wall-clock time ``t``. After a ``kill -9`` the
last line may be torn (no newline, or not JSON): the reader reports it and the writer truncates
it before appending. A bad line anywhere else is corruption and is never skipped silently.
"""

from __future__ import annotations

import json
import os
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from harness.errors import InputError

SCHEMA_VERSION = 1

# Event kinds (the schema; docs/orchestrator.md describes the fields).
# Each event is written with one unbuffered write (whole line): that survives kill -9 of this
# process. These are also fsynced (survive an OS crash): what would lose accepted work.
DURABLE = frozenset({"attempt", "merged", "reconciled", "unmerged", "locked", "run_finished",
                     "blocked", "escalated", "unblocked", "voided"})

KINDS = frozenset({
    "run_started", "run_resumed", "run_finished", "stage", "construct", "audit", "refine",
    "locked", "dispatch", "attempt", "repair", "blocked", "gate", "merge_intent", "merged",
    "reconciled", "unmerged", "cost", "note",
    "certified", "reopened",  # the final certification (orchestrator/certify.py)
    "compile", "restate", "restated",  # stage 1: Lean errors, their repair, changed statements
    "breakage",  # stage 2: the record fails the gate outside a batch (and the repair step)
    "placed", "lost",  # a Ray executor: where an attempt runs; an attempt a dying worker lost
    "escalated", "unblocked",  # an agent handed a node to a person; `resume-node` handed it back
    "importers",  # a project run: the files importing a merged file, compiled or skipped (why)
    "voided",  # a rolled-back repair: its events (`seqs`) no longer count; their spend does
})
# the events of a repair step whose commits were rolled back (`voided`)
VOIDABLE = frozenset({"compile", "restate", "restated", "audit", "refine"})


def voided(events: list[dict[str, Any]]) -> set[int]:
    """The ``seq`` of every event a ``voided`` event names: a repair rolled back, so its
    rounds and changed statements do not count (its cost and tokens still do: they were paid)."""
    return {int(s) for e in events if e.get("kind") == "voided" for s in e.get("seqs") or ()}


@dataclass
class LogRead:
    events: list[dict[str, Any]]
    torn_at: int | None  # byte offset of a torn last line (None when the file ends cleanly)


def read_events(path: Path) -> LogRead:
    """Parse the log; a torn *last* line is reported (``torn_at``), never returned."""
    try:
        data = path.read_bytes()
    except FileNotFoundError:
        return LogRead([], None)
    events: list[dict[str, Any]] = []
    offset = 0
    *complete, tail = data.split(b"\n")  # tail: bytes after the last newline (torn if any)
    for i, raw in enumerate(complete):
        try:
            ev = json.loads(raw)
            if not isinstance(ev, dict) or "kind" not in ev:
                raise ValueError("not an event object")
        except (ValueError, UnicodeDecodeError) as err:
            raise InputError(path, i + 1, 0, f"corrupt event log line: {err}") from None
        v = ev.get("v")
        if not isinstance(v, int) or v > SCHEMA_VERSION:
            raise InputError(path, i + 1, 0,
                             f"event schema version {v!r} is not supported (this harness "
                             f"reads up to {SCHEMA_VERSION})")
        events.append(ev)
        offset += len(raw) + 1
    return LogRead(events, offset if tail else None)


class EventLog:
    """Appender. Opening it repairs a torn tail (truncates it) so the file stays valid JSONL."""

    def __init__(self, path: Path) -> None:
        self.path = path
        path.parent.mkdir(parents=True, exist_ok=True)
        read = read_events(path)
        self.repaired = read.torn_at is not None
        if read.torn_at is not None:
            with open(path, "r+b") as f:
                f.truncate(read.torn_at)
                f.flush()
                os.fsync(f.fileno())
        self.events = read.events
        self.seq = max((e.get("seq", 0) for e in read.events), default=0)
        self._f = open(path, "ab", buffering=0)

    def append(self, kind: str, **data: Any) -> dict[str, Any]:
        assert kind in KINDS, kind
        self.seq += 1
        ev = {"v": SCHEMA_VERSION, "seq": self.seq, "t": round(time.time(), 3), "kind": kind,
              **data}
        self._f.write(json.dumps(ev, ensure_ascii=False, separators=(",", ":"),
                                 default=str).encode() + b"\n")
        if kind in DURABLE:
            os.fsync(self._f.fileno())
        self.events.append(ev)
        return ev

    def close(self) -> None:
        self._f.close()

    def __enter__(self) -> "EventLog":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
