"""Plain words where codes leaked: the run state in `status`, `prove`'s verdict, stage 1's
reason for skipping the audit (lock's wording: tests/cli/test_counts.py)."""

from __future__ import annotations

import json

from harness.orchestrator.state import run_dir
from tests.cli.projects import harness
from tests.orchestrator.support import fake_env, workspace
from tests.orchestrator.test_run_cli import config
from tests.support.llm_server import ScriptedLLM, text


def test_status_describes_the_run_in_words(tmp_path) -> None:
    f = workspace(tmp_path)
    ws = f.parent.parent
    d = run_dir(ws, f)
    d.mkdir(parents=True)
    (d / "events.jsonl").write_text('{"v":1,"seq":1,"kind":"run_started","t":1}\n'
                                    '{"v":1,"seq":2,"kind":"run_finished","t":2}\n')
    r = harness("status", str(f), cwd=ws)
    assert r.returncode == 0, r.stderr
    line = next(ln for ln in r.stdout.splitlines() if ln.startswith("Run "))
    assert "finished; 0 attempts; 0 nodes merged" in line
    assert "active=" not in r.stdout and "pid=" not in r.stdout and "stage=" not in r.stdout
    (d / "events.jsonl").write_text('{"v":1,"seq":1,"kind":"run_started","t":1}\n')
    r = harness("status", str(f), cwd=ws)
    assert "stopped in stage" in r.stdout and "`harness run` resumes it" in r.stdout


def test_prove_without_lean_in_words(tmp_path) -> None:
    f = workspace(tmp_path)
    ws = f.parent.parent
    env = {k: v for k, v in fake_env().items() if k != "HARNESS_LAKE"}
    env["PATH"] = ":".join(p for p in env["PATH"].split(":") if "fakes" not in p)
    env["HOME"] = str(tmp_path)  # no ~/.elan
    r = harness("prove", str(f), "lem:add-shuffle", "--tactics", cwd=ws, env=env)
    assert "cannot_certify" not in r.stdout and "(tactics)" not in r.stdout, r.stdout
    assert "lem:add-shuffle: not certified (nothing could check the proof) with the tactic " \
           "portfolio" in r.stdout
    data = json.loads(harness("prove", str(f), "lem:add-shuffle", "--tactics", "--json",
                              cwd=ws, env=env).stdout)
    assert data["status"] == "cannot_certify"  # machines keep the code


def test_stage1_names_what_is_missing_when_an_endpoint_is_set(tmp_path) -> None:
    f = workspace(tmp_path)
    ws = f.parent.parent
    with ScriptedLLM(lambda req: text("```lean\nby omega\n```")) as srv:
        config(ws, srv.base_url)
        out = harness("run", str(f), "--stage", "1", "--json", cwd=ws, env=fake_env())
    assert out.returncode == 0, out.stderr
    reason = json.loads(out.stdout)["stop_reason"]
    assert reason.startswith("no source text to audit against (give --source)"), reason
    assert "no LLM endpoint" not in reason
    plain = harness("run", str(f), "--stage", "1", "--json", cwd=ws, env=fake_env())
    assert plain.returncode == 0
