"""What one LLM call leaves behind (pydantic, kept in the run record): token usage and cost,
tool calls, one request's record, a role invocation's transcript, a chat answer."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, Field


class Usage(BaseModel):
    prompt_tokens: int = 0
    completion_tokens: int = 0
    cost_usd: float = 0.0
    calls: int = 0
    estimated: bool = False  # the endpoint reported no usage; tokens are chars/4
    unpriced: bool = False  # some model had no entry in the price table (cost counted as 0)

    def add(self, other: Usage) -> None:
        self.prompt_tokens += other.prompt_tokens
        self.completion_tokens += other.completion_tokens
        self.cost_usd += other.cost_usd
        self.calls += other.calls
        self.estimated |= other.estimated
        self.unpriced |= other.unpriced


class ToolCall(BaseModel):
    id: str
    name: str
    arguments: str  # raw JSON text as the model sent it (may be malformed)


class CallRecord(BaseModel):
    """One chat-completion request (after retries) and what came back."""

    model: str
    started_at: str
    latency_s: float
    tries: int
    usage: Usage = Field(default_factory=Usage)
    finish_reason: str | None = None
    error: str | None = None


class Transcript(BaseModel):
    """Everything one role invocation said and heard. The API key never appears in it."""

    schema_version: int = 1
    role: str
    node: str | None = None
    model: str | None = None
    mode: str | None = None
    messages: list[dict[str, Any]] = Field(default_factory=list)
    calls: list[CallRecord] = Field(default_factory=list)
    outcome: str = "pending"  # ok | failed | budget | error
    reason: str = ""

    @property
    def usage(self) -> Usage:
        total = Usage()
        for c in self.calls:
            total.add(c.usage)
        return total



class ChatResponse(BaseModel):
    content: str | None
    tool_calls: list[ToolCall]
    finish_reason: str | None
    usage: Usage
    message: dict[str, Any]  # the assistant message, ready to append to the conversation
