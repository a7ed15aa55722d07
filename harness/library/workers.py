"""The initializer of the index's worker processes (scanner and posting-list counters)."""

from __future__ import annotations

import signal


def worker_init() -> None:
    """A forked worker inherits the CLI's handlers; ``Pool.terminate`` (also on leaving a
    ``with Pool``) sends SIGTERM, which would raise the CLI's ``Terminated`` in an idle worker
    and print its traceback. The worker just ends; Ctrl-C is the parent's to handle."""
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    signal.signal(signal.SIGINT, signal.SIG_IGN)
