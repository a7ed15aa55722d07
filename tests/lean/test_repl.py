"""REPL client and pool against the fake REPL (`lake env repl`), plus recorded answers."""

from __future__ import annotations

import json
import threading
from pathlib import Path

import pytest

from harness.lean.pool import ReplPool
from harness.lean.repl import (
    ReplClient, ReplCrashed, ReplError, ReplTimeout, parse_response, split_answers,
)
from tests.lean.conftest import FIXTURES
from tests.lean.test_run import _wait_dead
from tests.support.fakelean import FAKE_LAKE

ARGV = [str(FAKE_LAKE), "env", "repl"]
HEADER = "import Std\n\ndef base : Nat := 1"


def _repl_calls(log: Path) -> int:
    if not log.exists():
        return 0
    return sum(1 for x in log.read_text().splitlines() if json.loads(x)[0] == "repl")


@pytest.mark.parametrize("name", sorted(p.stem.split(".")[0] for p in
                                        (FIXTURES / "repl").glob("*.expected.out")))
def test_recorded_answers_parse(name: str) -> None:
    raw = (FIXTURES / "repl" / f"{name}.expected.out").read_bytes()
    chunks, rest = split_answers(raw)
    assert rest == b"" and chunks
    for c in chunks:
        r = parse_response(json.loads(c))
        assert r.raw
    if name == "have_by_sorry":
        last = parse_response(json.loads(chunks[-1]))
        assert last.sorries[0].pos is None and last.sorries[0].proof_state == 2
        assert last.proof_status == "Incomplete: open goals remain"
    if name == "unknown_environment":
        assert parse_response(json.loads(chunks[0])).error == "Unknown environment."
    if name == "invalid_tactic":
        r = parse_response(json.loads(chunks[1]))
        assert r.messages[0].pos.line == 0 and r.has_errors and r.goals == []


def test_split_answers_keeps_partial_tail() -> None:
    chunks, rest = split_answers(b'{"env": 0}\n\n{"env":\n 1}\n\n{"mess')
    assert chunks == [b'{"env": 0}', b'{"env":\n 1}'] and rest == b'{"mess'


def test_commands_tactics_and_errors(tmp_path: Path, fake_lake) -> None:
    with ReplClient(ARGV, cwd=tmp_path, header=HEADER, timeout_s=30) as repl:
        assert repl.header_env == 0
        r = repl.command("theorem t (x : Nat) : x = x := by\n  sorry")
        assert r.env == 1 and r.messages[0].is_sorry and r.messages[0].severity == "warning"
        (s,) = r.sorries
        assert s.goal == "x : Nat\n⊢ x = x" and (s.pos.line, s.pos.col) == (2, 2)
        done = repl.tactic("rfl", s.proof_state)
        assert done.proof_status == "Completed" and done.goals == []
        bad = repl.tactic("exat 1", s.proof_state)
        assert bad.error == "Lean error:\n<input>:1:1: unknown tactic"
        ax = repl.command("#print axioms base")  # the header's environment is the default
        assert ax.messages[0].severity == "information"
        assert ax.messages[0].data == "'base' does not depend on any axioms"
        fresh = repl.command("#print axioms t", env=r.env)  # reuse an env id
        assert fresh.messages[0].data == "'t' depends on axioms: [sorryAx]"
        repl._envs.add(99)  # an id the REPL never issued: its own error object comes back
        assert repl.command("def z := 0", env=99).error == "Unknown environment."
        with pytest.raises(ReplError, match="does not belong"):
            repl.command("def z := 0", env=12345)
        with pytest.raises(ReplError):
            repl.tactic("rfl", 777)
        pid = repl.pid
    assert _wait_dead(pid) is None


def test_timeout_kills_and_respawns_with_header(tmp_path: Path, fake_lake) -> None:
    log = tmp_path / "fake-calls.log"
    repl = ReplClient(ARGV, cwd=tmp_path, header=HEADER, timeout_s=30)
    try:
        repl.start()
        first = repl.pid
        with pytest.raises(ReplTimeout):
            repl.command("theorem h : 1 = 1 := by\n  fake_hang", timeout_s=1.5)
        assert not repl.alive and repl.restarts == 1
        assert _wait_dead(first) is None  # killed and reaped
        ok = repl.command("#print axioms base")  # respawned: header elaborated again
        assert repl.pid != first and ok.messages[0].data == "'base' does not depend on any axioms"
        assert _repl_calls(log) == 2
    finally:
        repl.close()


def test_crash_memory_cap_and_recycling(tmp_path: Path, fake_lake) -> None:
    repl = ReplClient(ARGV, cwd=tmp_path, header=HEADER, timeout_s=30, mem_mb=300, max_commands=3)
    try:
        with pytest.raises(ReplCrashed, match="PANIC"):
            repl.command("theorem c : 1 = 1 := by\n  fake_crash")
        with pytest.raises(ReplCrashed, match="out of memory"):
            repl.command("theorem m : 1 = 1 := by\n  fake_oom")
        pids = set()
        for i in range(5):
            r = repl.command(f"theorem t{i} : 1 = 1 := rfl")
            assert r.env is not None and not r.has_errors
            pids.add(repl.pid)
        assert len(pids) == 2 and repl.restarts >= 3  # crash, oom, one recycle
    finally:
        repl.close()


def test_header_failure(tmp_path: Path, fake_lake) -> None:
    repl = ReplClient(ARGV, cwd=tmp_path, header="def x : Nat := bogus_value", timeout_s=30)
    with pytest.raises(ReplError, match="header failed: Unknown identifier `bogus_value`"):
        repl.start()
    assert not repl.alive


def test_pool_under_concurrent_use(tmp_path: Path, fake_lake) -> None:
    pool = ReplPool(ARGV, cwd=tmp_path, budget_mb=4096, per_repl_mb=2048, timeout_s=30)
    assert pool.size == 2
    headers = {k: f"def base{k} : Nat := {k}" for k in range(3)}
    errors: list[BaseException] = []
    peak = [0]
    lock = threading.Lock()

    def worker(i: int) -> None:
        try:
            for j in range(3):
                k = (i + j) % 3
                with pool.session(headers[k]) as repl:
                    with lock:
                        peak[0] = max(peak[0], pool.live)
                    r = repl.command(f"#print axioms base{k}")
                    assert r.messages[0].data == f"'base{k}' does not depend on any axioms", r
                    r = repl.command(f"theorem w{i}_{j} : 1 = 1 := by\n  sorry")
                    assert r.messages[0].is_sorry and r.sorries[0].proof_state is not None
        except BaseException as err:  # surfaced below
            errors.append(err)

    # deterministic part: the same header twice (reuse), then two more headers (eviction)
    for k in (0, 0, 1, 2):
        with pool.session(headers[k]) as repl:
            assert repl.command(f"#print axioms base{k}").messages
    assert pool.reused >= 1 and pool.evicted >= 1
    threads = [threading.Thread(target=worker, args=(i,)) for i in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(120)
    pids = [c.pid for c in pool._idle]
    pool.close()
    assert not errors, errors[0]
    assert peak[0] <= pool.size  # concurrency never exceeds the memory budget
    assert pool.started == pool.evicted + len(pids)
    assert pool.live == 0 and all(_wait_dead(p) is None for p in pids if p)


def test_pool_keeps_client_after_timeout(tmp_path: Path, fake_lake) -> None:
    with ReplPool(ARGV, cwd=tmp_path, budget_mb=1024, per_repl_mb=1024, timeout_s=30) as pool:
        with pytest.raises(ReplTimeout):
            pool.command(HEADER, "theorem h : 1 = 1 := by fake_hang", timeout_s=1.5)
        r = pool.command(HEADER, "#print axioms base")
        assert r.messages[0].data == "'base' does not depend on any axioms"
        assert pool.started == 1 and pool.reused == 1
