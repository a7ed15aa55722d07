"""The common role runner: prompt in, validated pydantic output (or a clear failure) out.

``run_role`` never raises on what the model says: malformed JSON, a missing fenced block, an
unknown tool, an endless tool-call loop — each ends as a failed :class:`RoleOutcome` with a reason
(or is fed back to the model while rounds remain). Endpoint failures (``LLMError``) and spent
budgets (``BudgetExceeded``) also end as outcomes, with ``status`` "error" / "budget" — except
a configuration the endpoint refuses (bad key, wrong URL: ``EndpointConfigError``, a
``UsageError``), which is raised: no later request can succeed, so the command stops (exit 2).

Modes (per role, from the config):
* ``tools``: the role's tools plus ``submit`` (whose parameters are the output schema); at most
  ``max_tool_rounds`` requests; an answer without tool calls is parsed like completion mode.
* ``completion``: no tools; the answer is parsed from text (``extract_*`` below); problems are
  sent back as a new user message at most ``max_reprompts`` times.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass, field
from importlib import resources
from typing import Any, Protocol

from pydantic import BaseModel, ValidationError

from harness.agents.config import HarnessConfig
from harness.agents.contracts import (FORBIDDEN_IN_PROOFS, FORBIDDEN_IN_STATEMENTS, HELPER_ATTRS,
                                      render_list)
from harness.agents.extract import json_payload
from harness.agents.llm import (BudgetExceeded, EndpointConfigError, LLMClient, LLMError,
                                Transcript)
from harness.agents.schemas import SCHEMAS
from harness.errors import HarnessError

MAX_TOOL_RESULT_CHARS = 6_000


class Toolbox(Protocol):
    def specs(self) -> list[dict[str, Any]]: ...  # OpenAI function-tool specs (not `submit`)
    def call(self, name: str, args: dict[str, Any]) -> str: ...


@dataclass
class RoleOutcome:
    role: str
    status: str  # ok | failed | budget | error
    output: BaseModel | None
    reason: str
    transcript: Transcript
    problems: list[str] = field(default_factory=list)  # last rejection, for the record

    @property
    def ok(self) -> bool:
        return self.status == "ok"


def load_prompt(role: str) -> str:
    """The role's system prompt (package data), with the forbidden lists filled in."""
    text = resources.files("harness.agents").joinpath("prompts", f"{role}.md").read_text("utf-8")
    statements = ", ".join(f"`{t}`" for t in FORBIDDEN_IN_STATEMENTS)
    helper_attrs = ", ".join(f"`@[{a}]`" for a in sorted(HELPER_ATTRS))
    return (text.replace("{{FORBIDDEN}}", render_list(FORBIDDEN_IN_PROOFS))
            .replace("{{FORBIDDEN_STATEMENTS}}", statements)
            .replace("{{HELPER_ATTRS}}", helper_attrs))


def submit_spec(role: str) -> dict[str, Any]:
    schema = SCHEMAS[role].model_json_schema()
    schema.pop("title", None)
    return {"type": "function", "function": {
        "name": "submit", "description": f"Submit the final {role} result.",
        "parameters": schema}}


# (text) -> dict of fields for the schema, or a reason string
Extractor = Callable[[str], "dict[str, Any] | str"]
# (validated output) -> problems (empty: accepted). May run Lean (prove) or the parser (construct).
Validator = Callable[[BaseModel], list[str]]


def extract_json(text: str) -> dict[str, Any] | str:
    obj = json_payload(text)
    return obj if obj is not None else "no JSON object found in the answer"


def run_role(role: str, user: str, *, client: LLMClient, cfg: HarnessConfig,
             node: str | None = None, model: str | None = None, toolbox: Toolbox | None = None,
             extract: Extractor | None = None, validate: Validator | None = None,
             system: str | None = None) -> RoleOutcome:
    rc = cfg.role(role, model)
    schema = SCHEMAS[role]
    transcript = Transcript(role=role, node=node, model=rc.model, mode=rc.mode)
    messages: list[dict[str, Any]] = [
        {"role": "system", "content": system if system is not None else load_prompt(role)},
        {"role": "user", "content": user}]
    extract = extract or extract_json
    tools = None
    if rc.mode == "tools":
        tools = (toolbox.specs() if toolbox else []) + [submit_spec(role)]
    rounds = rc.max_tool_rounds if rc.mode == "tools" else 1 + rc.max_reprompts
    problems: list[str] = []

    def finish(status: str, reason: str, output: BaseModel | None = None) -> RoleOutcome:
        transcript.messages = client.scrub(messages)
        transcript.outcome, transcript.reason = status, client.scrub(reason)
        return RoleOutcome(role, status, output, transcript.reason, transcript, problems)

    def accept(fields: dict[str, Any] | str) -> tuple[BaseModel | None, list[str]]:
        if isinstance(fields, str):
            return None, [fields]
        try:
            out = schema.model_validate(fields)
        except ValidationError as err:
            return None, [f"the answer does not match the {role} schema: " + "; ".join(
                f"{'.'.join(map(str, e['loc'])) or '(root)'}: {e['msg']}" for e in err.errors())]
        if validate is None:
            return out, []
        try:
            return out, validate(out)
        except HarnessError as err:
            return None, [err.line()]
        except Exception as err:  # a checker bug must not crash the run: record it and go on
            return None, [f"internal error while checking the answer: "
                          f"{type(err).__name__}: {err}"]

    for _ in range(rounds):
        try:
            resp = client.chat(messages, role=rc, role_name=role, node=node, tools=tools,
                               transcript=transcript)
        except BudgetExceeded as err:
            return finish("budget", str(err))
        except EndpointConfigError:
            raise  # a usage error: the caller's command ends with exit 2
        except LLMError as err:
            return finish("error", err.reason)
        messages.append(resp.message)
        if resp.tool_calls and rc.mode == "tools":
            done: BaseModel | None = None
            for tc in resp.tool_calls:
                result, out = _dispatch(tc.name, tc.arguments, toolbox, accept, problems)
                messages.append({"role": "tool", "tool_call_id": tc.id,
                                 "content": client.scrub(result)[:MAX_TOOL_RESULT_CHARS]})
                if out is not None and done is None:
                    done = out
            if done is not None:
                return finish("ok", "submitted", done)
            stop = getattr(toolbox, "stop", None)  # e.g. report_blocker: hand over to a person
            if stop:
                return finish("escalated", stop)
            continue
        try:
            fields = extract(resp.content or "")
        except Exception as err:  # same: garbage must never crash the run
            fields = f"could not read the answer: {type(err).__name__}: {err}"
        out, probs = accept(fields)
        if out is not None and not probs:
            return finish("ok", "answered", out)
        if resp.finish_reason == "length":  # say why the block is missing
            probs = ["the answer was cut off (max_tokens reached)", *probs]
        problems[:] = probs
        hint = ("Call the `submit` tool with your final result." if rc.mode == "tools"
                else "Answer again, ending with the corrected fenced block.")
        messages.append({"role": "user", "content":
                         "Your answer was not accepted:\n- " + "\n- ".join(problems) + "\n" + hint})
    what = ("tool-call rounds" if rc.mode == "tools" else "answers")
    reason = f"no accepted result after {rounds} {what}"
    if problems:
        reason += f"; last problem: {problems[0][:2000]}"
    return finish("failed", reason)


def _dispatch(name: str, raw_args: str, toolbox: Toolbox | None,
              accept: Callable[[dict[str, Any] | str], tuple[BaseModel | None, list[str]]],
              problems: list[str]) -> tuple[str, BaseModel | None]:
    """Run one tool call. Returns (tool message text, accepted output if it was a good submit)."""
    try:
        args = json.loads(raw_args) if raw_args.strip() else {}
        if not isinstance(args, dict):
            raise ValueError("arguments are not a JSON object")
    except ValueError as err:
        problems[:] = [f"malformed JSON arguments for `{name}`: {err}"]
        return f"error: malformed JSON arguments ({err}); send a JSON object", None
    if name == "submit":
        out, probs = accept(args)
        if out is not None and not probs:
            return "accepted", out
        problems[:] = probs
        return "rejected:\n- " + "\n- ".join(probs), None
    if toolbox is None or name not in {s["function"]["name"] for s in toolbox.specs()}:
        problems[:] = [f"unknown tool `{name}`"]
        return f"error: unknown tool `{name}`", None
    try:
        return toolbox.call(name, args), None
    except TypeError as err:  # wrong argument names
        return f"error: bad arguments for `{name}`: {err}", None
    except HarnessError as err:
        return f"error: `{name}` failed: {err.line()}", None
