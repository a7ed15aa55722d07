"""The LLM-free prover: try a configured list of one-tactic bodies through Lean.

Each tactic ``t`` is tried as the body ``by t`` with :func:`check_node`. Search tactics that end in
``?`` (``exact?``, ``apply?``, ``simp?``, ``aesop?``) are never the answer themselves: their
``Try this: …`` suggestion is extracted and re-checked as an ordinary body, so the recorded proof
is deterministic and fast to re-check. A tactic Lean cannot certify (timeout, crash) is skipped;
if none could be certified at all the result says so (``cannot_certify``).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from harness.agents.tools import ProveTools, accepted
from harness.errors import HarnessError
from harness.lean.messages import try_this



@dataclass
class TacticRun:
    tactic: str
    body: str
    outcome: str  # proved | failed | cannot_certify | no_suggestion
    detail: str = ""


@dataclass
class PortfolioResult:
    status: str  # proved | failed | cannot_certify
    body: str | None = None
    tactic: str | None = None
    runs: list[TacticRun] = field(default_factory=list)
    reason: str = ""


def suggestion(messages: list, region: str = "body") -> str | None:
    """The `Try this: …` text Lean printed for a search tactic (first one in the body)."""
    for m in messages:
        if m.region == region and m.severity == "information":
            found = try_this(m.data)  # every shape Lean prints (harness.lean.messages)
            if found:
                return found[0]
    return None


def run_portfolio(tools: ProveTools, tactics: list[str], max_tries: int = 20) -> PortfolioResult:
    res = PortfolioResult(status="failed")
    certified = 0
    for tac in [t.strip() for t in tactics if t.strip()][:max_tries]:
        body = f"by {tac}" if "\n" not in tac else "by\n" + tac
        try:
            v = tools.verdict(body)
        except HarnessError as err:
            res.runs.append(TacticRun(tac, body, "cannot_certify", err.line()))
            continue
        certified += 1
        if not accepted(v):
            res.runs.append(TacticRun(tac, body, "failed", v.first_error or v.status))
            continue
        if tac.split()[0].endswith("?"):
            sugg = suggestion(v.messages)
            if sugg is None:
                res.runs.append(TacticRun(tac, body, "no_suggestion",
                                          "closed the goal but printed no `Try this:`"))
                continue
            body = f"by {sugg}" if "\n" not in sugg else "by\n  " + sugg.replace("\n", "\n  ")
            try:
                v = tools.verdict(body)
            except HarnessError as err:
                res.runs.append(TacticRun(tac, body, "cannot_certify", err.line()))
                continue
            if not accepted(v):
                res.runs.append(TacticRun(tac, body, "failed",
                                          f"suggestion failed: {v.first_error or v.status}"))
                continue
        res.runs.append(TacticRun(tac, body, "proved"))
        res.status, res.body, res.tactic = "proved", body, tac
        res.reason = f"proved by `{body}`"
        return res
    if certified == 0 and res.runs:
        res.status = "cannot_certify"
        res.reason = f"Lean could not check any tactic: {res.runs[0].detail}"
    else:
        res.reason = f"none of {len(res.runs)} tactics closed the goal"
    return res
