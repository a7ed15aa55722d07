"""Rendering the judgement (see _fakelean.py) as `lean --json`, plain `lean` and Lake log lines."""

from __future__ import annotations

import json
from dataclasses import dataclass

from _fakelean import Judge, Msg, eat_memory, hang_forever, line_starts, pos_of, version_tuple


def _pos(line: int, col: int, new: bool) -> dict:
    return {"column": col, "line": line} if new else {"line": line, "column": col}


def json_message(m: Msg, starts: list[int], file_name: str) -> str:
    """One `lean --json` line, in the recorded shape for the faked version (lean-interfaces §1.6)."""
    line, col = pos_of(starts, m.start)
    new = version_tuple() >= (4, 19)
    end = None if m.end is None else pos_of(starts, m.end)
    if new:
        obj = {"caption": "", "data": m.data}
        if end:
            obj["endPos"] = _pos(*end, True)
        obj.update({"fileName": file_name, "isSilent": False, "keepFullRange": False,
                    "kind": m.kind, "pos": _pos(line, col, True), "severity": m.severity})
    else:  # pre-4.19: no `kind`, no `isSilent`, Lean's own field order
        obj = {"severity": m.severity, "pos": _pos(line, col, False)}
        if end:
            obj["endPos"] = _pos(*end, False)
        obj.update({"keepFullRange": False, "fileName": file_name, "data": m.data, "caption": ""})
    return json.dumps(obj, ensure_ascii=False, separators=(",", ":"))


def text_message(m: Msg, starts: list[int], file_name: str) -> str:
    """Plain `lean FILE` output: `file:l:c: error(name): msg`; information is printed bare."""
    line, col = pos_of(starts, m.start)
    if m.severity == "information":
        return m.data
    label = m.severity
    if m.kind.endswith("._namedError"):
        label += f"({m.kind[: -len('._namedError')]})"
    return f"{file_name}:{line}:{col}: {label}: {m.data}"


def lake_message(m: Msg, starts: list[int], file_name: str) -> str:
    """Lake replays messages as `level: file:l:c: msg` (no error name, no endPos; §1.7)."""
    line, col = pos_of(starts, m.start)
    level = {"information": "info", "warning": "warning", "error": "error"}[m.severity]
    return f"{level}: {file_name}:{line}:{col}: {m.data}"


@dataclass
class Outcome:
    lines: list[str]
    stderr: str
    code: int


def elaborate(path: str, fmt: str, options: dict | None = None) -> Outcome:
    """Run the judgement on one file; `fmt` is json | text | lake. May hang/crash/OOM by design.
    ``options``: the `-D` options Lean was given (_fakeio.py: they and `#eval` code take effect)."""
    try:
        with open(path, encoding="utf-8") as fh:
            text = fh.read()
    except OSError as err:
        return Outcome([], f"file not found: {path} ({err.strerror})\n", 1)
    import _fakeio

    if not _fakeio.mathlib_fits(text):
        return Outcome([], "failed to create thread\n", 1)
    judge = Judge(text)
    import _fakecheck

    judge.messages += _fakecheck.redeclared(judge)

    judge.messages += _fakeio.effects(text, {**_fakeio.options_from_text(text), **(options or {})})
    if judge.hang:
        hang_forever()
    if judge.oom:
        eat_memory()
    starts = line_starts(text)
    render = {"json": json_message, "text": text_message, "lake": lake_message}[fmt]
    msgs = judge.sorted_messages()
    if judge.crash_at is not None:
        msgs = [m for m in msgs if m.start < judge.crash_at]
    lines = [render(m, starts, path) for m in msgs]
    if judge.garbage:
        lines.insert(0, "info: downloading component 'lean'")
        lines.insert(len(lines) // 2 + 1, "warning: this is not JSON {")
        lines.append("total 3 files")
    if judge.crash:
        return Outcome(lines, "INTERNAL PANIC: unreachable code has been reached\n", 134)
    return Outcome(lines, "", 1 if judge.has_error else 0)
