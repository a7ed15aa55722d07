"""The one place the harness starts Lean processes: wall-clock timeout + memory cap, no zombies.

Every child runs in its own session (hence its own process group), so a timeout kills the whole
tree — `lake env lean` is lake *and* lean, and Lean may spawn workers. The memory cap is
``RLIMIT_AS`` set in the child between fork and exec. (CPython warns that ``preexec_fn`` is unsafe
with threads because the child could deadlock on a lock held by another thread; ours only calls
``setrlimit`` — no allocation, no logging — which is the common, accepted use.)
Note: Lean maps `.olean` files into its address space, so a Mathlib import needs several GB of
*virtual* memory; keep ``mem_mb`` generous (default 16 GiB) or 0 to disable.
"""

from __future__ import annotations

import os
import re
import resource
import signal
import subprocess
import time
from pathlib import Path
from typing import Any, Callable

from pydantic import BaseModel

DEFAULT_TIMEOUT_S = 600.0
DEFAULT_MEM_MB = 16384
_DRAIN_S = 10.0  # after SIGKILL, how long to wait for the pipes to close
_OOM = re.compile(r"out of memory|MemoryError|std::bad_alloc|Cannot allocate memory", re.I)


class RunResult(BaseModel):
    argv: list[str]
    returncode: int | None  # None when we killed it
    stdout: str
    stderr: str
    timed_out: bool = False
    memory_exceeded: bool = False  # heuristic: allocation failure text or an abort under a cap
    wall_s: float = 0.0

    @property
    def ok(self) -> bool:
        return self.returncode == 0 and not self.timed_out


def limit_memory(mem_mb: int | None) -> Callable[[], None] | None:
    """A ``preexec_fn`` that caps the child's address space (None: no cap)."""
    if not mem_mb or mem_mb <= 0:
        return None
    limit = int(mem_mb) * 1024 * 1024

    def _apply() -> None:
        resource.setrlimit(resource.RLIMIT_AS, (limit, limit))

    return _apply


def kill_group(proc: subprocess.Popen) -> None:
    """SIGKILL the child's whole process group (it leads its own session)."""
    try:
        os.killpg(proc.pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass


def spawn(argv: list[str], *, cwd: Path | str | None, mem_mb: int | None,
          env: dict[str, str] | None = None, pipes_in: bool = False,
          stderr: Any = subprocess.PIPE) -> subprocess.Popen:
    """Start a child in a new session with the memory cap (used by :func:`run` and the REPL)."""
    return subprocess.Popen(
        argv, cwd=cwd, env=env, start_new_session=True, preexec_fn=limit_memory(mem_mb),
        stdin=subprocess.PIPE if pipes_in else subprocess.DEVNULL,
        stdout=subprocess.PIPE, stderr=stderr)


def run(argv: list[str], *, cwd: Path | str | None = None, timeout_s: float = DEFAULT_TIMEOUT_S,
        mem_mb: int | None = DEFAULT_MEM_MB, env: dict[str, str] | None = None) -> RunResult:
    """Run ``argv`` to completion or until ``timeout_s``; never leaves a process behind."""
    t0 = time.monotonic()
    try:
        proc = spawn(argv, cwd=cwd, mem_mb=mem_mb, env=env)
    except OSError as err:
        return RunResult(argv=argv, returncode=127, stdout="",
                         stderr=f"cannot run {argv[0]}: {err.strerror or err}",
                         wall_s=time.monotonic() - t0)
    timed_out = False
    try:
        out, err = proc.communicate(timeout=timeout_s)
    except subprocess.TimeoutExpired:
        timed_out = True
        kill_group(proc)
        try:  # drains the pipes and reaps the leader
            out, err = proc.communicate(timeout=_DRAIN_S)
        except subprocess.TimeoutExpired:  # a descendant left the group and holds our pipes
            for stream in (proc.stdout, proc.stderr):
                if stream is not None:
                    stream.close()
            proc.wait()
            out, err = b"", b""
    except BaseException:
        kill_group(proc)
        proc.wait()
        raise
    finally:
        if proc.returncode is None:  # defensive: never return with a live child
            kill_group(proc)
            proc.wait()
    stdout = out.decode("utf-8", errors="replace")
    stderr = err.decode("utf-8", errors="replace")
    rc = None if timed_out else proc.returncode
    capped = bool(mem_mb and mem_mb > 0)
    memory = capped and not timed_out and rc != 0 and (
        bool(_OOM.search(stderr)) or rc in (-signal.SIGKILL, -signal.SIGSEGV))
    return RunResult(argv=argv, returncode=rc, stdout=stdout, stderr=stderr, timed_out=timed_out,
                     memory_exceeded=memory, wall_s=time.monotonic() - t0)
