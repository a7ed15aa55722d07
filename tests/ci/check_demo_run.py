"""Check a finished `harness run Blueprint/Demo.lean` (GitHub Actions' real-Lean end-to-end job).

Without an endpoint only the tactic portfolio proves, so at least the Demo nodes that `omega`,
`simp` or `decide` close must come out proved. For each such node this checks, from the run's
``result.json`` (schema: harness/orchestrator/runmodels.py ``RunResult``/``NodeResult``):

* its status is ``proved`` and it names the commit that merged it;
* that commit is on the checked-out branch (``git merge-base --is-ancestor``) and its trailers
  say it merged this node with a passing gate verdict (``Harness-Nodes``, ``Harness-Verdict``);
* the run's ``final_commit`` is HEAD and the working file equals it;
* ``python -m harness verify FILE --lock <run>/statements.lock.json`` passes (Lean compiles the
  file and audits the axioms of every complete declaration against the run's statement lock).

Usage: python tests/ci/check_demo_run.py [--workspace DIR] [--file FILE] [--node LABEL ...]
Exit codes: 0 all checks pass, 1 a check failed (one line per failure), 2 no or unreadable
result.json / bad arguments.
"""

from __future__ import annotations

import argparse
import json
import re
import subprocess
import sys
from pathlib import Path

# Demo nodes a single tactic of the default portfolio closes (their proof text says which):
# `add_shuffle` by `omega`, `pow_ten` by `decide`, `sum_to_zero` by `decide` (a closed goal).
DEFAULT_NODES = ("lem:add-shuffle", "lem:pow-ten", "lem:sum-to-zero")
GIT_TIMEOUT_S = 60
VERIFY_TIMEOUT_S = 1800
TRAILER = re.compile(r"^(Harness-[A-Za-z]+):\s*(.*)$", re.M)
SHA = re.compile(r"^[0-9a-f]{40}$")


def git(ws: Path, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run(["git", *args], cwd=ws, capture_output=True, text=True,
                          timeout=GIT_TIMEOUT_S)


def load_result(ws: Path, file: Path) -> tuple[dict, Path]:
    from harness.orchestrator.state import run_dir

    d = run_dir(ws, file)
    path = d / "result.json"
    try:
        res = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise SystemExit(f"{path}: no result.json (did `harness run` start?)") from None
    except (OSError, ValueError) as err:
        raise SystemExit(f"{path}: unreadable result.json: {err}") from None
    if not isinstance(res, dict) or not isinstance(res.get("nodes") or {}, dict) \
            or not all(isinstance(n, dict) for n in (res.get("nodes") or {}).values()):
        raise SystemExit(f"{path}: unreadable result.json: not a run result (RunResult)")
    return res, d


def check(ws: Path, file: Path, nodes: list[str]) -> list[str]:
    ws, file = ws.resolve(), file.resolve()
    res, d = load_result(ws, file)
    fails: list[str] = []
    if res.get("schema_version") != 1:
        fails.append(f"result.json schema_version {res.get('schema_version')!r} is not 1")
    if res.get("exit_code") not in (0, 1):
        fails.append(f"the run ended with exit code {res.get('exit_code')}: "
                     f"{res.get('stop_reason')}")
    head = git(ws, "rev-parse", "HEAD").stdout.strip()
    if res.get("final_commit") != head:
        fails.append(f"final_commit {res.get('final_commit')} is not HEAD {head}")
    rel = file.relative_to(ws).as_posix()
    if git(ws, "diff", "--quiet", "HEAD", "--", rel).returncode != 0:
        fails.append(f"{rel}: the working file differs from HEAD")
    results = res.get("nodes") or {}
    for label in nodes:
        n = results.get(label)
        if n is None:
            fails.append(f"{label}: not in result.json")
            continue
        if n.get("status") != "proved":
            fails.append(f"{label}: {n.get('status')} ({n.get('reason') or 'no reason'}), "
                         "expected proved by the tactic portfolio")
            continue
        commit = n.get("commit") or ""
        if not SHA.match(commit):
            fails.append(f"{label}: proved but no merge commit recorded ({commit!r})")
            continue
        if git(ws, "merge-base", "--is-ancestor", commit, "HEAD").returncode != 0:
            fails.append(f"{label}: commit {commit} is not on the checked-out branch")
            continue
        trailers = dict(TRAILER.findall(git(ws, "log", "-1", "--format=%B", commit).stdout))
        merged = trailers.get("Harness-Nodes", "").split(",")
        if label not in merged:
            fails.append(f"{label}: commit {commit} does not merge it (Harness-Nodes: "
                         f"{trailers.get('Harness-Nodes', '')})")
        if trailers.get("Harness-Verdict", "").split(";")[0].strip() != "passed":
            fails.append(f"{label}: commit {commit} has gate verdict "
                         f"{trailers.get('Harness-Verdict')!r}")
    lock = d / "statements.lock.json"
    if not lock.is_file():
        fails.append(f"{lock}: the run wrote no statement lock")
    else:
        v = subprocess.run([sys.executable, "-m", "harness", "verify", str(file), "--lock",
                            str(lock), "--json"], cwd=ws, capture_output=True, text=True,
                           timeout=VERIFY_TIMEOUT_S)
        if v.returncode != 0:
            detail = (v.stderr.strip().splitlines() or v.stdout.strip().splitlines() or [""])
            fails.append(f"harness verify against the run's lock exited {v.returncode}: "
                         f"{detail[-1]}")
    return fails


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--workspace", type=Path, default=Path("."))
    p.add_argument("--file", type=Path, default=Path("Blueprint/Demo.lean"))
    p.add_argument("--node", action="append", dest="nodes", metavar="LABEL",
                   help="a node that must be proved (default: the omega/simp/decide ones)")
    args = p.parse_args(argv)
    file = args.file if args.file.is_absolute() else args.workspace / args.file
    try:
        fails = check(args.workspace, file, args.nodes or list(DEFAULT_NODES))
    except SystemExit as err:
        print(f"check_demo_run: {err}", file=sys.stderr)
        return 2
    for f in fails:
        print(f"{file}: {f}")
    if not fails:
        print(f"{file}: {len(args.nodes or DEFAULT_NODES)} portfolio nodes proved, committed "
              "and verified against the run's lock")
    return 1 if fails else 0


if __name__ == "__main__":
    sys.exit(main())
