"""A project run's files share one event log; each file's repair step counts only its own
restate rounds against ``max_rounds`` (harness/orchestrator/breakage.py, FileEvents)."""

from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace

from harness.orchestrator.breakage import make_record_repair
from harness.orchestrator.diagnose import Diagnosis, LeanFinding
from harness.orchestrator.events import EventLog


class _Record:
    def __init__(self, rel: str) -> None:
        self.rel, self.file = rel, Path(rel)

    def head_text(self) -> str:
        return "theorem t : 1 = 2 := sorry\n"

    def head(self) -> str:
        return "0" * 40


class _Agents:
    def __init__(self) -> None:
        self.restates = 0

    def missing_models(self) -> list[str]:
        return []

    def restate(self, text, source, findings):  # noqa: ANN001, ANN201
        self.restates += 1  # the model gives up: the round is spent, nothing committed
        return SimpleNamespace(ok=False, text=None, reason="no answer", tokens=0, cost=0.0)


def _repair(tmp_path: Path, log: EventLog, rel: str, agents: _Agents):  # noqa: ANN202
    finding = LeanFinding(file=rel, line=1, col=12, node="t", message="type mismatch")
    session = SimpleNamespace(log=log, dir=tmp_path, settings=SimpleNamespace(max_rounds=2),
                              notify=lambda *a, **k: None)
    return make_record_repair(session, _Record(rel), agents, check=None,
                              diagnose=lambda text: Diagnosis(True, [finding], ""))


def test_another_files_restate_rounds_do_not_use_up_this_files_rounds(tmp_path) -> None:
    log = EventLog(tmp_path / "events.jsonl")
    a, b = _Agents(), _Agents()
    ok_a, why_a = _repair(tmp_path, log, "P/A.lean", a)(["[lean] P/A.lean:1:12: error"])
    assert not ok_a and "after 2 restate rounds" in why_a and a.restates == 2
    ok_b, why_b = _repair(tmp_path, log, "P/B.lean", b)(["[lean] P/B.lean:1:12: error"])
    assert b.restates == 2, why_b  # its own two rounds, not none
    assert not ok_b and "after 2 restate rounds" in why_b
    rounds = [(e.get("file"), e["round"]) for e in log.events if e["kind"] == "restate"]
    assert rounds == [("P/A.lean", 1), ("P/A.lean", 2), ("P/B.lean", 1), ("P/B.lean", 2)]
    # a resumed repair of A has no rounds left; an untagged round (older log) counts for all
    again = _Agents()
    _repair(tmp_path, log, "P/A.lean", again)(["[lean] P/A.lean:1:12: error"])
    assert again.restates == 0
    log.append("restate", round=1, ok=False)
    c = _Agents()
    _repair(tmp_path, log, "P/C.lean", c)(["[lean] P/C.lean:1:12: error"])
    assert c.restates == 1
