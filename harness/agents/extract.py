"""Getting a structured answer out of model text — never raising on garbage.

Prover models (DeepSeek-Prover-V2, Goedel-Prover, Kimina-Prover) answer in prose with fenced
```lean / ```lean4 blocks; the last complete one is the answer. General models in completion mode
answer with a fenced ```json block (or bare JSON).
"""

from __future__ import annotations

import json
import re
import textwrap
from typing import Any

from harness.blueprint.model import Blueprint, Decl
from harness.errors import InputError

_FENCE = re.compile(r"^[ \t]*```[ \t]*([\w+-]*)[^\n]*\n(.*?)^[ \t]*```[ \t]*$", re.S | re.M)
_THINK = re.compile(r"<think>.*?</think>", re.S)


def fenced_blocks(text: str, langs: tuple[str, ...]) -> list[str]:
    """Complete fenced blocks whose info string is one of ``langs`` (case-insensitive)."""
    text = _THINK.sub("", text or "")
    return [m.group(2) for m in _FENCE.finditer(text) if m.group(1).lower() in langs]


def last_lean_block(text: str) -> str | None:
    blocks = fenced_blocks(text, ("lean", "lean4"))
    return blocks[-1].rstrip() if blocks else None


def json_payload(text: str) -> dict[str, Any] | None:
    """The last ```json block, else the whole text, else the outermost {...}; None if no object."""
    candidates = fenced_blocks(text, ("json",))[::-1]
    stripped = _THINK.sub("", text or "").strip()
    candidates.append(stripped)
    i, j = stripped.find("{"), stripped.rfind("}")
    if 0 <= i < j:
        candidates.append(stripped[i:j + 1])
    for c in candidates:
        try:
            obj = json.loads(c)
        except ValueError:
            continue
        if isinstance(obj, dict):
            return obj
    return None


def split_proof_answer(block: str, node: Decl,
                       known: set[str] | None = None) -> tuple[str, str] | str:
    """A fenced answer for ``node`` -> ``(body, helpers)``, or a reason string.

    The block is either a bare proof (``by …`` / ``:= by …`` / a tactic script) or Lean
    declarations that include the node's own declaration (its statement is discarded: the locked
    statement in the file is what gets proved). Declarations before it become helpers, except
    echoes of declarations the file already has (``known``: their names, short or full) — prover
    models often repeat the whole file they were asked to complete.
    """
    from harness.blueprint.parse import parse_text  # the parser decides what a declaration is

    text = block.strip("\n")
    short = (node.short_name or "").split(".")[-1]
    if not re.search(r"(?m)^\s*(@\[|theorem\b|lemma\b|def\b|example\b|private\b|noncomputable\b)",
                     text):
        body = text.strip()
        if body.startswith(":="):  # `:= term` or `:= by …`: keep what follows as written
            body = body[2:].strip()
        elif body and not body.startswith(("by", "fun", "⟨")):  # a bare tactic script
            body = "by\n" + textwrap.dedent(text).strip("\n")
        body = normalize_body(body)
        return (body, "") if body else "the answer's ```lean block is empty"
    try:
        parsed: Blueprint = parse_text(text)
    except InputError as err:
        return f"could not parse the answer's ```lean block: {err.line()}"
    target = None
    for d in parsed.decls:
        if d.short_name and d.short_name.split(".")[-1] == short:
            target = d
            break
    if target is None and len([d for d in parsed.decls if d.kind.is_proof]) == 1:
        target = next(d for d in parsed.decls if d.kind.is_proof)
    if target is None:
        return f"the answer's ```lean block has no declaration named {short!r}"
    body = target.body_span.slice(parsed.text).strip()
    if not body or target.body_sep != ":=":
        return f"the answer's declaration of {short!r} has no `:=` body"
    known = known or set()
    helpers = [d.span.slice(parsed.text).strip() for d in parsed.decls
               if d.span.end <= target.span.start and d.kind.value != "example"
               and not ({d.name, d.short_name, (d.short_name or "").split(".")[-1]} & known)]
    return normalize_body(body), "\n\n".join(helpers)


def normalize_body(body: str) -> str:
    """Indent continuation lines by two spaces (consistently) so the body sits under its `:=`."""
    lines = body.strip().splitlines()
    if len(lines) < 2:
        return body.strip()
    rest = textwrap.dedent("\n".join(lines[1:])).splitlines()
    return "\n".join([lines[0]] + [("  " + ln) if ln.strip() else "" for ln in rest])
