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


code = _run()
# the answer is given: a ^C from now on must not turn the exit into a traceback at shutdown
signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT, signal.SIGTERM})
sys.exit(code)
