"""Joining (or starting) Ray for a run, without losing the harness's signal handling or stdout.

``ray.init`` replaces the driver's SIGTERM handler with one that calls ``sys.exit(15)``
(ray 2.60 ray/_private/worker.py, ``init``; the head node's, ray/_private/node.py, kills Ray's
processes and exits 1): a SIGTERM landing while it runs ended the process with status 15,
without the run's clean-up (no 143, no result.json saying "interrupted"), and a ^C in its
middle would leave a Ray half started. So SIGINT and SIGTERM are blocked on the main thread
around ``ray.init`` (threads it starts inherit the mask; the processes it forks get the old
mask back in an at-fork hook), Ray's handler installation is a no-op meanwhile, and the
harness's handlers (harness/signals.py) are put back *before* unblocking: a signal that came
meanwhile is then handled by the harness (KeyboardInterrupt / Terminated: 130 / 143 with the
run's record), after the Ray instance this process just started is shut down.
"""

from __future__ import annotations

import os
import signal
import threading
from contextlib import contextmanager
from typing import Any, Iterator

import ray

from harness.cluster.node import NAMESPACE
from harness.cluster.worker import GIB
from harness.errors import UsageError

HELD = (signal.SIGINT, signal.SIGTERM)


def connect(address: str | None, *, workers: int, runtime_env: dict[str, Any] | None = None
            ) -> bool:
    """Join the cluster at ``address`` ("auto": the one ``ray start`` runs here), or start a
    Ray instance on this machine with ``workers`` CPUs. True when this process started it."""
    if ray.is_initialized():
        return False
    _errors_to_stderr()
    kw: dict[str, Any] = dict(namespace=NAMESPACE, include_dashboard=False, log_to_driver=False,
                              logging_level="ERROR", runtime_env=runtime_env)
    started = False
    try:
        with signals_held(), _ray_keeps_our_sigterm():
            try:
                if address is None:
                    ray.init(num_cpus=workers, **kw)
                    started = True
                else:
                    ray.init(address=address, **kw)
            except (ConnectionError, RuntimeError, ValueError, TimeoutError) as err:
                where = address or "this machine"
                raise UsageError(f"run: cannot reach a Ray cluster at {where}: "
                                 f"{str(err).splitlines()[0] if str(err) else type(err).__name__}"
                                 " (start one with `ray start --head`, docs/cluster.md)") from None
    except KeyboardInterrupt:  # a signal held during ray.init, handled by the harness now:
        if ray.is_initialized():  # stop the instance we started (a joined cluster: leave it)
            ray.shutdown()
        raise
    return started


_held_mask: list[set[int]] = []  # while held: the mask a child process must get back
_at_fork: list[bool] = []


def _child_mask() -> None:
    """In a child forked while the signals are held (Ray's processes: its Popen has a
    preexec_fn, so CPython runs the at-fork hooks in the child): the mask from before the hold.
    Else Ray's gcs/raylet/workers would start with SIGTERM blocked — deaf to `ray.shutdown`'s
    terminate (5.3 s instead of 1.3 s to stop here, then SIGKILL) and to Slurm's SIGTERM."""
    if _held_mask:
        signal.pthread_sigmask(signal.SIG_SETMASK, _held_mask[-1])


@contextmanager
def signals_held() -> Iterator[None]:
    """SIGINT and SIGTERM blocked on the main thread inside; on the way out the handlers found
    on entry are put back, then the signals unblocked (a pending one is handled by them).
    Elsewhere than on the main thread: nothing to hold (Python's handlers run there only)."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    if not _at_fork:
        os.register_at_fork(after_in_child=_child_mask)
        _at_fork.append(True)
    saved = {s: signal.getsignal(s) for s in HELD}
    old = signal.pthread_sigmask(signal.SIG_BLOCK, [])  # read only: nothing to undo yet
    try:
        # inside the try: a signal that came just before is handled as a call here returns,
        # and its KeyboardInterrupt must still unblock (else the mask stays for good)
        _held_mask.append(old)
        signal.pthread_sigmask(signal.SIG_BLOCK, HELD)
        yield
    finally:
        if _held_mask and _held_mask[-1] is old:
            _held_mask.pop()
        for s, handler in saved.items():
            if handler is not None and signal.getsignal(s) is not handler:
                signal.signal(s, handler)
        signal.pthread_sigmask(signal.SIG_SETMASK, old)


@contextmanager
def _ray_keeps_our_sigterm() -> Iterator[None]:
    """ray.init installs its SIGTERM handlers (the driver's ``sys.exit(15)``, the head node's
    kill-and-exit) through ``ray._private.utils.set_sigterm_handler``; while it runs that does
    nothing. The mask holds signals only on the main thread: one delivered to a thread that
    existed before (the live view's refresher) is run by the handler in place — the harness's,
    which raises (connect then shuts the half-started Ray down), never Ray's exit."""
    try:
        from ray._private import utils as ray_utils
    except ImportError:
        yield
        return
    original = getattr(ray_utils, "set_sigterm_handler", None)
    if original is None:
        yield
        return
    ray_utils.set_sigterm_handler = lambda handler: None
    try:
        yield
    finally:
        ray_utils.set_sigterm_handler = original


def _errors_to_stderr() -> None:
    """Ray's driver prints the raylet's error messages ("A worker died …") on *stdout*
    (ray/_private/worker.py, listen_error_messages), which would corrupt `run --json`; they go
    to stderr instead (the executor reports a lost worker as its own `lost` event)."""
    try:
        from ray._private import worker as ray_worker
    except ImportError:
        return
    original = getattr(ray_worker, "print_to_stdstream", None)
    if original is None or getattr(original, "_harness", False):
        return

    def to_stderr(data: dict[str, Any], ignore_prefix: bool) -> None:
        original({**data, "is_err": True}, ignore_prefix)

    to_stderr._harness = True  # type: ignore[attr-defined]
    ray_worker.print_to_stdstream = to_stderr


def check_capacity(lean_memory_gb: float) -> None:
    """Some node must hold one attempt's Lean plus the node's warm Lean."""
    nodes = [n for n in ray.nodes() if n.get("Alive")]
    need = 2 * lean_memory_gb * GIB
    if not any(n["Resources"].get("CPU", 0) >= 1 and n["Resources"].get("memory", 0) >= need
               for n in nodes):
        best = max((n["Resources"].get("memory", 0) for n in nodes), default=0) / GIB
        raise UsageError(f"run: no Ray node has a CPU and {need / GIB:g} GB of memory for an "
                         f"attempt's Lean and the node's warm Lean (largest: {best:.1f} GB); "
                         "set [run] lean_memory_gb")
