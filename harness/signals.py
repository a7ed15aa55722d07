"""Which signal stopped us: the exit status of an interrupted command, whatever happened after.

The CLI installs :func:`install`: SIGINT raises KeyboardInterrupt and SIGTERM (Slurm, Ray, a
`timeout`) raises :class:`Terminated`, so every command cleans up the same way. The first signal
is remembered: a child process that died of the same signal (a terminal's ^C reaches the whole
foreground process group) can make the clean-up fail with another error (EPIPE on its pipe), and
that must not decide the exit status — :func:`received` does (130 / 143).

A forked child inherits the handler: a ``preexec_fn`` child between fork and exec (it runs
CPython's at-fork hooks, e.g. ``random``'s reseed, with the parent's stderr still open), or a
fork-started pool worker before its initializer. A ^C to the process group landing there must
not raise in the child (it printed "Exception ignored in … Random.seed … KeyboardInterrupt" on
the user's terminal): the child dies of the signal as an unhandled process would.
"""

from __future__ import annotations

import os
import signal
import threading

_received: list[int] = []  # the first signal this process was stopped by (at most one entry)
_owner: list[int] = []  # the pid that installed the handlers


class Terminated(KeyboardInterrupt):
    """SIGTERM: unwinds like Ctrl-C (Lean process groups killed, temporary files removed, run
    lock released, result written)."""


def on_signal(signum: int, frame: object) -> None:
    if _owner and os.getpid() != _owner[0]:  # a forked child: die of it, raise nothing
        signal.signal(signum, signal.SIG_DFL)
        os.kill(os.getpid(), signum)
        return
    if not _received:
        _received.append(signum)
    if signum == signal.SIGTERM:
        raise Terminated()
    raise KeyboardInterrupt()


def install() -> None:
    """From the main thread. An ignored SIGINT stays ignored (`nohup`, a background job)."""
    reset()
    if threading.current_thread() is not threading.main_thread():
        return
    _owner[:] = [os.getpid()]
    signal.signal(signal.SIGTERM, on_signal)
    from harness import _interrupted_early  # the command's start-up handler (harness/__init__)

    if signal.getsignal(signal.SIGINT) in (signal.default_int_handler, _interrupted_early):
        signal.signal(signal.SIGINT, on_signal)


def reset() -> None:
    _received.clear()


def received() -> int | None:
    """SIGINT or SIGTERM when one stopped this process (since :func:`install`), else None."""
    return _received[0] if _received else None


def exit_status(signum: int) -> int:
    """The shell's convention: 128 + the signal (130 for SIGINT, 143 for SIGTERM)."""
    return 128 + int(signum)
