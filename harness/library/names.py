"""Lean names as words: search tokens, identifiers in a text, and `to_additive`'s generated names.

Search tokens split a name at dots, underscores and case changes and lower-case the pieces:
`HasSubgaussianMGF.measure_ge_le` -> `has subgaussian mgf measure ge le`.

`to_additive` (Mathlib): the additive name is the multiplicative one with its last component
rewritten word by word — `String.splitCase`, then the dictionary `nameDict` (`mul` -> `add`,
`one` -> `zero`, `prod` -> `sum`, `monoid` -> `add` `Monoid`, …), then `fixAbbreviation`
(`zero_le` -> `nonneg`, `comm` `Add` -> `addComm`, …); the namespace prefix is translated only
where it has a translation itself; an explicit `@[to_additive foo]` names the result instead
(leanprover-community/mathlib4 at 3906ef1, Mathlib/Tactic/ToAdditive/Frontend.lean: `nameDict`,
`fixAbbreviation`, `guessName`, `targetName`). Below is our own re-implementation of the common
part of those tables; the optional exact pass asks Lean for the real names.
"""

from __future__ import annotations

import re
from functools import lru_cache

IDENT_ATOM = r"(?:«[^»\n]*»|[^\W\d][\w'!?\u2080-\u209c]*)"
IDENT = re.compile(r"(?<![\w'.])" + IDENT_ATOM + r"(?:\." + IDENT_ATOM + r")*")
_PIECES = re.compile(r"[A-Z]+(?![a-z])|[A-Z]?[a-z]+|[0-9]+|[^\W\d_]+")
_WORD = re.compile(r"[\w']+")

# Lean keywords and tactic words that are not constants (never looked up, never premises)
KEYWORDS = frozenset("""
fun λ let have show from by at with then else if do match in where deriving calc this
theorem lemma def abbrev instance structure class inductive axiom example opaque
namespace section end open variable universe import noncomputable private protected
exact apply intro intros refine rw rwa simp simp_all omega linarith nlinarith positivity
norm_num ring ring_nf field_simp constructor use obtain rcases rintro cases induction
exists existsi left right trivial rfl decide aesop tauto contradiction exfalso assumption
specialize generalize set change unfold dsimp gcongr filter_upwards congr ext funext
refine' apply_fun push_neg by_contra by_cases split_ifs interval_cases subst symm trans
calc conv arg lhs rhs only using sorry Type Sort Prop forall exists mod_cast exact_mod_cast
push_cast norm_cast haveI letI suffices nth_rw nth_rewrite simpa infer_instance fin_cases
measurability continuity fun_prop bound mono gcongr_discharger
""".split())

STOPWORDS = frozenset("""
a an and are as be by for from if in into is it its of on or that the then this to with we
let our there which where any all each every such so than thus hence show shows prove proof
""".split())


@lru_cache(maxsize=200_000)
def name_tokens(name: str) -> tuple[str, ...]:
    """`HasSubgaussianMGF.measure_ge_le` -> ('has', 'subgaussian', 'mgf', 'measure', 'ge', 'le')."""
    out: list[str] = []
    for part in re.split(r"[._\s]+", name.replace("«", "").replace("»", "")):
        if not part:
            continue
        out.extend(p.lower() for p in _PIECES.findall(part.replace("'", "")))
    return tuple(out)


def text_tokens(text: str) -> list[str]:
    """Words of a free text or a signature, identifiers split like names."""
    out: list[str] = []
    for w in _WORD.findall(text):
        out.extend(name_tokens(w))
    return out


def identifiers(text: str) -> list[str]:
    """Identifiers (dotted names) in a masked code text, keywords removed, in order."""
    out = [m for m in IDENT.findall(text) if m not in KEYWORDS]
    return [m.replace("«", "").replace("»", "") for m in out] if "«" in text else out


def last(name: str) -> str:
    return name.rsplit(".", 1)[-1]


# ---- to_additive --------------------------------------------------------------------------
_DICT = {"one": ["zero"], "mul": ["add"], "smul": ["vadd"], "inv": ["neg"], "div": ["sub"],
         "prod": ["sum"], "hmul": ["hadd"], "hsmul": ["hvadd"], "hdiv": ["hsub"],
         "hpow": ["hsmul"], "finprod": ["finsum"], "tprod": ["tsum"], "pow": ["nsmul"],
         "npow": ["nsmul"], "zpow": ["zsmul"], "mabs": ["abs"], "monoid": ["add", "Monoid"],
         "submonoid": ["add", "Submonoid"], "group": ["add", "Group"],
         "subgroup": ["add", "Subgroup"], "semigroup": ["add", "Semigroup"],
         "magma": ["add", "Magma"], "haar": ["add", "Haar"], "unit": ["add", "Unit"],
         "units": ["add", "Units"], "cyclic": ["add", "Cyclic"], "rootable": ["divisible"],
         "commute": ["add", "Commute"], "semiconj": ["add", "Semiconj"],
         "zpowers": ["zmultiples"], "powers": ["multiples"], "multipliable": ["summable"],
         "square": ["even"], "mconv": ["conv"]}
# (pattern, replacement) over the split pieces, applied left to right (a subset of
# `fixAbbreviation`)
_FIX: list[tuple[tuple[str, ...], str]] = [
    (("comm", "Add"), "addComm"), (("Comm", "Add"), "AddComm"),
    (("cancel", "Add"), "addCancel"), (("Cancel", "Add"), "AddCancel"),
    (("left", "Cancel", "Add"), "addLeftCancel"), (("right", "Cancel", "Add"), "addRightCancel"),
    (("Zero", "LE"), "Nonneg"), (("zero", "_", "le"), "nonneg"), (("zero", "LE"), "nonneg"),
    (("Zero", "LT"), "Pos"), (("zero", "_", "lt"), "pos"), (("zero", "LT"), "pos"),
    (("LE", "Zero"), "Nonpos"), (("le", "_", "zero"), "nonpos"), (("LT", "Zero"), "Neg"),
    (("lt", "_", "zero"), "neg"), (("add", "_", "single"), "single"),
    (("add", "_", "support"), "support"), (("add", "_", "indicator"), "indicator"),
    (("is", "Even"), "even"), (("Is", "Even"), "Even"),
    (("Nsmul",), "NSMul"), (("NSmul",), "NSMul"), (("ZSmul",), "ZSMul"), (("HSmul",), "HSMul"),
]
_CASE = re.compile(r"_|[A-Z]+(?=[A-Z][a-z])|[A-Z]*[a-z0-9]+|[A-Z]+|[^_A-Za-z0-9]+")


def split_case(s: str) -> list[str]:
    """Pieces at `_` (kept) and at case changes, like Mathlib's `String.splitCase`."""
    return _CASE.findall(s)


def _capitalize_like(model: str, s: str) -> str:
    out = []
    for i, ch in enumerate(s):
        if i < len(model) and model[i].isupper():
            out.append(ch.upper())
        elif i < len(model) and model[i].islower():
            out.append(ch.lower())
        else:
            out.append(ch)
    return "".join(out)


def additive_component(s: str) -> str:
    """`guessName` on one name component: `mul_one` -> `add_zero`, `Monoid` -> `AddMonoid`."""
    pieces: list[str] = []
    for p in split_case(s):
        repl = _DICT.get(p.lower())
        if repl is None:
            pieces.append(p)
        else:
            pieces.append(_capitalize_like(p, repl[0]))
            pieces.extend(repl[1:])
    out: list[str] = []
    i = 0
    while i < len(pieces):
        for pat, rep in _FIX:
            if tuple(pieces[i:i + len(pat)]) == pat:
                out.append(rep)
                i += len(pat)
                break
        else:
            out.append(pieces[i])
            i += 1
    return "".join(out)


def additive_name(full: str, explicit: str | None, translations: dict[str, str]) -> str | None:
    """The name `@[to_additive]` gives ``full``; None when nothing changes (`to_additive self`
    or a name with no multiplicative word: Lean rejects that one too)."""
    prefix, _, comp = full.rpartition(".")
    parts = prefix.split(".") if prefix else []
    done: list[str] = []
    for p in parts:  # the prefix maps where a prefix of it has a translation (`mapPrefix`)
        done.append(p)
        key = ".".join(done)
        if key in translations:
            done = translations[key].split(".")
    pre = ".".join(done)
    if explicit and explicit.startswith("_root_."):
        name = explicit.removeprefix("_root_.")
    elif explicit:  # `pre1 ++ tgt`: an n-part target replaces the last n - 1 prefix parts
        keep = done[:max(0, len(done) - (explicit.count(".")))]
        name = ".".join([*keep, explicit])
    else:
        name = f"{pre}.{additive_component(comp)}" if pre else additive_component(comp)
    return None if name == full else name
