"""The one place the harness talks HTTP: a small client for any OpenAI-compatible endpoint.

* ``openai.OpenAI(..., max_retries=0)``: retries are ours — bounded, exponential backoff that
  honours ``Retry-After`` (capped), on 429, 5xx, timeouts and connection errors only.
* Every answer is charged to a thread-safe :class:`Ledger` (tokens and USD from the price table)
  per node, per role and per run; a hard budget raises :class:`BudgetExceeded` *before* the next
  request.
* A configuration the endpoint refuses (401/403/404, or a host that never answered) raises
  :class:`EndpointConfigError`, a ``UsageError``: one line naming the host, exit 2.
* Every request/answer goes into a :class:`Transcript` (pydantic, kept for the run record).
* The API key lives only in the SDK client; it is scrubbed from transcripts and error texts.
"""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Callable
from datetime import UTC, datetime
from typing import Any

import openai

from harness.agents.config import Budgets, Endpoint, HarnessConfig, Price, RoleConfig
from harness.agents.llmrecords import CallRecord, ChatResponse, ToolCall, Transcript, Usage
from harness.errors import UsageError

REDACTED = "[REDACTED]"
MIN_SECRET_LEN = 6


def estimate_tokens(text: str) -> int:
    """The harness's token estimate: characters / 4 (no tokenizer dependency; documented in
    docs/benchmarks.md). Used for context sizes and when an endpoint reports no usage."""
    return (len(text) + 3) // 4


class BudgetExceeded(Exception):
    """A hard budget is spent: stop this work cleanly and say which one."""

    def __init__(self, scope: str, key: str, spent: float, limit: float, unit: str = "USD") -> None:
        self.scope, self.key, self.spent, self.limit = scope, key, spent, limit
        what = f"{scope} {key!r}" if key else scope
        amount = (f"${spent:.4f} of ${limit:.4f}" if unit == "USD"
                  else f"{spent:g} of {limit:g} {unit}")
        super().__init__(f"budget exhausted for {what}: {amount}")


class LLMError(Exception):
    """The endpoint failed in a way retries did not (or should not) fix. Text is key-free."""

    def __init__(self, reason: str, status: int | None = None) -> None:
        super().__init__(reason)
        self.reason, self.status = reason, status


class EndpointConfigError(LLMError, UsageError):
    """The endpoint refuses this configuration — a rejected key (401/403), no such route or model
    (404), or a host that never answered. No later request can succeed, so it is a usage error
    (exit 2), not a failed attempt; :func:`harness.agents.roles.run_role` lets it through."""


CHECK_CONFIG = "check OPENAI_API_KEY / api_key_env and OPENAI_BASE_URL / endpoint.base_url"
# nothing answered: the key cannot be the problem yet
CHECK_URL = "is the server running? check OPENAI_BASE_URL / endpoint.base_url"


# --------------------------------------------------------------------------- ledger
class Ledger:
    """Thread-safe spend accounting with hard limits per node, per role and per run."""

    def __init__(self, budgets: Budgets | None = None, prices: dict[str, Price] | None = None):
        self.budgets = budgets or Budgets()
        self.prices = prices or {}
        self._lock = threading.Lock()
        self.run = Usage()
        self.by_node: dict[str, Usage] = {}
        self.by_role: dict[str, Usage] = {}
        self.attempts: dict[str, int] = {}

    def price(self, model: str, prompt: int, completion: int) -> tuple[float, bool]:
        p = self.prices.get(model)
        if p is None:
            return 0.0, False
        return (prompt * p.input_per_mtok + completion * p.output_per_mtok) / 1e6, True

    def check(self, node: str | None, role: str | None) -> None:
        """Raise :class:`BudgetExceeded` if any applicable budget is already spent."""
        b = self.budgets
        with self._lock:
            if b.per_run_usd is not None and self.run.cost_usd >= b.per_run_usd:
                raise BudgetExceeded("run", "", self.run.cost_usd, b.per_run_usd)
            if role and b.per_role_usd is not None:
                spent = self.by_role.get(role, Usage()).cost_usd
                if spent >= b.per_role_usd:
                    raise BudgetExceeded("role", role, spent, b.per_role_usd)
            if node and b.per_node_usd is not None:
                spent = self.by_node.get(node, Usage()).cost_usd
                if spent >= b.per_node_usd:
                    raise BudgetExceeded("node", node, spent, b.per_node_usd)

    def charge(self, node: str | None, role: str | None, model: str, prompt: int,
               completion: int, estimated: bool = False) -> Usage:
        cost, priced = self.price(model, prompt, completion)
        u = Usage(prompt_tokens=prompt, completion_tokens=completion, cost_usd=cost, calls=1,
                  estimated=estimated, unpriced=not priced)
        with self._lock:
            self.run.add(u)
            if node:
                self.by_node.setdefault(node, Usage()).add(u)
            if role:
                self.by_role.setdefault(role, Usage()).add(u)
        return u

    def begin_attempt(self, node: str) -> int:
        """Count one attempt on ``node``; refuse past ``per_node_attempts``. Returns its number."""
        with self._lock:
            n = self.attempts.get(node, 0)
            if n >= self.budgets.per_node_attempts:
                raise BudgetExceeded("node attempts", node, n, self.budgets.per_node_attempts,
                                     unit="attempts")
            self.attempts[node] = n + 1
            return n + 1

    def snapshot(self) -> dict[str, Any]:
        with self._lock:
            return {
                "run": self.run.model_dump(),
                "by_node": {k: v.model_dump() for k, v in self.by_node.items()},
                "by_role": {k: v.model_dump() for k, v in self.by_role.items()},
                "attempts": dict(self.attempts),
            }


# --------------------------------------------------------------------------- client
_RETRYABLE = (openai.RateLimitError, openai.InternalServerError, openai.APITimeoutError,
              openai.APIConnectionError)


class LLMClient:
    def __init__(self, endpoint: Endpoint, cfg: HarnessConfig, ledger: Ledger | None = None, *,
                 sleep: Callable[[float], None] = time.sleep) -> None:
        self.cfg = cfg
        self.ledger = ledger or Ledger(cfg.budgets, cfg.prices)
        self._sleep = sleep
        # placeholder keys of local servers ("EMPTY", "none") are too short to scrub safely
        self._secrets = [s for s in (endpoint.api_key,) if s and len(s) >= MIN_SECRET_LEN]
        # vLLM and most local servers accept any key; the SDK insists on a non-empty one
        self._client = openai.OpenAI(base_url=endpoint.base_url,
                                     api_key=endpoint.api_key or "EMPTY",
                                     timeout=cfg.timeouts.request_s, max_retries=0)
        self.base_url = endpoint.base_url
        self._answered = False  # an answer ever came back: later connection errors are transient

    def __repr__(self) -> str:
        return f"LLMClient(base_url={self.base_url!r})"

    def scrub(self, obj: Any) -> Any:
        """``obj`` with every secret replaced by ``[REDACTED]`` (strings, lists, dicts)."""
        if isinstance(obj, str):
            for s in self._secrets:
                obj = obj.replace(s, REDACTED)
            return obj
        if isinstance(obj, list):
            return [self.scrub(x) for x in obj]
        if isinstance(obj, dict):
            return {k: self.scrub(v) for k, v in obj.items()}
        return obj

    def chat(self, messages: list[dict[str, Any]], *, role: RoleConfig, role_name: str,
             node: str | None = None, tools: list[dict[str, Any]] | None = None,
             transcript: Transcript | None = None) -> ChatResponse:
        """One chat completion with bounded retries. Raises LLMError or BudgetExceeded."""
        if not role.model:
            raise LLMError(f"no model configured for role {role_name!r} "
                           "(set endpoint.default_model or roles.<role>.model, or pass --model)")
        kwargs: dict[str, Any] = {"model": role.model, "messages": messages}
        if tools:
            kwargs["tools"] = tools
        if role.temperature is not None:
            kwargs["temperature"] = role.temperature
        if role.max_tokens is not None:
            kwargs[self.cfg.endpoint.max_tokens_param] = role.max_tokens
        if role.reasoning_effort is not None:
            kwargs["reasoning_effort"] = role.reasoning_effort
        r = self.cfg.retries
        started = datetime.now(UTC).isoformat(timespec="seconds")
        t0 = time.monotonic()
        tries = 0
        last: str = ""
        status: int | None = None
        while tries < r.max_attempts:
            self.ledger.check(node, role_name)
            tries += 1
            try:
                resp = self._client.chat.completions.create(**kwargs)
            except _RETRYABLE as err:
                last, status = self._describe(err), getattr(err, "status_code", None)
                if tries < r.max_attempts:
                    self._sleep(self._backoff(tries, err))
                continue
            except openai.APIStatusError as err:  # 4xx other than 429: retrying will not help
                last = self._describe(err)
                if err.status_code in (401, 403, 404):
                    self._record(transcript, role.model, started, t0, tries, error=last)
                    raise self._config_error(err) from None
                if tools and err.status_code in (400, 422) and "tool" in last.lower():
                    last += (f" (the endpoint may not support tool calling: set "
                             f"roles.{role_name}.mode = \"completion\")")
                self._record(transcript, role.model, started, t0, tries, error=last)
                raise LLMError(last, err.status_code) from None
            except (ValueError, openai.APIResponseValidationError) as err:
                last = f"malformed response from the endpoint: {self.scrub(str(err))[:200]}"
                self._record(transcript, role.model, started, t0, tries, error=last)
                raise LLMError(last) from None
            return self._accept(resp, role, role_name, node, messages, started, t0, tries,
                                transcript)
        msg = f"endpoint failed after {tries} tries: {last}"
        self._record(transcript, role.model, started, t0, tries, error=msg)
        if not self._answered and last.startswith("APIConnectionError"):  # never reached
            raise EndpointConfigError(f"cannot connect to {self.url} ({tries} tries: "
                                      f"{self._detail(last)}); {CHECK_URL}")
        raise LLMError(msg, status)

    # ---- preflight: does the endpoint answer at all? (harness.preflight.endpoint)
    def list_models(self) -> list[str] | None:
        """The model ids ``GET /models`` lists (one request, no retries); None when the endpoint
        has no such route (HTTP 404). A rejected key or a host that does not answer raises
        EndpointConfigError; any other failure LLMError."""
        try:
            page = self._client.models.list()
        except openai.NotFoundError:
            return None
        except openai.APIStatusError as err:
            if err.status_code in (401, 403):
                raise self._config_error(err) from None
            raise LLMError(self._describe(err), err.status_code) from None
        except (openai.APIConnectionError, openai.APITimeoutError) as err:
            raise EndpointConfigError(f"cannot connect to {self.url} "
                                      f"({self._detail(self._describe(err))}); "
                                      f"{CHECK_URL}") from None
        except (ValueError, openai.APIResponseValidationError) as err:
            raise LLMError(f"malformed /models answer: {self.scrub(str(err))[:200]}") from None
        return [str(getattr(m, "id", "")) for m in (getattr(page, "data", None) or [])]

    def ping(self, model: str) -> ChatResponse:
        """One minimal chat completion (one output token), charged like any other call."""
        return self.chat([{"role": "user", "content": "Reply with the single word: ok"}],
                         role=RoleConfig(model=model, max_tokens=1), role_name="preflight")

    # ---- helpers
    @property
    def host(self) -> str:
        """host[:port] of the endpoint actually used (never the key or a user:password part)."""
        url = self._client.base_url
        return f"{url.host}:{url.port}" if url.port else str(url.host)

    @property
    def url(self) -> str:
        """The endpoint's URL without any user:password part."""
        u = self._client.base_url
        return f"{u.scheme}://{self.host}{u.path}".rstrip("/")

    def _detail(self, text: str) -> str:
        return " ".join(self.scrub(text).split())[:200]

    def _config_error(self, err: openai.APIStatusError) -> EndpointConfigError:
        code = err.status_code
        what = ("rejected the API key" if code in (401, 403) else
                "has no such route or model (is the base URL right, with its /v1? the model?)")
        body = err.body if isinstance(err.body, dict) else {}
        inner = body.get("error") if isinstance(body.get("error"), dict) else body
        said = inner.get("message") if isinstance(inner, dict) else None
        said = self._detail(str(said)) if said else ""
        return EndpointConfigError(f"LLM endpoint {self.host} {what} (HTTP {code}"
                                   + (f": {said}" if said else "") + f"); {CHECK_CONFIG}", code)

    def _accept(self, resp: Any, role: RoleConfig, role_name: str, node: str | None,
                messages: list[dict[str, Any]], started: str, t0: float, tries: int,
                transcript: Transcript | None) -> ChatResponse:
        choices = getattr(resp, "choices", None) or []
        if not choices or getattr(choices[0], "message", None) is None:
            msg = "malformed response from the endpoint: no choices"
            self._record(transcript, role.model or "", started, t0, tries, error=msg)
            raise LLMError(msg)
        choice = choices[0]
        m = choice.message
        self._answered = True
        calls = [ToolCall(id=tc.id or f"call_{i}", name=tc.function.name or "",
                          arguments=tc.function.arguments or "")
                 for i, tc in enumerate(getattr(m, "tool_calls", None) or [])
                 if getattr(tc, "function", None) is not None]
        content = m.content
        message: dict[str, Any] = {"role": "assistant", "content": content}
        if calls:
            message["tool_calls"] = [
                {"id": c.id, "type": "function",
                 "function": {"name": c.name, "arguments": c.arguments}} for c in calls]
        u = getattr(resp, "usage", None)
        if u is not None and u.prompt_tokens is not None:
            p, c, est = int(u.prompt_tokens or 0), int(u.completion_tokens or 0), False
        else:  # some servers omit usage: estimate so that budgets still bind
            p = estimate_tokens(json.dumps(messages, ensure_ascii=False))
            c, est = estimate_tokens(json.dumps(message, ensure_ascii=False)), True
        usage = self.ledger.charge(node, role_name, role.model or "", p, c, estimated=est)
        self._record(transcript, role.model or "", started, t0, tries, usage=usage,
                     finish=choice.finish_reason)
        return ChatResponse(content=content, tool_calls=calls, finish_reason=choice.finish_reason,
                            usage=usage, message=message)

    def _record(self, transcript: Transcript | None, model: str, started: str, t0: float,
                tries: int, *, usage: Usage | None = None, finish: str | None = None,
                error: str | None = None) -> None:
        if transcript is None:
            return
        transcript.calls.append(CallRecord(
            model=model, started_at=started, latency_s=round(time.monotonic() - t0, 3),
            tries=tries, usage=usage or Usage(), finish_reason=finish, error=error))

    def _describe(self, err: Exception) -> str:
        status = getattr(err, "status_code", None)
        kind = type(err).__name__
        text = str(err).strip() or kind
        return self.scrub(f"{kind} (HTTP {status}): {text}" if status else f"{kind}: {text}")[:500]

    def _backoff(self, tries: int, err: Exception) -> float:
        r = self.cfg.retries
        wait = min(r.backoff_max_s, r.backoff_base_s * (2 ** (tries - 1)))
        resp = getattr(err, "response", None)
        header = resp.headers.get("retry-after") if resp is not None else None
        if header is not None:
            try:
                wait = min(r.backoff_max_s, max(0.0, float(header)))
            except ValueError:  # an HTTP date: keep our own backoff
                pass
        return wait
