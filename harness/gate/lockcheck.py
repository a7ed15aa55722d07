"""Check 1 of the gate, the lock: every locked declaration still exists with the same statement,
definition, layout and context fingerprints, in the same order; the header and the workspace
environment unchanged; no new declaration shadows a name a locked statement uses; no
duplicates. Informal-statement edits are returned, not failures."""

from __future__ import annotations

from harness.blueprint.model import Blueprint, DeclKind
from harness.gate import fingerprint as fp
from harness.gate.environment import blueprint_imports, compare, environment
from harness.gate.forbidden import _last, lock_key
from harness.gate.gatereport import Ctx, InformalChange
from harness.gate.lock import Lock
from harness.gate.scope import safe_prefix_line

# the lock failures a restatement makes in the declaration it restates (each message starts so):
# a repair round excuses exactly these for the statements its audit passed (services.py)
STATEMENT_CHANGED = "statement changed"
DEFINITION_CHANGED = "definition changed"
REINDENTED = "definition re-indented"
RESTATABLE = (STATEMENT_CHANGED, DEFINITION_CHANGED, REINDENTED)


def check_lock(ctx: Ctx, lock: Lock, norm: fp.Normaliser, allow: set[str] = frozenset()
               ) -> list[InformalChange]:
    """``allow``: the nodes a prover may edit (labels or names); only their own harmless `… in`
    prefixes may differ from the lock (issue #19 item 7)."""
    bp = ctx.bp
    contexts = fp.Contexts(norm, bp)
    informal: list[InformalChange] = []
    if fp.header_fp(norm, bp) != lock.header:
        ctx.fail("lock", bp.header_span.start, "file header changed (imports or options)")
    if lock.environment:
        now = environment(bp.path, blueprint_imports(bp))
        for msg in compare(lock.environment, now):
            ctx.fail("lock", 0, f"workspace file {msg}: the Lake configuration, toolchain and "
                     "imported project modules are part of what every statement means")
    for f in bp.findings:
        if f.code in ("duplicate-name", "duplicate-label"):
            ctx.fail("lock", bp.offset_of(f.pos), f.message, f.label)
    by_key: dict[str, int] = {}
    keys: list[str] = []
    for i, d in enumerate(bp.decls):
        if d.kind == DeclKind.EXAMPLE:
            keys.append("")
            continue
        k = lock_key(d, norm)
        keys.append(k)
        by_key.setdefault(k, i)
    order = {e.key: n for n, e in enumerate(lock.entries)}
    last_seen = -1
    for e in lock.entries:
        i = by_key.get(e.key)
        if i is None:
            _missing(ctx, e, bp, keys, order)
            continue
        d = bp.decls[i]
        at = d.head_span.start
        if e.name != d.name:
            ctx.fail("lock", d.span.start, f"renamed: `{e.name}` is now `{d.name}`", e.key)
        if e.kind != d.kind.value:
            ctx.fail("lock", at, f"kind changed from `{e.kind}` to `{d.kind.value}`", e.key)
        if e.definition is not None and fp.definition_fp(norm, d) != e.definition:
            ctx.fail("lock", at, f"{DEFINITION_CHANGED} (a definition's body is part of what "
                     "the statements using it mean)", e.key)
        elif e.layout is not None and fp.layout_fp(norm, d) != e.layout:
            ctx.fail("lock", at, f"{REINDENTED} or re-wrapped: its line structure changed, "
                     "and in a `do` or tactic block that changes its value", e.key)
        elif fp.statement_fp(norm, d) != e.statement:
            ctx.fail("lock", at, STATEMENT_CHANGED, e.key)
        editable = bool({e.key, e.label, e.name, d.short_name} & allow)
        if contexts.fp(d) != e.context and not (editable and _same_but_safe_prefixes(
                lock.contexts.get(e.context), contexts.lines(d))):
            ctx.fail("lock", at, "context changed: " + _context_diff(
                lock.contexts.get(e.context), contexts.lines(d)), e.key)
        if fp.informal_fp(d) != e.informal:
            p = bp.pos_of(d.blueprint.span.start if d.blueprint else d.span.start)
            informal.append(InformalChange(key=e.key, path=ctx.path, line=p.line, col=p.col,
                                           message="informal statement changed"))
    # relative order of locked declarations (moving an instance or definition changes meaning)
    for i, k in enumerate(keys):
        n = order.get(k)
        if n is None or by_key.get(k) != i:
            continue
        if n < last_seen:
            ctx.fail("lock", bp.decls[i].span.start, "moved: locked declarations must keep "
                     "their order", k)
        last_seen = max(last_seen, n)
    _check_shadowing(ctx, norm, keys, order)
    return informal


def _same_but_safe_prefixes(old: list[str] | None, new: list[str]) -> bool:
    """Only `set_option maxHeartbeats N in` / `open Classical in` prefixes differ: options that
    cannot change what the statement means (the type hash still compares it, with Lean)."""
    if old is None:
        return False
    return [x for x in old if not safe_prefix_line(x)] == [x for x in new
                                                          if not safe_prefix_line(x)]


def _context_diff(old: list[str] | None, new: list[str]) -> str:
    if old is None:
        return "namespace/open/variable/universe/options or another command before it"
    added = [f"+`{x}`" for x in new if x not in old and x != "--"]
    removed = [f"-`{x}`" for x in old if x not in new and x != "--"]
    parts = (added + removed) or ["the same commands in another order"]
    more = f" and {len(parts) - 3} more" if len(parts) > 3 else ""
    return ", ".join(parts[:3]) + more


def _missing(ctx: Ctx, e, bp: Blueprint, keys: list[str], order: dict[str, int]) -> None:
    same_name = [d for d in bp.decls if e.name and d.name == e.name]
    if same_name:
        d = same_name[0]
        ctx.fail("lock", d.span.start, f"label changed: `{e.key}` is now `{d.key}`", e.key)
        return
    # report where it would have been: before the next locked declaration that survives
    n = order[e.key]
    at = len(bp.text)
    for i, k in enumerate(keys):
        if order.get(k, -1) > n:
            at = bp.decls[i].span.start
            break
    ctx.fail("lock", at, f"locked `{e.kind} {e.name or e.key}` (lock line {e.line}) was "
             "deleted or renamed", e.key)


def _check_shadowing(ctx: Ctx, norm: fp.Normaliser, keys: list[str],
                     order: dict[str, int]) -> None:
    """A new declaration whose name is an identifier some later locked statement uses would
    change what that identifier resolves to (namespaces, dot notation)."""
    used_after: dict[str, str] = {}
    for i in range(len(keys) - 1, -1, -1):
        d = ctx.bp.decls[i]
        if keys[i] in order:
            end = d.span.end if d.kind.is_definition else d.signature_span.end
            for t in norm.tokens(d.head_span.start, end):
                if t.kind == "ident":
                    used_after.setdefault(_last(t.value), keys[i])
        elif d.name and keys[i]:
            victim = used_after.get(_last(d.name))
            if victim is not None:
                ctx.fail("lock", d.span.start, f"new declaration `{d.name}` shadows an identifier "
                         f"used by the locked statement of `{victim}`", keys[i])
