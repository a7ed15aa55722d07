"""The memory's wire format: one JSON file per node (pydantic, versioned)."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, Field

SCHEMA = 1
MAX_DIGESTS = 20  # per node; older digests are dropped (their counts are kept)

BlockerKind = Literal["statement_false", "missing_library", "needs_decomposition", "other"]
BLOCKER_KINDS: tuple[str, ...] = ("statement_false", "missing_library", "needs_decomposition",
                                  "other")


class AttemptDigest(BaseModel):
    aid: str
    role: str = ""  # tactics | prove | repair
    model: str = ""
    approach: str = ""  # the candidate's first lines (what was tried)
    error_class: str = ""  # see harness.memory.digest.ERROR_CLASSES
    first_error: str = ""
    first_goal: str = ""
    unknown_names: list[str] = Field(default_factory=list)
    wished_lemmas: list[str] = Field(default_factory=list)
    cost_usd: float = 0.0
    seconds: float = 0.0
    at: float = 0.0


class Blocker(BaseModel):
    """An agent's report that the node needs a person."""
    kind: BlockerKind
    explanation: str
    aid: str = ""
    best_partial: str = ""  # the best partial proof the agent had
    last_goals: str = ""
    at: float = 0.0


class NodeMemory(BaseModel):
    schema_version: int = SCHEMA
    label: str
    statement_hash: str
    attempts: int = 0  # failed attempts recorded, including dropped digests
    spent_usd: float = 0.0
    digests: list[AttemptDigest] = Field(default_factory=list)
    blocker: Blocker | None = None
