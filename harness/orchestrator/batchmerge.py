"""The gated batch merge: what a batch is made of, and how a failing batch is bisected.

A batch of accepted candidates is applied to the record's *current* head text in one pass (span
index, no re-parse), the gate checks the *merged* text, and a failing batch is bisected: position
blame first (one extra gate call when the gate's messages point into a candidate's region),
halving otherwise; the rest is merged and the culprits come back with the gate's messages.
:meth:`harness.orchestrator.record.Record.merge_batch` commits the result (one commit per batch,
:func:`commit_message`'s trailers). Pure: no git, no Lean (the gate is a callable).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable

from harness.blueprint.parse import parse_text
from harness.errors import HarnessError, InputError
from harness.orchestrator.spanindex import SpanIndex

_LINE = re.compile(r":(\d+):(\d+):")


@dataclass(frozen=True)
class Candidate:
    aid: str  # attempt id, "<node>#<n>"
    node: str  # blueprint label
    body: str
    helpers: str = ""
    role: str = "prove"


@dataclass
class GateOutcome:
    passed: bool
    certified: bool  # False: the gate could not decide (no Lean, timeout): fail closed
    messages: list[str] = field(default_factory=list)


# gate(merged text, base text, labels, structural, splits): ``structural`` when the batch holds
# a repair split (new placeholder nodes); ``splits`` names the split nodes: the scope check runs
# in split mode for them (harness.gate.scope), the lock pins every existing statement.
Gate = Callable[..., GateOutcome]


@dataclass
class MergeOutcome:
    commit: str | None
    merged: list[Candidate]
    rejected: dict[str, list[str]]  # aid -> reasons (gate messages)
    superseded: list[str]  # aids whose node was already proved in the record
    gate_calls: int
    seconds: float = 0.0


class CannotDecide(HarnessError):
    """The gate could not certify: nothing of this batch is merged."""


class IndexCache:
    """Span indexes of recent texts (bounded): a merge parses at most the texts it has not seen."""

    def __init__(self, path: Path | None, size: int = 8) -> None:
        self.path, self.size = path, size
        self.by_text: dict[str, SpanIndex] = {}
        self.parses = 0

    def get(self, text: str) -> SpanIndex:
        idx = self.by_text.get(text)
        if idx is None:
            self.parses += 1
            idx = self.put(SpanIndex.of(parse_text(text, self.path)))
        return idx

    def put(self, idx: SpanIndex) -> SpanIndex:
        self.by_text[idx.text] = idx
        while len(self.by_text) > self.size:
            self.by_text.pop(next(iter(self.by_text)))
        return idx


def apply_all(base: str, cands: list[Candidate], cache: IndexCache
              ) -> tuple[str, dict[str, tuple[int, int]]]:
    """Apply every candidate to ``base`` in one pass (edits touch disjoint spans: each node's body
    and the text just before it). Returns the text and, per attempt id, the line range of its
    helpers + declaration in the new text (for blaming gate messages)."""
    text, idx = cache.get(base).apply([(c.node, c.body, c.helpers) for c in cands])
    idx = cache.put(idx) if idx is not None else cache.get(text)
    regions: dict[str, tuple[int, int]] = {}
    for c in cands:
        n = idx.node(c.node)
        extra = (c.helpers.strip("\r\n").count("\n") + 2) if c.helpers.strip() else 0
        regions[c.aid] = (max(1, idx.line_of(n.span.start) - extra), idx.line_of(n.span.end))
    return text, regions


def _blame(messages: list[str], regions: dict[str, tuple[int, int]]) -> set[str]:
    hit: set[str] = set()
    for m in messages:
        mm = _LINE.search(m)
        if not mm:
            continue
        line = int(mm.group(1))
        hit |= {aid for aid, (a, b) in regions.items() if a <= line <= b}
    return hit


def bisect(base: str, cands: list[Candidate], gate: Gate, cache: IndexCache
            ) -> tuple[str, list[Candidate], dict[str, list[str]], int]:
    """(final text, merged, rejected aid -> messages, gate calls)."""
    calls = 0
    certified = 0  # gate calls that reached a verdict (pass or fail)
    rejected: dict[str, list[str]] = {}

    def check(text: str, items: list[Candidate], base_text: str) -> GateOutcome:
        """An uncertified answer is bisected like a failure — one candidate may be what crashes
        or times out Lean — unless the gate never certifies anything (Lean itself is gone, or
        times out on any text): then nothing of the batch is merged and the run stops."""
        nonlocal calls, certified
        calls += 1
        splits = [c.node for c in items if c.role == "repair"]
        r = gate(text, base_text, [c.node for c in items], structural=bool(splits),
                 splits=splits)
        if r.certified:
            certified += 1
        elif certified == 0:  # probe once: can the gate certify the record's own text?
            calls += 1
            if not gate(base, base, [], structural=False).certified:
                raise CannotDecide("; ".join(r.messages[:3]) or "the gate could not certify")
            certified += 1
        return r

    def attempt(items: list[Candidate], text0: str) -> tuple[str | None, dict, GateOutcome | None]:
        try:
            text, regions = apply_all(text0, items, cache)
        except (KeyError, ValueError, InputError) as err:
            return None, {}, GateOutcome(False, True, [f"candidate does not apply: {err}"])
        return text, regions, None

    def solve(items: list[Candidate], text0: str, failed: GateOutcome | None
              ) -> tuple[str, list[Candidate]]:
        if not items:
            return text0, []
        if failed is None:
            text, regions, bad = attempt(items, text0)
            r = bad or check(text, items, text0)  # type: ignore[arg-type]
            if r.passed:
                return text, list(items)  # type: ignore[return-value]
            failed = r
        if len(items) == 1:
            msgs = failed.messages or ["the gate rejected the merged file"]
            if not failed.certified:
                msgs = ["Lean could not certify the merged file with this proof: "
                        + "; ".join(msgs[:3])]
            rejected[items[0].aid] = msgs
            return text0, []
        mid = len(items) // 2
        left, right = items[:mid], items[mid:]
        text1, ok_l = solve(left, text0, None)
        known = failed if failed.certified and len(ok_l) == len(left) else None
        text2, ok_r = solve(right, text1, known)
        return text2, ok_l + ok_r

    if not cands:
        return base, [], {}, 0
    text, regions, bad = attempt(cands, base)
    if bad is not None:  # some candidate does not apply at all: find it by halving
        final, ok = solve(cands, base, bad)
        return final, ok, rejected, calls
    r = check(text, cands, base)  # type: ignore[arg-type]
    if r.passed:
        return text, list(cands), {}, calls  # type: ignore[return-value]
    blamed = _blame(r.messages, regions) if r.certified else set()
    if blamed and len(blamed) < len(cands):  # try without the blamed ones: usually one call
        rest = [c for c in cands if c.aid not in blamed]
        text_r, _, bad_r = attempt(rest, base)
        r2 = bad_r or check(text_r, rest, base)  # type: ignore[arg-type]
        if r2.passed and certified:
            mine = {aid: [m for m in r.messages if aid in _blame([m], regions)] or r.messages
                    for aid in blamed}
            rejected.update(mine)
            return text_r, rest, rejected, calls  # type: ignore[return-value]
    final, ok = solve(cands, base, r)
    return final, ok, rejected, calls


def commit_message(run_id: str, batch_id: str, merged: list[Candidate],
                   rejected: dict[str, list[str]], gate_calls: int,
                   extra: dict[str, str] | None = None) -> str:
    nodes = [c.node for c in merged]
    head = f"harness: merge {batch_id}: {len(nodes)} node{'s' * (len(nodes) != 1)}"
    lines = [head, "", "Proved: " + ", ".join(nodes)]
    for aid, msgs in rejected.items():
        lines.append(f"Returned {aid}: {msgs[0][:200] if msgs else 'rejected'}")
    verdict = f"passed; {gate_calls} gate call{'s' * (gate_calls != 1)}"
    if rejected:
        verdict += f"; {len(rejected)} culprit{'s' * (len(rejected) != 1)} returned"
    trailers = {
        "Harness-Run": run_id, "Harness-Batch": batch_id, "Harness-Nodes": ",".join(nodes),
        "Harness-Attempts": ",".join(c.aid for c in merged),
        "Harness-Roles": ",".join(f"{c.node}={c.role}" for c in merged),
        "Harness-Verdict": verdict, **(extra or {}),
    }
    return "\n".join(lines) + "\n\n" + "\n".join(f"{k}: {v}" for k, v in trailers.items()) + "\n"
