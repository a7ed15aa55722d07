"""The context a model sees for one node, bounded in size.

Contents, in this order: the file header; the statements (never the proofs) of the node's
transitive dependencies, nearest first — definitions in full, because their text *is* the meaning
of the statements that mention them; with a library index, the signatures of the library
declarations the informal proof names (`\texttt{…}`, backticks), then the top retrieved premises
for the statement and informal proof; then the node with its informal statement and proof. If the
budget is exceeded the farthest dependencies are dropped first, library entries after them
(retrieved premises before named ones), and every omission is said.

Sizes are estimated as characters / 4 (:func:`harness.agents.llm.estimate_tokens`); the ratio
against the whole file is the figure reported in ``docs/benchmarks.md``.
"""

from __future__ import annotations

import statistics
from dataclasses import dataclass, field
from typing import Any

import networkx as nx

from harness.agents.llm import estimate_tokens
from harness.blueprint.model import Blueprint, Decl

DEFAULT_MAX_TOKENS = 12_000
HEADER_MAX_CHARS = 4_000


@dataclass
class NodeContext:
    label: str
    text: str
    tokens: int
    baseline_tokens: int  # the whole file
    included: list[str] = field(default_factory=list)  # dependency keys shown, nearest first
    omitted: list[str] = field(default_factory=list)  # dependency keys dropped for size
    skeleton: str = ""  # one Lean file to complete (prover models): deps `:= by sorry`, the node
    informal: str = ""
    named: list[str] = field(default_factory=list)  # library names the informal proof names
    unresolved: list[str] = field(default_factory=list)  # names it mentions that exist nowhere
    premises: list[str] = field(default_factory=list)  # retrieved library premises shown
    library_omitted: list[str] = field(default_factory=list)  # library entries dropped for size

    @property
    def ratio(self) -> float:
        return self.tokens / self.baseline_tokens if self.baseline_tokens else 0.0


def statement_text(bp: Blueprint, d: Decl) -> str:
    """The declaration without its proof: `kind name signature` (+ `:= …`). Definitions whole."""
    if d.kind.is_definition:
        return bp.text[d.head_span.start:d.span.end].strip()
    head = bp.text[d.head_span.start:d.signature_span.end].rstrip()
    return head + (" := …" if d.body_sep else "")


def node_text(bp: Blueprint, d: Decl) -> str:
    """The node's Lean statement (the blueprint attribute is shown as informal text instead)."""
    head = bp.text[d.head_span.start:d.signature_span.end].rstrip()
    return head + " :=\n  <proof>"


def _node_prose(bp: Blueprint, d: Decl, field_name: str) -> str | None:
    """A field of the node's prose: the part's own, else another part's (a shared label
    usually writes its statement once)."""
    for p in [d, *bp.parts(d.node_key)]:
        value = getattr(p.blueprint, field_name, None) if p.blueprint else None
        if value:
            return value
    return None


def _informal(bp: Blueprint, d: Decl) -> str:
    bpa = d.blueprint
    if bpa is None:
        return ""
    parts = []
    title, statement = _node_prose(bp, d, "title"), _node_prose(bp, d, "statement")
    if title:
        parts.append(f"Title: {title.strip()}")
    if statement:
        parts.append(f"Informal statement: {statement.strip()}")
    proof = d.proof_text  # `proof :=`, else the proof docstrings in the tactic block
    if proof:
        parts.append(f"Informal proof: {proof.strip()}")
    return "\n".join(parts)


def _links(bp: Blueprint, d: Decl, graph: nx.DiGraph) -> str:
    """Prose `\\cref`s of the node: links for the reader, not dependencies (the linked node
    may come later in the file, where Lean cannot use it)."""
    from harness.blueprint.links import refs

    bpa = d.blueprint
    if bpa is None:
        return ""
    seen: list[str] = []
    for prose in (_node_prose(bp, d, "statement"), d.proof_text):
        seen += [lbl for _, lbl in refs(prose) if lbl not in seen and lbl != d.node_key]
    lines = []
    for lbl in seen:
        target = graph.nodes[lbl].get("decl") if lbl in graph else None
        stmt = getattr(getattr(target, "blueprint", None), "statement", None) or ""
        first = stmt.strip().splitlines()[0][:200] if stmt.strip() else ""
        lines.append(f"- {lbl}" + (f": {first}" if first else ""))
    return ("Referenced in the prose (links, not dependencies):\n" + "\n".join(lines)
            if lines else "")


def node_scope(d: Decl) -> tuple[str, tuple[str, ...]]:
    """(namespace, opened namespaces) in force at a declaration (for name resolution)."""
    return ".".join(d.scope.namespaces), tuple(d.scope.opens)


N_PREMISES = 8


def _library_blocks(bp: Blueprint, node: Decl, library: Any, module: str
                    ) -> tuple[list[tuple[str, str]], list[tuple[str, str]], list[str]]:
    """([(name, block)] named by the informal text, [(name, block)] retrieved, unresolved)."""
    from harness.library.agent import mentioned_names, render_hit
    from harness.library.rank import QueryContext

    bpa = node.blueprint
    informal = " ".join(x for x in (bpa.statement, bpa.proof) if x) if bpa else ""
    ns, opens = node_scope(node)
    in_bp = {n for d in bp.decls for n in (d.name, d.short_name) if n}
    named: list[tuple[str, str]] = []
    unresolved: list[str] = []
    for name in mentioned_names(informal):
        if name in in_bp:
            continue
        rows = library.resolve(name, ns, opens)
        hits = [library.lookup(r["name"], 1)[0] for r in rows[:1]] or library.lookup(name, 1)
        if hits:
            named.append((hits[0].name, render_hit(hits[0], 200)))
        else:
            unresolved.append(name)
    seen = {n for n, _ in named} | in_bp
    query = " ".join([bp.text[node.head_span.start:node.signature_span.end], informal])
    ctx = QueryContext(namespace=ns, opens=opens, module=module,
                       exclude=frozenset(x for x in (node.name,) if x), line=node.pos.line)
    retrieved = [(h.name, render_hit(h, 200)) for h in library.search(query, N_PREMISES + 4,
                                                                       ctx=ctx)
                 if h.name not in seen][:N_PREMISES]
    return named, retrieved, unresolved


def dependency_order(graph: nx.DiGraph, key: str) -> list[str]:
    """Transitive dependencies of ``key`` (edges go dep -> user), nearest first (BFS)."""
    if key not in graph:
        return []
    seen = {key}
    order: list[str] = []
    frontier = [key]
    while frontier:
        nxt: list[str] = []
        for k in frontier:
            for dep in sorted(graph.predecessors(k)):
                if dep not in seen:
                    seen.add(dep)
                    order.append(dep)
                    nxt.append(dep)
        frontier = nxt
    return order


def build_context(bp: Blueprint, label: str, graph: nx.DiGraph | None = None,
                  max_tokens: int = DEFAULT_MAX_TOKENS, library: Any | None = None,
                  module: str = "") -> NodeContext:
    """The bounded context for node ``label`` (KeyError if there is no such node).
    ``library``: a :class:`harness.library.LibraryIndex`; ``module``: the file's module name."""
    node = bp.node(label)
    if graph is None:
        from harness.blueprint.dag import analyse
        graph = analyse(bp).graph
    header = bp.text[bp.header_span.start:bp.header_span.end].strip()
    if len(header) > HEADER_MAX_CHARS:
        header = header[:HEADER_MAX_CHARS] + "\n-- … (header truncated)"
    scope = "\n".join(node.scope.commands)
    tail_parts = ["## The node to prove"]
    if scope:
        tail_parts.append("Scope in force:\n```lean\n" + scope + "\n```")
    tail_parts.append("```lean\n" + node_text(bp, node) + "\n```")
    informal = _informal(bp, node)
    if informal:
        tail_parts.append(informal)
    links = _links(bp, node, graph)
    if links:
        tail_parts.append(links)
    tail = "\n\n".join(tail_parts)
    fixed = "## Header\n```lean\n" + header + "\n```\n\n" + tail
    budget = max_tokens * 4 - len(fixed) - 200  # chars left for dependencies

    included: list[str] = []
    omitted: list[str] = []
    blocks: list[tuple[int, str]] = []
    stubs: list[tuple[int, str]] = []
    for d in (p for k in dependency_order(graph, node.node_key)
              for p in bp.parts(k)):  # every part of a shared label; none: imported
        block = statement_text(bp, d)
        if d.blueprint and d.blueprint.statement:
            block = f"-- [{d.key}] {d.blueprint.statement.strip().splitlines()[0][:300]}\n" + block
        if budget - len(block) < 0:
            omitted.append(d.key)
            continue
        budget -= len(block) + 2
        blocks.append((d.span.start, block))
        stubs.append((d.span.start, block if d.kind.is_definition
                      else block.removesuffix(" := …") + " := by\n  sorry"))
        included.append(d.key)
    named_names: list[str] = []
    premise_names: list[str] = []
    lib_omitted: list[str] = []
    unresolved: list[str] = []
    lib = ""
    if library is not None:
        named, retrieved, unresolved = _library_blocks(bp, node, library, module)
        shown: list[str] = []
        for kind, items in (("named", named), ("premise", retrieved)):
            for name, block in items:
                if budget - len(block) < 0:
                    lib_omitted.append(name)
                    continue
                budget -= len(block) + 2
                shown.append(block)
                (named_names if kind == "named" else premise_names).append(name)
            if kind == "named" and shown:
                lib += ("## Library declarations the informal proof names\n```lean\n"
                        + "\n\n".join(shown) + "\n```\n\n")
                shown = []
        if shown:
            lib += ("## Library lemmas that may help (retrieved; check before relying on them)"
                    "\n```lean\n" + "\n\n".join(shown) + "\n```\n\n")
        if unresolved:
            lib += ("(named in the informal proof but found in no index: "
                    + ", ".join(f"`{n}`" for n in unresolved) + ")\n\n")
        if lib_omitted:
            lib += (f"({len(lib_omitted)} library entries omitted for size: "
                    f"{', '.join(lib_omitted[:20])})\n\n")
    deps = ""
    if blocks:
        deps = ("## Statements it may use (proofs omitted)\n```lean\n"
                + "\n\n".join(b for _, b in sorted(blocks)) + "\n```\n\n")  # file order
    if omitted:
        deps += (f"({len(omitted)} farther dependencies omitted for size: "
                 f"{', '.join(omitted[:20])})\n\n")
    text = "## Header\n```lean\n" + header + "\n```\n\n" + deps + lib + tail
    head = node_text(bp, node).removesuffix(" :=\n  <proof>")
    skeleton = "\n\n".join(p for p in [header, scope, *(b for _, b in sorted(stubs)),
                                       head + " := by\n  sorry"] if p)
    return NodeContext(label=label, text=text, tokens=estimate_tokens(text),
                       baseline_tokens=estimate_tokens(bp.text), included=included,
                       omitted=omitted, skeleton=skeleton, informal=informal,
                       named=named_names, unresolved=unresolved, premises=premise_names,
                       library_omitted=lib_omitted)


def context_benchmark(n_nodes: int = 500, seed: int = 0, sample: int | None = 50,
                      max_tokens: int = DEFAULT_MAX_TOKENS) -> dict[str, Any]:
    """Context size vs whole-file size on a generated blueprint (for docs/benchmarks.md).

    Returns the baseline tokens and mean / median / max of context tokens and ratios over
    ``sample`` lemma/theorem nodes spread evenly through the file (all if ``sample`` is None)."""
    from harness.blueprint.dag import analyse
    from harness.blueprint.generate import generate_blueprint
    from harness.blueprint.parse import parse_text
    from harness.memory.summary import worst_case as worst_case_memory

    bp = parse_text(generate_blueprint(n_nodes, seed))
    graph = analyse(bp).graph
    nodes = [d for d in bp.nodes if d.kind.is_proof]  # what a prover is asked about
    if sample is not None and sample < len(nodes):
        step = len(nodes) / sample
        nodes = [nodes[int(i * step)] for i in range(sample)]
    ctxs = [build_context(bp, d.blueprint.label, graph, max_tokens) for d in nodes if d.blueprint]
    ratios = [c.ratio for c in ctxs]
    toks = [c.tokens for c in ctxs]
    return {
        "n_nodes": n_nodes, "seed": seed, "sampled": len(ctxs),
        "baseline_tokens": estimate_tokens(bp.text),
        "context_tokens_mean": statistics.fmean(toks) if toks else 0,
        "context_tokens_max": max(toks, default=0),
        "ratio_mean": statistics.fmean(ratios) if ratios else 0.0,
        "ratio_median": statistics.median(ratios) if ratios else 0.0,
        "ratio_max": max(ratios, default=0.0),
        "nodes_with_omissions": sum(1 for c in ctxs if c.omitted),
        # the node memory's summary a prompt may carry on top (harness.memory.summary)
        "memory_summary_tokens_max": estimate_tokens(worst_case_memory()),
    }
