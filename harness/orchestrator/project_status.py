"""`status DIR|ROOT_MODULE`: a project run (`run DIR`) seen per file, live or after it stopped.

For each file of the project: the nodes proved (read from the text, as `status` does), with an
attempt running, accepted and waiting for the gate, queued (every dependency proved, no attempt
running), waiting for dependencies, blocked (with the reason), and the spend on its nodes
(stage 1's cost of the file included). Also the merges rolled back because they broke the files
importing them, and the record's breakages: why the run stopped where it did.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from harness.blueprint.dag import Analysis
from harness.orchestrator.state import live_status, rebuild


def _targets(target: Path) -> list[Path]:
    """The targets a project run over ``target`` may have been started with: the directory and
    its root module are one project (`run Gen` or `run Gen.lean`), with two run ids."""
    target = target.resolve()  # `status .` names the directory it is in
    if target.is_dir():
        return [target, target.with_name(target.name + ".lean")]
    return [target, target.with_suffix("")]


def project_live(workspace: Path, target: Path) -> dict[str, Any] | None:
    """The run of this project (started on the directory or its root module), newest first."""
    found = [(t, live) for t in _targets(target)
             if (live := live_status(workspace, t)) is not None]
    if not found:
        return None
    found.sort(key=lambda tl: (bool(tl[1].get("active")), tl[1].get("last_event") or 0),
               reverse=True)
    target_used, live = found[0]
    live["target"] = str(target_used)
    return live


def per_file(live: dict[str, Any], a: Analysis, rows: list[dict[str, Any]],
             workspace: Path) -> dict[str, Any]:
    """Adds ``files`` (rel path -> counts, nodes, spend), ``rolled_back`` / ``breakage`` and
    ``voided`` (repairs rolled back) to ``live`` (which still holds its ``events``)."""
    events = live.get("events") or []
    st = rebuild(events)
    root = workspace.resolve()

    def rel(path: str | None) -> str:
        if not path:
            return "?"
        try:
            return Path(path).resolve().relative_to(root).as_posix()
        except ValueError:
            return path

    node_of: dict[str, str] = {}  # a scheduler key (a part of a shared label too) -> node
    file_of: dict[str, str] = {}
    for r in rows:
        file_of[r["key"]] = rel(r.get("file"))
        node_of[r["key"]] = r["key"]
        for p in a.parts(r["key"]) if r["key"] in a.graph else []:
            node_of[p.key] = r["key"]
    running = {node_of.get(w["node"], w["node"]) for w in live.get("workers") or []}
    gate = {node_of.get(e["node"], e["node"]) for e in st.accepted.values()}
    blocked = {node_of.get(n, n): why for n, why in (live.get("blocked") or {}).items()}
    files: dict[str, dict[str, Any]] = {}
    for r in rows:
        f = files.setdefault(file_of[r["key"]], {
            "proved": 0, "running": [], "gate": [], "queued": [], "waiting": 0,
            "blocked": {}, "merged": 0, "attempts": 0, "cost": 0.0})
        k = r["key"]
        if r["state"] == "proved":
            f["proved"] += 1
        elif k in blocked:
            f["blocked"][k] = blocked[k]
        elif k in running:
            f["running"].append(k)
        elif k in gate:
            f["gate"].append(k)
        elif r["state"] == "ready":
            f["queued"].append(k)
        elif r["state"] != "informal":
            f["waiting"] += 1
    merged = _merged_on_branch(workspace, str(live.get("run_id"))) or set(st.merged_nodes)
    for n in merged:
        if (f := files.get(file_of.get(node_of.get(n, n), ""))) is not None:
            f["merged"] += 1
    for ev in events:
        cost = float(ev.get("cost", 0.0) or 0.0)
        if ev.get("kind") == "stage" and ev.get("file") in files:
            files[ev["file"]]["cost"] += cost
        elif ev.get("node") is not None and ev.get("kind") == "attempt":
            f = files.get(file_of.get(node_of.get(ev["node"], ev["node"]), ""))
            if f is not None:
                f["attempts"] += 1
                f["cost"] += cost
    for f in files.values():
        f["cost"] = round(f["cost"], 6)
    live["files"] = files
    live["rolled_back"] = [
        {"batch": e.get("batch"), "file": e.get("file"), "commit": e["rolled_back"],
         "broken": sorted(e.get("broken") or {}),
         "why": next(iter(m[0] for m in (e.get("broken") or {}).values() if m), "")}
        for e in events if e.get("kind") == "importers" and e.get("rolled_back")]
    live["breakage"] = [{"batch": e.get("batch"), "repaired": e.get("repaired"),
                         "file": e.get("file"), "reason": e.get("reason")}
                        for e in events if e.get("kind") == "breakage"]
    by_seq = {e.get("seq"): e for e in events}
    live["voided"] = [{"file": e.get("file"), "reason": e.get("reason"),
                       "events": len(e.get("seqs") or []),
                       "restated": sorted({n for q in e.get("seqs") or ()
                                           for n in (by_seq.get(q) or {}).get("nodes") or ()
                                           if (by_seq.get(q) or {}).get("kind") == "restated"})}
                      for e in events if e.get("kind") == "voided"]
    last = next((e for e in reversed(events) if e.get("kind") == "run_finished"), None)
    live["stop_reason"] = last.get("stop_reason") if last else None
    return live


def _merged_on_branch(workspace: Path, run_id: str, limit: int = 20_000) -> set[str] | None:
    """The nodes this run merged, read from the branch (the truth: a commit made just before a
    kill is there before the log says so); None when git cannot be read."""
    import git

    from harness.orchestrator.gitrepo import Repo
    from harness.orchestrator.record import TRAILER

    try:
        repo = Repo(workspace)
    except (git.InvalidGitRepositoryError, git.NoSuchPathError):
        return None
    try:
        out: set[str] = set()
        c = repo.head.commit  # first parents through `cat-file` (no `rev-list` process)
        for _ in range(limit):
            tr = dict(TRAILER.findall(c.message))
            if tr.get("Harness-Run") == run_id:
                out.update(n for n in tr.get("Harness-Nodes", "").split(",") if n)
            if not c.parents:
                break
            c = c.parents[0]
        return out
    except (git.GitError, ValueError):
        return None
    finally:
        repo.close()


def render(live: dict[str, Any]) -> list[str]:
    """Plain lines (the caller escapes and prints them): one per file, then the rollbacks."""
    out: list[str] = []
    for rel, f in live.get("files", {}).items():
        parts = [f"{f['proved']} proved"]
        if f["running"]:
            parts.append(f"{len(f['running'])} running ({', '.join(f['running'][:3])})")
        if f["gate"]:
            parts.append(f"{len(f['gate'])} waiting for the gate")
        if f["queued"]:
            parts.append(f"{len(f['queued'])} queued")
        if f["waiting"]:
            parts.append(f"{f['waiting']} waiting for dependencies")
        if f["blocked"]:
            parts.append(f"{len(f['blocked'])} blocked")
        parts.append(f"{f['attempts']} attempts, ${f['cost']:.2f}")
        out.append(f"  {rel}: " + "; ".join(parts))
        for k, why in list(f["blocked"].items())[:3]:
            out.append(f"    blocked {k}: {why[:200]}")
    for r in live.get("rolled_back", []):
        out.append(f"  rolled back {str(r['commit'])[:10]} (a merge into {r['file']}): it broke "
                   f"{', '.join(r['broken'])}: {str(r['why'])[:200]}")
    for v in live.get("voided", []):
        what = f" (restated {', '.join(v['restated'][:5])})" if v["restated"] else ""
        out.append(f"  a repair of {v['file']} was rolled back{what}: its {v['events']} "
                   f"restate/audit events do not count: {str(v['reason'])[:200]}")
    for b in live.get("breakage", []):
        state = "repaired" if b.get("repaired") else "not repaired"
        out.append(f"  the record failed outside a batch ({state}): {str(b['reason'])[:200]}")
    return out
