"""The one place the harness starts Lean processes: wall-clock timeout + memory cap, no zombies.

Every child runs in its own session (hence its own process group), so a timeout kills the whole
tree — `lake env lean` is lake *and* lean, and Lean may spawn workers. The memory cap is
``RLIMIT_AS`` set in the child between fork and exec. (CPython warns that ``preexec_fn`` is unsafe
with threads because the child could deadlock on a lock held by another thread; ours only calls
``setrlimit`` — no allocation, no logging — which is the common, accepted use.)
Note: Lean maps `.olean` files into its address space, so a Mathlib import needs several GB of
*virtual* memory; keep ``mem_mb`` generous (default 16 GiB) or 0 to disable. The default cap is
``[lean] memory_mb`` of harness.toml (exported as ``HARNESS_LEAN_MEM_MB``; docs/lean-backend.md).

Every child runs inside the sandbox of :mod:`harness.lean.sandbox` (bubblewrap) unless the caller
passes ``sandbox=False`` (only for commands that run no prover code, e.g. ``lean --version``) or
the user opted out (``--unsafe-no-sandbox``). ``sandbox=None`` boxes the child with the workspace
``cwd``: it may write only ``cwd/.harness/tmp`` (and ``.lake`` for a ``lake build``).
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

from harness.lean import sandbox as _sandbox

DEFAULT_TIMEOUT_S = 600.0
DEFAULT_MEM_MB = 16384
_DRAIN_S = 10.0  # after SIGKILL, how long to wait for the pipes to close
MEM_ENV = "HARNESS_LEAN_MEM_MB"
# killed by SIGKILL/SIGSEGV: negative from Popen, 128+n through bwrap (it reports the box's status)
_KILLED = (-signal.SIGKILL, -signal.SIGSEGV, 128 + signal.SIGKILL, 128 + signal.SIGSEGV)
_OOM = re.compile(r"out of memory|MemoryError|std::bad_alloc|Cannot allocate memory|"
                  r"failed to create thread|Resource temporarily unavailable|mmap failed", re.I)


class RunResult(BaseModel):
    argv: list[str]
    returncode: int | None  # None when we killed it
    stdout: str
    stderr: str
    timed_out: bool = False
    memory_exceeded: bool = False  # heuristic: allocation failure text or an abort under a cap
    wall_s: float = 0.0
    mem_mb: int | None = None  # the RLIMIT_AS cap it ran under (None: none)

    @property
    def ok(self) -> bool:
        return self.returncode == 0 and not self.timed_out

    def memory_line(self) -> str:
        """One line naming an address-space failure and what to set."""
        m = _OOM.search(self.stderr) or _OOM.search(self.stdout)
        said = f" ({m.group(0)!r})" if m else ""
        return (f"Lean could not get memory under the address-space cap of {self.mem_mb} MB"
                f"{said}: raise [lean] memory_mb in harness.toml (0 = no cap; `harness doctor` "
                "probes it)")


def default_mem_mb() -> int | None:
    """The cap used when a caller passes the default: HARNESS_LEAN_MEM_MB, else 16 GiB."""
    raw = os.environ.get(MEM_ENV, "").strip()
    if raw.isdigit():
        return int(raw) or None
    return DEFAULT_MEM_MB


def _resolve_mem(mem_mb: int | None) -> int | None:
    return default_mem_mb() if mem_mb == DEFAULT_MEM_MB else mem_mb


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


def boxed(argv: list[str], cwd: Path | str | None, sandbox: Any = None
          ) -> tuple[list[str], bool]:
    """(argv to start, whether it is sandboxed). Raises SandboxUnavailable (a CannotCertify)
    when the box is required and cannot be built: never a silent unboxed run."""
    if sandbox is False or not _sandbox.required():
        return argv, False
    box = sandbox if isinstance(sandbox, _sandbox.Sandbox) else None
    if box is None:
        ws = Path(cwd) if cwd is not None else Path.cwd()
        lake_build = len(argv) > 1 and Path(argv[0]).name == "lake" and argv[1] == "build"
        box = _sandbox.Sandbox(workspace=ws, writable=(ws / ".lake",) if lake_build else ())
    extra = tuple(Path(a) for a in argv if a.startswith("/") and Path(a).exists())
    box = _sandbox.Sandbox(workspace=box.workspace, writable=box.writable,
                           readable=box.readable + extra)
    return _sandbox.wrap(argv, box), True


def spawn(argv: list[str], *, cwd: Path | str | None, mem_mb: int | None,
          env: dict[str, str] | None = None, pipes_in: bool = False,
          stderr: Any = subprocess.PIPE, sandbox: Any = None) -> subprocess.Popen:
    """Start a child in a new session with the memory cap, in the sandbox (see module doc;
    used by :func:`run`, the REPL and the exact pass)."""
    real, box = boxed(argv, cwd, sandbox)
    return subprocess.Popen(
        real, cwd=cwd, env=_sandbox.clean_env(env) if box else env, start_new_session=True,
        preexec_fn=limit_memory(_resolve_mem(mem_mb)),
        stdin=subprocess.PIPE if pipes_in else subprocess.DEVNULL,
        stdout=subprocess.PIPE, stderr=stderr)


def run(argv: list[str], *, cwd: Path | str | None = None, timeout_s: float = DEFAULT_TIMEOUT_S,
        mem_mb: int | None = DEFAULT_MEM_MB, env: dict[str, str] | None = None,
        sandbox: Any = None) -> RunResult:
    """Run ``argv`` to completion or until ``timeout_s``; never leaves a process behind.
    ``sandbox``: None = the default box for ``cwd``, a Sandbox, or False = unboxed (trusted)."""
    t0 = time.monotonic()
    mem_mb = _resolve_mem(mem_mb)
    try:
        proc = spawn(argv, cwd=cwd, mem_mb=mem_mb, env=env, sandbox=sandbox)
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
        bool(_OOM.search(stderr)) or rc in _KILLED)
    return RunResult(argv=argv, returncode=rc, stdout=stdout, stderr=stderr, timed_out=timed_out,
                     memory_exceeded=memory, wall_s=time.monotonic() - t0,
                     mem_mb=mem_mb if capped else None)
