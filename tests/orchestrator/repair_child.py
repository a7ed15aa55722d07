"""The child process of tests/orchestrator/test_repair_interrupt.py: `run Gen` (stage 2) with the
real lock gate per file and a scripted repair of `Gen/A.lean`. ``pause``: when the round
compiles A's importer after A's repair (the merged file on disk, the outcome not yet recorded),
the importer's gate writes ``importer-check`` in the workspace and waits for a signal;
``raise``: it raises there instead; ``resume``: no pause. Exit status as `python -m harness`
(130/143 after a signal). Prints the run's result as JSON on its last line."""

from __future__ import annotations

import os
import sys
import time
from pathlib import Path

from harness import signals
from harness.orchestrator.services import LockedGate
from tests.orchestrator.repair_support import (BROKEN_A, FIXED_A, fake_path, locked_gate,
                                               restating, run_locked)

MARK = "importer-check"


def gate_for(mode: str):
    def gate(session, record, ws: Path):
        g = locked_gate(session, record, ws)
        if mode in ("pause", "raise") and record.rel == "Gen/B.lean":
            class Pausing(LockedGate):
                def __call__(self, text, base_text, labels, **kw):
                    a = (ws / "Gen" / "A.lean").read_text()
                    if FIXED_A in a and not labels and text == base_text:  # the round's check
                        (ws / MARK).write_text(str(os.getpid()))
                        if mode == "raise":
                            raise RuntimeError("the importer check failed unexpectedly")
                        time.sleep(300)
                    return super().__call__(text, base_text, labels, **kw)

            g.__class__ = Pausing
        return g

    return gate


def main(ws: Path, mode: str) -> int:
    os.environ["PATH"] = fake_path()
    calls: list[str] = []
    repair = restating({"Gen/A.lean": {BROKEN_A: FIXED_A}}, {"Gen/A.lean": ["broken_a"]},
                       calls)
    try:
        s, res, _ = run_locked(ws, repair, gate=gate_for(mode))
    except KeyboardInterrupt:
        return signals.exit_status(signals.received() or 2)
    print(res.model_dump_json(), flush=True)
    print("calls=" + ",".join(calls), flush=True)
    return res.exit_code


if __name__ == "__main__":
    signals.install()
    sys.exit(main(Path(sys.argv[1]), sys.argv[2]))
