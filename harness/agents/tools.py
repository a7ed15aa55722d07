"""The prove role's tools: check a candidate, show goals at `sorry`, look up statements.

Every Lean run goes through :func:`harness.lean.nodecheck.check_node` (one elaboration of the file
up to the node, with the candidate in place). Results are cached per (body, helpers), so the final
``submit`` of an already-checked candidate costs nothing. Acceptance here is only advisory: the
gate decides what enters the record.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

from harness.agents.context import node_scope, statement_text
from harness.agents.contracts import proof_violations
from harness.blueprint.lexer import mask
from harness.blueprint.model import Blueprint
from harness.errors import CannotCertify, HarnessError
from harness.lean.verdict import NodeVerdict
from harness.memory.model import BLOCKER_KINDS

MAX_MESSAGES = 12
MAX_LOOKUP_FILES = 3_000
_SORRY = re.compile(r"(?<![\w.'])sorry(?![\w'])")
_SKIP_DIRS = {".lake", ".harness", ".git", "build", "node_modules"}
_DECL_KW = r"(?:theorem|lemma|def|abbrev|structure|class|instance|inductive)"

CheckFn = Callable[..., NodeVerdict]


def accepted(v: NodeVerdict) -> bool:
    """The candidate itself is complete and clean (sorry inherited from unproved deps is fine)."""
    return v.accepted_modulo_deps


def render_verdict(v: NodeVerdict) -> str:
    """What the model needs to fix its candidate: status and the messages about the candidate."""
    if accepted(v):
        head = "OK: the candidate compiles" + (
            " (the only sorry is inherited from unproved dependencies)" if v.status == "sorry"
            else "") + "."
    else:
        head = f"FAILED ({v.status})."
        if v.status == "error" and v.first_error:
            # the error is the cause; a sorryAx it drags in (failed elaboration) is noise
            head = f"FAILED (error): {v.first_error}"
        elif v.forbidden_axioms and v.status != "sorry":
            head += f" Forbidden axioms: {', '.join(v.forbidden_axioms)}."
    lines = [head]
    shown = [m for m in v.messages if m.region not in ("context",)]
    for m in shown[:MAX_MESSAGES]:
        if m.candidate_line is not None:
            where = f"{m.region} {m.candidate_line}:{m.candidate_col}"
        else:
            where = f"{m.region or 'file'} (file {m.pos.line}:{m.pos.col})"
        lines.append(f"- {where}: {m.severity}: {m.data.strip()[:1500]}")
    if len(shown) > MAX_MESSAGES:
        lines.append(f"- … {len(shown) - MAX_MESSAGES} more messages")
    return "\n".join(lines)


class ProveTools:
    """Toolbox for one node (see :class:`harness.agents.roles.Toolbox`)."""

    def __init__(self, bp: Blueprint, label: str, *, workspace: Path, toolchain: Any | None,
                 timeout_s: float = 300.0, check: CheckFn | None = None,
                 pool: Any | None = None, library: Any | None = None) -> None:
        self.bp, self.label, self.workspace, self.tc = bp, label, workspace, toolchain
        self.pool = pool  # a harness.lean.pool.ReplPool: goals straight from the REPL
        self.library = library  # a harness.library.LibraryIndex (None: workspace scan only)
        self.timeout_s = timeout_s
        if check is None:
            from harness.lean.nodecheck import check_node
            check = check_node
        self._check = check
        self.cache: dict[tuple[str, str], NodeVerdict] = {}
        self._files: list[Path] | None = None
        self.lean_runs = 0
        # report_blocker: the agent says the node needs a person; the role loop stops on `stop`
        self.blocker: dict[str, str] | None = None
        self.stop: str | None = None
        self.last_goals = ""
        self.last_candidate = ""

    # ---- Lean
    def verdict(self, body: str, helpers: str = "") -> NodeVerdict:
        """Check through Lean (cached). Raises CannotCertify (or UsageError without Lean)."""
        key = (body.strip(), helpers.strip())
        if key in self.cache:
            return self.cache[key]
        if self.tc is None:
            raise CannotCertify("no Lean toolchain: candidates cannot be checked")
        self.lean_runs += 1
        v = self._check(self.tc, self.workspace, self.bp, self.label, key[0], key[1],
                        timeout_s=self.timeout_s)
        self.cache[key] = v
        return v

    def unknown_names(self, body: str, helpers: str = "") -> list[tuple[str, list[str]]]:
        """Constants of a candidate that exist nowhere in the library index (before Lean)."""
        if self.library is None:
            return []
        from harness.library.agent import unknown_constants

        node = self.bp.node(self.label)
        ns, opens = node_scope(node)
        known = {n for d in self.bp.decls for n in (d.name, d.short_name) if n}
        helper_names = set(re.findall(r"(?:theorem|lemma)\s+([\w'.]+)", helpers))
        stmt = statement_text(self.bp, node)
        from harness.library.rank import binder_names

        try:
            bound = binder_names(mask(stmt))  # the statement's variables and hypotheses
        except HarnessError:
            bound = set()
        return unknown_constants(self.library, helpers + "\n" + body, namespace=ns, opens=opens,
                                 known=known | helper_names, bound=bound)

    def check_candidate(self, body: str, helpers: str = "") -> str:
        bad = proof_violations(body, helpers, final=False)  # `exact?` helps explore
        if bad:
            return "REJECTED before Lean:\n- " + "\n- ".join(bad)
        unknown = self.unknown_names(body, helpers)
        note = ""
        if unknown:
            from harness.library.agent import render_unknown

            note = "Before Lean: " + render_unknown(unknown) + "\n"
        try:
            out = note + render_verdict(self.verdict(body, helpers))
        except HarnessError as err:
            return note + f"Lean could not check the candidate: {err.line()}"
        not_final = proof_violations(body, helpers)
        if not_final:  # fine for exploring, but say now that it cannot be submitted like this
            out += "\nnote: not acceptable as a final answer:\n- " + "\n- ".join(not_final)
        return out

    def goals_at_sorry(self, body: str, helpers: str = "") -> str:
        """The goal at each `sorry`: from the REPL pool when there is one (it reports goals at
        sorries directly), else one `check_node` run with each `sorry` preceded by
        `trace_state` (Lean prints the goal there as an information message)."""
        if self.pool is not None:
            got = self._goals_from_repl(body, helpers)
            if got is not None:
                return got
        try:
            masked = mask(body)
        except HarnessError as err:
            return f"error: {err.line()}"
        spots = [m.start() for m in _SORRY.finditer(masked)]
        if not spots:
            return "the body has no `sorry`: use check_candidate"
        traced = body
        for s in reversed(spots):
            traced = traced[:s] + "(trace_state; sorry)" + traced[s + len("sorry"):]
        try:
            v = self.verdict(traced, helpers)
        except HarnessError as err:
            return f"Lean could not elaborate the body: {err.line()}"
        goals = [m for m in v.messages if m.region == "body" and m.severity == "information"]
        errors = [m for m in v.messages if m.region in ("body", "helpers") and m.is_error]
        out = [f"goal at sorry #{i + 1}:\n{m.data.strip()}" for i, m in enumerate(goals)]
        if goals:
            self.last_goals = "\n\n".join(out)[:4000]
        out += [f"error {m.candidate_line}:{m.candidate_col}: {m.data.strip()[:800]}"
                for m in errors[:MAX_MESSAGES]]
        return "\n\n".join(out) or "Lean printed no goals (the sorry may be in term position)"

    def _goals_from_repl(self, body: str, helpers: str) -> str | None:
        """None when the REPL cannot answer (the caller falls back to check_node)."""
        from harness.lean.nodecheck import build_check_text

        bp = self.bp
        try:
            check, marks = build_check_text(bp, bp.node(self.label), body, helpers)
            start = bp.header_span.end
            code = check[start:marks["end"]]
            resp = self.pool.command(bp.text[:start], code, timeout_s=self.timeout_s)
        except Exception:  # noqa: BLE001
            return None  # the REPL is advisory: any failure means "use the compiler instead"
        body_line = code.count("\n", 0, marks["body"] - start) + 1
        goals = [s for s in resp.sorries if s.pos is None or s.pos.line >= body_line]
        errors = [m for m in resp.messages if m.is_error and m.pos.line >= body_line]
        out = [f"goal at sorry #{i + 1}:\n{s.goal.strip()}" for i, s in enumerate(goals)]
        out += [f"error (line {m.pos.line - body_line + 1} of the body): {m.data.strip()[:800]}"
                for m in errors[:MAX_MESSAGES]]
        if resp.error:
            out.append(f"REPL: {resp.error}")
        return "\n\n".join(out) or "no goals reported (the body may have no `sorry`)"

    # ---- the library index
    def search_library(self, query: str, k: int = 8) -> str:
        if self.library is None:
            return ("the library index is not available (run `harness index`); use lookup or "
                    "`exact?` in check_candidate")
        from harness.library.agent import module_of, render_hit
        from harness.library.rank import QueryContext
        from harness.library.where import blueprint_deps

        node = self.bp.node(self.label)
        ns, opens = node_scope(node)
        module = module_of(self.bp.path, self.workspace)
        if getattr(self, "_visible", None) is None:  # the file's imports, read once per tools
            from harness.library.visible import imported_modules

            self._visible = imported_modules(self.library.rows, self.workspace,
                                             self.bp.text) - {module}
        ctx = QueryContext(namespace=ns, opens=opens, module=module,
                           exclude=frozenset(x for x in (node.name,) if x), line=node.pos.line,
                           visible=self._visible, near=blueprint_deps(self.bp, node))
        hits = self.library.search(query, max(1, min(int(k), 25)), ctx=ctx)
        if not hits:
            return f"no library declarations match {query!r}"
        return "\n\n".join(render_hit(h) for h in hits)

    def find_pattern(self, pattern: str) -> str:
        """Mathlib's `#find` on a warm REPL environment (the file's header). `#find` (Mathlib/
        Tactic/Find.lean) logs one info message `name: type` per constant whose result type
        matches the pattern, stops after 20 with "maximum number of search results reached",
        and logs nothing when nothing matches."""
        if self.pool is None:
            return ("find_pattern needs Lean (a REPL pool); none is running. Use search_library "
                    "or `exact?` in check_candidate")
        pattern = pattern.strip()
        if not pattern or "\n" in pattern or "\r" in pattern:
            return "error: `pattern` must be one term on one line, e.g. `_ + _ = _ + _`"
        start = self.bp.header_span.end
        try:
            resp = self.pool.command(self.bp.text[:start], f"#find {pattern}",
                                     timeout_s=self.timeout_s)
        except Exception as err:  # noqa: BLE001 - the REPL is advisory
            return f"the REPL could not run #find: {err}"
        if resp.error:
            return f"REPL: {resp.error}"
        errors = [m.data.strip() for m in resp.messages if m.is_error]
        if any("expected command" in e for e in errors):
            return ("`#find` is not available in this file's environment (it comes with "
                    "Mathlib.Tactic.Find, which the file's imports do not include); use "
                    "search_library")
        if errors:
            return "Lean could not elaborate the pattern: " + errors[0][:1500]
        full = "maximum number of search results reached"
        hits = [m.data.strip() for m in resp.messages if m.data.strip() != full]
        if not hits:
            return (f"no declaration's result type matches `{pattern}` (`#find` matches the "
                    "conclusion up to reducible unfolding; `_` is any term, `?n` a repeated one)")
        out = [h[:1000] for h in hits]
        if len(hits) < len(resp.messages):
            out.append(f"(#find stops after {len(hits)} results: make the pattern more specific)")
        return "\n".join(out)

    # ---- lookup
    def lookup(self, name: str) -> str:
        name = name.strip()
        if not name:
            return "error: empty name"
        last = name.split(".")[-1]
        hits = []
        for d in self.bp.decls:
            if name in (d.key, d.name, d.short_name) or (d.name or "").endswith("." + name):
                hits.append(f"-- in the blueprint{f' [{d.label}]' if d.label else ''}\n"
                            + statement_text(self.bp, d))
        if hits:
            return "\n\n".join(hits[:5])
        if self.library is not None:
            from harness.library.agent import render_hit

            found = self.library.lookup(name)
            if found:
                return "\n\n".join(render_hit(h, 1000) for h in found)
            sugg = self.library.suggest(name)
            return (f"`{name}` is not in the blueprint or the library index"
                    + (f"; did you mean {', '.join(f'`{s}`' for s in sugg)}?" if sugg else
                       "; try search_library with words describing it"))
        pat = re.compile(rf"(?m)^[ \t]*(?:@\[[^\]]*\][ \t]*\n?[ \t]*)?"
                         rf"(?:(?:private|protected|noncomputable)\s+)*{_DECL_KW}\s+"
                         rf"(?:[\w.']*\.)?{re.escape(last)}(?![\w'])")
        for path in self._lean_files():
            try:
                text = path.read_text(encoding="utf-8", errors="replace")
            except OSError:
                continue
            for m in pat.finditer(text):
                end = text.find(":=", m.end())
                stmt = text[m.start(): end if 0 <= end - m.start() < 2000 else m.start() + 400]
                hits.append(f"-- {path.relative_to(self.workspace)}\n{stmt.strip()}")
                if len(hits) >= 5:
                    return "\n\n".join(hits)
        return "\n\n".join(hits) or (
            f"`{name}` not found in the blueprint or the workspace sources (library lemmas such as "
            "Mathlib's are not indexed: try it in check_candidate, e.g. `by exact?`)")

    def _lean_files(self) -> list[Path]:
        if self._files is None:
            self._files = self._scan_files()
        return self._files

    def _scan_files(self) -> list[Path]:
        out: list[Path] = []
        for path in sorted(self.workspace.rglob("*.lean")):
            if _SKIP_DIRS.intersection(path.relative_to(self.workspace).parts):
                continue
            out.append(path)
            if len(out) >= MAX_LOOKUP_FILES:
                break
        return out

    # ---- Toolbox protocol
    def specs(self) -> list[dict[str, Any]]:
        s = {"type": "string"}
        return [
            _spec("check_candidate", "Compile the node with this body (text after `:=`) and "
                  "optional helper declarations placed before it; returns Lean's messages.",
                  {"body": s, "helpers": s}, ["body"]),
            _spec("goals_at_sorry", "Elaborate a body containing `sorry` placeholders and return "
                  "the goal at each one (never accepted as a proof).",
                  {"body": s, "helpers": s}, ["body"]),
            _spec("lookup", "The statement, docstring and location of a declaration in the "
                  "blueprint, the workspace or its libraries (Mathlib, …), by (partial) name.",
                  {"name": s}, ["name"]),
            _spec("search_library", "Ranked search of the library declarations (Mathlib, …): "
                  "words, a name or a fragment (`measure_ge_le`, `Real.exp_le`). Returns "
                  "signatures, docstrings and where each lives.",
                  {"query": s, "k": {"type": "integer"}}, ["query"]),
            _spec("report_blocker", "Stop and ask for a person: the statement looks false or "
                  "unprovable as stated (`statement_false`), the library lacks material it needs "
                  "(`missing_library`), or it must be split into smaller lemmas "
                  "(`needs_decomposition`). Give the evidence; the attempt ends and the node is "
                  "not tried again until a person has looked.",
                  {"kind": {"type": "string", "enum": list(BLOCKER_KINDS)},
                   "explanation": s, "best_partial": s}, ["kind", "explanation"]),
            _spec("find_pattern", "Mathlib's `#find` with a pattern (e.g. `_ + _ = _ + _`, "
                  "`?n ≤ ?m → _`): the declarations whose result type matches, as `name: type`, "
                  "at most 20, in the file's environment; needs a running Lean REPL.",
                  {"pattern": s}, ["pattern"]),
        ]

    def report_blocker(self, kind: Any, explanation: Any, best_partial: Any = "") -> str:
        if kind not in BLOCKER_KINDS:
            return f"error: `kind` must be one of {', '.join(BLOCKER_KINDS)}"
        if not isinstance(explanation, str) or len(explanation.strip()) < 10:
            return "error: `explanation` must say why (the evidence), in a sentence or more"
        partial = best_partial if isinstance(best_partial, str) and best_partial.strip() \
            else self.last_candidate
        self.blocker = {"kind": kind, "explanation": explanation.strip()[:2000],
                        "best_partial": partial[:4000], "last_goals": self.last_goals}
        self.stop = f"needs a person ({kind}): {explanation.strip()[:300]}"
        return "recorded: the node is handed to a person; this attempt ends here."

    def call(self, name: str, args: dict[str, Any]) -> str:
        if name == "report_blocker":
            return self.report_blocker(args.get("kind"), args.get("explanation"),
                                       args.get("best_partial", ""))
        if name == "lookup":
            if not isinstance(args.get("name"), str):
                return "error: `name` (a string) is required"
            return self.lookup(args["name"])
        if name == "search_library":
            k = args.get("k", 8)
            if not isinstance(args.get("query"), str) or not isinstance(k, int):
                return "error: `query` (a string) is required; `k` must be an integer"
            return self.search_library(args["query"], k)
        if name == "find_pattern":
            if not isinstance(args.get("pattern"), str):
                return "error: `pattern` (a string) is required"
            return self.find_pattern(args["pattern"])
        body, helpers = args.get("body"), args.get("helpers", "") or ""
        if not isinstance(body, str) or not isinstance(helpers, str):
            return "error: `body` (a string) is required; `helpers` must be a string"
        if name == "check_candidate":
            self.last_candidate = body
            return self.check_candidate(body, helpers)
        if name == "goals_at_sorry":
            return self.goals_at_sorry(body, helpers)
        return f"error: unknown tool `{name}`"


def _spec(name: str, desc: str, props: dict[str, Any], required: list[str]) -> dict[str, Any]:
    return {"type": "function", "function": {
        "name": name, "description": desc,
        "parameters": {"type": "object", "properties": props, "required": required,
                       "additionalProperties": False}}}
