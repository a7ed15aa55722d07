"""Shared set-up for the orchestrator tests: a workspace with the fake Lean, test gates/runners."""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import Callable

from harness.blueprint.parse import parse_text
from harness.orchestrator.executor import AttemptJob, AttemptResult  # noqa: F401 (re-export)
from harness.orchestrator.batchmerge import GateOutcome
from harness.orchestrator.record import Record
from harness.orchestrator.run import Session
from harness.orchestrator.runmodels import RunSettings, Services

ROOT = Path(__file__).resolve().parents[2]
FAKES = ROOT / "tests" / "fakes"
DEMO = ROOT / "Blueprint" / "Demo.lean"


def lake_workspace(tmp: Path) -> Path:
    """An empty Lake workspace ``tmp/ws``: a lakefile and the toolchain pin."""
    ws = tmp / "ws"
    ws.mkdir(parents=True)
    (ws / "lakefile.lean").write_text("import Lake\nopen Lake DSL\n\npackage ws\n")
    (ws / "lean-toolchain").write_text("leanprover/lean4:v4.32.0\n")
    return ws


def workspace(tmp: Path, text: str | None = None, name: str = "Demo.lean") -> Path:
    """A Lake workspace (lakefile + toolchain pin) holding one blueprint file; returns the file."""
    ws = lake_workspace(tmp)
    (ws / "Blueprint").mkdir()
    f = ws / "Blueprint" / name
    f.write_text(text if text is not None else DEMO.read_text(encoding="utf-8"), encoding="utf-8")
    return f


def fake_env(extra: dict[str, str] | None = None) -> dict[str, str]:
    env = dict(os.environ)
    env["HARNESS_LAKE"] = str(FAKES / "lake")
    env["PATH"] = f"{FAKES}{os.pathsep}{env.get('PATH', '')}"
    env["PYTHONPATH"] = str(ROOT)
    env.pop("OPENAI_BASE_URL", None)
    env.pop("OPENAI_API_KEY", None)
    env.update(extra or {})
    return env


_TOOLCHAINS: dict[tuple, object] = {}


def fake_toolchain(where: Path):
    """``find_toolchain(where, fake lake)``, probed once per directory and setting: a project
    run builds its gate and certifier per file and batch, and each probe (`lake env lean
    --version`) is two Python starts with the same answer. The key holds all the answer
    depends on: the directory, FAKE_LEAN_VERSION, the toolchain pin and the lakefiles."""
    from harness.lean.toolchain import find_toolchain

    def text(name: str) -> str | None:
        p = where / name
        return p.read_text(encoding="utf-8", errors="replace") if p.is_file() else None

    key = (str(where.resolve()), os.environ.get("FAKE_LEAN_VERSION"), text("lean-toolchain"),
           text("lakefile.lean"), text("lakefile.toml"))
    if key not in _TOOLCHAINS:
        _TOOLCHAINS[key] = find_toolchain(where, str(FAKES / "lake"))
    return _TOOLCHAINS[key]


def lean_gate(record: Record) -> Callable[[str, str, list[str]], GateOutcome]:
    """A gate for scheduler-level tests: the fake Lean compiles the merged file (real
    subprocess); any error fails it. (The real gate, harness.gate.verify, is used end to end.)"""
    from harness.lean.verdict import check_file

    tc = fake_toolchain(record.file.parent)

    def gate(text: str, base: str, labels: list[str], **kw) -> GateOutcome:
        bp = parse_text(text, record.file)
        v = check_file(tc, record.file.parent, bp, labels=labels, timeout_s=60)
        msgs = [m.line(str(record.file))
                for n in v.nodes for m in n.messages if m.is_error]
        msgs += [m.line(str(record.file)) for m in v.file_errors]
        return GateOutcome(not msgs, True, msgs)

    return gate


def fake_certifier(record: Record):
    """The final certification (harness.orchestrator.certify) through the fake Lean."""
    from harness.orchestrator.certify import Certifier

    tc = fake_toolchain(record.file.parent)
    return Certifier(record.file, tc, record.file.parent, 60)


def scripted_runner(bodies: Callable[[AttemptJob], str | None]) -> Callable[[AttemptJob],
                                                                            AttemptResult]:
    """An attempt that returns ``bodies(job)`` as an accepted candidate (None: a failure)."""

    def run(job: AttemptJob) -> AttemptResult:
        if job.kind == "repair":
            return AttemptResult(aid=job.aid, node=job.node, kind="repair", ok=True,
                                 repair="blocker", reason="scripted: cannot be proved")
        body = bodies(job)
        if body is None:
            return AttemptResult(aid=job.aid, node=job.node, ok=False, reason="scripted failure",
                                 cost=0.01, tokens=100)
        return AttemptResult(aid=job.aid, node=job.node, ok=True, body=body, role="prove",
                             cost=0.01, tokens=100)

    return run


def run_session(file: Path, runner, *, gate=None, events: list | None = None, **settings):
    s = Session(file, RunSettings(**{"stage": "2", "batch_window": 0.05, **settings}),
                notify=(lambda k, d: events.append((k, d))) if events is not None else None)

    def factory(session: Session, record: Record) -> Services:
        g = gate(record) if gate else lean_gate(record)
        return Services(runner=runner, make_gate=lambda: g, certifier=fake_certifier(record))

    return s, s.run(factory)


PY = sys.executable


def completion_config(ws: Path, url: str) -> None:
    """harness.toml for the scripted server: every role in completion mode, and a tactic
    portfolio that closes nothing (so proofs come from the model)."""
    (ws / "harness.toml").write_text(f"""
[endpoint]
base_url = "{url}"
default_model = "test-model"
[roles.construct]
mode = "completion"
[roles.audit]
mode = "completion"
[roles.prove]
mode = "completion"
[tactics]
tactics = ["bogus_tactic"]
""")
