"""`harness report`: the data taken from a real run's event log (real git, the fake Lean gate),
the command, the report written at the end of every run (also on interrupt), and the page in a
real headless Chromium."""

from __future__ import annotations

import json
import signal
import subprocess
import threading
import time

import networkx as nx
import pytest

from harness.blueprint.dag import analyse
from harness.blueprint.parse import parse_text
from harness.blueprint.source import parse_file
from harness.orchestrator.events import read_events
from harness.orchestrator.state import run_dir
from harness.report.runreport import build_report, explain, realised_critical_path, run_summary
from tests.orchestrator.support import fake_env, run_session, scripted_runner, workspace
from tests.orchestrator.test_run_cli import PY, config, harness
from tests.orchestrator.test_run_stops import _default_sigint
from tests.support.llm_server import ScriptedLLM, text

POISONED, HOPELESS = "lem:add-shuffle", "thm:my-rev-my-rev"


@pytest.fixture(scope="module")
def finished_run(tmp_path_factory):
    """A real stage-2 run of the demo: one candidate the gate rejects (bisected out), one node
    that never gets a proof (blocked), the rest proved."""
    f = workspace(tmp_path_factory.mktemp("run"))

    def body(job):
        if job.node == HOPELESS:
            return None
        return "by\n  exact bogus_lemma" if job.node == POISONED and job.attempt == 1 \
            else "by\n  omega"

    s, res = run_session(f, scripted_runner(body), workers=8, batch_size=6, batch_window=2.0,
                         max_attempts=3, attempts_before_repair=2)
    return f, s.dir, res


def test_summary_matches_the_event_log(finished_run):
    f, d, res = finished_run
    events = read_events(d / "events.jsonl").events
    result = json.loads((d / "result.json").read_text())
    # the DAG the run scheduled on: the file before its first merge (the proofs that landed no
    # longer name their dependencies)
    first = next(e["commit"] for e in events if e["kind"] == "merged")
    start = subprocess.run(["git", "show", f"{first}^:Blueprint/Demo.lean"], cwd=f.parent.parent,
                           capture_output=True, text=True, check=True, timeout=30).stdout
    g = analyse(parse_text(start, f)).graph
    s = run_summary(events, result, g)
    # every finished attempt is one bar, on the worker that was dispatched with it
    att = [e for e in events if e["kind"] == "attempt"]
    dispatch = {e["aid"]: e for e in events if e["kind"] == "dispatch"}
    assert sorted(a["aid"] for a in s["attempts"]) == sorted(e["aid"] for e in att)
    for a in s["attempts"]:
        assert a["worker"] == dispatch[a["aid"]]["worker"] and 0 <= a["start"] <= a["end"]
    # the poisoned candidate is a culprit of a batch that needed more than one gate call
    bad = [b for b in s["batches"] if b["rejected"]]
    assert [list(b["rejected"]) for b in bad] == [[f"{POISONED}#1"]]
    assert bad[0]["gate_calls"] >= 2 and bad[0]["merged"] >= 1
    assert "bogus_lemma" in s["nodes"][POISONED]["message"]
    # blockers with their reason, as in result.json
    assert [b["node"] for b in s["blockers"]] == [HOPELESS] == \
        [k for k, v in result["nodes"].items() if v["status"] == "blocked"]
    assert "attempt" in s["blockers"][0]["reason"]
    # ... and the reason says what failed: the node's last failed attempt's own reason, not
    # the scheduler's "(last: attempt failed)"
    last = [e for e in att if e["node"] == HOPELESS and not e["ok"]][-1]["reason"]
    assert last and "attempt failed)" not in s["blockers"][0]["reason"]
    assert " ".join(last.split())[:200] in s["blockers"][0]["reason"]
    assert s["nodes"][HOPELESS]["reason"] == s["blockers"][0]["reason"]
    # cost per attempt adds up to the run's cost
    assert round(sum(p["cost"] for p in s["series"]), 6) == round(result["cost_usd"], 6)
    # the realised critical path is a chain of the DAG ending at the last node merged
    path = [c["node"] for c in s["critical_path"]]
    assert len(path) >= 2 and all(g.has_edge(u, v) for u, v in zip(path, path[1:]))
    last = max(s["merged_at"].values())
    assert s["merged_at"][path[-1]] == last
    times = [c["merged_at"] for c in s["critical_path"]]
    assert times == sorted(times)
    # the command reads the same starting DAG from the record
    assert build_report(d)[1]["critical_path"] == s["critical_path"]


def test_a_blockers_reason_names_what_failed():
    err = "Demo.lean:61:8: error: Unknown identifier `bogus_lemma`"
    assert explain("3 attempts failed (last: attempt failed)", err) == \
        f"3 attempts failed (last: {err})"
    assert explain("attempt failed", err) == f"attempt failed: {err}"
    assert explain("repair: the statement is false", err) == \
        f"repair: the statement is false; last error: {err}"
    assert explain(f"3 attempts failed; last: {err}", err) == f"3 attempts failed; last: {err}"
    assert explain("3 attempts failed (last: attempt failed)", "") == \
        "3 attempts failed (last: attempt failed)"
    assert explain("", "") == "blocked (no error was recorded)"
    long = explain("attempt failed", "x" * 5000)
    assert len(long) < 450 and long.endswith("…")


def test_realised_critical_path_follows_the_latest_dependency():
    g = nx.DiGraph([("a", "c"), ("b", "c"), ("c", "d"), ("x", "d"), ("old", "a")])
    merged = {"a": 1.0, "b": 3.0, "c": 4.0, "x": 2.0, "d": 6.0}  # "old" was proved before
    assert [c["node"] for c in realised_critical_path(g, merged)] == ["b", "c", "d"]
    assert realised_critical_path(g, {}) == []


def test_report_written_at_the_end_of_the_run_and_by_the_command(finished_run, tmp_path):
    f, d, res = finished_run
    auto = d / "report.html"
    assert auto.is_file()
    page = auto.read_text()
    for section in ("Worker timeline", "Gate batches and bisections", "Cost and tokens",
                    "Blockers", "Realised critical path", "Graph by final status"):
        assert section in page
    assert HOPELESS in page and 'data-key="lem:add-shuffle"' in page
    assert "<th>counts</th><td>proved " in page and "blocked 1" in page  # words, not a repr
    out = tmp_path / "r.html"
    r = harness(["report", str(d / "events.jsonl"), "-o", str(out), "--json"], f.parent)
    assert r.returncode == 0, r.stderr
    info = json.loads(r.stdout)
    assert info["blocked"] == 1 and info["batches"] >= 2 and out.is_file()
    r2 = harness(["report", str(f), "-o", str(tmp_path / "r2.html")], f.parent)  # by its file
    assert r2.returncode == 0 and "1 blocked" in r2.stdout


def test_report_bad_input_is_one_line_exit_2(tmp_path):
    r = harness(["report", str(tmp_path)], tmp_path)
    assert r.returncode == 2 and r.stderr.count("\n") == 1 and "not a run" in r.stderr
    d = tmp_path / "run"
    d.mkdir()
    (d / "events.jsonl").write_text('{"v":1,"seq":1,"t":1,"kind":"run_started"}\nnot json\n'
                                    '{"v":1,"seq":3,"t":2,"kind":"note"}\n')
    r = harness(["report", str(d)], tmp_path)
    assert r.returncode == 2 and r.stderr.startswith(f"{d / 'events.jsonl'}:2:0: ")
    assert "Traceback" not in r.stderr
    # valid JSON, but an event without the fields its kind has: the same one line
    for bad in ('{"v":1,"seq":2,"t":2,"kind":"attempt","node":"a"}',
                '{"v":1,"seq":2,"t":2,"kind":"merge_intent","seq":"x"}',
                '{"v":1,"seq":2,"t":"now","kind":"dispatch","aid":"a#1","node":"a"}'):
        (d / "events.jsonl").write_text('{"v":1,"seq":1,"t":1,"kind":"run_started"}\n'
                                        f"{bad}\n")
        r = harness(["report", str(d)], tmp_path)
        assert r.returncode == 2 and r.stderr.count("\n") == 1, (bad, r.stderr)
        assert r.stderr.startswith(f"{d / 'events.jsonl'}:2:0: malformed event"), r.stderr
    # a result.json that is not a run's result
    (d / "events.jsonl").write_text('{"v":1,"seq":1,"t":1,"kind":"run_started"}\n')
    for bad in ("[]", '{"nodes": [1]}', '{"nodes": {"lem:a": "proved"}}'):
        (d / "result.json").write_text(bad)
        r = harness(["report", str(d)], tmp_path)
        assert r.returncode == 2 and r.stderr.count("\n") == 1, (bad, r.stderr)
        assert r.stderr.startswith(f"{d / 'result.json'}:1:0: unreadable result"), r.stderr


def test_killed_run_shows_attempts_in_flight(tmp_path):
    d = tmp_path / "run"
    d.mkdir()
    evs = [{"kind": "run_started", "run_id": "x", "file": str(tmp_path / "missing.lean")},
           {"kind": "dispatch", "aid": "n#1", "node": "n", "attempt": 1, "worker": 0},
           {"kind": "dispatch", "aid": "m#1", "node": "m", "attempt": 1, "worker": 1},
           {"kind": "attempt", "aid": "m#1", "node": "m", "ok": False, "role": "prove",
            "reason": "no", "tokens": 5, "cost": 0.5}]
    (d / "events.jsonl").write_text("".join(
        json.dumps({"v": 1, "seq": i + 1, "t": 100.0 + i, **e}) + "\n" for i, e in enumerate(evs)))
    text_, s = build_report(d)  # no result.json, and the blueprint is gone
    assert {a["aid"]: a["outcome"] for a in s["attempts"]} == {"n#1": "in flight",
                                                               "m#1": "failed"}
    assert "no result.json" in text_ and "could not be read" in text_


def test_report_written_on_interrupt(tmp_path):
    f = workspace(tmp_path)
    ws = f.parent.parent
    d = run_dir(ws, f)
    served = {"n": 0}
    mu = threading.Lock()

    def reply(req):  # two good proofs, then proofs on which Lean hangs
        with mu:
            served["n"] += 1
            hang = served["n"] > 2
        return text("```lean\nby\n  fake_hang\n```" if hang else "```lean\nby\n  omega\n```")

    with ScriptedLLM(reply) as srv:
        config(ws, srv.base_url, workers=2, batch_window=0.1, batch_size=2)
        p = subprocess.Popen([PY, "-m", "harness", "run", str(f), "--plain"], cwd=ws,
                             env=fake_env(), stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                             text=True, preexec_fn=_default_sigint)
        try:
            deadline = time.monotonic() + 90
            while time.monotonic() < deadline and p.poll() is None:
                with mu:
                    if served["n"] > 3:
                        break
                time.sleep(0.05)
            time.sleep(0.5)
            p.send_signal(signal.SIGINT)
            _, err = p.communicate(timeout=90)
        finally:
            if p.poll() is None:
                p.kill()
                p.wait()
    assert p.returncode == 130, err
    page = (d / "report.html").read_text()
    assert "interrupted" in page and "Worker timeline" in page


CHARTS_DONE = ("new Promise(r => { const t = setInterval(() => { if (document.body.dataset"
               ".charts) { clearInterval(t); r(document.body.dataset.charts); } }, 20); })")


def test_report_page_in_browser(finished_run, browser, artifacts, tmp_path):
    f, d, res = finished_run
    page = d / "report.html"
    assert page.stat().st_size <= 1_500_000
    browser.open(page.as_uri(), settle_s=0.3)
    assert browser.evaluate(CHARTS_DONE) == "ready"
    # the header's counts are the graph's
    header = browser.evaluate("Array.from(document.querySelectorAll('table.facts tr'))"
                              ".find(tr => tr.cells[0].textContent === 'counts').cells[1]"
                              ".textContent")
    drawn = browser.evaluate("Array.from(document.querySelectorAll('#graph g.node'))"
                             ".filter(g => g.dataset.external !== 'true')"
                             ".map(g => g.dataset.state)")
    want = {s: drawn.count(s) for s in dict.fromkeys(drawn)}
    assert dict((k, int(v)) for k, v in (p.rsplit(" ", 1) for p in header.split(", "))) == want
    charts = browser.evaluate("Array.from(document.querySelectorAll('.chart'))"
                              ".map(c => [c.id, c.querySelectorAll('svg.main-svg').length])")
    assert {c for c, _ in charts} == {"chart-timeline", "chart-gates", "chart-cost",
                                      "chart-per_node"}
    assert all(n > 0 for _, n in charts), charts  # plotly drew every chart
    bars = browser.evaluate("document.querySelectorAll('#chart-timeline .bars .point').length")
    n_bars = len([e for e in read_events(d / "events.jsonl").events
                  if e["kind"] in ("attempt", "gate")])
    assert bars == n_bars
    keys = set(browser.evaluate("Array.from(document.querySelectorAll('#graph g.node'))"
                                ".map(g => g.dataset.key)"))
    a = analyse(parse_file(f))
    assert keys == set(a.own)
    states = browser.evaluate("Object.fromEntries(Array.from(document.querySelectorAll("
                              "'#graph g.node')).map(g => [g.dataset.key, g.dataset.state]))")
    assert states[HOPELESS] == "blocked" and states[POISONED] == "proved"
    browser.evaluate(f"document.querySelector('g.node[data-key=\"{POISONED}\"]')"
                     ".dispatchEvent(new MouseEvent('click', {bubbles: true}))")
    detail = browser.evaluate("document.getElementById('detail').innerText")
    assert "Last gate message" in detail and "bogus_lemma" in detail
    assert browser.console_errors() == []
    assert browser.requests() == [page.as_uri()]
    browser.screenshot(artifacts / "run-report.png")


def test_run_without_attempts_says_so_in_words(tmp_path, browser):
    """No empty chart: a run that made no attempt says so, in words."""
    d = tmp_path / "run"
    d.mkdir()
    evs = [{"kind": "run_started", "run_id": "x", "file": str(tmp_path / "missing.lean")},
           {"kind": "run_finished", "run_id": "x"}]
    (d / "events.jsonl").write_text("".join(
        json.dumps({"v": 1, "seq": i + 1, "t": 100.0 + i, **e}) + "\n" for i, e in enumerate(evs)))
    text_, s = build_report(d)
    assert s["attempts"] == [] and s["series"] == []
    page = tmp_path / "report.html"
    page.write_text(text_)
    assert page.stat().st_size <= 1_500_000
    browser.open(page.as_uri(), settle_s=0.3)
    assert browser.evaluate(CHARTS_DONE) == "ready"
    assert browser.evaluate("document.querySelectorAll('.chart').length") == 0
    words = browser.evaluate("Array.from(document.querySelectorAll('.empty-chart'))"
                             ".map(p => p.id + ': ' + p.textContent)")
    assert len(words) == 3 and any("No attempt ran" in w for w in words), words
    assert browser.console_errors() == []
    assert browser.requests() == [page.as_uri()]
