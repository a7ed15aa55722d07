"""`harness lock` / `harness verify` as a user runs them: subprocesses, exit codes, --json,
--base against a real git repository."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import git
import pytest

from harness.blueprint import parse_text
from harness.blueprint.write import apply_edit, replace_body
from harness.cli import main
from harness.gate.lock import make_lock
from tests.gate.corpus import BASE, PROOF
from tests.support.fakelean import fake_env, make_workspace

NO_LEAN = fake_env(lake=False)
# no Lean anywhere, but git stays reachable (as on any user's machine)
NO_LEAN["PATH"] += os.pathsep + os.path.dirname(shutil.which("git") or "/usr/bin/git")


ROOT = Path(__file__).resolve().parents[2]


def harness(*args: str, cwd: Path, env: dict[str, str] | None = None) -> subprocess.CompletedProcess:
    # the code under test, whatever copy an editable install happens to point at
    env = dict(env or NO_LEAN)
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(ROOT), env.get("PYTHONPATH")]))
    return subprocess.run([sys.executable, "-m", "harness", *args], cwd=cwd, env=env,
                          capture_output=True, text=True, timeout=120)


def base_repo(root: Path, source: str | None = "Blueprint/Base.lean") -> Path:
    """A workspace with BASE committed in a real git repository and its lock in base.lock.json."""
    ws = make_workspace(root / "proj", {"Blueprint/Base.lean": BASE})
    r = git.Repo.init(ws)
    with r.config_writer() as cw:
        cw.set_value("user", "name", "t")
        cw.set_value("user", "email", "t@example.com")
    r.index.add(["lakefile.lean", "Blueprint/Base.lean"])
    r.index.commit("base")
    r.close()
    make_lock(parse_text(BASE, ws / "Blueprint/Base.lean"),
              source=source).save(ws / "base.lock.json")
    return ws


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    return base_repo(tmp_path)


def main_in(ws: Path, monkeypatch: pytest.MonkeyPatch, *args: str) -> int:
    """The real CLI entry point, in-process (for the many usage-error cases: fast)."""
    monkeypatch.chdir(ws)
    monkeypatch.delenv("HARNESS_LAKE", raising=False)
    return main(list(args))


def write(ws: Path, text: str) -> None:
    (ws / "Blueprint" / "Base.lean").write_text(text, encoding="utf-8", newline="")


def test_lock_default_path_and_json(repo: Path) -> None:
    out = harness("lock", "Blueprint/Base.lean", "--json", cwd=repo)
    assert out.returncode == 0, out.stderr
    data = json.loads(out.stdout)
    assert data["lock"] == "Blueprint/Base.lock.json" and data["entries"] == 8
    assert data["elaborated"] is False
    written = (repo / "Blueprint" / "Base.lock.json").read_text()
    assert written == (repo / "base.lock.json").read_text()  # same as the library call


def test_unchanged_static_only_passes(repo: Path) -> None:
    out = harness("verify", "Blueprint/Base.lean", "--lock", "base.lock.json", "--static-only", cwd=repo)
    assert out.returncode == 0, out.stderr
    assert "PASS" in out.stdout


def test_no_lean_cannot_certify(repo: Path) -> None:
    out = harness("verify", "Blueprint/Base.lean", "--lock", "base.lock.json", "--json", cwd=repo)
    assert out.returncode == 3, out.stderr
    data = json.loads(out.stdout)
    assert data["exit_code"] == 3 and data["lean_status"] == "not run" and not data["passed"]


def test_cheat_exit_1_with_positions(repo: Path) -> None:
    write(repo, replace_body(parse_text(BASE), "thm:small", "by\n  native_decide"))
    out = harness("verify", "Blueprint/Base.lean", "--lock", "base.lock.json", cwd=repo)
    assert out.returncode == 1
    line = next(x for x in out.stderr.splitlines() if "[forbidden]" in x)
    assert line.startswith("Blueprint/Base.lean:") and "thm:small" in line and "native_decide" in line
    _, ln, col = line.split(":")[:3]
    assert (repo / "Blueprint/Base.lean").read_text().splitlines()[int(ln) - 1][int(col):] \
        .startswith("native_decide")


def test_json_report(repo: Path) -> None:
    write(repo, BASE.replace("double n = 2 * n :=", "double n = n + n :="))
    out = harness("verify", "Blueprint/Base.lean", "--lock", "base.lock.json", "--json",
                  "--static-only", cwd=repo)
    assert out.returncode == 1
    data = json.loads(out.stdout)
    assert data["exit_code"] == 1 and data["passed"] is False
    (f,) = data["failures"]
    assert f["check"] == "lock" and f["key"] == "lem:double-eq" and f["message"] == "statement changed"
    assert (f["path"], f["line"], f["col"]) == ("Blueprint/Base.lean", 38, 0)


def test_corrupt_lock_is_exit_2(repo: Path) -> None:
    (repo / "bad.json").write_text("{broken")
    out = harness("verify", "Blueprint/Base.lean", "--lock", "bad.json", "--static-only", cwd=repo)
    assert out.returncode == 2
    assert out.stderr.startswith("bad.json:1:") and "Traceback" not in out.stderr


@pytest.mark.parametrize("content", ['{"schema": "other", "version": 1}', "[]",
                                     '{"schema": "slt-harness/statement-lock", "version": 2}'])
def test_foreign_lock_is_exit_2(repo: Path, content: str, monkeypatch, capsys) -> None:
    (repo / "bad.json").write_text(content)
    assert main_in(repo, monkeypatch, "verify", "Blueprint/Base.lean", "--lock", "bad.json") == 2
    err = capsys.readouterr().err
    assert err.startswith("bad.json:1:0:") and len(err.strip().splitlines()) == 1


@pytest.mark.parametrize("args, needle", [
    (["--allow", "lem:double-eq"], "--allow needs --base"),
    (["--base", "HEAD", "--allow", "lem:nope"], "no such node"),
    (["--base", "no-such-rev"], "cannot read"),
    (["--timeout", "0"], "--timeout"),
])
def test_usage_errors_are_exit_2(repo: Path, args: list[str], needle: str, monkeypatch,
                                 capsys) -> None:
    code = main_in(repo, monkeypatch, "verify", "Blueprint/Base.lean", "--lock", "base.lock.json",
                   "--static-only", *args)
    err = capsys.readouterr().err
    assert code == 2 and needle in err and len(err.strip().splitlines()) == 1


def test_missing_file_is_exit_2(repo: Path, monkeypatch, capsys) -> None:
    assert main_in(repo, monkeypatch, "verify", "Missing.lean", "--lock", "base.lock.json") == 2
    assert capsys.readouterr().err.startswith("Missing.lean:1:0: no such file")


def test_base_outside_git_is_usage_error(tmp_path: Path, monkeypatch, capsys) -> None:
    ws = make_workspace(tmp_path / "nogit", {"Base.lean": BASE})
    assert main_in(ws, monkeypatch, "lock", "Base.lean") == 0
    code = main_in(ws, monkeypatch, "verify", "Base.lean", "--lock", "Base.lock.json", "--base",
                   "HEAD", "--static-only")
    assert code == 2 and "not inside a git repository" in capsys.readouterr().err


def test_base_and_allow_accepts_a_proof_and_rejects_a_stray_edit(repo: Path) -> None:
    proved = apply_edit(parse_text(BASE), "lem:double-eq", PROOF,
                        "theorem double_aux (n : Nat) : n + n = 2 * n := by\n  omega")
    write(repo, proved)
    ok = harness("verify", "Blueprint/Base.lean", "--lock", "base.lock.json", "--base", "HEAD",
                 "--allow", "lem:double-eq", "--static-only", cwd=repo)
    assert ok.returncode == 0, ok.stderr
    write(repo, replace_body(parse_text(proved), "thm:small", "by\n  decide"))
    bad = harness("verify", "Blueprint/Base.lean", "--lock", "base.lock.json", "--base", "HEAD",
                  "--allow", "lem:double-eq", "--static-only", cwd=repo)
    assert bad.returncode == 1 and "[scope]" in bad.stderr and "thm:small" in bad.stderr


def test_with_fake_lean(repo: Path, tmp_path: Path) -> None:
    env = fake_env(log=tmp_path / "calls.log")
    write(repo, replace_body(parse_text(BASE), "lem:double-eq", PROOF))
    ok = harness("verify", "Blueprint/Base.lean", "--lock", "base.lock.json", "--base", "HEAD",
                 "--allow", "lem:double-eq", "--json", cwd=repo, env=env)
    assert ok.returncode == 0, ok.stderr
    data = json.loads(ok.stdout)
    assert data["certified"] and data["lean_status"] == "passed" and "lean" in data["checks"]
    write(repo, replace_body(parse_text(BASE), "lem:double-eq", "by\n  exact bogus_fact n"))
    bad = harness("verify", "Blueprint/Base.lean", "--lock", "base.lock.json", cwd=repo, env=env)
    assert bad.returncode == 1 and "[lean]" in bad.stderr and "bogus_fact" in bad.stderr
    write(repo, replace_body(parse_text(BASE), "lem:double-eq", "by\n  fake_crash"))
    crash = harness("verify", "Blueprint/Base.lean", "--lock", "base.lock.json", cwd=repo, env=env)
    assert crash.returncode == 3 and "CANNOT CERTIFY" in crash.stdout


def test_explicit_bad_lake_is_usage_error(repo: Path) -> None:
    out = harness("verify", "Blueprint/Base.lean", "--lock", "base.lock.json", "--lake",
                  str(repo / "nope"), cwd=repo)
    assert out.returncode == 2 and "not an executable lake" in out.stderr
