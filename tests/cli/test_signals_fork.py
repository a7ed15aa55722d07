"""A ^C that reaches a forked child of the CLI (the whole foreground process group gets it) before
the child execs must not print the parent's KeyboardInterrupt traceback (CI saw "Exception
ignored in … Random.seed … KeyboardInterrupt" from a ``preexec_fn`` child's at-fork hook)."""

from __future__ import annotations

import signal
import subprocess
import sys
import textwrap

# The CLI's handlers installed, then a child forked the way lean/run.py forks one (a
# ``preexec_fn`` runs CPython's at-fork hooks); the ^C lands in an at-fork hook, as random's
# reseed did. The real group-wide ^C is driven in tests/orchestrator/test_terminal.py.
_SCRIPT = textwrap.dedent("""
    import os, signal, subprocess, sys
    from harness import signals
    signals.install()
    def hit():
        os.kill(os.getpid(), signal.SIGINT)
        sum(range(1000))  # the handler runs at the next bytecode boundary
    os.register_at_fork(after_in_child=hit)
    child = subprocess.run([sys.executable, "-c", "pass"], preexec_fn=lambda: None, timeout=60)
    print("child", child.returncode, "parent", signals.received(), flush=True)
""")


def test_a_forked_child_dies_of_the_signal_without_a_traceback() -> None:
    out = subprocess.run([sys.executable, "-c", _SCRIPT], capture_output=True, text=True,
                         timeout=120)
    assert "Traceback" not in out.stderr and "KeyboardInterrupt" not in out.stderr, out.stderr
    assert out.returncode == 0, out.stderr
    # the child died of SIGINT before exec; the parent was not signalled
    assert out.stdout.split() == ["child", str(-signal.SIGINT), "parent", "None"], out.stdout


def test_the_installing_process_still_raises() -> None:
    script = textwrap.dedent("""
        import os, signal
        from harness import signals
        signals.install()
        try:
            os.kill(os.getpid(), signal.SIGINT)
            sum(range(1000))
        except KeyboardInterrupt:
            print("raised", signals.received())
    """)
    out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                         timeout=120)
    assert out.stdout.split() == ["raised", str(int(signal.SIGINT))], out.stdout + out.stderr
