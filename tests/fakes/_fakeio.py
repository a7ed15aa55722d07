"""What Lean does *while* it elaborates, for the doubles: options and code that runs.

- Options: ``lean -Dname=value`` (what Lake passes) and ``set_option name value`` commands (what
  the harness sends a REPL). Rule: an identifier ``autobound_…`` in a file is an auto-bound
  implicit (accepted) unless ``autoImplicit`` is ``false``; then it is Lean's "Unknown identifier"
  error. So a check that forgets the lakefile's ``autoImplicit false`` accepts what `lake build`
  rejects, as with a real Lean.
- Code that runs at elaboration time (``#eval``, ``include_str``'s argument, a tactic's
  ``(config := …)`` term, macros): wherever ``IO.FS.writeFile "P" "C"`` appears the double really
  writes C to P; ``IO.FS.readFile "P"`` really reads P (an information message with the text, as
  ``#eval`` prints it); ``fake_connect "HOST:PORT"`` really opens a TCP connection. A failure is
  an error message in Lean's IO error shape. Tests of the sandbox rely on these being real.
- Address space: Lean maps Mathlib's ``.olean`` files and reserves thread stacks, so an
  ``import Mathlib…`` under an ``RLIMIT_AS`` below ``FAKE_MATHLIB_VM_MB`` (default 8192) fails as
  recorded on real machines: ``failed to create thread`` on stderr, exit 1, no message
  (:func:`mathlib_fits`).
- Search tactics with multi-line suggestions, in the shapes recorded from Lean's own
  ``#guard_msgs`` tests (``Try this:`` + an indented block whose first line carries ``[apply]``,
  nested lines deeper; ``Try these:`` with one ``[apply]`` per suggestion): ``aesop?`` and
  ``try?`` print :data:`AESOP_SUGGESTION` / :data:`TRY_SUGGESTIONS` at the tactic.
"""

from __future__ import annotations

import re
import socket

from _fakelean import Msg

_OPT_ARG = re.compile(r"^-D([\w.]+)=(.*)$")
_SET = re.compile(r"^\s*set_option\s+([\w.]+)\s+(\S+)\s*$", re.M)
_COMMENT = re.compile(r"/-.*?-/|--[^\n]*", re.S)
_WRITE = re.compile(r'IO\.FS\.writeFile\s+"([^"]*)"\s+"([^"]*)"')
_READ = re.compile(r'IO\.FS\.readFile\s+"([^"]*)"')
_CONNECT = re.compile(r'fake_connect\s+"([^":]+):(\d+)"')
_AUTO = re.compile(r"\bautobound_\w+")
_SEARCH = re.compile(r"\b(aesop\?|try\?)")
AESOP_SUGGESTION = ("Try this:\n  [apply] intro h\n  induction h with\n  | zero => simp\n"
                    "  | succ n ih =>\n    simp_all")
TRY_SUGGESTIONS = "Try these:\n  [apply] omega\n  [apply] exact Nat.le_refl n"


def mathlib_fits(text: str) -> bool:
    """False when the text imports Mathlib and our address-space cap is below what it maps."""
    import os
    import resource

    if not re.search(r"(?m)^import\s+Mathlib", _blank(text)):
        return True
    soft, _hard = resource.getrlimit(resource.RLIMIT_AS)
    need = int(os.environ.get("FAKE_MATHLIB_VM_MB") or 8192) << 20
    return soft == resource.RLIM_INFINITY or soft >= need


def options_from_argv(argv: list[str]) -> dict[str, str]:
    out: dict[str, str] = {}
    for a in argv:
        m = _OPT_ARG.match(a)
        if m:
            out[m.group(1)] = m.group(2)
    return out


def options_from_text(text: str) -> dict[str, str]:
    """Persistent `set_option` commands (column 0, no trailing `in`)."""
    return {m.group(1): m.group(2) for m in _SET.finditer(text) if m.group(2) != "in"}


def _blank(text: str) -> str:
    return _COMMENT.sub(lambda m: re.sub(r"[^\n]", " ", m.group(0)), text)


def _io_error(err: OSError, path: str) -> str:
    return f"{(err.strerror or str(err)).lower()} (error code: {err.errno or 0})\n  file: {path}"


def effects(text: str, options: dict[str, str]) -> list[Msg]:
    """Run the text's elaboration-time code and apply the options; the messages Lean would give."""
    src = _blank(text)
    out: list[Msg] = []
    for m in _WRITE.finditer(src):
        try:
            with open(m.group(1), "w", encoding="utf-8") as fh:
                fh.write(m.group(2))
        except OSError as err:
            out.append(Msg("error", m.start(), m.end(), _io_error(err, m.group(1))))
    for m in _READ.finditer(src):
        try:
            with open(m.group(1), encoding="utf-8") as fh:
                out.append(Msg("information", m.start(), m.end(), repr(fh.read())))
        except OSError as err:
            out.append(Msg("error", m.start(), m.end(), _io_error(err, m.group(1))))
    for m in _CONNECT.finditer(src):
        try:
            with socket.create_connection((m.group(1), int(m.group(2))), timeout=5):
                out.append(Msg("information", m.start(), m.end(), "connected"))
        except OSError as err:
            out.append(Msg("error", m.start(), m.end(), f"connect failed: {err}"))
    for m in _SEARCH.finditer(src):
        text = AESOP_SUGGESTION if m.group(1) == "aesop?" else TRY_SUGGESTIONS
        out.append(Msg("information", m.start(), m.end(), text))
    if options.get("autoImplicit") == "false":
        for m in _AUTO.finditer(src):
            out.append(Msg("error", m.start(), m.end(), f"Unknown identifier `{m.group(0)}`",
                           "lean.unknownIdentifier._namedError"))
    return out
