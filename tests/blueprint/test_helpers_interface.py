"""The parser's helper modules take the narrow `Scanner` (text, scanning primitives, findings
sink) and a declaration lookup, not the parser: they work on a bare `Source`, and none of them
imports `harness.blueprint.parse`."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from harness.blueprint import attrs, body, informal, labels
from harness.blueprint.cursor import Source
from harness.blueprint.model import BodyStatus, Decl, DeclKind, Span
from harness.blueprint.parse import parse_text
from harness.errors import InputError

HELPERS = (attrs, body, informal, labels)


@pytest.mark.parametrize("mod", HELPERS, ids=lambda m: m.__name__.rsplit(".", 1)[-1])
def test_a_helper_never_imports_the_parser(mod) -> None:
    tree = ast.parse(Path(mod.__file__).read_text(encoding="utf-8"))
    imported = {n.module for n in ast.walk(tree) if isinstance(n, ast.ImportFrom)}
    imported |= {a.name for n in ast.walk(tree) if isinstance(n, ast.Import) for a in n.names}
    assert "harness.blueprint.parse" not in imported
    assert "_Parser" not in {n.id for n in ast.walk(tree) if isinstance(n, ast.Name)}


def test_the_blueprint_attribute_is_read_from_a_bare_source() -> None:
    text = '@[blueprint "lem:x" (uses := [a, "b", -c]) (notReady := true) (titel := "T")]'
    src = Source(text, None, False)
    with pytest.raises(InputError, match="did you mean `title`"):
        attrs.parse_blueprint(src, 2, len(text) - 1, Span(0, len(text)))
    ok = text.replace('(titel := "T")', '(colour := "red")')
    src = Source(ok, None, False)
    attr = attrs.parse_blueprint(src, 2, len(ok) - 1, Span(0, len(ok)))
    assert (attr.label, attr.uses, attr.not_ready) == ("lem:x", ["a", "label:b", "-c"], True)
    assert [w.code for w in src.warnings] == ["unknown-option"] and not src.findings


def _decl(name: str) -> Decl:
    return parse_text(f"theorem {name} : True := trivial\n").decls[0]


def test_tag_command_asks_the_lookup_and_returns_what_it_cannot_find() -> None:
    text = 'attribute [blueprint "lem:here"] here\nattribute [blueprint] Other.far\n'
    here = _decl("here")
    asked: list[str] = []

    def lookup(name: str) -> Decl | None:
        asked.append(name)
        return here if name == "here" else None

    src = Source(text, None, False)
    second = text.index("attribute", 1)
    assert attrs.tag_command(src, 0, second - 1, lookup) == {}
    assert here.blueprint is not None and here.blueprint.label == "lem:here"
    assert attrs.tag_command(src, second, len(text) - 1, lookup) == {"Other.far": "Other.far"}
    assert asked == ["here", "Other.far"]
    # tagged twice: a finding in the sink, the first attribute kept
    assert attrs.tag_command(src, 0, second - 1, lookup) == {}
    assert [f.code for f in src.findings] == ["duplicate-attribute"]
    assert here.blueprint.label == "lem:here"


def test_find_decl_resolves_through_the_namespaces_latest_first() -> None:
    a, b, c = _decl("A.x"), _decl("x"), _decl("A.x")
    assert attrs.find_decl([a, b, c], ["A"], "x") is c
    assert attrs.find_decl([a, b], [], "x") is b
    assert attrs.find_decl([a], ["B"], "y") is None


def test_blueprint_comment_returns_its_nodes_instead_of_storing_them() -> None:
    text = ("blueprint_comment /--\n\\begin{lemma}\\label{inf:a}\\uses{lem:b} A.\\end{lemma}\n"
            "\\section{S}\\label{sec:s}\n-/\n")
    src = Source(text, None, False)
    end, nodes, prose = informal.blueprint_comment(src, 0, len(text))
    assert text[end - 2:end] == "-/"
    assert [n.blueprint.label for n in nodes] == ["inf:a"]
    assert nodes[0].blueprint.uses == ["label:lem:b"]
    assert prose == {"inf:a", "sec:s"}
    with pytest.raises(InputError, match="must be followed by"):
        informal.blueprint_comment(Source("blueprint_comment -- x\n", None, False), 0, 22)


def test_body_separator_and_status_on_a_bare_source() -> None:
    text = "theorem t (h : let x := 1; x = 1) : True := by\n  sorry_using [a, «b»]\n"
    src = Source(text, None, False)
    sig = text.index("(h")
    sep, sep_at, start = body.separator(src, DeclKind.THEOREM, sig, len(text))
    assert (sep, text[sep_at:sep_at + 2], text[start:start + 2]) == (":=", ":=", "by")
    status, uses = body.body_status(src, DeclKind.THEOREM, Span(start, len(text)))
    assert status == BodyStatus.SORRY_USING and uses == ["a", "b"]
    with pytest.raises(InputError, match="unbalanced `\\)`"):
        body.separator(Source("theorem u : ) := x", None, False), DeclKind.THEOREM, 9, 18)


def test_labels_report_into_the_sink() -> None:
    bp = parse_text('@[blueprint "l"] theorem a : True := trivial\n'
                    '@[blueprint "l"] def b : Nat := 1\n')
    src = Source(bp.text, None, False)
    labels.check_labels(src, [*bp.decls, _decl("a")])
    assert [f.code for f in src.findings] == ["duplicate-name"]
    assert [w.code for w in src.warnings] == ["label-collision"]
