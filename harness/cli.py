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
import sys
import traceback

from harness import __version__
from harness.errors import ExitCode, HarnessError

EPILOG = "exit codes: 0 ok, 1 findings, 2 usage or input error, 3 cannot certify"


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> None:  # argparse prints usage + exits 2; keep it one line
        self.exit(int(ExitCode.USAGE), f"{self.prog}: error: {message}\n")


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(prog="harness", description=__doc__.splitlines()[0], epilog=EPILOG)
    parser.add_argument("--version", action="version", version=f"harness {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=_Parser)
    import harness.commands as commands

    for info in sorted(pkgutil.iter_modules(commands.__path__), key=lambda m: m.name):
        if info.name.startswith("_"):
            continue
        module = importlib.import_module(f"harness.commands.{info.name}")
        module.register(sub)
    return parser


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    if not getattr(args, "func", None):
        parser.print_help(sys.stderr)
        return int(ExitCode.USAGE)
    try:
        return int(args.func(args))
    except HarnessError as err:
        print(err.line(), file=sys.stderr)
        return int(err.exit_code)
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
