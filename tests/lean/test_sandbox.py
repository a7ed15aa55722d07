"""#20.3: prover-written Lean runs in a box (harness/lean/sandbox.py, bubblewrap).

The Lean double really performs the file writes, reads and connections its text asks for
(tests/fakes/_fakeio.py) — as Lean runs `#eval`, `include_str`'s argument and a tactic's config
term while elaborating. The control test shows the same text *does* escape without the box, so
the sandbox tests fail if the box is missing.
"""

from __future__ import annotations

import os
import socket
import subprocess
import sys
from pathlib import Path

import pytest

from harness.blueprint.source import parse_file
from harness.errors import CannotCertify
from harness.lean import sandbox
from harness.lean.repl import ReplClient
from harness.lean.toolchain import find_toolchain
from harness.lean.verdict import check_file
from harness.preflight.lean import lean_checks
from tests.support.fakelean import FAKE_LAKE, fake_env

ROOT = Path(__file__).resolve().parents[2]
usable, why = sandbox.status()
needs_bwrap = pytest.mark.skipif(not usable, reason=f"no working bubblewrap here: {why}")


@pytest.fixture
def world(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    """A git workspace with a prover-written file trying to escape, a home with a key, a port."""
    monkeypatch.setenv("HARNESS_LAKE", str(FAKE_LAKE))
    monkeypatch.delenv("FAKE_LEAN_LOG", raising=False)  # it would be written outside the box
    home = tmp_path / "home"
    (home / ".ssh").mkdir(parents=True)
    (home / ".ssh" / "id_ed25519").write_text("PRIVATE-KEY-MATERIAL", encoding="utf-8")
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-never-in-the-box")
    outside = tmp_path / "outside"
    outside.mkdir()
    ws = tmp_path / "ws"
    (ws / "Blueprint").mkdir(parents=True)
    (ws / "lakefile.lean").write_text("import Lake\nopen Lake DSL\n\npackage p\n\n"
                                      "lean_lib Blueprint\n", encoding="utf-8")
    subprocess.run(["git", "init", "-q", str(ws)], check=True, timeout=60)
    server = socket.socket()
    server.bind(("127.0.0.1", 0))
    server.listen(5)
    port = server.getsockname()[1]
    scratch = ws / ".harness" / "tmp" / "allowed.txt"
    text = f"""
#eval IO.FS.writeFile "{outside}/eval.txt" "pwned"

def leak : String := include_str (unsafeBaseIO (IO.FS.writeFile "{outside}/include.txt" "pwned"
  *> pure "Blueprint/Evil.lean"))

theorem cfg_term : True := by
  simp (config := unsafeBaseIO (IO.FS.writeFile "{ws}/Blueprint/Planted.lean" "pwned" *> pure {{}}))

#eval IO.FS.writeFile "{ws}/.git/config" "pwned"
#eval IO.FS.readFile "{home}/.ssh/id_ed25519"
#eval IO.FS.readFile "{ws}/.git/HEAD"
#eval fake_connect "127.0.0.1:{port}"
#eval IO.FS.writeFile "{scratch}" "fine"
"""
    (ws / "Blueprint" / "Evil.lean").write_text(text, encoding="utf-8")
    git_config = (ws / ".git" / "config").read_text()
    yield {"ws": ws, "outside": outside, "git_config": git_config, "scratch": scratch,
           "home": home}
    server.close()


def _messages(ws: Path) -> str:
    try:
        fv = check_file(find_toolchain(ws), ws, parse_file(ws / "Blueprint" / "Evil.lean"),
                        timeout_s=60)
    except CannotCertify as err:  # no declaration answered: the messages are in the text
        return str(err)
    return "\n".join(m.data for m in fv.file_messages + [x for n in fv.nodes for x in n.messages])


def _escaped(w: dict) -> dict[str, bool]:
    ws = w["ws"]
    return {"eval": (w["outside"] / "eval.txt").exists(),
            "include_str": (w["outside"] / "include.txt").exists(),
            "config term": (ws / "Blueprint" / "Planted.lean").exists(),
            ".git": (ws / ".git" / "config").read_text() != w["git_config"]}


def test_without_the_box_the_text_escapes(world: dict, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(sandbox.UNSAFE_ENV, "1")
    out = _messages(world["ws"])
    assert _escaped(world) == {"eval": True, "include_str": True, "config term": True,
                               ".git": True}
    assert "PRIVATE-KEY-MATERIAL" in out and "connected" in out


@needs_bwrap
def test_in_the_box_nothing_escapes(world: dict, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(sandbox.UNSAFE_ENV, raising=False)
    out = _messages(world["ws"])
    assert _escaped(world) == {"eval": False, "include_str": False, "config term": False,
                               ".git": False}
    assert "PRIVATE-KEY-MATERIAL" not in out  # the home is empty in the box
    assert "connect failed" in out and "connected\n" not in out + "\n"  # no network
    assert "ref: refs/heads" not in out  # the record's .git is hidden, not just read-only
    assert world["scratch"].read_text() == "fine"  # the scratch directory is writable


@needs_bwrap
def test_repl_sessions_are_boxed_too(world: dict, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(sandbox.UNSAFE_ENV, raising=False)
    target = world["outside"] / "repl.txt"
    with ReplClient([str(FAKE_LAKE), "env", "repl"], cwd=world["ws"], header="import Std",
                    timeout_s=30) as repl:
        resp = repl.command(f'#eval IO.FS.writeFile "{target}" "pwned"\n'
                            '#eval IO.FS.readFile "/proc/self/environ"')
    assert not target.exists()
    assert any(m.is_error for m in resp.messages)
    env_dump = next(m.data for m in resp.messages if m.severity == "information")
    assert "sk-test-never-in-the-box" not in env_dump and "HARNESS_LAKE" in env_dump


def test_no_sandbox_is_a_refusal_not_a_fallback(world: dict,
                                               monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(sandbox.UNSAFE_ENV, raising=False)
    monkeypatch.setenv(sandbox.BWRAP_ENV, str(world["ws"] / "no-bwrap"))
    with pytest.raises(CannotCertify, match="no sandbox for Lean.*--unsafe-no-sandbox"):
        check_file(find_toolchain(world["ws"]),
                   world["ws"], parse_file(world["ws"] / "Blueprint" / "Evil.lean"), timeout_s=60)
    assert _escaped(world) == {"eval": False, "include_str": False, "config term": False,
                               ".git": False}
    rows = {c.name: c for c in lean_checks(world["ws"], None)[0]}
    assert rows["sandbox"].status == "missing" and rows["sandbox"].blocking


def test_run_refuses_to_start_without_the_sandbox(world: dict, tmp_path: Path) -> None:
    ws = world["ws"]
    (ws / "Blueprint" / "Evil.lean").write_text("theorem ok : True := trivial\n")
    env = fake_env(base={k: v for k, v in os.environ.items() if k != sandbox.UNSAFE_ENV},
                   **{sandbox.BWRAP_ENV: str(tmp_path / "no-bwrap")})
    env.pop("OPENAI_API_KEY", None)
    argv = [sys.executable, "-m", "harness", "run", "Blueprint/Evil.lean", "--plain"]
    res = subprocess.run(argv, cwd=ws, env={**env, "PYTHONPATH": str(ROOT)},
                         capture_output=True, text=True, timeout=300)
    assert res.returncode == 2, res.stderr
    lines = [x for x in res.stderr.splitlines() if x.strip()]
    assert len(lines) == 1 and "sandbox" in lines[0] and "--unsafe-no-sandbox" in lines[0]
    assert not (ws / ".harness" / "runs").exists()
    res = subprocess.run(argv + ["--unsafe-no-sandbox"], cwd=ws, capture_output=True, text=True,
                         env={**env, "PYTHONPATH": str(ROOT)}, timeout=300)
    assert "sandbox: " not in res.stderr and res.returncode != 2, res.stderr


@needs_bwrap
def test_doctor_says_the_sandbox_works(world: dict, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(sandbox.UNSAFE_ENV, raising=False)
    rows = {c.name: c for c in lean_checks(world["ws"], None)[0]}
    assert rows["sandbox"].status == "ok" and "bubblewrap" in rows["sandbox"].found
    assert "Lean starts in it" in rows["sandbox"].found


@needs_bwrap
def test_a_repository_above_the_workspace_is_hidden_too(tmp_path: Path,
                                                        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(sandbox.UNSAFE_ENV, raising=False)
    monkeypatch.delenv("FAKE_LEAN_LOG", raising=False)
    monkeypatch.setenv("HARNESS_LAKE", str(FAKE_LAKE))
    repo = tmp_path / "repo"
    ws = repo / "lean"
    ws.mkdir(parents=True)
    subprocess.run(["git", "init", "-q", str(repo)], check=True, timeout=60)
    (ws / "lakefile.lean").write_text("import Lake\nopen Lake DSL\n\npackage p\n", encoding="utf-8")
    (ws / "A.lean").write_text(f'#eval IO.FS.readFile "{repo}/.git/HEAD"\n\n'
                               "theorem a : 1 = 1 := rfl\n", encoding="utf-8")
    fv = check_file(find_toolchain(ws), ws, parse_file(ws / "A.lean"), timeout_s=60)
    said = "\n".join(m.data for m in fv.file_messages)
    assert "ref: refs/heads" not in said and "no such file" in said


@needs_bwrap
def test_a_whole_run_works_in_the_box(tmp_path: Path) -> None:
    """Every Lean process of `run` boxed (compiles, the gate, certification, LeanArchitect's
    `lake build`, which may write `.lake/`): the node is proved and certified."""
    ws = tmp_path / "ws"
    (ws / "Blueprint").mkdir(parents=True)
    (ws / "lakefile.lean").write_text("import Lake\nopen Lake DSL\n\npackage p\n\n"
                                      "lean_lib Blueprint\n", encoding="utf-8")
    (ws / ".gitignore").write_text(".lake/\n", encoding="utf-8")
    (ws / "Blueprint" / "A.lean").write_text(
        'import Architect\n\n@[blueprint "thm:two"]\ntheorem two : 1 + 1 = 2 := by\n  sorry\n',
        encoding="utf-8")
    for cmd in (["init", "-q"], ["add", "-A"],
                ["-c", "user.email=t@t", "-c", "user.name=t", "commit", "-qm", "init"]):
        subprocess.run(["git", *cmd], cwd=ws, check=True, timeout=60)
    env = fake_env(base={k: v for k, v in os.environ.items()
                         if k not in (sandbox.UNSAFE_ENV, "FAKE_LEAN_LOG", "OPENAI_API_KEY")})
    res = subprocess.run([sys.executable, "-m", "harness", "run", "Blueprint/A.lean", "--json"],
                         cwd=ws, env={**env, "PYTHONPATH": str(ROOT)}, capture_output=True,
                         text=True, timeout=600)
    assert res.returncode == 0, res.stderr
    assert '"proved"' in res.stdout
    assert "by rfl" in (ws / "Blueprint" / "A.lean").read_text()
