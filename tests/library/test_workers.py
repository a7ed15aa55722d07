"""Index worker processes end quietly when their pool is terminated under the CLI's handlers."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
SCRIPT = """
import multiprocessing as mp, signal, time
from harness.cli import _on_sigterm
from harness.library.workers import worker_init

def handlers(_):
    return signal.getsignal(signal.SIGTERM), signal.getsignal(signal.SIGINT)

signal.signal(signal.SIGTERM, _on_sigterm)  # as `python -m harness index` runs
with mp.get_context("fork").Pool(2, initializer=worker_init) as pool:  # leaving it: terminate()
    assert set(pool.map(handlers, range(8))) == {(signal.SIG_DFL, signal.SIG_IGN)}
    time.sleep(0.5)  # the workers wait for work, as after the last chunk
with mp.get_context("fork").Pool(1) as pool:  # without it they would run the CLI's handler
    assert pool.map(handlers, [0])[0][0] is _on_sigterm
    pool.close()
    pool.join()
"""


def test_pool_workers_do_not_run_the_cli_sigterm_handler() -> None:
    res = subprocess.run([sys.executable, "-c", SCRIPT], cwd=REPO, capture_output=True, text=True,
                         timeout=60, env={"PYTHONPATH": str(REPO), "PATH": ""})
    assert res.returncode == 0 and "Traceback" not in res.stderr, res.stderr


def test_both_index_pools_use_the_initializer() -> None:
    for mod in ("store.py", "postings.py"):
        text = (REPO / "harness/library" / mod).read_text()
        pools = text.count(".Pool(")
        assert pools and text.count("initializer=worker_init") == pools, mod
