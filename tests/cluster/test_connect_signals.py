"""A SIGTERM or ^C while `ray.init` starts a local Ray (harness/cluster/connect.py): the harness's
handler takes it — Terminated / KeyboardInterrupt out of `connect`, 143 / 130, the Ray instance
it was starting shut down, no Ray process left — not Ray's `sys.exit(15)` (exit 15, no record).
And the processes Ray starts under the hold do not inherit SIGTERM blocked (ray.shutdown's
terminate reaches them).

Real Ray, started by the driver under test in its own session; the signal comes from another
process while `ray.init` runs (its gcs_server exists, the driver has not returned)."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

ray = pytest.importorskip("ray", reason="ray is not installed (pip install -e '.[ray]')")
pytestmark = [pytest.mark.ray, pytest.mark.timeout(600)]

from tests.orchestrator.ray_cluster import RAY_ENV  # noqa: E402
from tests.support.processes import session_members  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]

DRIVER = """
import os, sys, time
from harness import signals
signals.install()
from harness.cluster.connect import connect
import ray
print("connecting", flush=True)
try:
    connect(None, workers=1)
except KeyboardInterrupt as err:
    print("stopped in connect", type(err).__name__, ray.is_initialized(), flush=True)
    sys.exit(signals.exit_status(signals.received()))
print("connected", flush=True)
if sys.argv[1] == "masks":
    for e in os.listdir("/proc"):
        try:
            st = open(f"/proc/{e}/status").read()
        except OSError:
            continue
        if f"PPid:\\t{os.getpid()}\\n" in st or "ray::" in open(f"/proc/{e}/cmdline").read():
            blk = int(next(x for x in st.splitlines() if x.startswith("SigBlk")).split()[1], 16)
            print("blocked", e, blk, flush=True)
ray.shutdown()
"""


def _session(sid: int) -> list[int]:
    return [pid for pid, _ in session_members(sid, zombies=False)]


def _children(pid: int) -> list[str]:
    found = []
    for e in os.listdir("/proc"):
        if e.isdigit():
            try:
                f = Path(f"/proc/{e}/stat").read_text().rsplit(")", 1)[1].split()
                cmd = Path(f"/proc/{e}/cmdline").read_bytes().replace(b"\0", b" ").decode()
            except (OSError, IndexError):
                continue
            if int(f[1]) == pid:
                found.append(cmd)
    return found


def _driver(mode: str) -> subprocess.Popen:
    env = {**os.environ, **RAY_ENV, "PYTHONPATH": str(ROOT)}
    return subprocess.Popen([sys.executable, "-c", DRIVER, mode], cwd=ROOT, env=env,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            start_new_session=True)


@pytest.mark.parametrize("sig,code", [(signal.SIGTERM, 143), (signal.SIGINT, 130)],
                         ids=["SIGTERM", "SIGINT"])
def test_a_signal_inside_ray_init_is_the_harness_s(sig, code) -> None:
    p = _driver("signal")
    try:
        assert p.stdout is not None and p.stdout.readline().strip() == "connecting"
        deadline = time.monotonic() + 120
        # ray.init is under way: it has started the GCS server, and not returned yet
        while not any("gcs_server" in c for c in _children(p.pid)):
            assert p.poll() is None and time.monotonic() < deadline, p.communicate()
            time.sleep(0.02)
        os.kill(p.pid, sig)
        out, err = p.communicate(timeout=180)
    finally:
        if p.poll() is None:
            os.killpg(p.pid, signal.SIGKILL)
            p.wait()
    assert p.returncode == code, (out, err[-3000:])
    name = "Terminated" if sig == signal.SIGTERM else "KeyboardInterrupt"
    assert f"stopped in connect {name} False" in out  # raised by the harness, Ray shut down
    deadline = time.monotonic() + 30
    while _session(p.pid) and time.monotonic() < deadline:
        time.sleep(0.2)
    assert _session(p.pid) == []  # none of the Ray processes it started is left


def test_ray_s_processes_do_not_inherit_the_held_signals() -> None:
    p = _driver("masks")
    out, err = p.communicate(timeout=300)
    assert p.returncode == 0, err[-3000:]
    masks = [int(x.split()[2]) for x in out.splitlines() if x.startswith("blocked")]
    assert masks, out
    term = 1 << (signal.SIGTERM - 1)
    assert all(not m & term for m in masks), out  # Ray blocks SIGINT in them itself, not TERM


def test_sigterm_while_run_starts_its_ray_is_143_with_the_record(tmp_path) -> None:
    """The whole command: `run --executor ray` (it starts its own Ray) and a SIGTERM while
    ray.init runs: 143, one line, result.json says interrupted in the preflight."""
    import json

    from harness.orchestrator.state import run_dir
    from tests.orchestrator.support import fake_env, workspace

    f = workspace(tmp_path)
    ws = f.parent.parent
    (ws / "harness.toml").write_text('[tactics]\ntactics = ["omega"]\n\n[run]\n'
                                     'lean_memory_gb = 0.1\n')
    env = fake_env({**RAY_ENV, "HARNESS_UNSAFE_NO_SANDBOX": "1"})
    p = subprocess.Popen([sys.executable, "-m", "harness", "run", str(f), "--executor", "ray",
                          "--workers", "1", "--json"], cwd=ws, env=env, stdout=subprocess.PIPE,
                         stderr=subprocess.PIPE, text=True, start_new_session=True)
    try:
        deadline = time.monotonic() + 180
        while not any("gcs_server" in c for c in _children(p.pid)):
            assert p.poll() is None and time.monotonic() < deadline, p.communicate()
            time.sleep(0.02)
        os.kill(p.pid, signal.SIGTERM)
        out, err = p.communicate(timeout=180)
    finally:
        if p.poll() is None:
            os.killpg(p.pid, signal.SIGKILL)
            p.wait()
    assert p.returncode == 143, err[-3000:]
    assert "Traceback" not in err and err.strip().splitlines()[-1] == "harness: terminated"
    res = json.loads((run_dir(ws, f) / "result.json").read_text())
    assert json.loads(out) == res
    assert res["stop_reason"] == "interrupted" and res["exit_code"] == 143
    assert res["phase"] == "preflight (Lean, Ray)"
    deadline = time.monotonic() + 30
    while _session(p.pid) and time.monotonic() < deadline:
        time.sleep(0.2)
    assert _session(p.pid) == []
