"""User text in the run's live view, `status` of a live run and `resume-node` is text, not rich
markup: a label `lem:[/draft]` crashed them (MarkupError) and `lem:[red]b` lost its `[red]`.
(tests/cli/test_markup_text.py covers plan/status/run/search/graph on the file itself.)"""

from __future__ import annotations

import io
from pathlib import Path

from rich.console import Console

from harness.commands.status import _print_project, _print_placement
from harness.memory.model import Blocker
from harness.orchestrator.nodememory import memory_store
from harness.orchestrator.view import LiveView
from tests.cli.projects import harness

LABELS = ("lem:[/draft]", "lem:[red]b")


def _console() -> tuple[Console, io.StringIO]:
    buf = io.StringIO()
    return Console(file=buf, width=200, force_terminal=False, highlight=False), buf


def test_status_placement_prints_the_running_label() -> None:
    out, buf = _console()
    live = {"hosts": {"h[/x]": {"attempts": 2}},
            "workers": [{"node": lab, "attempt": 1, "host": "h[/x]", "node_id": "n", "pid": 7}
                        for lab in LABELS]}
    _print_placement(out, live)
    text = buf.getvalue()
    assert all(f"running {lab} #1 on h[/x]" in text for lab in LABELS), text
    assert "attempts by host: h[/x] 2" in text


def test_status_of_a_project_run_prints_the_files_lines_as_written() -> None:
    out, buf = _console()
    live = {"files": {"A[/b].lean": {"proved": 0, "running": list(LABELS), "gate": [],
                                     "queued": [], "waiting": 0,
                                     "blocked": {"lem:[/c]": "no [/proof]"}, "attempts": 1,
                                     "cost": 0.0}}}
    _print_project(out, live)
    text = buf.getvalue()
    assert "A[/b].lean: 0 proved; 2 running (lem:[/draft], lem:[red]b)" in text, text
    assert "blocked lem:[/c]: no [/proof]" in text


def test_the_live_view_shows_labels_and_reasons_as_written() -> None:
    out, buf = _console()
    view = LiveView(out)
    try:
        view("dispatch", {"worker": 0, "node": LABELS[0], "kind": "prove", "attempt": 1})
        view("blocked", {"node": LABELS[1], "reason": "failed to synthesize [/inst]"})
        out.print(view._render())
    finally:
        view.live.stop()
    text = buf.getvalue()
    assert LABELS[0] in text and f"blocked {LABELS[1]}: failed to synthesize [/inst]" in text


def test_resume_node_prints_the_label_as_written(tmp_path: Path) -> None:
    (tmp_path / "lakefile.lean").write_text("import Lake\n")
    (tmp_path / "A.lean").write_text('@[blueprint "lem:[/draft]"]\ntheorem a : True := by\n'
                                     "  sorry\n")
    memory_store(tmp_path).escalate("lem:[/draft]", "h",
                                    Blocker(kind="other", explanation="needs [/a] person"))
    r = harness("resume-node", "A.lean", "lem:[/draft]", cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    assert r.stdout.startswith("lem:[/draft]: back to the provers"), r.stdout
