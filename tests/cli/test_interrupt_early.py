"""A ^C that lands before a command has started (the CLI still importing, the parser being
built) or after it has answered: still one line and 130, never a traceback (found by pressing
^C on `graph`/`run` half a second in, under a pty)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from harness import cli

ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.parametrize("where", ["build_parser", "_lean_settings"])
def test_an_interrupt_while_the_parser_loads_is_130(monkeypatch, capsys, where) -> None:
    def stopped(*_a, **_k):
        raise KeyboardInterrupt

    monkeypatch.setattr(cli, where, stopped)
    try:
        code = cli.main(["plan", "Blueprint/Demo.lean"])
    except KeyboardInterrupt:
        pytest.fail("the interrupt escaped main(): a traceback for the user")
    assert code == 130
    assert capsys.readouterr().err.strip() == "harness: interrupted"


# a ^C while `python -m harness` is still importing the CLI (before main installs its handlers)
_IMPORT_STOPPED = """
import runpy, sys
class Stop:
    def find_spec(self, name, path=None, target=None):
        if name == "harness.cli":
            raise KeyboardInterrupt
sys.meta_path.insert(0, Stop())
sys.argv = ["harness", "plan", "Blueprint/Demo.lean"]
runpy.run_module("harness", run_name="__main__", alter_sys=True)
"""


def test_an_interrupt_while_the_cli_imports_is_130() -> None:
    out = subprocess.run([sys.executable, "-c", _IMPORT_STOPPED], cwd=ROOT, capture_output=True,
                         text=True, timeout=120)
    assert "Traceback" not in out.stderr
    assert out.stderr.strip() == "harness: interrupted"
    assert out.returncode == 130


def test_a_signal_after_the_answer_ends_a_shutdown_that_waits_on_a_thread() -> None:
    # the answer is printed, but Python's shutdown joins a worker thread still waiting (on a
    # Lean run, here a sleep): SIGTERM ends it now with the answer's status, no traceback
    import signal
    import subprocess
    import sys

    code = ("import threading, time, runpy, harness.cli as c\n"
            "def waiting():\n"  # says so once main() has long returned
            "    time.sleep(0.5)\n"
            "    print('answered', flush=True)\n"
            "    time.sleep(120)\n"
            "def main():\n"
            "    threading.Thread(target=waiting).start()\n"
            "    return 1\n"
            "c.main = main\n"
            "runpy.run_module('harness', run_name='__main__')\n")
    p = subprocess.Popen([sys.executable, "-c", code], stdout=subprocess.PIPE,
                         stderr=subprocess.PIPE, text=True)
    try:
        assert p.stdout.readline().strip() == "answered"
        p.send_signal(signal.SIGTERM)
        _, err = p.communicate(timeout=30)  # blocked, the signal waited for the thread: 120 s
    finally:
        p.kill()
        p.wait(timeout=10)
    assert p.returncode == 1 and "Traceback" not in err, err
