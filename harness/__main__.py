import os
import signal
import sys


def _run() -> int:
    try:
        from harness.cli import main  # a ^C during these imports comes before main's handling

        return main()
    except KeyboardInterrupt:
        from harness import signals

        sig = signals.received() or signal.SIGINT
        try:
            word = "terminated" if sig == signal.SIGTERM else "interrupted"
            print(f"harness: {word}", file=sys.stderr)
        except (OSError, ValueError):
            pass
        return signals.exit_status(sig)


def _leave(signum: int, frame: object) -> None:
    """The answer is given: a ^C or SIGTERM while Python shuts down (joining a worker thread
    still waiting on Lean) ends the process now, with the answer's status — no traceback, and
    never ignored (a blocked signal would leave `timeout`/a scheduler waiting)."""
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except (OSError, ValueError):
            pass
    os._exit(code)


code = _run()
if code in (130, 143):
    # interrupted, cleaned up: exit with that status now. CPython would otherwise end a process
    # whose KeyboardInterrupt once left an exec() of a string (a dataclass or namedtuple being
    # made while the ^C landed) by killing itself with SIGINT, even though it was caught
    # (Python/pythonrun.c run_eval_code_obj; the kill: python/cpython#11862)
    _leave(signal.SIGINT, None)
signal.signal(signal.SIGINT, _leave)
signal.signal(signal.SIGTERM, _leave)
sys.exit(code)
