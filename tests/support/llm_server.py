"""A scripted OpenAI-compatible HTTP server for tests (stdlib only, 127.0.0.1, real HTTP).

Tests drive LLM-facing code through the real ``openai`` client against this server; nothing in the
harness is monkeypatched. The server speaks just enough of the API:

* ``POST /v1/chat/completions`` (non-streaming) — answered from a *script*;
* ``GET /v1/models`` — lists ``models`` (default ``["test-model"]``).

Scripting API
-------------
::

    from tests.support.llm_server import ScriptedLLM, Reply, text, tool_call, error, malformed

    with ScriptedLLM([
        error(429, retry_after=0),                        # rate limited once (Retry-After: 0)
        tool_call("check_candidate", body="by simp"),     # one tool call (arguments as kwargs)
        text("```lean\\nby omega\\n```"),                 # plain content (completion-style)
    ]) as srv:
        client = openai.OpenAI(base_url=srv.base_url, api_key="sk-test", max_retries=0)
        ...
        assert len(srv.requests) == 3
        assert srv.requests[1].json["messages"][-1]["role"] == "tool"

``ScriptedLLM(script, *, models=None, default=None, api_key=None)``

* ``script`` is either a **list** of replies consumed in order (one per chat-completion request),
  or a **callable** ``f(request: RecordedRequest) -> Reply`` called for every request (use it for
  endless tool-call loops or answers that depend on the request). A list entry may itself be a
  callable of that shape (evaluated when its turn comes).
* When a list is exhausted the ``default`` reply is used; if there is none the server answers
  HTTP 500 ``{"error": {"message": "script exhausted"}}`` (so a test that over-calls fails loudly).
* ``api_key``: when set, requests whose ``Authorization`` header is not ``Bearer <api_key>``
  get HTTP 401 (like a real endpoint), ``GET /models`` included.
* Attributes: ``base_url`` (``http://127.0.0.1:<port>/v1``), ``port``, ``requests``
  (list of :class:`RecordedRequest`, appended in arrival order, thread-safe; includes
  ``/models`` calls), ``chat_requests`` (only the chat-completion ones), ``remaining``
  (number of unconsumed list entries). ``srv.push(reply, ...)`` appends to a list script.
* Also usable without ``with``: ``srv.start()`` / ``srv.stop()``. ``stop()`` wakes any reply
  that is still sleeping in ``delay`` so no thread outlives the test for long.

A :class:`Reply` describes one answer (all fields optional; constructors below):

* ``content`` — assistant message text; ``tool_calls`` — list of ``(name, arguments)`` where
  arguments is a dict (JSON-encoded for you) or a raw string (sent verbatim, e.g. malformed JSON);
* ``status`` — HTTP status (200 default). Non-200 answers carry an OpenAI-style error body with
  ``error_message``; ``headers`` adds response headers (e.g. ``{"Retry-After": "1"}``);
* ``delay`` — seconds to sleep before answering (slow answers / client timeouts);
* ``raw`` — send these bytes as the body verbatim (malformed, non-JSON answers);
* ``finish_reason`` (default ``"stop"``, or ``"tool_calls"`` when there are tool calls);
* ``usage`` — ``(prompt_tokens, completion_tokens)``; default is a deterministic estimate
  (characters / 4) of the request messages and the reply; ``no_usage=True`` omits the usage
  block (as some servers do);
* ``extra_message`` — extra keys merged into the assistant message (e.g. ``reasoning_content``);
* ``model`` — the model echoed in the answer (default: the requested model).

Constructors: ``text(content, **kw)``, ``tool_call(tool, raw=None, /, **arguments)`` (pass a
malformed arguments string positionally: ``tool_call("submit", '{"body": ')``),
``tool_calls([(name, args), ...], content=None)``, ``error(status, retry_after=None, message=...)``,
``malformed(body=b"{not json")``, ``slow(delay, reply)``. ``loop_tool_call(tool, **args)`` returns a
callable script that answers every request with the same tool call (an endless tool-call loop).

:class:`RecordedRequest` has ``method``, ``path``, ``headers`` (a dict with case-insensitive
lookup: ``headers["Authorization"]``), ``body`` (raw bytes as received), ``json`` (parsed dict
or ``None``) and helpers ``messages`` / ``tools`` / ``model`` / ``last_message``.

Minimal calls (the harness's preflight: one request with ``max_tokens`` or
``max_completion_tokens`` = 1) are answered by ``probe`` (default ``text("ok")``; pass e.g.
``probe=error(401)``) without consuming the script, and are recorded in ``probe_requests``
(and ``requests``), not in ``chat_requests`` — so scripts describe only the real work.

Stage-1 helpers: :func:`role_of` names the role a request is for (from its system prompt:
construct / refine / audit / repair / prove), so a callable script can answer each role.

Pytest: ``tests/agents/conftest.py`` has an ``llm`` fixture (``srv = llm([...], **kw)``, stopped
after the test); copy it or start the server in a ``with`` block.
"""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

__all__ = [
    "RecordedRequest", "Reply", "ScriptedLLM", "error", "loop_tool_call", "malformed", "role_of",
    "slow", "text", "tool_call", "tool_calls",
]


class Headers(dict[str, str]):
    """Request headers with case-insensitive lookup (``h["Authorization"]``, ``h.get("x-y")``)."""

    def __getitem__(self, key: str) -> str:
        for k, v in self.items():
            if k.lower() == key.lower():
                return v
        raise KeyError(key)

    def get(self, key: str, default: Any = None) -> Any:  # type: ignore[override]
        try:
            return self[key]
        except KeyError:
            return default

    def __contains__(self, key: object) -> bool:
        return isinstance(key, str) and self.get(key) is not None


@dataclass
class RecordedRequest:
    method: str
    path: str
    headers: Headers
    body: bytes
    json: dict[str, Any] | None

    @property
    def messages(self) -> list[dict[str, Any]]:
        return list((self.json or {}).get("messages") or [])

    @property
    def tools(self) -> list[dict[str, Any]]:
        return list((self.json or {}).get("tools") or [])

    @property
    def model(self) -> str | None:
        return (self.json or {}).get("model")

    @property
    def last_message(self) -> dict[str, Any] | None:
        msgs = self.messages
        return msgs[-1] if msgs else None


@dataclass
class Reply:
    content: str | None = None
    tool_calls: list[tuple[str, dict[str, Any] | str]] = field(default_factory=list)
    status: int = 200
    headers: dict[str, str] = field(default_factory=dict)
    delay: float = 0.0
    raw: bytes | None = None
    finish_reason: str | None = None
    usage: tuple[int, int] | None = None
    no_usage: bool = False
    extra_message: dict[str, Any] = field(default_factory=dict)
    model: str | None = None
    error_message: str = "scripted error"


Script = list["Reply | Callable[[RecordedRequest], Reply]"] | Callable[[RecordedRequest], Reply]


def text(content: str, **kw: Any) -> Reply:
    return Reply(content=content, **kw)


def tool_call(tool: str, raw: str | None = None, /, **arguments: Any) -> Reply:
    """One tool call. ``raw`` (positional) sends the arguments string verbatim (malformed JSON).
    ``tool`` and ``raw`` are positional-only, so any argument name (even ``name``) is usable."""
    return Reply(tool_calls=[(tool, raw if raw is not None else arguments)])


def tool_calls(calls: list[tuple[str, dict[str, Any] | str]], content: str | None = None) -> Reply:
    return Reply(content=content, tool_calls=list(calls))


def error(status: int, retry_after: float | None = None, message: str = "scripted error",
          delay: float = 0.0) -> Reply:
    headers = {} if retry_after is None else {"Retry-After": f"{retry_after:g}"}
    return Reply(status=status, headers=headers, error_message=message, delay=delay)


def malformed(body: bytes = b"{not json", status: int = 200) -> Reply:
    return Reply(raw=body, status=status)


def slow(delay: float, reply: Reply | None = None) -> Reply:
    r = reply if reply is not None else text("slow answer")
    r.delay = delay
    return r


def loop_tool_call(tool: str, /, **arguments: Any) -> Callable[[RecordedRequest], Reply]:
    """A script that answers every request with the same tool call: an endless tool loop."""
    return lambda _req: tool_call(tool, **arguments)


def _is_probe(req: RecordedRequest) -> bool:
    body = req.json or {}
    return 1 in (body.get("max_tokens"), body.get("max_completion_tokens"))


ROLE_PROMPTS = {  # the first words of each role's system prompt (harness/agents/prompts/*.md)
    "construct": "You turn an informal", "refine": "You revise a Lean 4 blueprint",
    "audit": "You are an adversarial reviewer", "repair": "You repair one blueprint node", "prove": "You are a Lean 4 + Mathlib proof"}


def role_of(req: RecordedRequest) -> str:
    """The role a chat request is for, from its system prompt ("other" when unknown)."""
    msgs = req.messages
    system = msgs[0].get("content") or "" if msgs and msgs[0].get("role") == "system" else ""
    return next((r for r, start in ROLE_PROMPTS.items() if system.startswith(start)), "other")


def _estimate(obj: Any) -> int:
    return max(1, len(json.dumps(obj, ensure_ascii=False)) // 4)


class _Handler(BaseHTTPRequestHandler):
    server: _Server
    protocol_version = "HTTP/1.1"

    def log_message(self, format: str, *args: Any) -> None:  # keep test output quiet
        pass

    def _record(self, body: bytes) -> RecordedRequest:
        try:
            parsed = json.loads(body) if body else None
            if not isinstance(parsed, dict):
                parsed = None
        except ValueError:
            parsed = None
        req = RecordedRequest(self.command, self.path, Headers(self.headers.items()), body, parsed)
        self.server.owner._append(req)
        return req

    def _send(self, status: int, body: bytes, headers: dict[str, str] | None = None) -> None:
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        for k, v in (headers or {}).items():
            self.send_header(k, v)
        self.end_headers()
        try:
            self.wfile.write(body)
        except (BrokenPipeError, ConnectionResetError):  # client gave up (timeout)
            pass

    def _err(self, status: int, message: str, headers: dict[str, str] | None = None) -> None:
        body = json.dumps({"error": {"message": message, "type": "scripted", "code": status}})
        self._send(status, body.encode(), headers)

    def do_GET(self) -> None:
        self._record(b"")
        owner = self.server.owner
        if owner.api_key is not None and self.headers.get("Authorization") != \
                f"Bearer {owner.api_key}":
            self._err(401, "invalid api key")  # like a real endpoint: /models needs the key too
            return
        if self.path.rstrip("/").endswith("/models"):
            data = [{"id": m, "object": "model", "created": 0, "owned_by": "test"}
                    for m in self.server.owner.models]
            self._send(200, json.dumps({"object": "list", "data": data}).encode())
        else:
            self._err(404, f"no route {self.path}")

    def do_POST(self) -> None:
        length = int(self.headers.get("Content-Length") or 0)
        body = self.rfile.read(length) if length else b""
        req = self._record(body)
        owner = self.server.owner
        if not self.path.rstrip("/").endswith("/chat/completions"):
            self._err(404, f"no route {self.path}")
            return
        auth = self.headers.get("Authorization")
        if owner.api_key is not None and auth != f"Bearer {owner.api_key}":
            self._err(401, "invalid api key")
            return
        reply = owner._next(req)
        if reply is None:
            self._err(500, "script exhausted")
            return
        if reply.delay and owner._stopping.wait(reply.delay):
            return  # server stopping: drop the connection
        if reply.raw is not None:
            self._send(reply.status, reply.raw, reply.headers)
        elif reply.status != 200:
            self._err(reply.status, reply.error_message, reply.headers)
        else:
            self._send(200, json.dumps(_completion(req, reply, owner._ids)).encode(),
                       reply.headers)


def _completion(req: RecordedRequest, reply: Reply, ids: Callable[[], int]) -> dict[str, Any]:
    message: dict[str, Any] = {"role": "assistant", "content": reply.content}
    if reply.tool_calls:
        calls = []
        for name, args in reply.tool_calls:
            arg_text = args if isinstance(args, str) else json.dumps(args)
            calls.append({"id": f"call_{ids()}", "type": "function",
                          "function": {"name": name, "arguments": arg_text}})
        message["tool_calls"] = calls
    message.update(reply.extra_message)
    finish = reply.finish_reason or ("tool_calls" if reply.tool_calls else "stop")
    out: dict[str, Any] = {
        "id": f"chatcmpl-{ids()}",
        "object": "chat.completion",
        "created": int(time.time()),
        "model": reply.model or req.model or "test-model",
        "choices": [{"index": 0, "message": message, "finish_reason": finish, "logprobs": None}],
    }
    if not reply.no_usage:
        if reply.usage is not None:
            p, c = reply.usage
        else:
            p, c = _estimate(req.messages), _estimate(message)
        out["usage"] = {"prompt_tokens": p, "completion_tokens": c, "total_tokens": p + c}
    return out


class _Server(ThreadingHTTPServer):
    daemon_threads = True
    owner: ScriptedLLM


class ScriptedLLM:
    """See the module docstring."""

    def __init__(self, script: Script | None = None, *, models: list[str] | None = None,
                 default: Reply | None = None, api_key: str | None = None,
                 probe: Reply | None = None) -> None:
        self._lock = threading.Lock()
        self._fn: Callable[[RecordedRequest], Reply] | None = None
        self._queue: list[Reply | Callable[[RecordedRequest], Reply]] = []
        if callable(script):
            self._fn = script
        elif script is not None:
            self._queue = list(script)
        self.models = models or ["test-model"]
        self.default = default
        self.api_key = api_key
        self.probe = probe or Reply(content="ok", finish_reason="length", usage=(12, 1))
        self.requests: list[RecordedRequest] = []
        self._counter = 0
        self._stopping = threading.Event()
        self._httpd: _Server | None = None
        self._thread: threading.Thread | None = None

    # --- script ---
    def push(self, *replies: Reply | Callable[[RecordedRequest], Reply]) -> None:
        with self._lock:
            self._queue.extend(replies)

    @property
    def remaining(self) -> int:
        with self._lock:
            return len(self._queue)

    @property
    def chat_requests(self) -> list[RecordedRequest]:
        """Only the chat-completion requests (not ``/models``, not the minimal probe calls)."""
        with self._lock:
            return [r for r in self.requests if r.path.rstrip("/").endswith("/chat/completions")
                    and not _is_probe(r)]

    @property
    def probe_requests(self) -> list[RecordedRequest]:
        """The minimal (1-token) chat calls of a preflight."""
        with self._lock:
            return [r for r in self.requests if r.path.rstrip("/").endswith("/chat/completions")
                    and _is_probe(r)]

    def _append(self, req: RecordedRequest) -> None:
        with self._lock:
            self.requests.append(req)

    def _ids(self) -> int:
        with self._lock:
            self._counter += 1
            return self._counter

    def _next(self, req: RecordedRequest) -> Reply | None:
        if _is_probe(req):
            return self.probe
        if self._fn is not None:
            return self._fn(req)
        with self._lock:
            item = self._queue.pop(0) if self._queue else self.default
        if item is not None and not isinstance(item, Reply):
            item = item(req)
        return item

    # --- lifecycle ---
    def start(self) -> ScriptedLLM:
        self._httpd = _Server(("127.0.0.1", 0), _Handler)
        self._httpd.owner = self
        self._thread = threading.Thread(target=self._httpd.serve_forever,
                                        kwargs={"poll_interval": 0.05}, daemon=True)
        self._thread.start()
        return self

    def stop(self) -> None:
        self._stopping.set()
        if self._httpd is not None:
            self._httpd.shutdown()
            self._httpd.server_close()
        if self._thread is not None:
            self._thread.join(timeout=5)
        self._httpd = None

    @property
    def port(self) -> int:
        assert self._httpd is not None, "server not started"
        return self._httpd.server_address[1]

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.port}/v1"

    def __enter__(self) -> ScriptedLLM:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()
