"""The bounded, deterministic summary of a node's memory that a prompt carries."""

from __future__ import annotations

from collections import Counter

from harness.memory.model import NodeMemory

MAX_SUMMARY_CHARS = 1_800  # measured in `bench context`
MAX_LISTED = 4
MAX_ITEM = 360  # one listed attempt
TITLE = "## What earlier attempts on this node learned"


def summarise(mem: NodeMemory | None, limit: int = MAX_SUMMARY_CHARS) -> str:
    """Counts by error class, names that do not exist, lemmas wished for, and the newest
    attempts' approach and first error (newest first); never longer than ``limit``."""
    if mem is None or not mem.digests:
        return ""
    ds = mem.digests
    classes = Counter(d.error_class or "other" for d in ds)
    lines = [TITLE,
             f"{mem.attempts} failed attempt(s), ${mem.spent_usd:.2f} spent. Failures by kind: "
             + ", ".join(f"{k} ×{v}" for k, v in classes.most_common()) + "."]
    unknown = list(dict.fromkeys(n for d in ds for n in d.unknown_names))
    if unknown:
        lines.append("Names that do not exist (do not use them): "
                     + ", ".join(f"`{n}`" for n in unknown[:12]) + ".")
    wished = list(dict.fromkeys(n for d in ds for n in d.wished_lemmas))
    if wished:
        lines.append("Lemmas earlier attempts wished existed (prove them inline or avoid them): "
                     + ", ".join(f"`{n}`" for n in wished[:8]) + ".")
    lines.append("Newest attempts first; do not repeat an approach that failed:")
    for i, d in enumerate(reversed(ds[-MAX_LISTED:]), 1):
        item = f"{i}. [{d.error_class or 'other'}]"
        if d.approach:
            item += f" tried: {d.approach}"
        if d.first_error:
            item += f" — Lean: {d.first_error}"
        if d.first_goal:
            item += f" — goal: ⊢ {d.first_goal}"
        lines.append(item if len(item) <= MAX_ITEM else item[:MAX_ITEM - 1] + "…")
    out = "\n".join(lines)
    if len(out) > limit:  # drop whole items from the oldest end, then hard-clip
        while len(out) > limit and len(lines) > 3:
            lines.pop()
            out = "\n".join(lines)
        out = out[:limit]
    return out


def worst_case() -> str:
    """The summary of a full memory whose every field is at its limit (for `bench context`)."""
    from harness.memory.model import MAX_DIGESTS, AttemptDigest, NodeMemory

    long = "x" * 400
    ds = [AttemptDigest(aid=f"n#{i}", error_class="unknown_identifier", approach=long,
                        first_error=long, first_goal=long,
                        unknown_names=[f"Name.number{i}_{j}" for j in range(8)],
                        wished_lemmas=[f"wish_{i}_{j}" for j in range(8)]) for i in range(MAX_DIGESTS)]
    return summarise(NodeMemory(label="n", statement_hash="h", attempts=99, digests=ds))
