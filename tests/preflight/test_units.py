"""Pure parts of the preflight and of stage 1's compile: lakefile requirements, package paths,
the model order, and the expected type taken from Lean's message (fake Lean rule 8)."""

from __future__ import annotations

import json
import subprocess
import sys

from harness.agents.config import HarnessConfig
from harness.orchestrator.diagnose import expected_of
from harness.preflight.endpoint import model_checks
from harness.preflight.lean import olean_path, package_checks, required_packages
from harness.preflight.report import roles_for
from tests.support.fakelean import FAKE_LEAN


def test_required_packages_lean_and_toml(tmp_path) -> None:
    (tmp_path / "lakefile.lean").write_text(
        'import Lake\nrequire mathlib from git "u" @ "v4.32.0"\nrequire «LeanArchitect» from '
        'git "u2"\n')
    assert required_packages(tmp_path) == ["mathlib", "LeanArchitect"]
    (tmp_path / "lakefile.lean").unlink()
    (tmp_path / "lakefile.toml").write_text(
        'name = "x"\n\n[[require]]\nname = "mathlib"\nrev = "v4.32.0"\n\n[[lean_lib]]\n'
        'name = "X"\n')
    assert required_packages(tmp_path) == ["mathlib"]
    checks = {c.name: c for c in package_checks(tmp_path)}
    assert checks["architect"].status == "skipped" and checks["mathlib"].status == "missing"


def test_package_dir_follows_the_manifest(tmp_path) -> None:
    (tmp_path / "lake-manifest.json").write_text(json.dumps(
        {"version": "1.1.0", "packagesDir": "deps", "packages": [
            {"name": "mathlib", "rev": "81a5d257c8e410db227a6665ed08f64fea08e997",
             "inputRev": "v4.32.0"}]}))
    (tmp_path / "lakefile.lean").write_text('require mathlib from git "u"\n')
    p = olean_path(tmp_path, "mathlib")
    assert p == tmp_path / "deps/mathlib/.lake/build/lib/lean/Mathlib.olean"
    p.parent.mkdir(parents=True)
    p.write_bytes(b"x")
    ok = {c.name: c for c in package_checks(tmp_path)}["mathlib"]
    assert ok.status == "ok" and "v4.32.0 @ 81a5d257c8e4" in ok.found


def test_model_order_and_roles() -> None:
    cfg = HarnessConfig.model_validate({"endpoint": {"default_model": "d"},
                                        "roles": {"audit": {"model": "a"}}})
    cfg.read_env({"OPENAI_MODEL": "o"})
    assert cfg.model_source("prove") == ("o", "OPENAI_MODEL")
    cfg.read_env({"OPENAI_MODEL": "o", "HARNESS_MODEL": "h"})
    assert cfg.model_source("prove") == ("h", "HARNESS_MODEL")
    assert cfg.model_source("audit") == ("a", "roles.audit.model")
    assert cfg.with_model("m").model_source("audit") == ("m", "--model")
    cfg.read_env({})
    assert cfg.model_source("prove") == ("d", "endpoint.default_model")
    none = HarnessConfig().read_env({})
    [c] = model_checks(none, ("prove",))
    assert c.status == "missing" and c.blocking and "--model" in c.fix
    assert roles_for("run", "1", source=True) == ("construct", "audit")
    assert roles_for("run", "1") == () and roles_for("run") == ("prove", "repair")
    assert roles_for("run", "2") == ("prove", "repair") and roles_for("lock") == ()


def test_fake_rejects_chosen_statements_in_real_format(tmp_path) -> None:
    (tmp_path / "F.lean").write_text(
        "theorem t (n : Nat) : n + fake_elab_mismatch = n := by\n  sorry\n\n"
        "theorem u : (1 : Nat) + fake_elab_instance = 1 := by\n  sorry\n")
    out = subprocess.run([sys.executable, str(FAKE_LEAN), "--json", "F.lean"], cwd=tmp_path,
                         capture_output=True, text=True, timeout=60)
    assert out.returncode == 1
    errors = [m for m in map(json.loads, out.stdout.splitlines()) if m["severity"] == "error"]
    assert [(m["pos"]["line"], m["pos"]["column"]) for m in errors] == [(1, 26), (4, 24)]
    assert errors[0]["data"].startswith("Application type mismatch: The argument\n")
    assert expected_of(errors[0]["data"]).startswith("but is expected to have type\n  Prop")
    assert expected_of(errors[1]["data"]).startswith("failed to synthesize\n  HAdd ℕ ℝ")
    assert expected_of("unsolved goals\nx : Nat\n⊢ x = x") == "⊢ x = x"
    assert expected_of("Unknown identifier `foo`") == ""
