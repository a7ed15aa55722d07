"""`--executor ray` (docs/cluster.md): attempts as Ray tasks, in a room of its own.

The orchestrator knows only its executor seam (harness/orchestrator/executor.py: AttemptJob,
AttemptResult, Runner, Executor); this room implements it on Ray and is chosen by the run's
assembly (harness/assemble.py), never imported by `harness.orchestrator` (tests/cluster).
Ray itself is imported only when a run asks for it: this package imports nothing at load.

* :mod:`.setup`    — ``require_ray`` (missing: one line, exit 2), the worker spec, the executor
* :mod:`.connect`  — ``connect`` (ray.init with SIGINT/SIGTERM held, the harness's handlers
                     kept), Ray's driver errors to stderr, the capacity check
* :mod:`.executor` — ``RayExecutor``: tasks, node services, re-dispatch of lost attempts
* :mod:`.node`     — the per-node service actor (one-time check, warm REPL, load)
* :mod:`.worker`   — the worker side without Ray: ``WorkerSpec``, the node check, runners
* :mod:`.bench`    — `bench executor` / `bench warm`
"""
