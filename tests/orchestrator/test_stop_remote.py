"""An interrupt with attempts running elsewhere (the Ray executor: ``remote``) cancels them at
once; the stop waits only for this machine's threads (procs.stop_interrupted, Stage2._busy)."""

from __future__ import annotations

import signal

from harness.orchestrator import procs


class _Executor:
    def __init__(self, remote: bool) -> None:
        self.remote, self.calls = remote, []

    def running(self) -> int:
        self.calls.append("running")
        return 1  # an attempt never finishes on its own here

    def abort(self) -> None:
        self.calls.append("abort")

    def shutdown(self) -> None:
        self.calls.append("shutdown")


def test_remote_attempts_are_cancelled_without_waiting_for_them():
    ex = _Executor(remote=True)
    try:
        procs.stop_interrupted(ex)
    finally:
        procs.unshield()
    assert ex.calls == ["abort"]  # never polled: nothing on this machine to wait for


def test_local_attempts_are_waited_for_then_aborted(monkeypatch):
    ex = _Executor(remote=False)
    monkeypatch.setattr(procs, "ABORT_S", 0.2)
    monkeypatch.setattr(procs.abort, "__defaults__", (0.2,))
    try:
        procs.stop_interrupted(ex)
    finally:
        procs.unshield()
    assert ex.calls[0] == "running" and ex.calls[-1] == "abort"
    assert signal.getsignal(signal.SIGINT) is not signal.SIG_IGN


def test_the_stage_loop_waits_only_for_work_on_this_machine():
    from harness.orchestrator.stage2 import Stage2

    class _S:
        _gate_job = None
        executor = _Executor(remote=True)

    assert Stage2._busy(_S()) is False and _S.executor.calls == []
    _S.executor = _Executor(remote=False)
    assert Stage2._busy(_S()) is True
