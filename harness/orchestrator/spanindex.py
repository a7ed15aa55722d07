"""Where each node's declaration and body sit in the record's text, kept up to date across merges
without re-parsing the whole file.

A proof merge only replaces node bodies and inserts complete helper declarations just before
them, so every other offset moves by a known amount. Parsing a 1 000-node blueprint costs more
than the whole merge budget (50 ms), so the record parses once, then shifts this index merge after
merge. It is checked against the text after every shift (the new bodies must sit exactly where
the index says); any doubt — a split (new nodes), a failed check, a text it has not seen — means
a full parse. The gate parses the merged file on its own anyway: the index only decides where
edits go and which nodes are still open, never what is accepted.
"""

from __future__ import annotations

import re
from bisect import bisect_left
from dataclasses import dataclass

from harness.blueprint.lexer import mask
from harness.blueprint.model import Blueprint, BodyStatus, Span
from harness.blueprint.write import with_block_before, with_body
from harness.errors import InputError

_PLACEHOLDER = re.compile(r"(?<![\w.'])(sorry|sorry_using|admit)(?![\w'])")


@dataclass(frozen=True, slots=True)
class NodeSpan:
    """The slice of a :class:`Decl` that edits need (duck-compatible with ``write``'s helpers)."""

    key: str
    span: Span
    body_span: Span
    body_sep: str
    status: BodyStatus
    kind: str = ""  # the declaration's kind (DeclKind value): a definition's body is visible


class SpanIndex:
    def __init__(self, text: str, nodes: dict[str, NodeSpan]) -> None:
        self.text = text
        self.nodes = nodes

    @classmethod
    def of(cls, bp: Blueprint) -> "SpanIndex":
        return cls(bp.text, {d.key: NodeSpan(d.key, d.span, d.body_span, d.body_sep, d.status,
                                          d.kind.value)
                             for d in bp.nodes})

    def node(self, label: str) -> NodeSpan:
        return self.nodes[label]  # KeyError: not a node (any more)

    def line_of(self, offset: int) -> int:
        return self.text.count("\n", 0, offset) + 1

    def apply(self, edits: list[tuple[str, str, str]]) -> tuple[str, "SpanIndex | None"]:
        """Apply (label, body, helpers) edits; returns the new text and its index (None when
        the index cannot vouch for the result: the caller re-parses)."""
        spans = sorted(((self.node(lbl), body, helpers) for lbl, body, helpers in edits),
                       key=lambda e: e[0].span.start)
        for a, b in zip(spans, spans[1:]):
            if a[0].span.start == b[0].span.start:
                raise ValueError(f"two edits of `{a[0].key}`")
        text = self.text
        moves: list[tuple[int, int, int, int]] = []  # (decl start, Δ helpers, Δ body, body end)
        for d, body, helpers in reversed(spans):  # back to front: earlier spans stay valid
            t1 = with_body(text, d, body)
            t2 = with_block_before(t1, d, helpers)
            moves.append((d.span.start, len(t2) - len(t1), len(t1) - len(text), d.body_span.end))
            text = t2
        moves.reverse()  # file order
        starts = [m[0] for m in moves]
        prefix = [0]  # prefix[i]: total growth of the first i edits
        for _, dh, db, _ in moves:
            prefix.append(prefix[-1] + dh + db)
        new: dict[str, NodeSpan] = {}
        for key, n in self.nodes.items():
            i = bisect_left(starts, n.span.start)  # edits strictly before this declaration
            shift = prefix[i]
            if i < len(starts) and starts[i] == n.span.start:  # this node's own edit
                _, dh, db, _ = moves[i]
                b0, b1 = n.body_span.start + shift + dh, n.body_span.end + shift + dh + db
                n = NodeSpan(key, Span(n.span.start + shift + dh, n.span.end + shift + dh + db),
                             Span(b0, b1), n.body_sep, _status(text[b0:b1]), n.kind)
            elif shift:
                n = NodeSpan(key, Span(n.span.start + shift, n.span.end + shift),
                             Span(n.body_span.start + shift, n.body_span.end + shift),
                             n.body_sep, n.status, n.kind)
            new[key] = n
        if any("blueprint" in helpers for _, _, helpers in spans):
            return text, None  # helpers that are nodes (a split): the index cannot know them
        idx = SpanIndex(text, new)
        return text, (idx if idx._consistent(self, spans) else None)

    def _consistent(self, old: "SpanIndex", spans: list) -> bool:
        """Every node's declaration still starts with the same text, bodies end where they did."""
        for key, n in self.nodes.items():
            o = old.nodes[key]
            head_old = old.text[o.span.start:o.body_span.start]
            if self.text[n.span.start:n.body_span.start] != head_old:
                return False
        return True


def _status(body: str) -> BodyStatus:
    try:
        masked = mask(body)
    except InputError:
        return BodyStatus.SORRY  # unsure: treat as still open (the gate decides anyway)
    m = _PLACEHOLDER.search(masked)
    if not m:
        return BodyStatus.COMPLETE
    return BodyStatus.SORRY_USING if m.group(1) == "sorry_using" else BodyStatus.SORRY
