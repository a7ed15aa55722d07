"""`harness doctor`: the preflight's checks as a table / JSON, each failing in turn; at most one
minimal call; the key is never printed. `harness init`: a commented harness.toml that loads."""

from __future__ import annotations

import json
import socket

import pytest

from harness.agents.config import load_config
from tests.orchestrator.support import fake_env, workspace
from tests.orchestrator.test_run_cli import harness
from tests.preflight.test_preflight import oleans
from tests.support.llm_server import ScriptedLLM, text

KEY = "sk-doctor-secret-0123456789"


def ready(tmp_path):
    f = workspace(tmp_path)
    ws = f.parent.parent
    oleans(ws)
    (ws / "harness.toml").write_text('[endpoint]\ndefault_model = "test-model"\n')
    return ws


def doctor(ws, env, *args):
    out = harness(["doctor", "--json", *args], ws, env)
    data = json.loads(out.stdout)
    return out, {c["name"]: c for c in data["checks"]}, data


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def test_doctor_all_ok_one_minimal_call_no_key(tmp_path) -> None:
    ws = ready(tmp_path)
    with ScriptedLLM(lambda req: text("x"), api_key=KEY) as srv:
        env = fake_env({"OPENAI_BASE_URL": srv.base_url, "OPENAI_API_KEY": KEY})
        out, checks, data = doctor(ws, env)
        human = harness(["doctor"], ws, env)
        assert len(srv.probe_requests) == 2 and srv.chat_requests == []  # one per doctor run
        assert len([r for r in srv.requests if r.path.endswith("/models")]) == 2
    assert out.returncode == 0 and data["ok"], out.stdout
    for name in ("lean", "mathlib", "architect", "repl", "config", "endpoint",
                 "model:construct", "model:audit", "model:prove", "model:repair",
                 "endpoint:models", "endpoint:chat"):
        assert checks[name]["status"] == "ok", (name, checks[name])
    assert "Lean 4.32.0" in checks["lean"]["found"]
    assert "v4.32.0" in checks["lean"]["found"]  # the pin it was compared with
    assert checks["repl"]["found"].endswith("repl")  # the binary found (the fake, on PATH)
    assert "key in OPENAI_API_KEY" in checks["endpoint"]["found"]
    assert "test-model (from endpoint.default_model)" == checks["model:prove"]["found"]
    for o in (out, human):
        assert KEY not in o.stdout and KEY not in o.stderr
    assert human.returncode == 0 and "ready" in human.stdout and "how to fix" in human.stdout


CASES = {
    "lean-mismatch": ("lean", "elan toolchain install"),
    "no-lean": ("lean", "install elan"),
    "mathlib": ("mathlib", "lake exe cache get"),
    "architect": ("architect", "lake build Architect"),
    "no-model": ("model:prove", "endpoint.default_model"),
    "bad-key": ("endpoint:models", "rejected the API key"),
    "unreachable": ("endpoint:models", "cannot connect to"),
    "bad-config": ("config", "harness init --force"),
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_doctor_each_check_failing_in_turn(tmp_path, case) -> None:
    ws = ready(tmp_path)
    with ScriptedLLM(lambda req: text("x"), api_key=KEY) as srv:
        env = fake_env({"OPENAI_BASE_URL": srv.base_url, "OPENAI_API_KEY": KEY})
        if case == "lean-mismatch":
            env["FAKE_LEAN_VERSION"] = "4.30.0"
        elif case == "no-lean":
            env = fake_env({"OPENAI_BASE_URL": srv.base_url, "OPENAI_API_KEY": KEY,
                            "PATH": "/usr/bin:/bin", "HOME": str(tmp_path)})
            env.pop("HARNESS_LAKE")
        elif case == "mathlib":
            (ws / ".lake/packages/mathlib/.lake/build/lib/lean/Mathlib.olean").unlink()
        elif case == "architect":
            (ws / ".lake/packages/LeanArchitect/.lake/build/lib/lean/Architect.olean").unlink()
        elif case == "no-model":
            (ws / "harness.toml").write_text("[endpoint]\n")
        elif case == "bad-key":
            env["OPENAI_API_KEY"] = "sk-wrong-but-long"
        elif case == "unreachable":
            env["OPENAI_BASE_URL"] = f"http://127.0.0.1:{free_port()}/v1"
        elif case == "bad-config":
            (ws / "harness.toml").write_text("[endpoint\n")
        out, checks, data = doctor(ws, env)
    name, fix = CASES[case]
    assert out.returncode == 1 and not data["ok"], out.stdout
    assert checks[name]["status"] == "missing", checks[name]
    assert fix in checks[name]["fix"] + checks[name]["found"]
    bad = [c for c, v in checks.items() if v["status"] == "missing"]
    if case in ("lean-mismatch", "mathlib", "architect", "bad-config"):
        assert bad == [name]  # the others still pass
    assert KEY not in out.stdout and KEY not in out.stderr
    assert len(srv.probe_requests) <= 1


def test_doctor_offline_sends_nothing(tmp_path) -> None:
    ws = ready(tmp_path)
    with ScriptedLLM(lambda req: text("x")) as srv:
        out, checks, _ = doctor(ws, fake_env({"OPENAI_BASE_URL": srv.base_url}), "--offline")
        assert srv.requests == []
    assert out.returncode == 0 and "endpoint:chat" not in checks


@pytest.mark.parametrize("kind", ["--openai", "--vllm"])
def test_init_writes_a_commented_config_and_never_overwrites(tmp_path, kind) -> None:
    ws = ready(tmp_path)
    (ws / "harness.toml").unlink()
    out = harness(["init", kind], ws)
    assert out.returncode == 0, out.stderr
    written = (ws / "harness.toml").read_text()
    assert written.startswith("# harness.toml") and "api_key_env" in written
    cfg = load_config(ws / "harness.toml")
    if kind == "--vllm":
        assert cfg.endpoint.base_url == "http://localhost:8000/v1"
        assert cfg.role("prove").mode == "completion"
    else:
        assert cfg.endpoint.base_url is None and cfg.role("prove").model == "gpt-5"
    (ws / "harness.toml").write_text("# mine\n[endpoint]\ndefault_model = \"m\"\n")
    again = harness(["init", kind], ws)
    assert again.returncode == 2 and "--force" in again.stderr
    assert (ws / "harness.toml").read_text().startswith("# mine")
    forced = harness(["init", kind, "--force", "--model", "my-model"], ws)
    assert forced.returncode == 0
    assert load_config(ws / "harness.toml").role("audit").model == "my-model"
    assert (ws / "harness.toml.bak").read_text().startswith("# mine")  # the user's text is kept
