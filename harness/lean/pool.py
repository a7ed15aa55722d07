"""A thread-safe pool of REPL processes, one import header per process, bounded by memory.

``size = max(1, budget_mb // per_repl_mb)`` processes at most (``per_repl_mb`` is the resident
estimate of one REPL with its header loaded — Mathlib needs several GB). A request for a header
takes an idle process already holding that header, else starts one if the pool has room, else
evicts an idle process of another header, else waits. Advisory only (see :mod:`harness.lean.repl`).
"""

from __future__ import annotations

import threading
from contextlib import contextmanager
from pathlib import Path
from typing import Iterator

from harness.lean.repl import ReplClient, ReplError, ReplResponse
from harness.lean.run import DEFAULT_MEM_MB


class ReplPool:
    def __init__(self, argv: list[str], *, cwd: Path | str | None = None, budget_mb: int = 8192,
                 per_repl_mb: int = 2048, timeout_s: float = 60.0, header_timeout_s: float = 600.0,
                 mem_mb: int | None = DEFAULT_MEM_MB, max_commands: int = 200,
                 wait_s: float = 600.0, options: list[tuple[str, str]] | None = None) -> None:
        self.argv, self.cwd = list(argv), cwd
        self.size = max(1, budget_mb // max(1, per_repl_mb))
        self._opts = dict(timeout_s=timeout_s, header_timeout_s=header_timeout_s, mem_mb=mem_mb,
                          max_commands=max_commands, options=options)
        self.wait_s = wait_s
        self._idle: list[ReplClient] = []
        self._busy: set[ReplClient] = set()
        self._cond = threading.Condition()
        self._closed = False
        self.started = self.reused = self.evicted = 0

    @property
    def live(self) -> int:
        with self._cond:
            return len(self._idle) + len(self._busy)

    def _take(self, header: str) -> tuple[ReplClient, bool]:
        """(client, is_new). Called with the lock held; blocks until a slot frees."""
        ok = self._cond.wait_for(lambda: self._closed or any(
            c.header == header for c in self._idle) or len(self._idle) + len(self._busy) < self.size
            or self._idle, timeout=self.wait_s)
        if self._closed:
            raise RuntimeError("REPL pool is closed")
        if not ok:
            raise TimeoutError(f"no REPL free within {self.wait_s:g}s")
        for c in self._idle:
            if c.header == header:
                self._idle.remove(c)
                self.reused += 1
                return c, False
        if len(self._idle) + len(self._busy) >= self.size:
            victim = self._idle.pop(0)  # oldest idle process of another header
            self.evicted += 1
            victim.close()
        self.started += 1
        return ReplClient(self.argv, cwd=self.cwd, header=header, **self._opts), True

    @contextmanager
    def session(self, header: str) -> Iterator[ReplClient]:
        """Exclusive use of a REPL whose header environment is ``header``."""
        with self._cond:
            client, _new = self._take(header)
            self._busy.add(client)
        try:
            client.start()  # no-op when alive; (re)elaborates the header otherwise
            yield client
        except ReplError:  # timeout/crash: the client reaped its process and respawns on next use
            self._release(client, keep=True)
            raise
        except BaseException:
            client.close()  # unknown state: never hand it out again
            self._release(client, keep=False)
            raise
        self._release(client, keep=client.alive)

    def _release(self, client: ReplClient, *, keep: bool) -> None:
        with self._cond:
            self._busy.discard(client)
            if keep and not self._closed:
                self._idle.append(client)
            else:
                client.close()
            self._cond.notify_all()

    def command(self, header: str, code: str, *, timeout_s: float | None = None) -> ReplResponse:
        with self.session(header) as repl:
            return repl.command(code, timeout_s=timeout_s)

    def close(self) -> None:
        with self._cond:
            self._closed = True
            clients = self._idle + list(self._busy)
            self._idle = []
            self._cond.notify_all()
        for c in clients:
            c.close()

    def __enter__(self) -> "ReplPool":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
