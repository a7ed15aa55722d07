"""Running the exact pass's Lean program: `lake env lean --run ExportDecls.lean MOD…` in the
workspace, its JSON lines streamed as `ExactDecl`s (protocol: the program's header), with a
timeout that kills the whole process group, stderr kept for the one-line error, no zombie."""

from __future__ import annotations

import tempfile
import threading
from collections.abc import Iterator
from pathlib import Path

from pydantic import BaseModel, ValidationError

from harness.lean.jsonlines import done_count, read_lines

PROGRAM = Path(__file__).with_name("lean") / "ExportDecls.lean"
MAX_LINE = 1 << 20  # bytes of one output line


class ExactDecl(BaseModel):
    """One line of ExportDecls' output: a constant of Lean's environment."""

    name: str
    kind: str
    module: str
    line: int = 0
    type: str = ""
    doc: str = ""
    protected: bool = False
    private: bool = False


class ExactFailed(Exception):
    """The exact pass produced no usable answer (the message is one line)."""


# ---------------------------------------------------------------------------- running Lean

def _first_error(lines: list[str]) -> str:
    text = [ln.strip() for ln in lines if ln.strip()]
    for ln in text:
        if "error" in ln.lower() or "exception" in ln.lower():
            return ln[:300]
    return text[0][:300] if text else "no output"


def stream_export(lake: Path, workspace: Path, modules: list[str], *, timeout_s: float,
                  mem_mb: int | None = None) -> Iterator[ExactDecl]:
    """Run ExportDecls and yield its declarations as they arrive; raises ExactFailed (after the
    last yield) when Lean timed out, failed, printed garbage or stopped before `done`. The child
    runs in its own process group and is killed (and reaped) on timeout or early close."""
    from harness.lean.run import DEFAULT_MEM_MB, kill_group, spawn

    argv = [str(lake), "env", "lean", "--run", str(PROGRAM), *modules]
    with tempfile.TemporaryFile() as err:
        try:
            proc = spawn(argv, cwd=workspace, mem_mb=DEFAULT_MEM_MB if mem_mb is None else mem_mb,
                         stderr=err)
        except OSError as e:
            raise ExactFailed(f"cannot run {lake}: {e.strerror or e}") from None
        timed_out = threading.Event()

        def on_timeout() -> None:
            timed_out.set()
            kill_group(proc)

        timer = threading.Timer(timeout_s, on_timeout)
        timer.daemon = True
        timer.start()
        garbage: list[tuple[int, str]] = []
        done: int | None = None
        count = 0
        try:
            assert proc.stdout is not None
            # a line longer than MAX_LINE arrives in pieces, which are garbage: memory stays bounded
            for n, text, obj in read_lines(iter(lambda: proc.stdout.readline(MAX_LINE), b"")):
                try:
                    if obj is None:
                        raise ValueError("not an object")
                    if (total := done_count(obj)) is not None:
                        done = total
                        continue
                    decl = ExactDecl.model_validate(obj)
                except (ValueError, TypeError, ValidationError):
                    if len(garbage) < 5:
                        garbage.append((n, text))
                    continue
                if garbage or done is not None:
                    continue  # the answer is already void; just drain
                count += 1
                yield decl
            rc = proc.wait()
        finally:
            timer.cancel()
            if proc.poll() is None:
                kill_group(proc)
                proc.wait()
            if proc.stdout is not None:
                proc.stdout.close()
        err.seek(0)
        stderr = err.read(1 << 16).decode("utf-8", errors="replace").splitlines()
    if timed_out.is_set():
        raise ExactFailed(f"Lean gave no complete answer within {timeout_s:g} s (killed)")
    if rc != 0:
        why = _first_error(stderr + [t for _, t in garbage])
        raise ExactFailed(f"`lake env lean --run {PROGRAM.name}` failed (exit {rc}): {why}")
    if garbage:
        n, t = garbage[0]
        raise ExactFailed(f"output line {n} is not a declaration: {t[:120]!r}")
    if done is None:
        raise ExactFailed("the output ended before its `done` line (cut short)")
    if done != count:
        raise ExactFailed(f"Lean reported {done} declarations but {count} arrived")
