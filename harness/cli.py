"""`python -m harness` — the command line.

Each module in :mod:`harness.commands` defines ``register(subparsers)``; the parser it adds sets
``func(args) -> int``. Errors surface as one line on stderr with a documented exit code
(see :mod:`harness.errors`); set ``HARNESS_DEBUG=1`` to get the traceback of an internal error.
"""

from __future__ import annotations

import argparse
import importlib
import os
import pkgutil
import re
import select
import signal
import sys
import traceback

from harness import __version__, signals
from harness.didyoumean import hint
from harness.gate.sanitize import printable
from harness.errors import ExitCode, HarnessError

EPILOG = "exit codes: 0 ok, 1 findings, 2 usage or input error, 3 cannot certify"


_CHOICE = re.compile(r"invalid choice: '([^']*)' \(choose from (.*)\)$")


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> None:  # argparse prints usage + exits 2; keep it one line
        m = _CHOICE.search(message)
        if m:  # a mistyped command or choice
            message += hint(m.group(1), re.findall(r"'([^']*)'", m.group(2)))
        self.exit(int(ExitCode.USAGE), f"{self.prog}: error: {message}\n")


def parse_args(parser: argparse.ArgumentParser, argv: list[str]) -> argparse.Namespace:
    """``parser.parse_args`` with a did-you-mean for a mistyped option (`--jsn`)."""
    args, extra = parser.parse_known_args(argv)
    if extra:
        sub = parser
        command = getattr(args, "command", None)
        for action in parser._actions:
            if isinstance(action, argparse._SubParsersAction) and command in action.choices:
                sub = action.choices[command]
        options = [o for a in sub._actions for o in a.option_strings]
        bad = next((x for x in extra if x.startswith("-")), "")
        parser.error(f"unrecognized argument{'s' if len(extra) > 1 else ''}: "
                     f"{' '.join(extra)}" + (hint(bad.split("=", 1)[0], options) if bad
                                             else ""))
    return args


def command_names() -> list[str]:
    import harness.commands as commands

    return sorted(m.name for m in pkgutil.iter_modules(commands.__path__)
                  if not m.name.startswith("_"))


def build_parser(only: str | None = None) -> argparse.ArgumentParser:
    """The full parser, or (``only``) one holding just that subcommand, so that running a
    command imports only its own module (the LLM SDK, for one, is slow to import)."""
    parser = _Parser(prog="harness", epilog=EPILOG,
                     description="Blueprint-driven proving harness for Lean 4 (LeanArchitect).")
    parser.add_argument("--version", action="version", version=f"harness {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=_Parser)
    for name in [only] if only else command_names():
        module = importlib.import_module(f"harness.commands.{name}")
        module.register(sub)
    return parser


def _requested(argv: list[str]) -> str | None:
    first = next((a for a in argv if not a.startswith("-")), None)
    mod = first.replace("-", "_") if first else None  # `resume-node` lives in resume_node.py
    return mod if mod in command_names() else None


# SIGTERM unwinds like Ctrl-C (harness/signals.py); kept under their old names here
Terminated = signals.Terminated
_on_sigterm = signals.on_signal


def _stdout_closed() -> bool:
    """Our stdout's reader is gone (`harness … | head`): the only EPIPE that means success.
    A pipe's write end polls POLLERR once it has no reader, a tty POLLHUP once it hung up."""
    try:
        p = select.poll()
        p.register(sys.stdout.fileno(), select.POLLOUT)
        return any(ev & (select.POLLERR | select.POLLHUP) for _, ev in p.poll(0))
    except (OSError, ValueError, AttributeError):  # no real stdout (e.g. captured in tests)
        return False


def _quiet_stdout() -> None:
    """After our stdout closed: point it at /dev/null so the interpreter's final flush does
    not print a second BrokenPipeError."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
    except (OSError, ValueError, AttributeError):
        pass


def _interrupted(signum: int) -> int:
    word = "terminated" if signum == signal.SIGTERM else "interrupted"
    try:
        print(f"harness: {word}", file=sys.stderr)
    except (OSError, ValueError):  # stderr gone with the terminal: the status still says it
        pass
    return signals.exit_status(signum)


def _lean_settings(args: argparse.Namespace) -> None:
    """`[lean]` (memory cap, sandbox) of the workspace's harness.toml for every command, not
    only those that load the whole configuration; a broken file is reported by those."""
    from pathlib import Path

    from harness.agents.config import apply_lean, load_config
    from harness.workspace import find_workspace

    try:
        where = getattr(args, "file", None) or getattr(args, "path", None) or Path.cwd()
        apply_lean(load_config(None, find_workspace(Path(where))).lean)
    except (HarnessError, OSError, ValueError, TypeError):
        pass


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    signals.install()
    try:  # a ^C while the parser or a command module is still loading is an interrupt too
        parser = build_parser(_requested(argv))
        args = parse_args(parser, argv)
        _lean_settings(args)
        if not getattr(args, "func", None):
            parser.print_help(sys.stderr)
            return int(ExitCode.USAGE)
        code = int(args.func(args))
    except HarnessError as err:
        if signals.received():  # e.g. a child killed by the same ^C failed the clean-up
            return _interrupted(signals.received())
        print(printable(err.line()), file=sys.stderr)
        return int(err.exit_code)
    except KeyboardInterrupt as err:
        sig = signals.received() or (signal.SIGTERM if isinstance(err, Terminated)
                                     else signal.SIGINT)
        return _interrupted(sig)
    except BrokenPipeError as err:
        if not signals.received() and _stdout_closed():
            _quiet_stdout()
            return int(ExitCode.OK)
        return _failed(err)
    except Exception as err:  # a bug: still one line, unless debugging
        return _failed(err)
    if signals.received():  # interrupted, whatever the command made of it
        return _interrupted(signals.received())
    return code


def _failed(err: Exception) -> int:
    if signals.received():  # a child process died of the same signal: still an interrupt
        return _interrupted(signals.received())
    if os.environ.get("HARNESS_DEBUG"):
        traceback.print_exc()
    print(f"harness: internal error: {type(err).__name__}: {err} "
          "(set HARNESS_DEBUG=1 for the traceback)", file=sys.stderr)
    return int(ExitCode.CANNOT_CERTIFY)
