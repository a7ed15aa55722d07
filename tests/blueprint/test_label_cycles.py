"""Cycles made only through a shared label (issue 22): a warning, not a finding; a node Lean
certifies is proved whatever the text DAG says."""

from __future__ import annotations

import textwrap

from harness.blueprint import parse_text
from harness.blueprint.dag import analyse
from harness.blueprint.views import lean_proved
from harness.orchestrator.workgraph import work_graph

SHARED = '''
    @[blueprint "def:L"]
    abbrev A : Nat := 3

    @[blueprint "lem:X"]
    theorem X : A = 3 := rfl

    @[blueprint "def:L"]
    theorem T : A = 3 := {BODY}

    @[blueprint "lem:Y"]
    theorem Y : A = 3 := T
'''


def A(body: str):
    return analyse(parse_text(textwrap.dedent(SHARED.replace("{BODY}", body)), "c.lean"))


def test_a_cycle_only_through_a_shared_label_is_a_warning_and_its_nodes_are_proved():
    a = A("X")
    assert not [f for f in a.findings if f.code == "cycle"]
    assert a.cycles == []
    (w,) = [w for w in a.warnings if w.code == "label-cycle"]
    assert "def:L -> lem:X -> def:L" in w.message
    assert {"def:L", "lem:X", "lem:Y"} <= a.proved  # every part sorry-free: nothing waits


def test_an_open_part_on_a_label_cycle_is_work_and_the_scheduler_has_no_cycle():
    a = A("sorry")
    assert a.state("def:L") == "ready" and a.state("lem:X") == "waiting"
    h, work, _, blocked = work_graph(a)
    assert work == ["T"] and not blocked
    assert list(h.edges) == []  # no self-edge T -> T through lem:X


def test_a_cycle_among_the_declarations_themselves_stays_a_finding():
    src = '''
    @[blueprint "def:L" (uses := ["lem:Q"])]
    abbrev A : Nat := 3

    @[blueprint "lem:Q"]
    theorem Q : A = 3 := rfl

    @[blueprint "def:L"]
    theorem T : A = 3 := rfl
    '''
    a = analyse(parse_text(textwrap.dedent(src), "c.lean"))
    assert [f.code for f in a.findings if f.code == "cycle"] == ["cycle"]
    assert not [w for w in a.warnings if w.code == "label-cycle"]


def test_a_node_lean_certifies_is_proved_whatever_the_text_dag_says():
    src = '''
    @[blueprint "lem:P" (uses := ["lem:Q"])]
    theorem P : True := trivial

    @[blueprint "lem:Q"]
    theorem Q : True := by
      sorry_using [P]

    @[blueprint "lem:R"]
    theorem R : True := P
    '''
    a = analyse(parse_text(textwrap.dedent(src), "c.lean"))
    assert a.cycles and "lem:P" not in a.proved and "lem:R" not in a.proved
    lean_proved(a, {"lem:P"})  # Lean's clean axiom report for P's declaration
    assert {"lem:P", "lem:R"} <= a.proved  # R is complete and rests only on P
    assert "lem:Q" not in a.proved  # its body is still `sorry`
    assert "lem:P" not in a.leaf_set
