"""Name resolution as Lean does it (issue 10 item 6): projections, field notation, dotted
declaration namespaces, local binders, named arguments, notations, definition bodies."""

from __future__ import annotations

from harness.blueprint import parse_text
from harness.blueprint.dag import analyse

HEAD = "import Architect\n\nnamespace NS\n\n"
TAIL = "\nend NS\n"


def deps(body: str) -> dict[str, tuple[set[str], set[str]]]:
    a = analyse(parse_text(HEAD + body + TAIL, "Names.lean"))
    return {k: (set(v.statement), set(v.proof)) for k, v in a.deps.items()}


def test_projections_resolve_to_the_constant():
    d = deps('''
theorem foo : True ↔ True := Iff.rfl

theorem pair : True ∧ True := ⟨trivial, trivial⟩

@[blueprint "lem:uses"]
theorem uses_them : True := by
  have h := foo.mp trivial
  have h2 := foo.symm
  exact pair.right
''')
    assert d["lem:uses"][1] == {"NS.foo", "NS.pair"}


def test_field_notation_on_a_typed_binder():
    d = deps('''
structure S where
  val : Nat

def S.good (x : S) : Prop := x.val = 0

@[blueprint "lem:field"]
theorem field (x : S) (h : x.good) : x.good := h
''')
    st, pf = d["lem:field"]
    assert "NS.S.good" in st and "NS.S" in st and pf == set()


def test_field_notation_on_an_untyped_binder_is_not_resolved():
    d = deps('''
def good : Prop := True

@[blueprint "lem:anon"]
theorem anon : ∀ n : Nat, n = n := by
  intro x
  exact (fun y => rfl) x.good
''')
    assert d["lem:anon"] == (set(), set())


def test_dotted_declaration_sees_its_parent_namespaces():
    d = deps('''
def P.init : Nat := 0

@[blueprint "lem:le"]
theorem P.init.le : init ≤ init := Nat.le_refl init
''')
    assert d["lem:le"][0] == {"NS.P.init"}


def test_root_declaration_opens_no_namespace():
    d = deps('''
def Q.zero : Nat := 0

@[blueprint "lem:root"]
theorem _root_.Q.zero_le : zero ≤ zero := Nat.le_refl _
''')
    assert d["lem:root"][0] == set()  # `_root_.Q.zero_le` is elaborated in `NS`, not `Q`


def test_local_binders_shadow_project_names():
    d = deps('''
def B : Nat := 1

def hB : Nat := 2

@[blueprint "lem:obtain"]
theorem by_obtain (h : ∃ n : Nat, n = n) : True := by
  obtain ⟨B, hB⟩ := h
  exact (fun _ => trivial) (B, hB)

@[blueprint "lem:fun"]
theorem by_fun : (fun B : Nat => B) = id := by
  funext B
  rfl

@[blueprint "lem:intro"]
theorem by_intro : ∀ k : Nat, k = k := by
  intro B
  exact rfl (a := B)

@[blueprint "lem:param"]
theorem by_param (B : Nat) : B = B := rfl

@[blueprint "lem:global"]
theorem global_use : B = 1 := rfl
''')
    for key in ("lem:obtain", "lem:fun", "lem:intro", "lem:param"):
        assert d[key] == (set(), set()), key
    assert d["lem:global"][0] == {"NS.B"}


def test_named_arguments_are_not_references():
    d = deps('''
def n : Nat := 3

def f (n : Nat := 0) : Nat := n

@[blueprint "lem:named"]
theorem named : f (n := 0) = 0 := rfl

@[blueprint "lem:positional"]
theorem positional : f n = 3 := rfl
''')
    assert d["lem:named"][0] == {"NS.f"}
    assert d["lem:positional"][0] == {"NS.f", "NS.n"}


def test_statement_ending_in_a_name_is_still_a_reference():
    d = deps('''
def Good : Prop := True

@[blueprint "lem:good"]
theorem good_holds :
    Good := trivial
''')
    assert d["lem:good"][0] == {"NS.Good"}


def test_notation_use_is_a_use_of_its_expansion():
    d = deps('''
def seminorm (x : Nat) : Nat := x

local notation "‖" x "‖ₛ" => seminorm x

@[blueprint "lem:notation"]
theorem notation_use (y : Nat) : ‖y‖ₛ = y := rfl

@[blueprint "lem:plain"]
theorem plain (y : Nat) : y = y := rfl
''')
    assert d["lem:notation"][0] == {"NS.seminorm"}
    assert d["lem:plain"][0] == set()


def test_definition_body_is_a_statement_use():
    d = deps('''
@[blueprint "def:base"]
def base : Nat := 0

@[blueprint "def:top"]
def top : Nat := base + 1

@[blueprint "lem:top"]
theorem top_pos : 0 < top + 1 := by
  exact Nat.succ_pos base
''')
    assert d["def:top"] == ({"def:base"}, set())
    assert d["lem:top"] == ({"def:top"}, {"def:base"})


def test_has_proof_keeps_a_definition_body_as_proof():
    d = deps('''
@[blueprint "def:base"]
def base : Nat := 0

@[blueprint "def:top" (hasProof := true)]
def top : Nat := base + 1
''')
    assert d["def:top"] == (set(), {"def:base"})


# issue 22, the text resolver's misses by class (one synthetic case each)

def test_let_named_like_the_global_it_is_built_from():
    d = deps('''
def c (s : Nat) : Nat := s

@[blueprint "def:r"]
def r (s : Nat) : Nat := let c := c s; c + 1

@[blueprint "lem:h"]
theorem h_uses (s : Nat) : r s = r s := by
  have c : c s = c s := rfl
  exact (fun _ => rfl) c
''')
    assert d["def:r"][0] == {"NS.c"}  # the right-hand `c` is the global: scope starts after
    assert d["lem:h"] == ({"def:r"}, {"NS.c"})


def test_a_binder_whose_value_is_local_stays_local():
    d = deps('''
def c : Nat := 0

@[blueprint "def:loc"]
def loc (s : Nat) : Nat :=
  let c := s
  c + 1
''')
    assert d["def:loc"] == (set(), set())


def test_field_notation_on_exists_obtain_fun_and_match_binders():
    d = deps('''
structure Factorization (n : Nat) where
  k : Nat

def Factorization.total_imbalance {n : Nat} (f : Factorization n) : Nat := f.k

def Factorization.weight {n : Nat} (f : Factorization n) : Nat := f.k

@[blueprint "lem:ex"]
theorem ex (n : Nat) (h : ∃ f' : Factorization n, f'.k = 0) : True := by
  obtain ⟨f', hf'⟩ := h
  have := f'.total_imbalance
  trivial

@[blueprint "lem:fun"]
theorem via_fun (n : Nat) : (fun g : Factorization n => g.weight) = fun g => g.weight := rfl

@[blueprint "lem:match"]
theorem via_match (n : Nat) (h : ∃ f' : Factorization n, f'.k = 0) : True :=
  match h with
  | ⟨f', _⟩ => (fun _ => trivial) f'.weight

@[blueprint "lem:rcases"]
theorem via_rcases (n : Nat) (h : ∃ f' : Factorization n, f'.k = 0) : True := by
  rcases h with ⟨f', _⟩
  exact (fun _ => trivial) f'.weight
''')
    assert "NS.Factorization.total_imbalance" in d["lem:ex"][1]
    assert "NS.Factorization.weight" in d["lem:fun"][0]
    assert "NS.Factorization.weight" in d["lem:match"][1]
    assert "NS.Factorization.weight" in d["lem:rcases"][1]


def test_an_anonymous_instance_carries_its_nodes_to_users_of_its_class():
    d = deps('''
def q : Nat := 3

@[blueprint "lem:prime"]
theorem prime_q : Nat.Prime q := sorry

instance : Fact (Nat.Prime q) := ⟨prime_q⟩

@[blueprint "lem:use"]
theorem use_it : Fact (Nat.Prime q) := inferInstance

@[blueprint "lem:before"]
theorem no_use : q = q := rfl
''')
    inst = next(k for k in d if k.startswith("<instance"))
    assert d[inst][0] == {"NS.q", "lem:prime"}
    assert inst in d["lem:use"][0]
    assert inst not in d["lem:before"][0] | d["lem:before"][1]


def test_float_literals_and_structure_fields_are_not_constants():
    d = deps('''
def e : Nat := 3
def M : Nat := 3

@[blueprint "lem:lit"]
theorem lit : (4.589e-9 : Float) = 4.589e-9 := rfl

structure Params where
  M : Nat
  hM : 0 < M

@[blueprint "lem:p"]
theorem p (q : Params) : 0 < q.M := q.hM
''')
    assert d["lem:lit"] == (set(), set())
    assert d["NS.Params"] == (set(), set())
    assert d["lem:p"] == ({"NS.Params"}, set())
