"""A stop while a racer is still out (`[run] race = k`): the leftover attempt was paid for, so
the run waits for it, logs it and counts its cost; no attempt thread or Lean process outlives the
run. Real runner (services.make_runner) over HTTP to the scripted LLM, the fake Lean, real git."""

from __future__ import annotations

import gc
import os
import threading
from pathlib import Path

import pytest

from harness.agents.config import HarnessConfig
from harness.lean.toolchain import find_toolchain
from harness.orchestrator.events import read_events
from harness.orchestrator.batchmerge import GateOutcome
from harness.orchestrator.run import RunSettings, Services, Session
from harness.orchestrator.attempts import make_runner
from tests.orchestrator.support import FAKES, fake_certifier, lean_gate, workspace
from tests.orchestrator.test_feedback import ONE  # one node, n + 0 = n
from tests.support.llm_server import RecordedRequest, ScriptedLLM, text

GOOD = "```lean\nby\n  omega\n```"
USAGE = (1000, 1000)  # tokens per answer; at $1 / Mtok each way: $0.002 an attempt
PER_ATTEMPT = 0.002


@pytest.fixture(autouse=True)
def no_env_endpoint(monkeypatch):
    for k in ("OPENAI_BASE_URL", "OPENAI_API_KEY", "HARNESS_MODEL", "OPENAI_MODEL"):
        monkeypatch.delenv(k, raising=False)


def _children() -> list[str]:
    """Processes (zombies included) whose parent is this test process."""
    me, out = str(os.getpid()), []
    for d in Path("/proc").iterdir():
        try:
            stat = (d / "stat").read_text()
        except (OSError, ValueError):
            continue
        fields = stat.rsplit(")", 1)[-1].split()
        if d.name.isdigit() and len(fields) > 1 and fields[1] == me:
            out.append(f"{d.name} {stat.split(')')[0]})")
    return out


class _Racer:
    """The first chat request to arrive (either attempt) is held until ``stopped`` (at most
    60 s): it is the racer still out when the run stops. Every other request is answered
    at once with a proof."""

    def __init__(self) -> None:
        self.stopped = threading.Event()
        self.held = threading.Event()
        self._lock = threading.Lock()
        self._first = True

    def __call__(self, _req: RecordedRequest):
        with self._lock:
            first, self._first = self._first, False
        if first:
            self.held.set()
            self.stopped.wait(60)
        return text(GOOD, usage=USAGE)


def _session(f: Path, srv: ScriptedLLM, racer: _Racer, *, gate=None, **settings):
    cfg = HarnessConfig.model_validate({
        "endpoint": {"base_url": srv.base_url, "default_model": "m"},
        "roles": {"prove": {"mode": "completion", "max_reprompts": 0}},
        "prices": {"m": {"input_per_mtok": 1.0, "output_per_mtok": 1.0}},
        "tactics": {"tactics": ["bogus_tactic"]}})
    tc = find_toolchain(f.parent.parent, str(FAKES / "lake"))
    runner, _client = make_runner(cfg, tc, budget_left=None)

    def notify(kind: str, data: dict) -> None:  # the stop is said as a note
        msg = str(data.get("message", ""))
        if kind == "note" and ("cannot certify" in msg or "budget spent" in msg):
            racer.stopped.set()

    s = Session(f, RunSettings(**{"stage": "2", "workers": 2, "race": 2,
                                  "batch_window": 0.05, **settings}), notify=notify)
    res = s.run(lambda sess, rec: Services(
        runner=runner, make_gate=lambda: gate or lean_gate(rec),
        certifier=fake_certifier(rec)))
    return s, res


def _attempts(s: Session) -> list[dict]:
    return [e for e in read_events(s.dir / "events.jsonl").events if e["kind"] == "attempt"]


def _no_leftovers(before: set[str]) -> None:
    """No attempt or gate thread, and no child process the session started, is left."""
    gc.collect()  # the session's record: its git `cat-file` helpers end with it (gitpython)
    assert not [t.name for t in threading.enumerate() if t.name.startswith(("attempt", "gate"))]
    assert set(_children()) - before == set()


def test_gate_stop_waits_for_the_racer_and_logs_its_cost(tmp_path) -> None:
    f = workspace(tmp_path, ONE)
    racer = _Racer()
    before = set(_children())

    def no_lean(text: str, base: str, labels: list[str], **kw) -> GateOutcome:
        return GateOutcome(False, False, ["lean timed out"])  # never certifies: a gate stop

    with ScriptedLLM(racer) as srv:
        s, res = _session(f, srv, racer, gate=no_lean)
        asked = len(srv.chat_requests)
    assert racer.held.is_set() and racer.stopped.is_set()
    assert res.exit_code == 3 and "cannot certify" in res.stop_reason, res.stop_reason
    done = _attempts(s)
    assert asked == 2 and sorted(e["aid"] for e in done) == ["lem:one#1", "lem:one#2"]
    assert all(e["cost"] == pytest.approx(PER_ATTEMPT) for e in done)
    assert res.cost_usd == pytest.approx(2 * PER_ATTEMPT)  # both paid attempts are counted
    del s, res
    _no_leftovers(before)


def test_budget_stop_waits_for_the_racer_and_logs_its_cost(tmp_path) -> None:
    f = workspace(tmp_path, ONE)
    racer = _Racer()
    before = set(_children())
    with ScriptedLLM(racer) as srv:
        # one attempt's cost spends the budget; both start (cap = budget / workers each)
        s, res = _session(f, srv, racer, budget=PER_ATTEMPT)
        asked = len(srv.chat_requests)
    assert racer.held.is_set() and racer.stopped.is_set()
    assert "budget spent" in res.stop_reason, res.stop_reason
    done = _attempts(s)
    assert asked == 2 and sorted(e["aid"] for e in done) == ["lem:one#1", "lem:one#2"]
    assert res.cost_usd == pytest.approx(2 * PER_ATTEMPT)
    del s, res
    _no_leftovers(before)
