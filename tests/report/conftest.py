"""Fixtures for the report tests: a real headless Chromium (skipped when none is installed) and
a directory for screenshots kept as test artefacts."""

from __future__ import annotations

import os
import signal
from pathlib import Path

import pytest

from tests.support.browser import Browser, find_chromium

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def browser():
    exe = find_chromium()
    if exe is None:
        pytest.skip("no Chromium found (install Debian's `chromium`, or set HARNESS_CHROMIUM)")
    b = Browser(exe)
    try:
        yield b
    finally:
        b.close()
        left = b.group()  # nothing of that browser may outlive the tests
        if left:
            os.killpg(b.proc.pid, signal.SIGKILL)
            pytest.fail(f"Chromium processes outlived the browser fixture: {left}")


@pytest.fixture(scope="session")
def artifacts() -> Path:
    """Screenshots land here (gitignored); CI can upload the directory."""
    d = Path(os.environ.get("HARNESS_TEST_ARTIFACTS", ROOT / ".pytest-artifacts"))
    d.mkdir(parents=True, exist_ok=True)
    return d
