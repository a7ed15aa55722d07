"""`harness prove FILE LABEL [--model M] [--apply]` end to end (fake Lean, scripted LLM)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path


from harness.cli import main
from tests.support.llm_server import text, tool_call

ROOT = Path(__file__).resolve().parents[2]
KEY = "sk-cli-SECRET-777"


def _run(argv, capsys):
    code = main(argv)
    out, err = capsys.readouterr()
    return code, out, err


TACTICS = '[tactics]\ntactics = ["bogus_rfl", "simp"]\n'


def test_tactics_without_endpoint_prints_verdict(demo_ws, fake_lake, clean_env, capsys):
    (demo_ws / "harness.toml").write_text(TACTICS)
    f = demo_ws / "Demo.lean"
    before = f.read_bytes()
    code, out, _ = _run(["prove", str(f), "lem:double_add"], capsys)
    assert code == 0 and "lem:double_add: proved with the tactic portfolio" in out and "by simp" in out
    assert "tried bogus_rfl: failed" in out
    assert f.read_bytes() == before  # no --apply: nothing written


def test_apply_goes_through_the_gate_and_writes(demo_ws, fake_lake, clean_env, capsys):
    (demo_ws / "harness.toml").write_text(TACTICS)
    f = demo_ws / "Demo.lean"
    code, out, err = _run(["prove", str(f), "lem:double_add", "--apply", "--json"], capsys)
    data = json.loads(out)
    assert code == 0, (data, err)
    assert data["status"] == "proved" and data["applied"] is True
    new = f.read_text()
    assert "theorem double_add (a b : Nat) : double (a + b) = double a + double b := by simp" \
        in new or "double a + double b := by\n  simp" in new or ":= by simp" in new
    assert new.count("sorry") == DEMO_SORRIES - 1
    assert Path(data["transcript_file"]).is_file()


DEMO_SORRIES = 3  # `sorry`, `sorry`, `sorry_using` in the demo file


def test_apply_without_lean_refuses_before_any_work(demo_ws, no_lake, clean_env, capsys,
                                                    llm, monkeypatch):
    srv = llm([text("```lean\nby simp\n```")])
    monkeypatch.setenv("OPENAI_BASE_URL", srv.base_url)
    f = demo_ws / "Demo.lean"
    before = f.read_bytes()
    code, _, err = _run(["prove", str(f), "lem:double_add", "--apply", "--model", "m"], capsys)
    assert code == 3 and "nothing written" in err
    assert f.read_bytes() == before and srv.chat_requests == []


def test_without_lean_llm_answer_is_unverified(demo_ws, no_lake, clean_env, capsys, llm,
                                               monkeypatch):
    srv = llm([tool_call("submit", body="by omega")])
    monkeypatch.setenv("OPENAI_BASE_URL", srv.base_url)
    code, out, _ = _run(["prove", str(demo_ws / "Demo.lean"), "lem:double_add", "--model", "m"],
                        capsys)
    assert code == 3 and "unverified" in out and "by omega" in out


def test_gate_rejection_means_no_write(demo_ws, fake_lake, clean_env, capsys, llm, monkeypatch):
    # Lean (the fake) accepts the candidate, but its helper redeclares `Demo.double`, which the
    # locked statements use: the gate rejects the new text, so the file stays as it was.
    srv = llm([tool_call("submit", body="by omega",
                         helpers="theorem double (n : Nat) : True := trivial")])
    monkeypatch.setenv("OPENAI_BASE_URL", srv.base_url)
    f = demo_ws / "Demo.lean"
    before = f.read_bytes()
    code, out, _ = _run(["prove", str(f), "lem:double_add", "--model", "m", "--apply", "--json"],
                        capsys)
    data = json.loads(out)
    assert code == 1 and data["status"] == "proved" and data["applied"] is False
    assert any("[scope] Demo.double" in g for g in data["gate"])
    assert f.read_bytes() == before


def test_early_contract_rejection_is_fed_back(demo_ws, fake_lake, clean_env, capsys, llm,
                                              monkeypatch):
    # an instance among the helpers: rejected before Lean (the gate would reject it too);
    # the model is told, and its second answer is clean.
    srv = llm([tool_call("submit", body="by omega", helpers="instance : Inhabited Nat := ⟨1⟩"),
               tool_call("submit", body="by omega")])
    monkeypatch.setenv("OPENAI_BASE_URL", srv.base_url)
    f = demo_ws / "Demo.lean"
    code, out, _ = _run(["prove", str(f), "lem:double_add", "--model", "m", "--apply", "--json"],
                        capsys)
    data = json.loads(out)
    assert code == 0 and data["applied"] and "instance" not in f.read_text()
    assert "`instance` is not allowed" in srv.chat_requests[1].messages[-1]["content"]


def test_unknown_label_and_bad_config_are_one_line(demo_ws, clean_env, capsys):
    code, _, err = _run(["prove", str(demo_ws / "Demo.lean"), "lem:nope"], capsys)
    assert code == 2 and err.strip() == f"{demo_ws / 'Demo.lean'}:1:0: no blueprint node `lem:nope`"
    (demo_ws / "harness.toml").write_text("[roles.prove]\nmode = 'x'\n")
    code, _, err = _run(["prove", str(demo_ws / "Demo.lean"), "lem:double_add"], capsys)
    assert code == 2 and "harness.toml:2:0: config: roles.prove.mode" in err
    assert len(err.strip().splitlines()) == 1


def test_model_without_endpoint_is_usage_error(demo_ws, clean_env, capsys):
    code, _, err = _run(["prove", str(demo_ws / "Demo.lean"), "lem:double_add", "--model", "m"],
                        capsys)
    assert code == 2 and "--model needs an LLM endpoint" in err


def test_subprocess_llm_prove_key_never_written(demo_ws, llm):
    """The real CLI in a subprocess, the real openai client, a scripted endpoint."""
    srv = llm([tool_call("check_candidate", body="by bogus"),
               tool_call("submit", body="by\n  unfold double\n  omega")], api_key=KEY)
    env = {**os.environ, "OPENAI_BASE_URL": srv.base_url, "OPENAI_API_KEY": KEY,
           "HARNESS_LAKE": str(ROOT / "tests" / "fakes" / "lake"), "PYTHONPATH": str(ROOT)}
    f = demo_ws / "Demo.lean"
    p = subprocess.run([sys.executable, "-m", "harness", "prove", str(f), "thm:main",
                        "--model", "prover-x", "--apply"], cwd=demo_ws, env=env,
                       capture_output=True, text=True, timeout=120)
    assert p.returncode == 0, p.stdout + p.stderr
    assert "thm:main: proved by the model" in p.stdout and "applied" in p.stdout
    assert "unfold double" in f.read_text()
    assert [r.model for r in srv.chat_requests] == ["prover-x", "prover-x"]
    leaked = [q for q in demo_ws.rglob("*") if q.is_file() and KEY in q.read_text(errors="ignore")]
    assert leaked == [] and KEY not in p.stdout + p.stderr
