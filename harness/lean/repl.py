"""Client for leanprover-community/repl (protocol: lean-interfaces.md §1). Advisory only.

Answers from the REPL speed up the search (tactic mode, cheap re-use of an elaborated header) but
never certify anything: tactic mode has known false positives (repl #44). Certification is a full
compile (:mod:`harness.lean.verdict`).

Framing: requests are ``json.dumps(obj) + "\\n\\n"`` (a raw newline inside a request would be
lost by the REPL's line joining); answers are multi-line JSON ending with a blank line. One
process serves one import header, elaborated once at start; its env id is the default for
commands. The REPL has no timeout of its own (repl #94): on timeout the whole process group is
killed and the next call respawns it (re-running the header). After ``max_commands`` commands the
process is recycled, because the REPL keeps every environment forever (repl #77).

Lake's options: the REPL takes no ``-D`` (``REPL/Main.lean`` ``main`` ignores its arguments and
``REPL/Frontend.lean`` ``processInput`` elaborates with empty ``opts``), but each command continues
the previous command state (``runCommand`` passes the snapshot's ``cmdState``, scopes and options
included). So the header command is sent with one ``set_option NAME VALUE`` line per lakefile
option after the imports, and every command in its environment elaborates under them. A REPL
header stands for no module of a library: it gets the package's options (as ``lake lean`` gives
a file outside every library); ``weak.`` options are left out (``set_option`` of an option the
imports do not declare is an error, and ``weak.`` ones are linters only).
"""

from __future__ import annotations

import json
import os
import selectors
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

from pydantic import BaseModel

from harness.errors import HarnessError
from harness.lean.messages import LeanPos, Message, from_json
from harness.lean.options import read_options
from harness.lean.run import DEFAULT_MEM_MB, kill_group, spawn


class ReplError(Exception):
    """The REPL could not answer (crash, bad framing, header failure)."""


class ReplTimeout(ReplError):
    """No answer within the per-command timeout; the process group was killed."""


class ReplCrashed(ReplError):
    """The process exited (EOF on stdout)."""


class Sorry(BaseModel):
    goal: str
    proof_state: int | None = None
    pos: LeanPos | None = None  # absent when Lean has no position (tactic mode)
    end_pos: LeanPos | None = None


class ReplResponse(BaseModel):
    env: int | None = None
    messages: list[Message] = []
    sorries: list[Sorry] = []
    proof_state: int | None = None
    goals: list[str] = []
    proof_status: str | None = None
    error: str | None = None  # the REPL's `{"message": …}` error object
    raw: dict[str, Any] = {}

    @property
    def has_errors(self) -> bool:
        return self.error is not None or any(m.is_error for m in self.messages)


def _p(obj: Any) -> LeanPos | None:
    if isinstance(obj, dict) and "line" in obj and "column" in obj:
        return LeanPos(line=int(obj["line"]), col=int(obj["column"]))
    return None


def parse_response(obj: Any) -> ReplResponse:
    """One decoded answer -> ReplResponse (empty lists are omitted by the REPL)."""
    if not isinstance(obj, dict):
        raise ReplError(f"REPL answered a non-object: {str(obj)[:100]}")
    if set(obj) == {"message"}:
        return ReplResponse(error=str(obj["message"]), raw=obj)
    goals = obj.get("goals") or []
    if isinstance(goals, str):  # `tactics[].goals` is a single string; be lenient
        goals = [goals]
    return ReplResponse(
        env=obj.get("env"), messages=[from_json(m) for m in obj.get("messages") or []],
        sorries=[Sorry(goal=str(s.get("goal", "")), proof_state=s.get("proofState"),
                       pos=_p(s.get("pos")), end_pos=_p(s.get("endPos")))
                 for s in obj.get("sorries") or []],
        proof_state=obj.get("proofState"), goals=[str(g) for g in goals],
        proof_status=obj.get("proofStatus"), raw=obj)


def split_answers(buffer: bytes) -> tuple[list[bytes], bytes]:
    """Complete blank-line-terminated answers in ``buffer``, and the unread rest."""
    out = []
    while True:
        i = buffer.find(b"\n\n")
        if i < 0:
            return out, buffer
        chunk, buffer = buffer[:i], buffer[i + 2:]
        if chunk.strip():
            out.append(chunk)


class ReplClient:
    """One REPL process for one import ``header``. Thread-safe (one request at a time)."""

    def __init__(self, argv: list[str], *, cwd: Path | str | None = None, header: str = "",
                 timeout_s: float = 60.0, header_timeout_s: float = 600.0,
                 mem_mb: int | None = DEFAULT_MEM_MB, max_commands: int = 200,
                 options: list[tuple[str, str]] | None = None) -> None:
        self.argv, self.cwd, self.header = list(argv), cwd, header
        self.options = options  # None: the lakefile's (package) options of ``cwd``
        self._lake_opts: list[tuple[str, str]] | None = None
        self.timeout_s, self.header_timeout_s = timeout_s, header_timeout_s
        self.mem_mb, self.max_commands = mem_mb, max_commands
        self.header_env: int | None = None
        self.restarts = 0  # kills after a timeout/crash, plus recycles
        self.commands = 0  # commands sent to the current process
        self._proc = None
        self._buf = b""
        self._envs: set[int] = set()
        self._states: set[int] = set()
        self._err = None
        self._lock = threading.RLock()

    # -- lifecycle
    @property
    def alive(self) -> bool:
        return self._proc is not None and self._proc.poll() is None

    @property
    def pid(self) -> int | None:
        return self._proc.pid if self._proc is not None else None

    def start(self) -> None:
        with self._lock:
            if self.alive:
                return
            self._reap()
            self._err = tempfile.TemporaryFile()
            self._proc = spawn(self.argv, cwd=self.cwd, mem_mb=self.mem_mb, pipes_in=True,
                               stderr=self._err)
            self._buf, self.commands = b"", 0
            self._envs, self._states = set(), set()
            self.header_env = None
            if self.header.strip():
                resp = self._exchange({"cmd": self.header_command()}, self.header_timeout_s)
                if resp.has_errors:
                    first = resp.error or next(m.data for m in resp.messages if m.is_error)
                    self.close()
                    raise ReplError(f"REPL header failed: {first.splitlines()[0][:200]}")
                self.header_env = resp.env
                self.commands = 0  # the header does not count towards max_commands

    def lean_options(self) -> list[tuple[str, str]]:
        if self.options is not None:
            return list(self.options)
        if self.cwd is None:
            return []
        if self._lake_opts is None:  # once per client: a lakefile Lake must evaluate costs seconds
            lake = self.argv[0] if Path(self.argv[0]).name == "lake" else None
            try:
                self._lake_opts = read_options(Path(self.cwd), lake).for_module(None)[0]
            except HarnessError as err:
                raise ReplError(f"REPL: {err.line()}") from None
        return list(self._lake_opts)

    def header_command(self) -> str:
        """The header with Lake's options set after it (see the module doc)."""
        lines = [f"set_option {n} {v if v in ('true', 'false') or v.isdigit() else json.dumps(v)}"
                 for n, v in self.lean_options() if not n.startswith("weak.")]
        if not lines:
            return self.header
        return self.header.rstrip("\n") + "\n\n" + "\n".join(lines) + "\n"

    def close(self) -> None:
        with self._lock:
            self._reap()

    def _reap(self) -> None:
        proc, self._proc = self._proc, None
        if proc is not None:
            kill_group(proc)
            for stream in (proc.stdin, proc.stdout):
                try:
                    stream.close()
                except OSError:
                    pass
            proc.wait()
        if self._err is not None:
            self._err.close()
            self._err = None

    def __enter__(self) -> "ReplClient":
        self.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # -- requests
    def command(self, code: str, env: int | None = None, *,
                timeout_s: float | None = None) -> ReplResponse:
        """Run ``code`` in ``env`` (default: the header's environment)."""
        with self._lock:
            self._ready()
            env = self.header_env if env is None else env
            if env is not None and env not in self._envs:
                raise ReplError(f"environment {env} does not belong to the current REPL process")
            req: dict[str, Any] = {"cmd": code}
            if env is not None:
                req["env"] = env
            return self._exchange(req, timeout_s or self.timeout_s)

    def tactic(self, tactic: str, proof_state: int, *,
               timeout_s: float | None = None) -> ReplResponse:
        with self._lock:
            self._ready()
            if proof_state not in self._states:
                raise ReplError(f"proof state {proof_state} does not belong to the current process")
            return self._exchange({"tactic": tactic, "proofState": proof_state},
                                  timeout_s or self.timeout_s)

    def _ready(self) -> None:
        if self.alive and self.commands >= self.max_commands:
            self._reap()
            self.restarts += 1
        if not self.alive:
            self.start()

    def _exchange(self, req: dict[str, Any], timeout_s: float) -> ReplResponse:
        proc = self._proc
        assert proc is not None and proc.stdin is not None and proc.stdout is not None
        try:
            proc.stdin.write((json.dumps(req, ensure_ascii=False) + "\n\n").encode("utf-8"))
            proc.stdin.flush()
        except (BrokenPipeError, OSError):
            raise self._died("REPL closed its input") from None
        self.commands += 1
        raw = self._read_answer(proc, timeout_s)
        try:
            obj = json.loads(raw.decode("utf-8", errors="replace"))
        except json.JSONDecodeError as err:
            self._reap()
            self.restarts += 1
            raise ReplError(f"REPL answer is not JSON ({err.msg}): {raw[:120]!r}") from None
        resp = parse_response(obj)
        if resp.env is not None:
            self._envs.add(resp.env)
        if resp.proof_state is not None:
            self._states.add(resp.proof_state)
        self._states.update(s.proof_state for s in resp.sorries if s.proof_state is not None)
        return resp

    def _read_answer(self, proc, timeout_s: float) -> bytes:
        answers, self._buf = split_answers(self._buf)
        if answers:
            return self._keep_rest(answers)
        deadline = time.monotonic() + timeout_s
        fd = proc.stdout.fileno()
        with selectors.DefaultSelector() as sel:
            sel.register(fd, selectors.EVENT_READ)
            while True:
                left = deadline - time.monotonic()
                if left <= 0 or not sel.select(left):
                    self._reap()
                    self.restarts += 1
                    raise ReplTimeout(f"REPL gave no answer within {timeout_s:g}s (killed)")
                chunk = os.read(fd, 1 << 16)
                if not chunk:
                    raise self._died("REPL exited")
                answers, self._buf = split_answers(self._buf + chunk)
                if answers:
                    return self._keep_rest(answers)

    def _keep_rest(self, answers: list[bytes]) -> bytes:
        if len(answers) > 1:  # never expected: one answer per request
            rest = b"\n\n".join(answers[1:]) + b"\n\n"
            self._buf = rest + self._buf
        return answers[0]

    def _died(self, what: str) -> ReplCrashed:
        tail = ""
        if self._err is not None:
            self._err.seek(0)
            tail = self._err.read()[-300:].decode("utf-8", errors="replace").strip()
        proc = self._proc
        code = proc.poll() if proc is not None else None
        self._reap()
        self.restarts += 1
        return ReplCrashed(f"{what} (exit {code}){': ' + tail.splitlines()[-1] if tail else ''}")
