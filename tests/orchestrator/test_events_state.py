"""Event log (torn tails, corruption, schema), state rebuild, run lock."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys

import pytest

from harness.errors import InputError, UsageError
from harness.orchestrator.events import SCHEMA_VERSION, EventLog, read_events
from harness.orchestrator.state import RunLock, live_status, rebuild, run_dir, run_id_for


def test_append_read_and_torn_tail(tmp_path) -> None:
    p = tmp_path / "events.jsonl"
    with EventLog(p) as log:
        log.append("run_started", run_id="r")
        log.append("dispatch", aid="a#1", node="a", attempt=1, worker=0)
    with open(p, "ab") as f:
        f.write(b'{"v":1,"seq":3,"kind":"attempt","aid":"a#1","no')  # cut by kill -9
    r = read_events(p)
    assert [e["kind"] for e in r.events] == ["run_started", "dispatch"] and r.torn_at
    assert all(e["v"] == SCHEMA_VERSION for e in r.events)
    log = EventLog(p)  # opening for append truncates the torn tail
    assert log.repaired and log.seq == 2
    log.append("note", message="x")
    log.close()
    r = read_events(p)
    assert r.torn_at is None and [e["seq"] for e in r.events] == [1, 2, 3]
    # a complete JSON object without its newline is still a torn write
    with open(p, "ab") as f:
        f.write(b'{"v":1,"seq":4,"kind":"note"}')
    assert read_events(p).torn_at is not None


def test_corruption_and_future_schema_are_errors(tmp_path) -> None:
    p = tmp_path / "events.jsonl"
    p.write_bytes(b'{"v":1,"seq":1,"kind":"note"}\nGARBAGE\n{"v":1,"seq":2,"kind":"note"}\n')
    with pytest.raises(InputError) as e:
        read_events(p)
    assert e.value.line() == f"{p}:2:0: corrupt event log line: Expecting value: line 1 " \
                             "column 1 (char 0)"
    p.write_bytes(b'{"v":99,"seq":1,"kind":"note"}\n')
    with pytest.raises(InputError, match="schema version 99"):
        read_events(p)


def test_rebuild_counts_attempts_pending_and_merges() -> None:
    evs = [
        {"v": 1, "seq": 1, "t": 10.0, "kind": "run_started", "run_id": "r"},
        {"v": 1, "seq": 2, "t": 11.0, "kind": "dispatch", "aid": "a#1", "node": "a"},
        {"v": 1, "seq": 3, "t": 12.0, "kind": "dispatch", "aid": "b#1", "node": "b"},
        {"v": 1, "seq": 4, "t": 13.0, "kind": "attempt", "aid": "a#1", "node": "a", "ok": True,
         "body": "by simp", "cost": 0.5, "tokens": 7},
        {"v": 1, "seq": 5, "t": 14.0, "kind": "dispatch", "aid": "c#1", "node": "c"},
        {"v": 1, "seq": 6, "t": 15.0, "kind": "attempt", "aid": "c#1", "node": "c", "ok": False,
         "reason": "no"},
        {"v": 1, "seq": 7, "t": 20.0, "kind": "run_resumed", "run_id": "r"},
    ]
    st = rebuild(evs)
    assert st.sessions == 2 and st.inflight == {}  # b#1's worker died with the session
    assert set(st.accepted) == {"a#1"} and st.attempts == {"a": 1, "c": 1}
    assert st.failures == {"c": 1} and st.feedback == {"c": ["no"]}
    assert st.cost == 0.5 and st.tokens == 7 and st.elapsed_before == 5.0
    evs += [{"v": 1, "seq": 8, "t": 21.0, "kind": "merged", "batch": "b8", "commit": "abc",
             "nodes": ["a"], "aids": ["a#1"]}]
    st = rebuild(evs)
    assert st.accepted == {} and st.merged_nodes == {"a": "abc"}


def test_lock_live_stale_and_corrupt(tmp_path) -> None:
    p = tmp_path / "lock.json"
    a = RunLock(p)
    a.acquire()
    with pytest.raises(UsageError, match="already in progress"):
        RunLock(p).acquire()
    a.release()
    assert not p.exists()
    dead = subprocess.Popen([sys.executable, "-c", "pass"])
    dead.wait()
    p.write_text(json.dumps({"pid": dead.pid, "host": socket.gethostname()}))
    b = RunLock(p)
    b.acquire()
    assert b.took_over and b.took_over["pid"] == dead.pid
    assert json.loads(p.read_text())["pid"] == os.getpid()
    b.release()
    p.write_text('{"pid": 1')  # half-written
    c = RunLock(p)
    c.acquire()
    assert c.took_over == {"corrupt": True}
    c.release()
    p.write_text(json.dumps({"pid": 1, "host": "elsewhere.example"}))
    with pytest.raises(UsageError, match="on host elsewhere.example"):
        RunLock(p).acquire()


def test_live_status_none_then_state(tmp_path) -> None:
    f = tmp_path / "A.lean"
    assert live_status(tmp_path, f) is None
    d = run_dir(tmp_path, f)
    assert d.name == run_id_for(tmp_path, f) and d.name.startswith("A-")
    with EventLog(d / "events.jsonl") as log:
        log.append("run_started", run_id=d.name)
        log.append("dispatch", aid="x#1", node="x", attempt=1, worker=2)
    lock = RunLock(d / "lock.json")
    lock.acquire()
    st = live_status(tmp_path, f)
    assert st["active"] and st["workers"] == [{"worker": 2, "node": "x", "attempt": 1,
                                                "since": st["workers"][0]["since"]}]
    lock.release()
    st = live_status(tmp_path, f)
    assert not st["active"] and st["workers"] == [] and not st["stale_lock"]


def test_status_says_how_the_last_session_ended(tmp_path) -> None:
    """`status` after a ^C says "interrupted", not "finished" (the stop reason reaches it)."""
    from harness.commands.status import describe_run

    f = tmp_path / "A.lean"
    d = run_dir(tmp_path, f)
    with EventLog(d / "events.jsonl") as log:
        log.append("run_started", run_id=d.name)
        log.append("run_finished", stop_reason="interrupted", exit_code=130)
    st = live_status(tmp_path, f)
    assert st["finished"] and st["stop_reason"] == "interrupted"
    assert "interrupted (`harness run` resumes it)" in describe_run(st)
    with EventLog(d / "events.jsonl") as log:
        log.append("run_resumed", run_id=d.name)
        log.append("run_finished", stop_reason="no Lean toolchain found", exit_code=3)
    assert "finished: no Lean toolchain found" in describe_run(live_status(tmp_path, f))
