"""What Lean said: `lean --json` lines, REPL messages and `lake build` logs -> :class:`Message`.

Formats (lean-interfaces.md §1.3, §1.6, §1.7): one JSON object per line in any key order, `kind`
and `endPos` absent on old toolchains; the REPL says `info` where Lean says `information`; Lake
replays messages as ``level: file:line:col: msg`` with continuation lines and progress noise.
Current Lake ends a failed build with ``Some required targets logged failures:`` (older:
``Some (required) builds …``), may print ``error: build failed`` before that block, prints
file-level errors without a position (``error: F.lean: bad import 'M'``) and no longer always
prints ``error: Lean exited with code N`` (recorded logs in tests/fixtures/lean/).
``Try this:`` suggestions (:func:`try_this`): one line (``Try this: exact h``), or the newer block
``Try this:\n  [apply] tac₁\n  tac₂\n    nested`` indented as a whole, or ``Try these:`` with
one ``[apply]`` (older: ``•``) per suggestion.
"""

from __future__ import annotations

import json
import re
from typing import Any, Literal

from pydantic import BaseModel

Severity = Literal["information", "warning", "error"]
ALLOWED_AXIOMS = frozenset({"propext", "Classical.choice", "Quot.sound"})
SORRY_TEXT = re.compile(r"declaration uses ['`]sorry['`]")
_AXIOMS = re.compile(r"^'(?P<name>.+?)' depends on axioms: \[(?P<list>.*)\]\s*$", re.S)
_NO_AXIOMS = re.compile(r"^'(?P<name>.+?)' does not depend on any axioms\s*$", re.S)
_ANSI = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]")
_LAKE_ENTRY = re.compile(r"^(?P<level>trace|info|information|warning|error): "
                         r"(?P<file>.+?):(?P<line>\d+):(?P<col>\d+): (?P<msg>.*)$")
_LAKE_PROGRESS = re.compile(r"^\s*[✔⚠ℹ✖]\s*\[\d+/\d+\]\s+(?:Built|Building|Replayed|Ran|Running|"
                            r"Fetched|Fetching|Compiled|Compiling)\s+(?P<target>\S+)")
_LAKE_EXIT = re.compile(r"^error: Lean exited with code (?P<code>-?\d+)")
_LAKE_FAILURES = re.compile(r"^Some (?:required )?(?:builds|targets) logged failures:")
_LAKE_FILE_ENTRY = re.compile(r"^(?P<level>trace|info|information|warning|error): "
                              r"(?P<file>[^\s:]+\.lean): (?P<msg>.*)$")
_TRY = re.compile(r"Try (?P<n>this|these):[ \t]*")
_TRY_PREFIX = re.compile(r"^(?:\[apply\]|•|\*)[ \t]*")
_LEVELS = {"trace": "information", "info": "information", "information": "information",
           "warning": "warning", "error": "error"}


class LeanPos(BaseModel):
    line: int  # 1-based
    col: int  # 0-based, code points


class Message(BaseModel):
    file: str | None = None
    pos: LeanPos
    end_pos: LeanPos | None = None
    severity: Severity
    data: str
    kind: str | None = None  # "hasSorry", "<name>._namedError", "[anonymous]"; None before ~4.19
    caption: str = ""

    @property
    def is_error(self) -> bool:
        return self.severity == "error"

    @property
    def is_sorry(self) -> bool:
        return is_sorry(self)

    def line(self, path: str | None = None) -> str:
        """``FILE:LINE:COL: severity: first line of the message``."""
        first = self.data.strip().splitlines()[0] if self.data.strip() else ""
        return f"{path or self.file or '<lean>'}:{self.pos.line}:{self.pos.col}: {self.severity}: {first}"


def normalise_path(path: str) -> str:
    """``././././Pkg/F.lean`` / ``.\\.\\.\\.\\Pkg\\F.lean`` -> ``Pkg/F.lean``."""
    p = path.strip().replace("\\", "/")
    while p.startswith("./"):
        p = p[2:]
    return p


def severity(raw: str) -> Severity:
    try:
        return _LEVELS[raw.strip().lower()]  # type: ignore[return-value]
    except KeyError:
        raise ValueError(f"unknown severity {raw!r}") from None


def _pos(obj: Any) -> LeanPos | None:
    if not isinstance(obj, dict) or "line" not in obj or "column" not in obj:
        return None
    return LeanPos(line=int(obj["line"]), col=int(obj["column"]))


def from_json(obj: dict[str, Any]) -> Message:
    """A `lean --json` SerialMessage or a REPL message; raises ValueError when it is neither."""
    if not isinstance(obj, dict) or "severity" not in obj or "data" not in obj:
        raise ValueError("not a Lean message")
    pos = _pos(obj.get("pos")) or LeanPos(line=0, col=0)
    file = obj.get("fileName")
    return Message(file=normalise_path(file) if isinstance(file, str) else None, pos=pos,
                   end_pos=_pos(obj.get("endPos")), severity=severity(str(obj["severity"])),
                   data=str(obj["data"]), kind=obj.get("kind"), caption=str(obj.get("caption") or ""))


def parse_lean_json(stdout: str) -> tuple[list[Message], list[str]]:
    """Messages from `lean --json` stdout, plus the lines that were not messages (elan notices,
    garbage) so callers can decide whether the run is trustworthy."""
    messages: list[Message] = []
    other: list[str] = []
    for raw in stdout.splitlines():
        line = raw.strip()
        if not line:
            continue
        try:
            messages.append(from_json(json.loads(line)))
        except (ValueError, TypeError):  # JSONDecodeError is a ValueError
            other.append(raw)
    return messages, other


def strip_ansi(text: str) -> str:
    return _ANSI.sub("", text)


class LakeLog(BaseModel):
    messages: list[Message]
    failed_modules: list[str]  # from the `Some (required) builds logged failures:` block
    lean_exit_codes: list[int]
    build_failed: bool  # `error: build failed`
    succeeded: bool  # `Build completed successfully`
    built: list[str]  # targets named on progress lines

    @property
    def failed(self) -> bool:
        """Did the build fail, whichever of Lake's shapes said so?"""
        return (self.build_failed or bool(self.failed_modules)
                or any(c != 0 for c in self.lean_exit_codes)) and not (
            self.succeeded and not self.failed_modules)


def parse_lake_log(text: str) -> LakeLog:
    """Parse `lake build` output (any Lake age, ANSI or not, POSIX or Windows paths)."""
    msgs: list[Message] = []
    failed: list[str] = []
    codes: list[int] = []
    built: list[str] = []
    build_failed = succeeded = in_failures = False
    current: Message | None = None

    def flush() -> None:
        nonlocal current
        if current is not None:
            current.data = current.data.rstrip("\n")
            msgs.append(current)
            current = None

    for raw in strip_ansi(text).replace("\r\n", "\n").split("\n"):
        line = raw.rstrip()
        if in_failures:
            if line.startswith("- "):
                failed.append(line[2:].strip())
                continue
            in_failures = False
        if m := _LAKE_PROGRESS.match(line):
            flush()
            built.append(m.group("target"))
        elif _LAKE_FAILURES.match(line):
            flush()
            in_failures = True
        elif m := _LAKE_EXIT.match(line):
            flush()
            codes.append(int(m.group("code")))
        elif line.strip() == "error: build failed":
            flush()
            build_failed = True
        elif line.strip().startswith("Build completed successfully"):
            flush()
            succeeded = True
        elif m := _LAKE_ENTRY.match(line):
            flush()
            p = LeanPos(line=int(m.group("line")), col=int(m.group("col")))
            current = Message(file=normalise_path(m.group("file")), pos=p,
                              severity=severity(m.group("level")), data=m.group("msg"))
        elif m := _LAKE_FILE_ENTRY.match(line):  # a file-level message (no position)
            flush()
            current = Message(file=normalise_path(m.group("file")), pos=LeanPos(line=1, col=0),
                              severity=severity(m.group("level")), data=m.group("msg"))
        elif re.match(r"^(trace|info|warning|error): ", line):
            flush()  # a Lake message with no position (e.g. `error: no such file`)
            level, _, rest = line.partition(": ")
            current = Message(pos=LeanPos(line=0, col=0), severity=severity(level), data=rest)
        elif current is not None:
            current.data += "\n" + raw.rstrip("\r")
    flush()
    return LakeLog(messages=msgs, failed_modules=failed, lean_exit_codes=codes,
                   build_failed=build_failed, succeeded=succeeded, built=built)


# ----------------------------------------------------------------------------- Try this

def try_this(data: str) -> list[str]:
    """The suggestions of a ``Try this:`` / ``Try these:`` message, each as source text: the
    block's common indentation removed from *every* line (nested lines keep their relative
    depth), the ``[apply]``/``•`` prefix dropped. Text after the block (a line indented less
    than it, e.g. remaining goals) is not part of it."""
    m = _TRY.search(data)
    if m is None:
        return []
    rest = data[m.end():]
    head, _, tail = rest.partition("\n")
    lines = tail.split("\n")
    if head.strip():  # `Try this: tac` (+ lines continuing it, indented)
        block = [head.strip()]
        body = [x for x in lines if x.strip()]
        indent = min((len(x) - len(x.lstrip()) for x in body), default=0)
        for x in lines:
            if x.strip() and len(x) - len(x.lstrip()) < max(indent, 1):
                break
            block.append(x[indent:].rstrip())
        return [_TRY_PREFIX.sub("", "\n".join(block).strip("\n"), count=1)]
    first = next((x for x in lines if x.strip()), "")
    indent = len(first) - len(first.lstrip())
    out: list[list[str]] = []
    for x in lines:
        if not x.strip():
            if out:
                out[-1].append("")
            continue
        if len(x) - len(x.lstrip()) < indent:
            break
        text = x[indent:].rstrip()
        starts = bool(_TRY_PREFIX.match(text))
        if not out or (m.group("n") == "these" and starts):
            out.append([])
        out[-1].append(_TRY_PREFIX.sub("", text, count=1) if starts else text)
    return [s for s in ("\n".join(b).strip("\n") for b in out) if s.strip()]


# ----------------------------------------------------------------------------- sorry and axioms

def is_sorry(msg: Message) -> bool:
    """`kind == "hasSorry"` first (≥ 4.19); else either spelling of the warning text."""
    if msg.kind == "hasSorry":
        return True
    return msg.severity == "warning" and bool(SORRY_TEXT.search(msg.data))


class AxiomReport(BaseModel):
    name: str
    axioms: list[str]

    @property
    def forbidden(self) -> list[str]:
        return forbidden_axioms(self.axioms)


def parse_axioms(msg: Message | str) -> AxiomReport | None:
    """The answer to `#print axioms X`, or None if the message is something else."""
    data = msg if isinstance(msg, str) else msg.data
    data = data.strip()
    if m := _NO_AXIOMS.match(data):
        return AxiomReport(name=m.group("name"), axioms=[])
    if m := _AXIOMS.match(data):
        items = [a.strip() for a in m.group("list").replace("\n", " ").split(",")]
        return AxiomReport(name=m.group("name"), axioms=[a for a in items if a])
    return None


def forbidden_axioms(axioms: list[str]) -> list[str]:
    """Everything outside propext / Classical.choice / Quot.sound: sorryAx, Lean.ofReduceBool,
    `*._native.native_decide.ax_*` auxiliaries, user axioms."""
    return [a for a in axioms if a not in ALLOWED_AXIOMS]
