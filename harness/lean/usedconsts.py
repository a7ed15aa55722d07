"""Which declarations of a file a declaration really uses — Lean's answer, not the text's.

The static DAG (:mod:`harness.blueprint.deps`) reads names in the source; a proof can reach a
declaration the text never names (a `@[simp]` lemma `simp` picks up, `h.symm` on a theorem, an
`open NS in` inside a tactic block). Lean knows: a constant's type and value are terms whose
constants ``Expr.getUsedConstants`` lists. We append, to a scratch copy only, a small command
that walks them transitively — through the file's own auxiliary constants (``match_1``,
``proof_1``, ``_simp_1`` …; ``env.getModuleIdxFor? c = none`` means "declared in this file") —
and stops at the *targets* (the file's and imported blueprints' declarations), as LeanArchitect's
``collectUsed`` does for blueprint nodes (hanwenzhu/LeanArchitect ``Architect/CollectUsed.lean``,
a ``collectAxioms``-style walk that records a node instead of descending into it). Like it, we
read ``Expr.getUsedConstants`` (an ``Array Name``) of each constructor's type and value, not
``ConstantInfo.getUsedConstants``, whose result type (``NameSet``) and treatment of theorem
values changed between Lean versions (``src/Lean/Util/FoldConsts.lean``).

Each answer is one information message ``harness-used <Name>: [A.b, C.d]`` on the query's line.
The query needs the `Lean` namespace (any file importing Mathlib or LeanArchitect has it); when
it does not elaborate, the caller gets no answer and must fail closed.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

TAG = "harness-used"
_FN = "harnessUsedConstsOf"
_TARGETS = "harnessUsedTargets"
# the definitions this module appends after the text; the gate's audit must not count them as
# the file's own (a text defining the same names fails to compile: they cannot hide anything)
HARNESS_HELPERS = frozenset({_FN, _TARGETS})


def is_harness_helper(name: str) -> bool:
    return any(name == h or name.startswith(h + ".") for h in HARNESS_HELPERS)
_ANSWER = re.compile(r"^" + TAG + r" (?P<name>\S+): \[(?P<list>[^\]]*)\]\s*$", re.S)


def _lit(name: str) -> str:
    """A raw `Name` literal (no resolution: the full name is what we mean)."""
    parts = name.split(".")
    return "`" + ".".join(p if re.match(r"^[^\W\d][\w'!?]*$", p) else f"«{p}»" for p in parts)


def prelude_lines(targets: Iterable[str]) -> list[str]:
    """The helper definitions (appended once, after the user's text)."""
    lits = ", ".join(_lit(t) for t in dict.fromkeys(targets))
    return [
        f"def {_TARGETS} : Array Lean.Name := #[{lits}]",
        "open Lean in",
        f"def {_FN} (targets : Array Name) (n : Name) : Elab.Command.CommandElabM Unit := do",
        "  let env ← getEnv",
        "  let tset : NameSet := targets.foldl (fun s t => s.insert t) {}",
        "  let uses (c : Name) : List Name :=",
        "    match env.find? c with",
        "    | some (.defnInfo v) => v.type.getUsedConstants.toList ++ v.value.getUsedConstants.toList",
        "    | some (.thmInfo v) => v.type.getUsedConstants.toList ++ v.value.getUsedConstants.toList",
        "    | some (.opaqueInfo v) =>",
        "      v.type.getUsedConstants.toList ++ v.value.getUsedConstants.toList",
        "    | some (.inductInfo v) => v.type.getUsedConstants.toList ++ v.ctors",
        "    | some i => i.type.getUsedConstants.toList",
        "    | none => []",
        "  let mut todo : List Name := uses n",
        "  let mut seen : NameSet := {}",
        "  let mut hit : Array Name := #[]",
        "  for _ in [0:10000000] do",
        "    match todo with",
        "    | [] => break",
        "    | c :: rest =>",
        "      todo := rest",
        "      if c != n && !seen.contains c then",
        "        seen := seen.insert c",
        "        if tset.contains c then",
        "          hit := hit.push c",
        "        else if (env.getModuleIdxFor? c).isNone then",
        "          todo := uses c ++ todo",
        f'  logInfo s!"{TAG} {{n}}: {{hit.toList}}"',
    ]


def query_line(name: str) -> str:
    return f"#eval {_FN} {_TARGETS} {_lit(name)}"


def parse_answer(data: str) -> tuple[str, list[str]] | None:
    """``(name, used names)`` from one answer message, else None."""
    m = _ANSWER.match(data.strip())
    if m is None:
        return None
    items = [x.strip().replace("«", "").replace("»", "") for x in m.group("list").split(",")]
    return m.group("name").replace("«", "").replace("»", ""), [x for x in items if x]
