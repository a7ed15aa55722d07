"""`run` and `prove` make the same checks and report every problem at once (as `doctor`); an
endpoint that refuses the connection is named as such, with its URL."""

from __future__ import annotations

import os
import socket

from tests.cli.projects import ROOT, harness
from tests.orchestrator.support import workspace


def _closed_port() -> int:
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    return port


def _no_lean_env(extra: dict[str, str]) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items()
           if k not in ("HARNESS_LAKE", "OPENAI_BASE_URL", "OPENAI_API_KEY")}
    env["PATH"] = os.pathsep.join(p for p in env.get("PATH", "").split(os.pathsep)
                                  if "fakes" not in p)
    env["HOME"] = str(ROOT / "no-such-home")  # no ~/.elan/bin
    env.update(extra)
    return env


def test_run_and_prove_report_the_dead_endpoint_and_no_lean(tmp_path) -> None:
    f = workspace(tmp_path)
    ws = f.parent.parent
    url = f"http://127.0.0.1:{_closed_port()}/v1"
    env = _no_lean_env({"OPENAI_BASE_URL": url, "OPENAI_API_KEY": "sk-test-123456",
                        "HARNESS_MODEL": "m"})
    outs = {cmd: harness(*args, cwd=ws, env=env) for cmd, args in (
        ("run", ["run", str(f), "--plain"]), ("prove", ["prove", str(f), "lem:add-shuffle"]))}
    for cmd, out in outs.items():
        assert out.returncode == 2, (cmd, out.stderr)
        lines = out.stderr.strip().splitlines()
        assert any(f"cannot connect to {url}" in ln for ln in lines), (cmd, lines)
        assert not any("OPENAI_API_KEY" in ln for ln in lines), (cmd, lines)
        assert any("no lake on PATH" in ln for ln in lines), (cmd, lines)  # and no Lean
        assert all(ln.startswith("preflight: ") for ln in lines) and "Traceback" not in out.stderr
    assert outs["run"].stderr == outs["prove"].stderr  # the same checks, the same words
    assert not (ws / ".git").exists()


def test_missing_model_and_missing_oleans_reported_together(tmp_path) -> None:
    from tests.orchestrator.support import fake_env
    from tests.preflight.test_preflight import oleans

    f = workspace(tmp_path)
    ws = f.parent.parent
    oleans(ws, architect=False)
    env = fake_env({"OPENAI_BASE_URL": f"http://127.0.0.1:{_closed_port()}/v1"})
    env.pop("HARNESS_MODEL", None)
    env.pop("OPENAI_MODEL", None)
    out = harness("run", str(f), "--plain", cwd=ws, env=env)
    assert out.returncode == 2
    lines = out.stderr.strip().splitlines()
    assert any("no model for the prove role" in ln for ln in lines)
    assert any("lake build Architect" in ln for ln in lines), lines
