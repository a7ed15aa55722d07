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
import signal
import sys
import threading
import traceback

from harness import __version__
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
    return first if first in command_names() else None


class Terminated(KeyboardInterrupt):
    """SIGTERM: unwinds like Ctrl-C, so every command cleans up the same way (Lean process
    groups killed, temporary files removed, run lock released, result written)."""


def _on_sigterm(signum: int, frame: object) -> None:
    raise Terminated()


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if threading.current_thread() is threading.main_thread():
        signal.signal(signal.SIGTERM, _on_sigterm)
    parser = build_parser(_requested(argv))
    args = parse_args(parser, argv)
    if not getattr(args, "func", None):
        parser.print_help(sys.stderr)
        return int(ExitCode.USAGE)
    try:
        return int(args.func(args))
    except HarnessError as err:
        print(printable(err.line()), file=sys.stderr)
        return int(err.exit_code)
    except Terminated:
        print("harness: terminated", file=sys.stderr)
        return 128 + signal.SIGTERM
    except KeyboardInterrupt:
        print("harness: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:
        return int(ExitCode.OK)
    except Exception as err:  # a bug: still one line, unless debugging
        if os.environ.get("HARNESS_DEBUG"):
            traceback.print_exc()
        print(f"harness: internal error: {type(err).__name__}: {err} "
              "(set HARNESS_DEBUG=1 for the traceback)", file=sys.stderr)
        return int(ExitCode.CANNOT_CERTIFY)
