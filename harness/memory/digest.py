"""A failed attempt -> its digest. Pure: reads the reason text the attempt produced (Lean's
messages as `render_verdict` prints them, gate and contract rejections) and the candidate."""

from __future__ import annotations

import re
import time

from harness.memory.model import AttemptDigest

# (class, pattern on the reason); the first that matches names the failure
ERROR_CLASSES: tuple[tuple[str, re.Pattern[str]], ...] = (
    ("budget", re.compile(r"budget|spending cap", re.I)),
    ("timeout", re.compile(r"timed? ?out|deterministic timeout|maxHeartbeats", re.I)),
    ("unknown_identifier", re.compile(r"unknown (identifier|constant|namespace)", re.I)),
    ("type_mismatch", re.compile(r"type mismatch|application type mismatch", re.I)),
    ("unsolved_goals", re.compile(r"unsolved goals", re.I)),
    ("tactic_failed", re.compile(r"(linarith|omega|simp|norm_num|positivity|decide|aesop|"
                                 r"nlinarith|exact\?|apply\?) failed|failed to (prove|synthesize)",
                                 re.I)),
    ("sorry", re.compile(r"declaration uses ['`]sorry['`]|\(sorry\)|contains sorry", re.I)),
    ("forbidden", re.compile(r"forbidden|not allowed|axiom", re.I)),
    ("syntax", re.compile(r"unexpected token|expected term|parse error", re.I)),
    ("gate", re.compile(r"gate|lock|scope", re.I)),
    ("no_answer", re.compile(r"no fenced|no answer|did not answer|empty answer", re.I)),
)
# Lean >= 4.2x: Unknown identifier `x`; older: unknown identifier 'x' (names may contain ')
_UNKNOWN = re.compile(r"unknown (?:identifier|constant) (?:`([^`]+)`|'(\S+?)'(?=[\s,.;:]|$))",
                      re.I)
_GOAL = re.compile(r"^\s*⊢\s*(.+)$", re.M)
_ERROR = re.compile(r"error:\s*(.+)")
_WISH = re.compile(r"(?:\bhave|\blemma|\btheorem)\s+([A-Za-z_][\w.']*)\s*[^:]*:[^\n]*?:=\s*"
                   r"(?:by\s+)?sorry", re.M)

MAX_FIELD = 300


def _clip(s: str, n: int = MAX_FIELD) -> str:
    s = " ".join(s.split())
    return s if len(s) <= n else s[: n - 1] + "…"


def error_class(reason: str) -> str:
    for name, pat in ERROR_CLASSES:
        if pat.search(reason):
            return name
    return "other" if reason.strip() else ""


def approach(body: str, lines: int = 3) -> str:
    """The candidate's first non-empty lines: enough to say what was tried."""
    got = [ln.strip() for ln in body.splitlines() if ln.strip()][:lines]
    return _clip(" / ".join(got))


def digest_of(*, aid: str, reason: str, body: str = "", role: str = "", model: str = "",
              cost: float = 0.0, seconds: float = 0.0, at: float | None = None) -> AttemptDigest:
    err = _ERROR.search(reason)
    goal = _GOAL.search(reason)
    unknown = list(dict.fromkeys(m.group(1) or m.group(2) for m in _UNKNOWN.finditer(reason)))
    wished = list(dict.fromkeys(m.group(1) for m in _WISH.finditer(body)))
    first = err.group(1) if err else reason.strip().splitlines()[0] if reason.strip() else ""
    return AttemptDigest(aid=aid, role=role, model=model, approach=approach(body),
                         error_class=error_class(reason), first_error=_clip(first),
                         first_goal=_clip(goal.group(1)) if goal else "",
                         unknown_names=unknown[:8], wished_lemmas=wished[:8],
                         cost_usd=round(cost, 6), seconds=round(seconds, 3),
                         at=time.time() if at is None else at)
