"""Issue 14, second round of the trust gate: the holes the corpus cannot express as a one-file
transformation (workspace files, Lean's answers, the terminal, the CLI, the prompt)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

from harness.agents.contracts import FORBIDDEN_IN_PROOFS, HELPER_ATTRS as CONTRACT_ATTRS
from harness.agents.roles import load_prompt
from harness.blueprint import parse_text
from harness.blueprint.write import replace_body
from harness.gate import forbidden as gate
from harness.gate.environment import module_imports
from harness.gate.lock import make_lock
from harness.gate.sanitize import printable
from harness.gate.scope import HELPER_ATTRS
from harness.gate.verify import GateFailure, verify
from harness.lean.toolchain import Toolchain
from harness.lean.verdict import check_file, same_constant
from tests.gate.corpus import BASE, PROOF
from tests.gate.test_cli import NO_LEAN, base_repo, harness
from tests.support.fakelean import make_workspace

# ----------------------------------------------------------------------------- hole 5


def test_axiom_reports_are_matched_by_exact_name() -> None:
    assert same_constant("Gate.double_eq", "Gate.double_eq")
    assert same_constant("Gate.double_eq", "«Gate».double_eq")
    assert same_constant("Gate.x", "_private.Blueprint.Base.0.Gate.x")  # a private declaration
    assert not same_constant("Gate.double_eq", "X.Gate.double_eq")  # the impostor
    assert not same_constant("Gate.double_eq", "_private.Gate.double_eq")


def test_impostor_after_the_final_end_cannot_answer_for_the_node(workspace: Path,
                                                                  fake_tc: Toolchain) -> None:
    """`#print axioms _root_.Gate.double_eq` resolves to the node, not to `X.Gate.double_eq`
    (whose proof is complete): the node's placeholder shows in its own report."""
    text = BASE.replace("\nend Gate\n", "\nend Gate\n\nnamespace X\n\ntheorem Gate.double_eq "
                        "(n : Nat) : n = n := rfl\n\nend X\n")
    bp = parse_text(text, workspace / "Base.lean")
    v = check_file(fake_tc, workspace, bp, labels=["lem:double-eq"], timeout_s=60)
    (node,) = v.nodes
    assert node.status == "sorry" and "sorryAx" in (node.axioms or [])
    report = verify(text, "Base.lean", make_lock(parse_text(BASE)), static_only=True)
    assert {(f.check, f.rule) for f in report.failures} >= {("forbidden", "impostor")}


# ----------------------------------------------------------------------------- hole 8

MAIN = "public import Blueprint.Helper\n\ntheorem t : True := trivial\n"


def _ws(tmp_path: Path) -> Path:
    return make_workspace(tmp_path / "ws", {
        "Blueprint/Main.lean": MAIN,
        "Blueprint/Helper.lean": "module\n\npublic meta import all Blueprint.Deep\n",
        "Blueprint/Deep.lean": "def deep : Nat := 1\n"}, toolchain="4.32.0")


def test_module_system_imports_are_read_as_lean_reads_them() -> None:
    assert module_imports("module\n/- c -/ public import A.B\nimport all C\n"
                          "public meta import D\nmeta import all E\n\ntheorem t := 1\n") == \
        ["A.B", "C", "D", "E"]
    assert module_imports("import X -- import Y\ntheorem import_ish : True := trivial\n") == ["X"]


def test_a_changed_module_behind_public_meta_import_all_is_caught(tmp_path: Path) -> None:
    ws = _ws(tmp_path)
    f = ws / "Blueprint/Main.lean"
    lock = make_lock(parse_text(MAIN, f))
    assert "Blueprint/Deep.lean" in lock.environment and "Blueprint/Helper.lean" in lock.environment
    (ws / "Blueprint/Deep.lean").write_text("def deep : Nat := 2\n")
    r = verify(MAIN, f, lock, static_only=True)
    assert r.exit_code == 1
    assert any("`Blueprint/Deep.lean` changed" in x.message for x in r.failures), r.failures


def test_a_nested_lakefile_moving_the_workspace_root_is_caught(tmp_path: Path) -> None:
    ws = _ws(tmp_path)
    f = ws / "Blueprint/Main.lean"
    lock = make_lock(parse_text(MAIN, f))
    for name in ("lakefile.lean", "lean-toolchain"):  # identical copies: same hashes
        shutil.copy(ws / name, ws / "Blueprint" / name)
    r = verify(MAIN, f, lock, static_only=True)
    assert r.exit_code == 1
    assert any("workspace root moved" in x.message for x in r.failures), r.failures


# ----------------------------------------------------------------------------- hole 9

def test_terminal_escapes_in_labels_and_messages_are_shown_not_sent() -> None:
    f = GateFailure(check="scope", key="lem:\x1b]0;pwned\x07", path="B.lean", line=1, col=0,
                    message="bad \x1b[2J\u202eevil\x9b")
    line = f.render()
    assert "\x1b" not in line and "\x07" not in line and "\u202e" not in line and "\x9b" not in line
    assert "\\x1b]0;pwned\\x07" in line and "\\u202e" in line
    assert printable("a\tb\nc ≤ d") == "a\tb\nc ≤ d"


def test_verify_cli_does_not_print_an_escape_from_the_file(tmp_path: Path) -> None:
    ws = base_repo(tmp_path)
    f = ws / "Blueprint/Base.lean"
    f.write_text(BASE.replace('"lem:double-eq"', '"lem:double-eq\x1b[2J"', 1))
    out = harness("verify", str(f), "--lock", "base.lock.json", "--static-only", cwd=ws)
    assert out.returncode == 1
    assert "\x1b" not in out.stderr + out.stdout
    assert "lem:double-eq\\x1b[2J" in out.stderr  # shown, so a reviewer sees the trick


# ----------------------------------------------------------------------------- prelude, deny list

def test_prelude_is_a_finding_not_an_unreadable_file(tmp_path: Path) -> None:
    ws = base_repo(tmp_path)
    f = ws / "Blueprint/Base.lean"
    f.write_text("prelude\n" + BASE)
    out = harness("verify", str(f), "--lock", "base.lock.json", "--static-only", "--json",
                  cwd=ws)
    assert out.returncode == 1, out.stderr
    rules = {(x["check"], x["rule"]) for x in json.loads(out.stdout)["failures"]}
    assert ("forbidden", "prelude") in rules
    assert "changes the environment" in out.stdout


def test_external_tactic_deny_list_is_configurable(tmp_path: Path) -> None:
    new = replace_body(parse_text(BASE), "lem:double-eq", "by\n  unfold double\n  polyrith")
    lock = make_lock(parse_text(BASE))
    r = verify(new, "Base.lean", lock, base_text=BASE, allow={"lem:double-eq"}, static_only=True)
    assert [(f.rule, "polyrith" in f.message) for f in r.failures] == [("external", True)]
    assert "network" in r.failures[0].message and "ordinary tactics" in r.failures[0].message
    r = verify(new, "Base.lean", lock, base_text=BASE, allow={"lem:double-eq"}, static_only=True,
               deny_tactics={})
    assert r.passed
    ws = base_repo(tmp_path)
    f = ws / "Blueprint/Base.lean"
    f.write_text(replace_body(parse_text(BASE), "lem:double-eq", "by\n  unfold double\n  omega"))
    args = ["verify", str(f), "--lock", "base.lock.json", "--static-only", "--base", "HEAD",
            "--allow", "lem:double-eq"]
    assert harness(*args, cwd=ws, env=NO_LEAN).returncode == 0
    denied = harness(*args, "--deny-tactic", "omega", cwd=ws, env=NO_LEAN)
    assert denied.returncode == 1 and "[forbidden]" in denied.stderr and "omega" in denied.stderr
    f.write_text(replace_body(parse_text(BASE), "lem:double-eq", "by\n  polyrith"))
    assert harness(*args, "--allow-tactic", "polyrith", cwd=ws, env=NO_LEAN).returncode == 0


# ----------------------------------------------------------------------------- the prompt

def test_prove_prompt_lists_exactly_what_the_gate_enforces() -> None:
    prompt = load_prompt("prove")
    words = (gate.SORRY_WORDS | gate.ALWAYS_SORRY | gate.BODY_SORRY_WORDS | gate.NATIVE
             | gate.COMPILER | gate.METAPROGRAM | set(gate.EXTERNAL_TACTICS))
    for w in words:
        assert f"`{w}`" in prompt, w
        assert w in FORBIDDEN_IN_PROOFS
    for a in HELPER_ATTRS:
        assert f"`@[{a}]`" in prompt, a
    assert CONTRACT_ATTRS == HELPER_ATTRS
    assert "set_option maxHeartbeats N in" in prompt and "open Classical in" in prompt


def test_rejections_name_the_rule_and_the_alternative(base_lock) -> None:
    new = replace_body(parse_text(BASE), "lem:double-eq",
                       "by\n  set_option maxHeartbeats 0x0 in\n  omega")
    r = verify(new, "Base.lean", base_lock, base_text=BASE, allow={"lem:double-eq"},
               static_only=True)
    (f,) = r.failures
    assert f.rule == "set_option" and "0x0" in f.message and "400000" in f.message
    helper = "@[instance] theorem aux : 1 = 1 := rfl\n\n"
    new = BASE.replace('@[blueprint "lem:double-eq"', helper + '@[blueprint "lem:double-eq"', 1)
    new = replace_body(parse_text(new), "lem:double-eq", PROOF)
    r = verify(new, "Base.lean", base_lock, base_text=BASE, allow={"lem:double-eq"},
               static_only=True)
    msgs = " ".join(f.message for f in r.failures)
    assert "`grind`" in msgs and "`simp`" in msgs  # the allowed helper attributes are listed


# ----------------------------------------------------------------------------- hole 2

LAYOUT = '''namespace L

def total (xs : List Nat) : Nat := Id.run do
  let mut s := 0
  for x in xs do
    s := s + x
  return s

@[blueprint "lem:total-nil"
  (statement := /-- The total of nothing. -/)]
theorem total_nil : total [] = 0 := by
  sorry

end L
'''
# `return s` moved into the loop: the function now returns after the first element
REINDENTED = LAYOUT.replace("    s := s + x\n  return s", "    s := s + x\n    return s")


def test_reindenting_a_do_block_of_a_locked_definition_is_rejected() -> None:
    lock = make_lock(parse_text(LAYOUT))
    r = verify(REINDENTED, "L.lean", lock, static_only=True)
    assert r.exit_code == 1
    assert [(f.check, f.key) for f in r.failures] == [("lock", "L.total")]
    assert "line structure" in r.failures[0].message
    r = verify(REINDENTED, "L.lean", lock, base_text=LAYOUT, allow={"lem:total-nil"},
               static_only=True)
    assert {f.check for f in r.failures} == {"lock", "scope"}


def test_layout_neutral_edits_of_a_definition_still_pass() -> None:
    lock = make_lock(parse_text(LAYOUT))
    same = LAYOUT.replace("  let mut s := 0\n", "  let mut s := 0   -- the sum\n") \
        .replace("return s\n", "return s  \n").replace("\n", "\r\n")
    r = verify(same, "L.lean", lock, static_only=True)
    assert r.exit_code == 0, [f.render() for f in r.failures]


def test_locks_without_layout_fingerprints_still_load_and_compare() -> None:
    lock = make_lock(parse_text(LAYOUT))
    old = lock.model_copy(update={"entries": [e.model_copy(update={"layout": None})
                                              for e in lock.entries]})
    assert verify(LAYOUT, "L.lean", old, static_only=True).exit_code == 0


def test_with_lean_the_value_of_a_locked_definition_is_hashed(tmp_path: Path) -> None:
    """A lock written with Lean pins `#print`'s pp.all value of every definition; a re-indented
    `do` block is caught by Lean even where the source fingerprint cannot see it (a lock
    without layout fingerprints, as written before them)."""
    from harness.gate.elaborated import elaborated_hashes
    from harness.lean.toolchain import find_toolchain
    from tests.support.fakelean import FAKE_LAKE

    ws = make_workspace(tmp_path / "ws", {"L.lean": "import Std\n\n" + LAYOUT})
    tc = find_toolchain(ws, str(FAKE_LAKE))
    f = ws / "L.lean"
    bp = parse_text(f.read_text(), f)
    lock = make_lock(bp, elaborated=elaborated_hashes(bp, [d.key for d in bp.decls if d.name],
                                                      tc, workspace=ws, timeout_s=60))
    (entry,) = [e for e in lock.entries if e.key == "L.total"]
    assert entry.value_hash and entry.type_hash
    old = lock.model_copy(update={"entries": [e.model_copy(update={"layout": None})
                                              for e in lock.entries]})
    new = "import Std\n\n" + REINDENTED
    assert verify(new, f, old, static_only=True).exit_code == 0  # the source alone: blind
    r = verify(new, f, old, lean=tc, workspace=ws, timeout_s=60)
    assert r.exit_code == 1 and r.elaborated == "compared"
    assert [(x.check, x.key) for x in r.failures] == [("lock", "L.total")]
    assert "elaborated value changed" in r.failures[0].message
    assert verify("import Std\n\n" + LAYOUT, f, lock, lean=tc, workspace=ws,
                  timeout_s=60).exit_code == 0
