"""A ^C while `python -m harness` starts: `harness/__init__.py` runs before `__main__.py` and
the CLI's handlers; it imports nothing but built-ins and, started as the command, turns a SIGINT
into one line and exit 130 until the CLI's own handler takes over (harness/signals.py).

What is left before harness code runs is CPython's own start-up (site and the .pth files of the
environment, then runpy finding the package): a ^C there is CPython's ("Fatal Python error:
init_import_site", or runpy's traceback). The random test starts its clock when `-X importtime`
reports the `harness` package loaded, so every moment it samples is harness's own.

Also: a KeyboardInterrupt that once passed through an exec() of a string (a dataclass being
made when the ^C landed), even caught, makes CPython kill itself with SIGINT at exit (-2, no
status 130): `harness/__main__.py` exits an interrupted command with os._exit."""

from __future__ import annotations

import os
import random
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

import harness
from harness import signals

ROOT = Path(__file__).resolve().parents[2]


def _new_modules(code: str) -> list[str]:
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True,
                         timeout=60)
    assert out.returncode == 0, out.stderr
    return out.stdout.split()


def test_the_package_imports_nothing_but_itself() -> None:
    new = _new_modules("import sys; before = set(sys.modules); import harness, _signal\n"
                       "print(*sorted(set(sys.modules) - before))\n"
                       "print(_signal.getsignal(2) is _signal.default_int_handler)")
    assert new == ["harness", "True"]  # and, imported as a library, no handler of its own


@pytest.mark.parametrize("argv", [["-m", "harness"], ["-X", "importtime", "-m", "harness"],
                                  ["-mharness"]])
def test_started_as_the_command_it_takes_sigint_and_still_imports_nothing(argv) -> None:
    new = _new_modules(
        "import sys; sys.argv = ['-m']; sys.orig_argv = [sys.executable, *%r]\n"
        "before = set(sys.modules); import harness, _signal\n"
        "print(*sorted(set(sys.modules) - before))\n"
        "print(_signal.getsignal(2) is harness._interrupted_early)" % (argv,))
    assert new == ["harness", "True"]


def test_another_module_run_with_m_is_left_alone() -> None:
    new = _new_modules("import sys; sys.argv = ['-m']\n"
                       "sys.orig_argv = [sys.executable, '-m', 'harness.report.igraph_child']\n"
                       "import harness, _signal\n"
                       "print(_signal.getsignal(2) is _signal.default_int_handler)")
    assert new == ["True"]


def test_the_cli_replaces_the_start_up_handler(monkeypatch) -> None:
    import signal as sig

    old = sig.signal(sig.SIGINT, harness._interrupted_early)
    try:
        signals.install()
        assert sig.getsignal(sig.SIGINT) is signals.on_signal
    finally:
        sig.signal(sig.SIGINT, old)


def _one_start(delay: float | None) -> tuple[int, str, str, float]:
    """`python -X importtime -m harness plan …`; SIGINT to its process group ``delay`` seconds
    after the `harness` package finished loading (None: no SIGINT): (status, stdout, stderr
    without importtime's lines, seconds from the package loaded to the exit)."""
    p = subprocess.Popen([sys.executable, "-X", "importtime", "-m", "harness", "plan",
                          "Blueprint/Demo.lean"], cwd=ROOT, stdout=subprocess.PIPE,
                         stderr=subprocess.PIPE, text=True, start_new_session=True)
    err: list[str] = []
    try:
        assert p.stderr is not None
        for line in p.stderr:
            err.append(line)
            if line.rstrip().endswith("| harness"):
                break
        loaded = time.monotonic()
        if delay is not None:
            time.sleep(delay)
            if p.poll() is None:
                os.killpg(p.pid, signal.SIGINT)
        out, rest = p.communicate(timeout=60)
        took = time.monotonic() - loaded
    finally:
        if p.poll() is None:
            os.killpg(p.pid, signal.SIGKILL)
            p.wait()
    text = "".join(err) + rest
    shown = "\n".join(x for x in text.splitlines() if not x.startswith("import time:"))
    return p.returncode, out, shown, took


@pytest.mark.parametrize("within", [0.02, 0.4])  # __main__ still loading; any time until done
def test_sigint_at_random_moments_of_the_start_is_always_one_line_and_130(within) -> None:
    rng = random.Random(int(os.environ.get("HARNESS_TEST_SEED", "0")))
    # the moments are drawn within the command's own time here (a fast machine answers `plan`
    # sooner than 0.4 s): most of them then fall before the answer, whatever the machine
    code, out, err, took = _one_start(None)
    assert code == 0 and "Critical path" in out, (code, err)
    within = min(within, 0.8 * took)
    interrupted = 0
    for _ in range(25):
        code, out, err, _took = _one_start(rng.uniform(0.0, within))
        assert "Traceback" not in err and "Exception ignored" not in err, err
        if code == 130:
            assert err.strip() == "harness: interrupted", err
            interrupted += 1
        else:  # the answer was complete before the ^C: its status stays (or, in the last
            # instants of CPython's teardown, with the handlers reset, it dies of the signal)
            assert code in (0, -2) and "Critical path" in out and not err.strip(), (code, err)
    assert interrupted >= 12  # most moments were before the answer: the test saw them
