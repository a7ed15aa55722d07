"""harness/assemble.py: one place puts a run together from the command's options and the config
(fake Lean, a real git record; the CLI paths through it: tests/orchestrator/test_run_cli.py,
tests/cli/test_preflight_all.py)."""

from __future__ import annotations

import sys

import pytest

from harness.assemble import RunOptions, assemble
from harness.errors import CannotCertify, UsageError
from harness.orchestrator.executor import LocalExecutor
from harness.orchestrator.record import Record
from tests.orchestrator.support import FAKES, workspace

CONFIG = """
[roles.prove]
tiers = [{model = "cheap"}, {model = "strong", after_failures = 2}]

[run]
workers = 3
batch_size = 5
"""


@pytest.fixture
def fake_lean(monkeypatch):
    monkeypatch.setenv("HARNESS_LAKE", str(FAKES / "lake"))
    monkeypatch.setenv("PATH", f"{FAKES}:/usr/bin:/bin")
    for k in ("OPENAI_BASE_URL", "OPENAI_API_KEY", "HARNESS_MODEL", "OPENAI_MODEL"):
        monkeypatch.delenv(k, raising=False)


def test_flags_over_the_config_and_the_services_of_a_local_run(tmp_path, fake_lean) -> None:
    f = workspace(tmp_path)
    ws = f.parent.parent
    (ws / "harness.toml").write_text(CONFIG)
    run = assemble(RunOptions(f, ws, overrides={"workers": 2, "budget": None}))
    assert (run.settings.workers, run.settings.batch_size) == (2, 5)  # flag > [run] > default
    assert run.settings.executor == "local"
    assert run.tiers == [(0, "cheap"), (2, "strong")]
    assert run.toolchain is not None
    assert len(run.notes) == 1 and "LeanArchitect" in run.notes[0]  # with Lean: its edges
    session = run.session()
    assert session.settings is run.settings and session.tiers == run.tiers
    assert session.notes == run.notes
    run.preflight(session)
    services = run.services(session, Record(ws, f))
    assert services.make_executor is LocalExecutor  # no Ray asked for: local threads
    assert services.certifier is not None and services.lock is not None
    assert services.stage1 is None  # no endpoint: no stage-1 agents


def test_model_flag_wins_over_the_tiers(tmp_path, fake_lean) -> None:
    f = workspace(tmp_path)
    (f.parent.parent / "harness.toml").write_text(CONFIG)
    run = assemble(RunOptions(f, f.parent.parent, model="m"))
    assert run.tiers == [] and run.cfg.role("prove").model == "m"
    assert run.config.role("prove").model != "m"  # the config as loaded is kept apart


def test_ray_is_checked_first_and_no_lean_stops_in_the_session(tmp_path, monkeypatch,
                                                               fake_lean) -> None:
    f = workspace(tmp_path)
    ws = f.parent.parent
    monkeypatch.setitem(sys.modules, "ray", None)  # Ray not installed
    with pytest.raises(UsageError, match="needs Ray"):
        assemble(RunOptions(f, ws, overrides={"executor": "ray"}))
    monkeypatch.delenv("HARNESS_LAKE")
    monkeypatch.setenv("PATH", "/usr/bin:/bin")
    monkeypatch.setenv("HOME", str(tmp_path))  # no ~/.elan
    run = assemble(RunOptions(f, ws))
    assert run.toolchain is None and run.adjust is None and run.notes == []
    with pytest.raises(CannotCertify, match="nothing was merged"):
        run.preflight(run.session())
    assert not (ws / ".git").exists()


def test_close_shuts_down_the_connection_preflight_made_once(tmp_path, fake_lean) -> None:
    # a run on Ray that stops before stage 2 (stage 1 stops, `--stage 1`) never reaches
    # stage 2's executor.shutdown(): commands/run.py closes the assembly whatever happened
    f = workspace(tmp_path, "theorem t : True := by\n  sorry\n")
    run_ = assemble(RunOptions(target=f, workspace=f.parent.parent, overrides={}))
    calls: list[str] = []

    class Connected:
        def shutdown(self) -> None:
            calls.append("shutdown")

    run_._found["executor"] = Connected()
    run_.close()
    run_.close()
    assert calls == ["shutdown"]
    import inspect

    from harness.commands import run as run_cmd

    assert "run_.close()" in inspect.getsource(run_cmd)
