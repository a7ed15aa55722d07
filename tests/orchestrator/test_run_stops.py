"""How `run` ends: interrupts, errors after result.json, imported unproved nodes, git exclude.

Real subprocesses (`python -m harness run`), the fake Lean, the scripted LLM server, real git."""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import threading
import time
from pathlib import Path

import git

from harness.orchestrator.record import Record
from harness.orchestrator.state import live_status, run_dir
from tests.orchestrator.support import ROOT, fake_env, workspace
from tests.orchestrator.test_run_cli import PY, config, harness
from tests.support.llm_server import ScriptedLLM, text


def _fake_procs(ws: Path) -> list[int]:
    """Live processes of tests/fakes (fake Lean and what it spawned) working in ``ws``."""
    out = []
    for e in os.listdir("/proc"):
        if not e.isdigit():
            continue
        try:
            cwd = os.readlink(f"/proc/{e}/cwd")
            cmd = Path(f"/proc/{e}/cmdline").read_bytes().replace(b"\0", b" ").decode()
            state = Path(f"/proc/{e}/stat").read_text().rsplit(")", 1)[1].split()[0]
        except (OSError, IndexError):
            continue
        if state != "Z" and cwd.startswith(str(ws)) and ("fakes" in cmd or "while True" in cmd):
            out.append(int(e))
    return out


def _default_sigint() -> None:
    # a background shell starts children with SIGINT ignored; Python then never raises
    # KeyboardInterrupt. The harness gets the default disposition, as under a terminal.
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def test_sigint_stops_lean_releases_lock_and_reports(tmp_path) -> None:
    f = workspace(tmp_path)
    ws = f.parent.parent
    d = run_dir(ws, f)
    served = {"n": 0, "hang": True}
    mu = threading.Lock()

    def reply(req):  # a few good proofs (merged), then proofs on which Lean hangs
        with mu:
            served["n"] += 1
            hang = served["hang"] and served["n"] > 3
        return text("```lean\nby\n  fake_hang\n```" if hang else "```lean\nby\n  omega\n```")

    with ScriptedLLM(reply) as srv:
        config(ws, srv.base_url, workers=3, batch_window=0.1, batch_size=2)
        p = subprocess.Popen([PY, "-m", "harness", "run", str(f), "--json"], cwd=ws,
                             env=fake_env(), stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                             text=True, preexec_fn=_default_sigint)
        try:
            deadline = time.monotonic() + 60
            while time.monotonic() < deadline and p.poll() is None:
                log = (d / "events.jsonl").read_text() if (d / "events.jsonl").exists() else ""
                if '"kind":"merged"' in log and len(_fake_procs(ws)) >= 2:
                    break
                time.sleep(0.05)
            assert p.poll() is None, p.communicate()[1]
            assert _fake_procs(ws), "the test must interrupt hanging Lean runs"
            p.send_signal(signal.SIGINT)
            out, err = p.communicate(timeout=60)
        finally:
            if p.poll() is None:
                p.kill()
                p.wait()
            leftover = _fake_procs(ws)
            for pid in leftover:  # a failing run must not leak hanging fakes into the machine
                os.kill(pid, signal.SIGKILL)
        assert leftover == []  # every Lean run (and its children) was killed
        assert p.returncode == 130, err
        assert "Traceback" not in err and err.rstrip().endswith("harness: interrupted")
        assert not (d / "lock.json").exists()
        assert list((ws / ".harness" / "tmp").glob("*")) == []
        res = json.loads((d / "result.json").read_text())
        assert json.loads(out) == res  # --json shows result.json on an interrupt too
        assert res["stop_reason"] == "interrupted" and res["exit_code"] == 130
        # merged before the interrupt, but Lean's final certification never ran: not proved
        merged = {k: n for k, n in res["nodes"].items() if n["commit"]}
        assert merged and res["counts"]["proved"] == 0
        assert all(n["status"] == "open" and "no axiom report of Lean confirms it" in n["reason"]
                   and "stopped before Lean's final certification" in n["reason"]
                   for n in merged.values())
        assert res["counts"]["open"] == 14
        with mu:
            served["hang"] = False
        again = harness(["run", str(f), "--plain"], ws)
    assert "took over a stale run lock" not in again.stdout + again.stderr
    assert again.returncode == 0, again.stderr


def test_sigterm_is_an_interrupt_too(tmp_path) -> None:
    """SIGTERM (the CLI raises it as KeyboardInterrupt): same clean-up, exit 143."""
    f = workspace(tmp_path)
    ws = f.parent.parent
    d = run_dir(ws, f)
    (ws / "harness.toml").write_text('[tactics]\ntactics = ["fake_hang"]\n')  # no LLM
    p = subprocess.Popen([PY, "-m", "harness", "run", str(f), "--json"], cwd=ws, env=fake_env(),
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline and p.poll() is None and len(_fake_procs(ws)) < 4:
            time.sleep(0.05)
        assert p.poll() is None and _fake_procs(ws), p.communicate()[1]
        p.send_signal(signal.SIGTERM)
        out, err = p.communicate(timeout=60)
    finally:
        if p.poll() is None:
            p.kill()
            p.wait()
        leftover = _fake_procs(ws)
        for pid in leftover:
            os.kill(pid, signal.SIGKILL)
    assert leftover == []
    assert p.returncode == 143, err
    assert "Traceback" not in err
    res = json.loads((d / "result.json").read_text())
    assert json.loads(out) == res
    assert res["stop_reason"] == "interrupted" and res["exit_code"] == 143
    assert res["counts"] == {"proved": 0, "open": 14, "blocked": 0}
    assert not (d / "lock.json").exists()
    assert list((ws / ".harness" / "tmp").glob("*")) == []


def test_imported_unproved_nodes_are_not_all_proved(tmp_path) -> None:
    f = workspace(tmp_path, name="Demo.lean")
    ws = f.parent.parent
    f.unlink()
    shutil.copytree(ROOT / "Blueprint" / "SLT", ws / "Blueprint" / "SLT")
    chaining = ws / "Blueprint" / "SLT" / "Chaining.lean"
    # Prose \cref's are links, not dependencies (LeanArchitect): once its body is proved, a node
    # rests on an imported one only through a real use. Give one node a statement use.
    text = chaining.read_text(encoding="utf-8")
    anchor = '@[blueprint "lem:exists-chainingNets"'
    assert anchor in text
    chaining.write_text(text.replace(anchor, anchor + ' (uses := '
                                     '["lem:coveringNumber-ne-top-of-totallyBounded"])'),
                        encoding="utf-8")
    out = harness(["run", str(chaining), "--json"], ws)
    assert out.returncode == 1, out.stderr
    res = json.loads(out.stdout)
    assert res == json.loads((run_dir(ws, chaining) / "result.json").read_text())
    c = res["counts"]
    assert c["open"] == 1 and c["blocked"] == 0
    resting = [n for n in res["nodes"].values()
               if n["reason"].startswith("rests on unproved nodes of imported files: ")]
    assert len(resting) == c["open"]
    assert res["stop_reason"] == ("no work left here: 1 open node rests on unproved "
                                  "nodes (of imported files)")
    human = harness(["run", str(chaining), "--plain"], ws)  # resumed: same verdict, same line
    assert human.returncode == 1
    assert "no work left here: 1 open node rests" in human.stdout
    assert "all nodes proved" not in human.stdout


def test_json_result_on_stdout_when_lean_is_missing(tmp_path) -> None:
    f = workspace(tmp_path)
    ws = f.parent.parent
    env = fake_env({"PATH": "/usr/bin:/bin", "HOME": str(tmp_path)})
    env.pop("HARNESS_LAKE")
    out = harness(["run", str(f), "--json"], ws, env)
    assert out.returncode == 3
    assert "no Lean toolchain" in out.stderr and "Traceback" not in out.stderr
    res = json.loads(out.stdout)
    assert res == json.loads((run_dir(ws, f) / "result.json").read_text())
    assert res["exit_code"] == 3 and res["final_commit"] is None
    # no repository was made, but the nodes come from the file on disk
    assert len(res["nodes"]) == 14 and res["counts"] == {"proved": 0, "open": 14, "blocked": 0}
    assert not (ws / ".git").exists()


def test_corrupt_event_log_releases_lock_and_status_still_works(tmp_path) -> None:
    f = workspace(tmp_path)
    ws = f.parent.parent
    d = run_dir(ws, f)
    d.mkdir(parents=True)
    (d / "events.jsonl").write_text('{"v":1,"seq":1,"kind":"run_started","t":1}\n'
                                    'not json\n{"v":1,"seq":3,"kind":"note","t":2}\n')
    out = harness(["run", str(f), "--plain"], ws)
    assert out.returncode == 2
    assert out.stderr.strip() == f"{d / 'events.jsonl'}:2:0: corrupt event log line: " \
        "Expecting value: line 1 column 1 (char 0)"
    assert not (d / "lock.json").exists()
    st = live_status(ws, f)
    assert st is not None and st["error"].startswith("run state unreadable: ")
    assert f"{d / 'events.jsonl'}:2:0" in st["error"]
    status = harness(["status", str(f)], ws)
    assert "Traceback" not in status.stderr
    assert "lem:sum-to-zero" in status.stdout  # the blueprint table is still printed
    assert "run state unreadable" in status.stdout
    again = harness(["run", str(f), "--plain"], ws)  # still corrupt: same error, no stale lock
    assert again.returncode == 2 and "took over" not in again.stdout + again.stderr


def test_harness_dir_excluded_in_new_and_existing_repos(tmp_path) -> None:
    f = workspace(tmp_path)
    ws = f.parent.parent
    out = harness(["run", str(f), "--stage", "1", "--json"], ws)  # initialises the repository
    assert out.returncode == 0, out.stderr
    exclude = (ws / ".git" / "info" / "exclude").read_text()
    assert "/.harness/" in exclude.splitlines()
    repo = git.Repo(ws)
    assert (ws / ".harness" / "runs").is_dir()
    assert not [u for u in repo.untracked_files if u.startswith(".harness")]
    assert ".harness" not in repo.git.status("--porcelain", "--untracked-files=all")
    assert not (ws / ".gitignore").exists()
    # an existing repository that does not ignore it: excluded, once
    other = tmp_path / "other"
    g = workspace(other)
    r2 = git.Repo.init(g.parent.parent)
    rec = Record(g.parent.parent, g)
    assert rec.exclude(g.parent.parent / ".harness") is True
    assert rec.exclude(g.parent.parent / ".harness") is False
    assert (Path(r2.git_dir) / "info" / "exclude").read_text().count("/.harness/") == 1
    # ... and one whose .gitignore already ignores it: left alone
    third = tmp_path / "third"
    h = workspace(third)
    r3 = git.Repo.init(h.parent.parent)
    (h.parent.parent / ".gitignore").write_text(".harness/\n")
    before = (Path(r3.git_dir) / "info" / "exclude").read_text()
    assert Record(h.parent.parent, h).exclude(h.parent.parent / ".harness") is False
    assert (Path(r3.git_dir) / "info" / "exclude").read_text() == before
    assert (h.parent.parent / ".gitignore").read_text() == ".harness/\n"
