import Architect

/-!
# Demo blueprint: Gauss sums and list reversal

A small blueprint on Lean core only (no Mathlib), used by the README's main command and by the
tests. Its DAG has four layers: definitions, unfolding lemmas, inductive lemmas, and the targets.
Some nodes fall to automation (`omega`, `simp`, `decide`); others need an induction with a
generalised accumulator or a parity argument.

## Main definitions

* `Demo.sumTo`: `0 + 1 + ⋯ + n`.
* `Demo.revAcc`, `Demo.myRev`: list reversal with an accumulator.

## Main statements

* `Demo.gauss`: `sumTo n = n * (n + 1) / 2`.
* `Demo.my_rev_eq_reverse`, `Demo.my_rev_my_rev`: `myRev` is `List.reverse`, an involution.
* `Demo.le_sum_to`: `n ≤ sumTo n`.
-/

set_option autoImplicit false

namespace Demo

universe u

variable {α : Type u}

@[blueprint "def:sum-to"
  (statement := /-- $S(n) = \sum_{k=0}^{n} k$, by recursion: $S(0) = 0$,
    $S(n+1) = S(n) + (n+1)$. -/)
  (title := "Triangular numbers")
  (latexEnv := "definition")]
def sumTo : Nat → Nat
  | 0 => 0
  | n + 1 => sumTo n + (n + 1)

@[blueprint "def:rev-acc"
  (statement := /-- Reversal with an accumulator: $\mathrm{revAcc}([], a) = a$ and
    $\mathrm{revAcc}(x :: xs, a) = \mathrm{revAcc}(xs, x :: a)$. -/)
  (title := "Accumulator reversal")
  (latexEnv := "definition")]
def revAcc : List α → List α → List α
  | [], acc => acc
  | x :: xs, acc => revAcc xs (x :: acc)

@[blueprint "def:my-rev"
  (statement := /-- $\mathrm{myRev}(l) = \mathrm{revAcc}(l, [])$, see \cref{def:rev-acc}. -/)
  (title := "Fast reversal")
  (latexEnv := "definition")]
def myRev (l : List α) : List α := revAcc l []

@[blueprint "lem:add-shuffle"
  (statement := /-- For natural numbers, $a + b + c = c + b + a$. -/)
  (proof := /-- Linear arithmetic (`omega`). -/)
  (title := "Reordering a sum")
  (latexEnv := "lemma")]
theorem add_shuffle (a b c : Nat) : a + b + c = c + b + a := by
  sorry

@[blueprint "lem:pow-ten"
  (statement := /-- $2^{10} = 1024$. -/)
  (proof := /-- A closed computation (`decide`). -/)
  (title := "A power of two")
  (latexEnv := "lemma")]
theorem pow_ten : 2 ^ 10 = 1024 := by
  sorry

@[blueprint "lem:sum-to-zero"
  (statement := /-- $S(0) = 0$ (\cref{def:sum-to}). -/)
  (proof := /-- By the defining equation. -/)
  (title := "Empty sum")
  (latexEnv := "lemma")]
theorem sum_to_zero : sumTo 0 = 0 := by
  sorry

@[blueprint "lem:sum-to-succ"
  (statement := /-- $S(n+1) = S(n) + (n+1)$ (\cref{def:sum-to}). -/)
  (proof := /-- By the defining equation (`simp [sumTo]` or `rfl`). -/)
  (title := "Unfolding the sum")
  (latexEnv := "lemma")]
theorem sum_to_succ (n : Nat) : sumTo (n + 1) = sumTo n + (n + 1) := by
  sorry

@[blueprint "lem:two-mul-sum-to"
  (statement := /-- $2\,S(n) = n(n+1)$. -/)
  (proof := /-- Induction on $n$. The base case is \cref{lem:sum-to-zero}. For the step,
    \cref{lem:sum-to-succ} gives $2S(n+1) = 2S(n) + 2(n+1) = n(n+1) + 2(n+1) = (n+1)(n+2)$;
    the last equality is ring arithmetic (`Nat.mul_add`, `Nat.add_mul`, then `omega` on the
    linearised terms). -/)
  (title := "Twice a triangular number")
  (latexEnv := "lemma")]
theorem two_mul_sum_to (n : Nat) : 2 * sumTo n = n * (n + 1) := by
  sorry_using [sum_to_zero, sum_to_succ]

@[blueprint "lem:mul-succ-even"
  (statement := /-- $n(n+1)$ is even. -/)
  (proof := /-- Case on the parity of $n$ (`Nat.mod_two_eq_zero_or_one`): if $n = 2k$ the first
    factor is even, if $n = 2k+1$ then $n + 1 = 2(k+1)$. Alternatively it follows from
    \cref{lem:two-mul-sum-to}: $n(n+1) = 2S(n)$. -/)
  (title := "Consecutive products are even")
  (latexEnv := "lemma")]
theorem mul_succ_even (n : Nat) : n * (n + 1) % 2 = 0 := by
  sorry_using [two_mul_sum_to]

@[blueprint "thm:gauss"
  (statement := /-- Gauss: $S(n) = n(n+1)/2$ (natural-number division). -/)
  (proof := /-- By \cref{lem:two-mul-sum-to}, $n(n+1) = 2S(n)$, and $2S(n)/2 = S(n)$
    (`Nat.mul_div_cancel_left` with $0 < 2$). -/)
  (title := "Gauss's formula")
  (latexEnv := "theorem")]
theorem gauss (n : Nat) : sumTo n = n * (n + 1) / 2 := by
  sorry_using [two_mul_sum_to]

@[blueprint "lem:sum-to-mono"
  (statement := /-- $S$ is monotone: $m \le n \Rightarrow S(m) \le S(n)$. -/)
  (proof := /-- Induction on $n$ from $m$ (`Nat.le_induction`); each step adds $n + 1 \ge 0$ by
    \cref{lem:sum-to-succ}. -/)
  (title := "Monotonicity")
  (latexEnv := "lemma")]
theorem sum_to_mono {m n : Nat} (h : m ≤ n) : sumTo m ≤ sumTo n := by
  sorry_using [sum_to_succ]

@[blueprint "thm:le-sum-to"
  (statement := /-- $n \le S(n)$. -/)
  (proof := /-- Induction on $n$; the step uses \cref{lem:sum-to-succ}:
    $S(n+1) = S(n) + (n + 1) \ge n + 1$. -/)
  (title := "A sum dominates its last term")
  (latexEnv := "theorem")]
theorem le_sum_to (n : Nat) : n ≤ sumTo n := by
  sorry_using [sum_to_succ]

@[blueprint "lem:rev-acc-length"
  (statement := /-- $|\mathrm{revAcc}(l, a)| = |l| + |a|$ (\cref{def:rev-acc}). -/)
  (proof := /-- Induction on $l$ generalising $a$; the cons step moves one element from $l$ to
    $a$, and `omega` closes the arithmetic. -/)
  (title := "Length of accumulator reversal")
  (latexEnv := "lemma")]
theorem rev_acc_length (l acc : List α) :
    (revAcc l acc).length = l.length + acc.length := by
  sorry

@[blueprint "lem:my-rev-length"
  (statement := /-- $|\mathrm{myRev}(l)| = |l|$. -/)
  (proof := /-- Unfold \cref{def:my-rev} and apply \cref{lem:rev-acc-length} with $a = []$. -/)
  (title := "Reversal keeps length")
  (latexEnv := "lemma")]
theorem my_rev_length (l : List α) : (myRev l).length = l.length := by
  sorry_using [rev_acc_length]

@[blueprint "lem:rev-acc-eq"
  (statement := /-- $\mathrm{revAcc}(l, a) = \mathrm{reverse}(l) \mathbin{+\!\!+} a$. -/)
  (proof := /-- Induction on $l$ generalising $a$ (the accumulator must be generalised, or the
    induction hypothesis is too weak). The cons step is
    `List.reverse_cons` and `List.append_assoc`. -/)
  (title := "Accumulator reversal is reversal")
  (latexEnv := "lemma")]
theorem rev_acc_eq (l acc : List α) : revAcc l acc = l.reverse ++ acc := by
  sorry

@[blueprint "thm:my-rev-eq-reverse"
  (statement := /-- $\mathrm{myRev} = \mathrm{reverse}$. -/)
  (proof := /-- \cref{lem:rev-acc-eq} with $a = []$ and `List.append_nil`. -/)
  (title := "Fast reversal is correct")
  (latexEnv := "theorem")]
theorem my_rev_eq_reverse (l : List α) : myRev l = l.reverse := by
  sorry_using [rev_acc_eq]

@[blueprint "thm:my-rev-my-rev"
  (statement := /-- $\mathrm{myRev}(\mathrm{myRev}(l)) = l$. -/)
  (proof := /-- Rewrite with \cref{thm:my-rev-eq-reverse} twice, then `List.reverse_reverse`. -/)
  (title := "Reversal is an involution")
  (latexEnv := "theorem")]
theorem my_rev_my_rev (l : List α) : myRev (myRev l) = l := by
  sorry_using [my_rev_eq_reverse]

end Demo
