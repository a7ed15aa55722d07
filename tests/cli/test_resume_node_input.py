"""`resume-node` on bad input: one `FILE:LINE:COL:` line at the node (or the file), with a
did-you-mean for a mistyped path; exit 2."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

from tests.cli.projects import ROOT, harness

DEMO = "Blueprint/Demo.lean"


def _ws(tmp_path: Path) -> Path:
    (tmp_path / "lakefile.lean").write_text("import Lake\n")
    (tmp_path / "Blueprint").mkdir()
    shutil.copy(ROOT / DEMO, tmp_path / DEMO)
    return tmp_path


def test_a_node_nobody_escalated_is_named_at_its_line(tmp_path: Path) -> None:
    ws = _ws(tmp_path)
    r = harness("resume-node", DEMO, "lem:pow-ten", cwd=ws)
    assert r.returncode == 2 and r.stderr.count("\n") == 1 and "Traceback" not in r.stderr
    where, msg = r.stderr.strip().split(": ", 1)
    path, line, col = where.rsplit(":", 2)
    plan = json.loads(harness("plan", DEMO, "--json", cwd=ws).stdout)
    decl_line = next(x["line"] for x in plan["leaves"] if x["key"] == "lem:pow-ten")  # as plan
    assert (path, int(line), col) == (DEMO, decl_line, "0")
    assert msg == "lem:pow-ten was not escalated (no node needs a person)"


def test_a_mistyped_file(tmp_path: Path) -> None:
    r = harness("resume-node", "Blueprint/Dmo.lean", "lem:pow-ten", cwd=_ws(tmp_path))
    assert r.returncode == 2 and r.stderr.strip() == (
        "Blueprint/Dmo.lean:1:0: no such blueprint file (did you mean `Blueprint/Demo.lean`?)")
