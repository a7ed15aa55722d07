"""Blueprint-driven proving harness for Lean 4.

Public surface: :func:`harness.blueprint.parse_file`, :func:`harness.blueprint.parse_text`,
:func:`harness.blueprint.dag.analyse`, and the CLI (``python -m harness``).

Imports nothing but built-in modules (tests/cli/test_startup_interrupt.py): this runs before
``harness/__main__.py`` and the CLI's signal handling. Started as the command, it makes a ^C
from here until the CLI installs its handlers (harness/signals.py) one line and exit 130 — not a
KeyboardInterrupt traceback from the middle of an import.
"""

import sys as _sys

__version__ = "0.1.0"

_early_pid: list[int] = []  # the process that installed the handler (a fork does not own it)


def _interrupted_early(signum: int, frame: object) -> None:
    """SIGINT while the command is still loading: nothing to clean up yet."""
    import os  # loaded at start-up: no import runs here

    if _early_pid and os.getpid() != _early_pid[0]:  # a forked child dies of it, silently
        import _signal

        _signal.signal(signum, _signal.SIG_DFL)
        os.kill(os.getpid(), signum)
        return
    try:
        os.write(2, b"harness: interrupted\n")
    except OSError:  # the terminal is gone: the status still says it
        pass
    os._exit(128 + signum)


def _started_as_command() -> bool:
    """`python [opts] -m harness …` (runpy is importing this package for ``__main__``), or the
    `harness` script (its ``__main__`` is the script, importing harness.cli)."""
    argv, orig = _sys.argv, getattr(_sys, "orig_argv", [])
    if argv[:1] == ["-m"]:
        for i, a in enumerate(orig[1:], 1):
            if a == "-m":
                return orig[i + 1:i + 2] == ["harness"]
            if a.startswith("-m"):
                return a == "-mharness"
        return False
    main = _sys.modules.get("__main__")
    return bool(argv) and argv[0].rsplit("/", 1)[-1] == "harness" and \
        getattr(main, "__file__", None) == argv[0]


if _started_as_command():
    import _signal  # built in (no file to load); `signal` would import enum

    # an ignored SIGINT stays ignored (nohup, a background job), as the CLI's handler does
    if _signal.getsignal(_signal.SIGINT) is _signal.default_int_handler:
        import os as _os

        _early_pid.append(_os.getpid())
        _signal.signal(_signal.SIGINT, _interrupted_early)
