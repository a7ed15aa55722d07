"""connect.signals_held is exception-safe at its edge: a ^C whose handler runs as the block call
returns (the signal came just before it; CPython runs handlers when a builtin call returns) must
not leave SIGINT/SIGTERM blocked on the main thread for the rest of the process (the clean-up
deaf to a second ^C, and every later child without an at-fork hook born with them blocked)."""

from __future__ import annotations

import signal

import pytest

pytest.importorskip("ray", reason="ray is not installed (pip install -e '.[ray]')")

from harness.cluster import connect  # noqa: E402


def test_an_interrupt_as_the_hold_begins_leaves_the_mask_as_it_was(monkeypatch) -> None:
    real = signal.pthread_sigmask
    before = real(signal.SIG_BLOCK, [])

    def block_then_interrupted(how, mask):
        out = real(how, mask)
        if how == signal.SIG_BLOCK and set(connect.HELD) <= set(mask):
            raise KeyboardInterrupt  # the pending handler, run at this call's return
        return out

    monkeypatch.setattr(signal, "pthread_sigmask", block_then_interrupted)
    with pytest.raises(KeyboardInterrupt):
        with connect.signals_held():
            pytest.fail("the hold's body must not run")
    monkeypatch.undo()
    assert real(signal.SIG_BLOCK, []) == before
    assert connect._held_mask == []


def test_the_hold_blocks_inside_and_restores_after() -> None:
    before = signal.pthread_sigmask(signal.SIG_BLOCK, [])
    with connect.signals_held():
        inside = signal.pthread_sigmask(signal.SIG_BLOCK, [])
        assert set(connect.HELD) <= inside and connect._held_mask == [before]
    assert signal.pthread_sigmask(signal.SIG_BLOCK, []) == before and connect._held_mask == []
