"""`prove` is put together by harness/assemble.py as `run` is: one broken config gives both
commands the same exit 2 with every problem at once (its `[run]` section's, the dead endpoint,
no Lean), before any work; a config that does not parse is its one line for both."""

from __future__ import annotations

import socket

import pytest

from harness.assemble import ProveOptions, assemble_prove
from harness.errors import UsageError
from tests.cli.projects import harness
from tests.cli.test_preflight_all import _no_lean_env
from tests.orchestrator.support import FAKES, workspace


def _closed_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _both(f, ws, env) -> dict:
    return {cmd: harness(*args, cwd=ws, env=env) for cmd, args in (
        ("run", ["run", str(f), "--plain"]), ("prove", ["prove", str(f), "lem:add-shuffle"]))}


def test_a_broken_config_is_every_problem_at_once_for_prove_as_for_run(tmp_path) -> None:
    f = workspace(tmp_path)
    ws = f.parent.parent
    url = f"http://127.0.0.1:{_closed_port()}/v1"
    cfg = ws / "harness.toml"
    cfg.write_text(f'[endpoint]\nbase_url = "{url}"\ndefault_model = "m"\n\n'
                   '[run]\nworkers = "many"\nbatch_size = 0\n')
    outs = _both(f, ws, _no_lean_env({}))
    for cmd, out in outs.items():
        assert out.returncode == 2, (cmd, out.stderr)
        lines = out.stderr.strip().splitlines()
        assert f"{cfg}:6:0: config: run.workers: Input should be a valid integer, unable to " \
               "parse string as an integer" in lines, (cmd, lines)
        assert any(ln.startswith(f"{cfg}:7:0: config: run.batch_size: ") for ln in lines)
        assert any(f"cannot connect to {url}" in ln for ln in lines), (cmd, lines)
        assert any("no lake on PATH" in ln for ln in lines), (cmd, lines)
        assert "Traceback" not in out.stderr
    assert outs["run"].stderr == outs["prove"].stderr  # the same checks, the same words
    # before any work: no record, no attempt's transcript
    assert not (ws / ".git").exists() and not (ws / ".harness" / "prove").exists()


def test_a_config_that_does_not_parse_is_one_line_for_both(tmp_path) -> None:
    f = workspace(tmp_path)
    ws = f.parent.parent
    (ws / "harness.toml").write_text("[endpoint\nbase_url = 1\n")
    outs = _both(f, ws, _no_lean_env({}))
    lines = {cmd: out.stderr.strip().splitlines() for cmd, out in outs.items()}
    assert all(out.returncode == 2 for out in outs.values())
    assert lines["run"] == lines["prove"] and len(lines["run"]) == 1
    assert lines["run"][0].startswith(f"{ws / 'harness.toml'}:1:") and "invalid TOML" in \
        lines["run"][0]


@pytest.fixture
def fake_lean(monkeypatch):
    monkeypatch.setenv("HARNESS_LAKE", str(FAKES / "lake"))
    monkeypatch.setenv("PATH", f"{FAKES}:/usr/bin:/bin")
    for k in ("OPENAI_BASE_URL", "OPENAI_API_KEY", "HARNESS_MODEL", "OPENAI_MODEL"):
        monkeypatch.delenv(k, raising=False)


def test_assemble_prove_chooses_the_prover_and_finds_lean(tmp_path, fake_lean,
                                                          monkeypatch) -> None:
    f = workspace(tmp_path)
    ws = f.parent.parent
    ready = assemble_prove(ProveOptions(ws))
    assert ready.method == "tactics" and ready.client() is None  # no endpoint configured
    assert ready.toolchain is not None and ready.lean_missing is None
    with pytest.raises(UsageError, match="--model needs an LLM endpoint"):
        assemble_prove(ProveOptions(ws, model="m"))
    monkeypatch.delenv("HARNESS_LAKE")
    monkeypatch.setenv("PATH", "/usr/bin:/bin")
    monkeypatch.setenv("HOME", str(tmp_path))  # no ~/.elan
    ready = assemble_prove(ProveOptions(ws))
    assert ready.toolchain is None and ready.lean_missing.startswith("no Lean toolchain")
    # an --apply with nothing to do: the config is read, nothing else is asked
    assert assemble_prove(ProveOptions(ws, preflight=False)).checks == []


def test_run_reports_its_settings_and_ray_missing_together(tmp_path, fake_lean,
                                                              monkeypatch) -> None:
    import sys

    from harness.assemble import RunOptions, assemble

    f = workspace(tmp_path)
    ws = f.parent.parent
    (ws / "harness.toml").write_text('[run]\nexecutor = "ray"\nbatch_size = 0\n')
    monkeypatch.setitem(sys.modules, "ray", None)  # Ray not installed
    with pytest.raises(UsageError) as err:
        assemble(RunOptions(f, ws, overrides={"workers": 0}))
    lines = err.value.line().splitlines()
    assert len(lines) == 3, lines  # every problem at once, one line each
    assert "run: --workers: Input should be greater than or equal to 1" in lines
    assert any(ln.startswith(f"{ws / 'harness.toml'}:3:0: config: run.batch_size: ")
               for ln in lines)
    assert any("--executor ray needs Ray" in ln for ln in lines)
    (ws / "harness.toml").write_text('[run]\nexecutor = "ray"\n')
    with pytest.raises(UsageError, match="needs Ray"):
        assemble(RunOptions(f, ws))
