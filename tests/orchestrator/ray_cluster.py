"""A real Ray cluster for the tests: `ray start --head` plus a second node, in their own
process groups under a private temp dir, stopped by process group id (never by name)."""

from __future__ import annotations

import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from tests.orchestrator.support import fake_env

TEMP_PREFIX = "hray"  # the leak guard (tests/conftest.py) looks for processes under it
SECRET = "sk-ray-test-9f8e7d6c5b4a39281706"  # the key the workers' environment carries
# a private test cluster on 127.0.0.1: no token file in ~/.ray, no usage reports
RAY_ENV = {"RAY_AUTH_MODE": "disabled", "RAY_USAGE_STATS_ENABLED": "0"}


def _port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Cluster:
    def __init__(self, nodes: int = 2, cpus: int = 1) -> None:
        self.temp = Path(tempfile.mkdtemp(prefix=TEMP_PREFIX, dir="/tmp"))
        self.port = _port()
        self.address = f"127.0.0.1:{self.port}"
        self.env = fake_env({"OPENAI_API_KEY": SECRET, **RAY_ENV})
        self.procs: list[subprocess.Popen] = []
        self.nodes, self.cpus = nodes, cpus

    def _ray(self, *args: str) -> subprocess.Popen:
        log = open(self.temp / f"start-{len(self.procs)}.log", "w")
        p = subprocess.Popen([sys.executable, "-m", "ray.scripts.scripts", "start", "--block",
                              "--disable-usage-stats", f"--num-cpus={self.cpus}", *args],
                             env=self.env, stdout=log, stderr=subprocess.STDOUT,
                             start_new_session=True)
        log.close()
        self.procs.append(p)
        return p

    def start(self, timeout: float = 180.0) -> "Cluster":
        self._ray("--head", f"--port={self.port}", "--node-ip-address=127.0.0.1",
                  "--include-dashboard=false", f"--temp-dir={self.temp}")
        self._wait(1, timeout)
        for _ in range(self.nodes - 1):
            self._ray(f"--address={self.address}", "--node-ip-address=127.0.0.1")
        self._wait(self.nodes, timeout)
        return self

    def _wait(self, n: int, timeout: float) -> None:
        """Until ``n`` nodes are alive (asked by a short-lived driver process)."""
        code = ("import ray,sys; ray.init(address=sys.argv[1], logging_level='ERROR'); "
                "print(sum(1 for x in ray.nodes() if x['Alive']))")
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if any(p.poll() is not None for p in self.procs):
                raise RuntimeError("ray start exited: " + self.logs())
            try:
                out = subprocess.run([sys.executable, "-c", code, self.address], env=self.env,
                                     capture_output=True, text=True, timeout=60)
                if out.returncode == 0 and int(out.stdout.strip().splitlines()[-1]) >= n:
                    return
            except (subprocess.TimeoutExpired, ValueError, IndexError):
                pass
            time.sleep(1.0)
        raise RuntimeError(f"the Ray cluster did not reach {n} nodes: " + self.logs())

    def logs(self) -> str:
        return " | ".join(p.read_text(errors="replace")[-800:]
                          for p in sorted(self.temp.glob("start-*.log")))

    def stop(self) -> None:
        """SIGTERM each `ray start --block` (it stops what it started), then SIGKILL whatever
        is left in their process groups."""
        for p in reversed(self.procs):
            if p.poll() is None:
                try:
                    os.killpg(p.pid, signal.SIGTERM)
                except ProcessLookupError:
                    pass
        for p in reversed(self.procs):
            try:
                p.wait(timeout=30)
            except subprocess.TimeoutExpired:
                pass
            try:
                os.killpg(p.pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
            p.wait(timeout=10)
        deadline = time.monotonic() + 15  # Ray's workers exit on their own once the raylet is
        while time.monotonic() < deadline and _orphaned_ray():  # gone: wait for them
            time.sleep(0.2)
        shutil.rmtree(self.temp, ignore_errors=True)

    def files_containing(self, needle: str) -> list[str]:
        """Every file under the cluster's temp dir (logs, session data) holding ``needle``."""
        hits = []
        data = needle.encode()
        for path in self.temp.rglob("*"):
            try:
                if path.is_file() and not path.is_symlink() and data in path.read_bytes():
                    hits.append(str(path))
            except OSError:
                continue
        return hits


def _orphaned_ray() -> bool:
    """A Ray worker process (``ray::…``) whose parent is gone (reparented to init)."""
    for e in Path("/proc").iterdir():
        if not e.name.isdigit():
            continue
        try:
            cmd = (e / "cmdline").read_bytes()
            stat = (e / "stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        if cmd.startswith(b"ray::") and stat[1] == "1" and stat[0] != "Z":
            return True
    return False
