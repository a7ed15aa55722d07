"""Issue #20's third red-team pass, our own corpus (tests/gate/round3/*.txt): every attack is
rejected and every legitimate proof accepted by `verify --static-only --base HEAD --allow LABEL`,
run as a user runs it (a subprocess, on a real git repository)."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from harness.blueprint import parse_text
from harness.blueprint.write import apply_edit, replace_body
from tests.gate.corpus import BASE
from tests.gate.test_cli import base_repo, harness

HERE = Path(__file__).resolve().parent / "round3"


@dataclass
class R3Case:
    name: str
    label: str
    klass: str = ""
    sections: dict[str, str] = field(default_factory=dict)
    subs: list[tuple[str, str]] = field(default_factory=list)

    def apply(self, text: str) -> str:
        for old, new in self.subs:
            assert old in text, (self.name, old)
            text = text.replace(old, new, 1)
        body, before = self.sections.get("body"), self.sections.get("before")
        if body is None:
            return text
        bp = parse_text(text)
        return apply_edit(bp, self.label, body, before) if before else replace_body(bp, self.label,
                                                                                   body)


def load(name: str) -> list[R3Case]:
    cases: list[R3Case] = []
    cur: R3Case | None = None
    key: str | None = None
    buf: list[str] = []
    pending_sub: str | None = None

    def flush() -> None:
        nonlocal pending_sub
        if cur is None or key is None:
            return
        val = "\n".join(buf).strip("\n")
        if key == "class":
            cur.klass = val
        elif key == "sub":
            pending_sub = val
        elif key == "to":
            assert pending_sub is not None, cur.name
            cur.subs.append((pending_sub, val))
            pending_sub = None
        else:
            cur.sections[key] = val

    for line in (HERE / name).read_text(encoding="utf-8").splitlines():
        if line.startswith("@@@ "):
            flush()
            _, case_name, label = line.split()
            cur, key, buf = R3Case(case_name, label), None, []
            cases.append(cur)
        elif line.startswith("@@ ") and cur is not None:
            flush()
            parts = line[3:].split(maxsplit=1)
            key, buf = parts[0], parts[1:]
        elif key is not None:
            buf.append(line)
    flush()
    return cases


ATTACKS = load("attacks.txt")
LEGIT = load("legit.txt")
_LINE = re.compile(r"^\S+:\d+:\d+: ", re.M)


def _verify(tmp_path: Path, case: R3Case) -> tuple[int, str]:
    ws = base_repo(tmp_path)
    (ws / "Blueprint/Base.lean").write_text(case.apply(BASE), encoding="utf-8")
    out = harness("verify", "Blueprint/Base.lean", "--lock", "base.lock.json", "--static-only",
                  "--base", "HEAD", "--allow", case.label, cwd=ws)
    assert "Traceback" not in out.stderr, out.stderr
    return out.returncode, out.stdout + out.stderr


def test_corpus_covers_every_static_class() -> None:
    assert {c.klass for c in ATTACKS} >= {"1", "2", "3", "4", "5", "6", "7"}
    assert len(LEGIT) >= 20


@pytest.mark.parametrize("case", ATTACKS, ids=lambda c: f"{c.klass}-{c.name}")
def test_attack_is_rejected(case: R3Case, tmp_path: Path) -> None:
    code, out = _verify(tmp_path, case)
    assert code in (1, 2), out
    assert _LINE.search(out), out  # a FILE:LINE:COL line says why


@pytest.mark.parametrize("case", LEGIT, ids=lambda c: c.name)
def test_legitimate_proof_is_accepted(case: R3Case, tmp_path: Path) -> None:
    code, out = _verify(tmp_path, case)
    assert code == 0, out
