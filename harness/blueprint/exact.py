"""LeanArchitect's own dependencies (`lake build :blueprintJson`), and where our text inference
disagrees with them. Pure: reading and comparing; running Lake is `harness.lean.architect`.

Where the files are (hanwenzhu/LeanArchitect): the facets run `extract_blueprint single --json
--build <buildDir> <module>` (lakefile.lean, `buildModuleBlueprint`), which writes
`<buildDir>/blueprint/module/<A/B/C>.json` (Architect/Output.lean, `outputJsonResults`,
`moduleToRelPath`); the library facet writes `<buildDir>/blueprint/library/<Lib>.json`, an
object `{"modules": ["module/A/B/C.json", …]}` (`outputLibraryJson`). A module file is an array
of `{"type": "node", "data": NODE}` and `{"type": "moduleDoc", "data": TEXT}`
(`BlueprintContent.toJson`); NODE has `name`, `latexLabel`, `statement`, `proof` (null when the
node has no proof part), `notReady`, `discussion`, `title`, `hasLean`, `file`, `location`
(`NodeWithPos.toJson`).

Two schemas of the `statement`/`proof` parts exist:
- *inferred* (LeanArchitect computing uses when the attribute is applied; Attribute.lean
  `mkStatementPart`/`mkProofPart`): `{"leanOk", "text", "uses", "latexEnv"}` where `uses` are the
  labels of the blueprint nodes the part's constants reach (`collectUsed`, stopping at nodes)
  plus the string `uses`: exactly the DAG;
- *explicit* (newer, module-system versions; Architect/Basic.lean `NodePart`):
  `{"text", "uses", "excludes", "usesLabels", "excludesLabels", "latexEnv"}` — only what the
  attribute says; the inferred uses are computed at output time and appear in the LaTeX
  (`lake build :blueprint`: `\\uses{…}` and `\\leanok` per environment in
  `module/<A/B/C>.artifacts/<label>.tex`, Output.lean `NodePart.toLatex`), which is read then.
Which of the two the workspace's pinned LeanArchitect writes was not confirmed here (no Lean on
this machine): both are read, the schema is detected per part.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from typing import Any

from harness.blueprint.deps import DeclDeps
from harness.errors import InputError

_USES = re.compile(r"^\\uses\{([^}]*)\}\s*$", re.M)
_LEANOK = re.compile(r"^\\leanok\s*$", re.M)


@dataclass(slots=True)
class ExactNode:
    """One LeanArchitect node (all declarations sharing the label merged)."""

    label: str
    names: list[str] = field(default_factory=list)
    statement_uses: set[str] = field(default_factory=set)
    proof_uses: set[str] = field(default_factory=set)
    has_proof: bool = False
    lean_ok: bool | None = None  # every part sorry-free (None: not in this schema)
    module: str | None = None
    inferred: bool = True  # the uses include LeanArchitect's inferred ones


@dataclass(slots=True)
class ExactDeps:
    nodes: dict[str, ExactNode] = field(default_factory=dict)
    schema: str = "inferred"  # or "explicit" (+ LaTeX artifacts)
    sources: list[str] = field(default_factory=list)  # the files read


def parse_module_json(text: str, where: str) -> list[dict[str, Any]]:
    """The node objects (``data`` of every `{"type": "node"}` entry) of one module file."""
    try:
        entries = json.loads(text)
    except ValueError as err:
        raise InputError(where, 1, 0, f"not LeanArchitect JSON: {err}") from None
    if not isinstance(entries, list):
        raise InputError(where, 1, 0, "not LeanArchitect JSON: expected an array of contents")
    out = []
    for e in entries:
        if isinstance(e, dict) and e.get("type") == "node" and isinstance(e.get("data"), dict):
            data = e["data"]
            if not isinstance(data.get("latexLabel"), str) or "statement" not in data:
                raise InputError(where, 1, 0, "not LeanArchitect JSON: a node without "
                                 "`latexLabel`/`statement`")
            out.append(data)
    return out


def schema_of(part: dict[str, Any]) -> str:
    return "explicit" if "usesLabels" in part or "excludes" in part else "inferred"


def add_node(deps: ExactDeps, data: dict[str, Any], artifact: str | None = None) -> None:
    """Merge one node object (and, for the explicit schema, its LaTeX artifact) into ``deps``."""
    label = data["latexLabel"]
    node = deps.nodes.get(label)
    if node is None:
        node = deps.nodes[label] = ExactNode(label)
    name = data.get("name")
    if isinstance(name, str) and name not in node.names:
        node.names.append(name)
    loc = data.get("location")
    if isinstance(loc, dict) and node.module is None:
        node.module = loc.get("module")
    st, pf = data.get("statement") or {}, data.get("proof")
    node.has_proof = node.has_proof or isinstance(pf, dict)
    if schema_of(st) == "inferred":
        node.statement_uses.update(_labels(st.get("uses")))
        ok = st.get("leanOk")
        if isinstance(pf, dict):
            node.proof_uses.update(_labels(pf.get("uses")))
            ok = ok and pf.get("leanOk")
        node.lean_ok = bool(ok) if node.lean_ok is None else (node.lean_ok and bool(ok))
        return
    deps.schema = "explicit"
    if artifact is None:  # only the attribute's own `uses`: not LeanArchitect's full answer
        node.inferred = False
        node.statement_uses.update(_labels(st.get("usesLabels")))
        if isinstance(pf, dict):
            node.proof_uses.update(_labels(pf.get("usesLabels")))
        return
    s_uses, p_uses, ok = parse_artifact(artifact)
    node.statement_uses.update(s_uses)
    node.proof_uses.update(p_uses)
    node.lean_ok = ok if node.lean_ok is None else (node.lean_ok and ok)


def _labels(value: Any) -> list[str]:
    return [x for x in value if isinstance(x, str)] if isinstance(value, list) else []


def parse_artifact(tex: str) -> tuple[set[str], set[str], bool]:
    """`\\uses{…}` of the statement and proof environments and whether both are `\\leanok`
    (the lines `NodePart.toLatex` writes right after `\\begin{env}`)."""
    cut = tex.find("\\begin{proof}")
    parts = [tex, ""] if cut == -1 else [tex[:cut], tex[cut:]]
    uses = []
    ok = True
    for part in parts:
        m = _USES.search(part)
        uses.append({x.strip() for x in m.group(1).split(",") if x.strip()} if m else set())
        if part and not _LEANOK.search(part):
            ok = False
    return uses[0], uses[1], ok


@dataclass(slots=True)
class Disagreement:
    label: str
    kind: str  # "statement" | "proof"
    missing: list[str]  # LeanArchitect has it, the text did not infer it
    extra: list[str]  # the text inferred it, LeanArchitect does not have it


def compare(text_deps: dict[str, DeclDeps], node_keys: set[str], exact: ExactDeps,
            only: set[str] | None = None) -> tuple[list[Disagreement], list[str], list[str]]:
    """Per node (of ``only``, default all) and part, node-to-node edges LeanArchitect and the
    text disagree on; and the labels only LeanArchitect knows / only the text knows."""
    out: list[Disagreement] = []
    mine = node_keys if only is None else only
    for label in sorted(mine & exact.nodes.keys()):
        en = exact.nodes[label]
        if not en.inferred:
            continue
        dd = text_deps.get(label) or DeclDeps()
        t_st = {k for k in dd.statement if k in node_keys}
        t_pf = {k for k in dd.proof if k in node_keys} - t_st
        e_st = en.statement_uses - {label}
        e_pf = en.proof_uses - e_st - {label}
        if not en.has_proof:  # no proof part: every use is a statement use
            e_st, e_pf = e_st | e_pf, set()
            t_st, t_pf = t_st | t_pf, set()
        for kind, t, e in (("statement", t_st, e_st), ("proof", t_pf, e_pf)):
            if t != e:
                out.append(Disagreement(label, kind, sorted(e - t), sorted(t - e)))
    only_lean = sorted(exact.nodes.keys() - node_keys)
    only_text = sorted(mine - exact.nodes.keys())
    return out, only_lean, only_text


def adjuster(exact: ExactDeps, node_keys: set[str],
             baseline: dict[str, DeclDeps] | None = None):
    """A ``deps`` rewrite for :func:`harness.blueprint.dag.analyse`: for every node LeanArchitect
    inferred, its node-to-node edges become LeanArchitect's; edges to context declarations stay
    (they carry the helpers' sorry state: a node is never proved on less evidence than before).
    ``baseline``: the text's deps when LeanArchitect answered (a run edits bodies afterwards):
    an edge the text infers now but did not then is kept too, so an edit is never unseen."""

    def adjust(deps: dict[str, DeclDeps]) -> None:
        for label, en in exact.nodes.items():
            dd = deps.get(label)
            if dd is None or not en.inferred:
                continue
            old = (baseline or {}).get(label) or DeclDeps()
            new_st = {k for k in dd.statement if k not in node_keys or
                      (baseline is not None and k not in old.statement)}
            new_pf = {k for k in dd.proof if k not in node_keys or
                      (baseline is not None and k not in old.proof)}
            st = {k for k in en.statement_uses if k in node_keys and k != label}
            pf = {k for k in en.proof_uses if k in node_keys and k != label}
            deps[label] = DeclDeps(statement=new_st | st, proof=new_pf | pf)

    return adjust


def disagreement_dict(items: list[Disagreement], only_lean: list[str], only_text: list[str]
                      ) -> dict[str, Any]:
    return {"disagreements": [{"label": d.label, "part": d.kind, "missing_in_text": d.missing,
                               "extra_in_text": d.extra} for d in items],
            "only_in_lean": only_lean, "only_in_text": only_text}
