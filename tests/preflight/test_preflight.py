"""Preflight before any work (`run`, `prove`, `lock`): a configuration problem is exit 2 with one
line saying what to set, before any attempt, request or commit. Real subprocesses, the fake
Lean, the scripted LLM server."""

from __future__ import annotations

import json

from harness.orchestrator.state import run_dir
from tests.orchestrator.support import fake_env, workspace
from tests.orchestrator.test_run_cli import harness
from tests.support.llm_server import ScriptedLLM, error, text

REQUIRES = ('\nrequire mathlib from git "https://github.com/leanprover-community/mathlib4.git"'
            ' @ "v4.32.0"\nrequire LeanArchitect from git '
            '"https://github.com/hanwenzhu/LeanArchitect.git" @ "v4.32.0-rc1"\n')


def oleans(ws, *, mathlib: bool = True, architect: bool = True) -> None:
    with open(ws / "lakefile.lean", "a", encoding="utf-8") as fh:
        fh.write(REQUIRES)
    for ok, pkg, mod in ((mathlib, "mathlib", "Mathlib"), (architect, "LeanArchitect",
                                                           "Architect")):
        d = ws / ".lake" / "packages" / pkg / ".lake" / "build" / "lib" / "lean"
        d.mkdir(parents=True, exist_ok=True)
        if ok:
            (d / f"{mod}.olean").write_bytes(b"olean")


def test_missing_model_exits_2_before_any_attempt(tmp_path) -> None:
    """The reported bug: OPENAI_BASE_URL / OPENAI_API_KEY set, no model anywhere. It used to
    dispatch dozens of attempts that all failed with "no model configured for role 'prove'"."""
    f = workspace(tmp_path)
    ws = f.parent.parent
    (ws / "harness.toml").write_text('[tactics]\ntactics = ["bogus_tactic"]\n')
    with ScriptedLLM(lambda req: text("```lean\nby omega\n```")) as srv:
        env = fake_env({"OPENAI_BASE_URL": srv.base_url, "OPENAI_API_KEY": "sk-test-123456"})
        env.pop("HARNESS_MODEL", None)
        env.pop("OPENAI_MODEL", None)
        out = harness(["run", str(f), "--json"], ws, env)
        assert out.returncode == 2, out.stderr
        lines = out.stderr.strip().splitlines()
        # every problem at once: one line per role without a model (stage 2: prove, repair)
        assert len(lines) == 2 and all("no model for the" in ln for ln in lines)
        assert "endpoint.default_model" in lines[0] and "--model" in lines[0]
        assert "HARNESS_MODEL" in lines[0] and "Traceback" not in out.stderr
        assert srv.requests == []  # not even the probe
        assert not run_dir(ws, f).exists() and not (ws / ".git").exists()
        # the same with a model from the environment: the run proceeds and proves everything
        env["HARNESS_MODEL"] = "test-model"
        ok = harness(["run", str(f), "--json"], ws, env)
        assert ok.returncode == 0, ok.stderr
        assert {r.model for r in srv.chat_requests} == {"test-model"}
        assert len(srv.probe_requests) == 1  # one minimal call before the work


def test_run_model_flag_is_used_by_every_role(tmp_path) -> None:
    f = workspace(tmp_path)
    ws = f.parent.parent
    (ws / "harness.toml").write_text('[tactics]\ntactics = ["bogus_tactic"]\n'
                                     '[roles.prove]\nmode = "completion"\n')
    with ScriptedLLM(lambda req: text("```lean\nby omega\n```")) as srv:
        env = fake_env({"OPENAI_BASE_URL": srv.base_url, "OPENAI_MODEL": "env-model"})
        out = harness(["run", str(f), "--json", "--model", "flag-model"], ws, env)
    assert out.returncode == 0, out.stderr
    assert {r.model for r in srv.chat_requests} == {"flag-model"}


def test_rejected_key_exits_2_before_any_attempt(tmp_path) -> None:
    f = workspace(tmp_path)
    ws = f.parent.parent
    with ScriptedLLM(lambda req: text("no"), api_key="sk-right-key") as srv:
        env = fake_env({"OPENAI_BASE_URL": srv.base_url, "OPENAI_API_KEY": "sk-wrong-key-999",
                        "HARNESS_MODEL": "test-model"})
        out = harness(["run", str(f), "--plain"], ws, env)
        assert out.returncode == 2, out.stderr
        assert "rejected the API key" in out.stderr and "sk-wrong-key-999" not in out.stderr
        assert srv.chat_requests == [] and not run_dir(ws, f).exists()


def test_endpoint_that_fails_the_minimal_call_exits_2(tmp_path) -> None:
    f = workspace(tmp_path)
    ws = f.parent.parent
    with ScriptedLLM(lambda req: text("x"), probe=error(404, message="model not found")) as srv:
        env = fake_env({"OPENAI_BASE_URL": srv.base_url, "HARNESS_MODEL": "no-such-model"})
        out = harness(["run", str(f), "--plain"], ws, env)
        assert out.returncode == 2, out.stderr
        assert "no such route or model" in out.stderr and srv.chat_requests == []


def test_toolchain_mismatch_and_missing_oleans_exit_2(tmp_path) -> None:
    f = workspace(tmp_path)
    ws = f.parent.parent
    out = harness(["run", str(f), "--plain"], ws, fake_env({"FAKE_LEAN_VERSION": "4.31.0"}))
    assert out.returncode == 2
    assert "lean-toolchain pins leanprover/lean4:v4.32.0" in out.stderr
    assert "elan toolchain install leanprover/lean4:v4.32.0" in out.stderr
    assert not (ws / ".git").exists()
    oleans(ws, architect=False)
    for cmd in (["run", str(f), "--plain"], ["lock", str(f)],
                ["prove", str(f), "lem:add-shuffle", "--tactics"]):
        out = harness(cmd, ws, fake_env())
        assert out.returncode == 2, (cmd, out.stderr)
        assert out.stderr.strip().endswith(f"run `lake build Architect` in {ws}"), out.stderr
    assert not (ws / ".git").exists() and not (f.parent / "Demo.lock.json").exists()
    (ws / ".lake/packages/LeanArchitect/.lake/build/lib/lean/Architect.olean").write_bytes(b"o")
    (ws / ".lake/packages/mathlib/.lake/build/lib/lean/Mathlib.olean").unlink()
    out = harness(["lock", str(f)], ws, fake_env())
    assert out.returncode == 2 and "`lake exe cache get`" in out.stderr
    (ws / ".lake/packages/mathlib/.lake/build/lib/lean/Mathlib.olean").write_bytes(b"o")
    out = harness(["lock", str(f), "--json"], ws, fake_env())
    assert out.returncode == 0 and json.loads(out.stdout)["elaborated"] is True
