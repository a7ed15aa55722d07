"""`harness prove … --apply` edge cases found by black-box QA, through real subprocesses (fake
Lean, no endpoint unless a test starts a scripted one): concurrent writers, --json without Lean,
bad paths and labels, already-proved nodes, error reporting, missing model, help text."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from tests.agents.conftest import DEMO
from tests.support.fakelean import FAKE_LAKE, fake_env
from tests.support.llm_server import tool_call

ROOT = Path(__file__).resolve().parents[2]
OMEGA = '[tactics]\ntactics = ["omega"]\n'


def _env(**kw) -> dict[str, str]:
    base = {k: v for k, v in os.environ.items() if k not in ("OPENAI_BASE_URL", "OPENAI_API_KEY")}
    env = fake_env(base=base, **kw)
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(ROOT), env.get("PYTHONPATH")]))
    return env


def _cmd(*args: str) -> list[str]:
    return [sys.executable, "-m", "harness", *args]


def harness(*args: str, cwd: Path, env: dict[str, str]) -> subprocess.CompletedProcess:
    return subprocess.run(_cmd(*args), cwd=cwd, env=env, capture_output=True, text=True,
                          timeout=120)


# a `lake` that holds every harness process at its first Lean call until two processes got
# there: both have read the blueprint before either can write (the race, made deterministic)
BARRIER = """\
#!{python}
import os, sys, time
d = {barrier!r}
open(os.path.join(d, str(os.getppid())), "w").close()
end = time.monotonic() + 30
while len(os.listdir(d)) < 2 and time.monotonic() < end:
    time.sleep(0.02)
os.execv(sys.executable, [sys.executable, {lake!r}, *sys.argv[1:]])
"""


def test_concurrent_applies_on_one_file_keep_both_proofs(demo_ws: Path, tmp_path: Path):
    (demo_ws / "harness.toml").write_text(OMEGA)
    barrier = tmp_path / "barrier"
    barrier.mkdir()
    lake = tmp_path / "bin" / "lake"
    lake.parent.mkdir()
    lake.write_text(BARRIER.format(python=sys.executable, barrier=str(barrier),
                                   lake=str(FAKE_LAKE)))
    lake.chmod(0o755)
    env = _env(HARNESS_LAKE=str(lake))
    f = demo_ws / "Demo.lean"
    procs = [subprocess.Popen(_cmd("prove", str(f), label, "--apply"), cwd=demo_ws, env=env,
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
             for label in ("lem:double_add", "lem:unrelated")]
    outs = []
    for p in procs:
        try:
            out, err = p.communicate(timeout=120)
        except subprocess.TimeoutExpired:
            p.kill()
            out, err = p.communicate()
        outs.append((p.returncode, out + err))
    assert len(os.listdir(barrier)) == 2  # both really ran side by side
    text = f.read_text()
    has_a = "double a + double b := by omega" in text
    has_b = "(n : Nat) : n + 0 = n := by omega" in text
    refused = [o for c, o in outs if "refused" in o]
    if refused:  # the allowed alternative: one clear refusal, the other proof written
        assert len(refused) == 1 and has_a != has_b, outs
        assert sorted(c for c, _ in outs) == [0, 1], outs
    else:
        assert [c for c, _ in outs] == [0, 0], outs
        assert all("applied: the gate accepted" in o for _, o in outs), outs
        assert has_a and has_b, text
        assert text.count("sorry") == 1  # only thm:main's `sorry_using` is left
    # the lock file lives under the workspace's .harness/locks/
    assert list((demo_ws / ".harness" / "locks").glob("Demo.lean-*.lock"))


def test_apply_json_without_lean_prints_a_report(demo_ws: Path):
    f = demo_ws / "Demo.lean"
    before = f.read_bytes()
    p = harness("prove", str(f), "lem:double_add", "--apply", "--json", cwd=demo_ws,
                env=_env(lake=False))
    assert p.returncode == 3, p.stdout + p.stderr
    data = json.loads(p.stdout)
    assert data["status"] == "cannot_certify" and data["applied"] is False
    assert "nothing written" in data["reason"] and data["exit_code"] == 3
    assert data["label"] == "lem:double_add" and data["lean"].startswith("no Lean toolchain")
    assert f.read_bytes() == before


def test_prove_on_a_directory_and_an_unknown_label(demo_ws: Path):
    env = _env()
    p = harness("prove", str(demo_ws), "lem:double_add", cwd=demo_ws, env=env)
    assert p.returncode == 2 and p.stdout == ""
    assert p.stderr.strip().splitlines() == [f"{demo_ws}:1:0: is a directory, not a Lean file"]
    f = demo_ws / "Demo.lean"
    p = harness("prove", str(f), "lem:nosuch", cwd=demo_ws, env=env)
    assert p.returncode == 2 and p.stdout == ""
    assert p.stderr.strip().splitlines() == [f"{f}:1:0: no blueprint node `lem:nosuch`"]


def test_apply_on_an_already_proved_node_does_nothing(demo_ws: Path, tmp_path: Path):
    (demo_ws / "harness.toml").write_text('[tactics]\ntactics = ["rfl"]\n')
    f = demo_ws / "Demo.lean"
    f.write_text(DEMO.replace("n + 0 = n := by\n  sorry", "n + 0 = n := by omega"))
    before, mtime = f.read_bytes(), f.stat().st_mtime_ns
    log = tmp_path / "lean-calls.log"
    p = harness("prove", str(f), "lem:unrelated", "--apply", cwd=demo_ws, env=_env(log=log))
    assert p.returncode == 0, p.stdout + p.stderr
    assert "lem:unrelated: already proved: nothing to do" in p.stdout
    assert f.read_bytes() == before and f.stat().st_mtime_ns == mtime
    assert not log.exists() or log.read_text() == ""  # no attempt, no gate: Lean never ran
    p = harness("prove", str(f), "lem:unrelated", "--apply", "--json", cwd=demo_ws,
                env=_env(log=log))
    data = json.loads(p.stdout)
    assert p.returncode == 0 and data["status"] == "already_proved" and data["applied"] is False
    assert f.read_bytes() == before


def test_failed_attempt_reports_the_lean_error_not_sorryax(demo_ws: Path, llm):
    srv = llm(default=tool_call("submit", body="by exact bogus_lemma a b"))
    env = _env(OPENAI_BASE_URL=srv.base_url)
    f = demo_ws / "Demo.lean"
    p = harness("prove", str(f), "lem:double_add", "--model", "m", "--json", cwd=demo_ws,
                env=env)
    assert p.returncode == 1, p.stdout + p.stderr
    data = json.loads(p.stdout)
    assert data["status"] == "failed"
    assert "FAILED (error):" in data["reason"] and "bogus_lemma" in data["reason"]
    assert "Forbidden axioms" not in data["reason"]
    # the model was told the same thing on its second round
    fed = srv.chat_requests[1].messages[-1]["content"]
    assert "Unknown identifier" in fed and "Forbidden axioms" not in fed


def test_endpoint_without_model_is_a_config_error(demo_ws: Path, llm):
    srv = llm([])
    p = harness("prove", str(demo_ws / "Demo.lean"), "lem:double_add", cwd=demo_ws,
                env=_env(OPENAI_BASE_URL=srv.base_url))
    assert p.returncode == 2, p.stdout + p.stderr
    lines = p.stderr.strip().splitlines()
    assert len(lines) == 1 and "roles.prove.model" in lines[0], lines
    assert "endpoint.default_model" in lines[0] and "Traceback" not in p.stderr
    assert srv.chat_requests == []
    # a default model in harness.toml is enough
    (demo_ws / "harness.toml").write_text('[endpoint]\ndefault_model = "m1"\n')
    srv2 = llm(default=tool_call("submit", body="by omega"))
    p = harness("prove", str(demo_ws / "Demo.lean"), "lem:double_add", cwd=demo_ws,
                env=_env(OPENAI_BASE_URL=srv2.base_url))
    assert p.returncode == 0, p.stdout + p.stderr
    assert srv2.chat_requests and srv2.chat_requests[0].model == "m1"


def test_help_names_the_real_default_lock(demo_ws: Path):
    p = harness("prove", "--help", cwd=demo_ws, env=_env())
    assert p.returncode == 0
    flat = " ".join(p.stdout.split())
    assert "<FILE stem>.lock.json" in flat and "FILE.lock.json" not in flat


def test_default_lock_is_the_stem_lock(demo_ws: Path):
    """The help text's claim, checked: a `<stem>.lock.json` beside FILE is the gate's lock."""
    (demo_ws / "harness.toml").write_text(OMEGA)
    f = demo_ws / "Demo.lean"
    env = _env()
    assert harness("lock", str(f), "--static-only", cwd=demo_ws, env=env).returncode == 0
    lock = demo_ws / "Demo.lock.json"
    data = json.loads(lock.read_text())
    # pin another statement for lem:double_add: the gate must then reject the proof
    for e in data["entries"]:
        if e["label"] == "lem:double_add":
            e["statement"] = "0" * 64
    lock.write_text(json.dumps(data))
    before = f.read_bytes()
    p = harness("prove", str(f), "lem:double_add", "--apply", cwd=demo_ws, env=env)
    assert p.returncode == 1 and "NOT applied" in p.stdout, p.stdout + p.stderr
    assert "[lock] lem:double_add" in p.stdout
    assert f.read_bytes() == before


@pytest.mark.parametrize("json_flag", [False, True])
def test_foreign_prove_lock_is_an_input_error(demo_ws: Path, tmp_path: Path, json_flag: bool):
    other = tmp_path / "Other.lean"
    other.write_text(textwrap.dedent("""\
        @[blueprint "lem:x" (statement := /-- x -/)]
        theorem xx : 1 = 1 := by
          sorry
        """))
    env = _env()
    lock = tmp_path / "other.lock.json"
    assert harness("lock", str(other), "-o", str(lock), "--static-only", cwd=tmp_path,
                   env=env).returncode == 0
    args = ["prove", str(demo_ws / "Demo.lean"), "lem:double_add", "--apply", "--lock", str(lock)]
    (demo_ws / "harness.toml").write_text(OMEGA)
    p = harness(*args, *(["--json"] if json_flag else []), cwd=demo_ws, env=env)
    assert p.returncode == 2, p.stdout + p.stderr
    assert re.fullmatch(rf"{re.escape(str(lock))}:1:0: lock was written for .*Other\.lean, not "
                        rf"for .*Demo\.lean: none of its 1 declaration is here",
                        p.stderr.strip()), p.stderr
