"""LLM roles on any OpenAI-compatible endpoint, plus an LLM-free tactic prover.

Public API (what the orchestrator and the CLI use):

* config:   ``load_config(path|None, workspace) -> HarnessConfig``; ``cfg.role(name, model)``;
            ``resolve_endpoint(cfg) -> Endpoint`` (``.configured``: an LLM is usable).
* llm:      ``LLMClient(endpoint, cfg, ledger=None)``; ``Ledger(budgets, prices)`` (thread-safe,
            per node/role/run; ``snapshot()``); ``BudgetExceeded``; ``LLMError``;
            ``EndpointConfigError`` (an LLMError and a UsageError: bad key / URL, exit 2,
            raised through ``run_role``); ``Transcript``;
            ``estimate_tokens(text)`` (chars / 4).
* prover:   ``prove_with_tactics(bp, label, workspace=, cfg=, toolchain=)`` and
            ``prove_with_llm(bp, label, workspace=, cfg=, client=, toolchain=, model=, graph=,
            feedback=)`` (feedback: earlier failures, oldest first; shown bounded, newest first)
            -> ``AttemptResult`` (status proved|failed|budget|error|cannot_certify|unverified,
            body, helpers, reason, verdict, usage, transcript); ``prove_node`` picks one.
* blueprinting: ``construct(source, …)``, ``refine(text, source, findings, …)``,
            ``audit(bp, source, …)`` -> ``RoleOutcome``; ``repair(bp, label, failures, …)``
            -> ``RepairOutcome`` (``new_text`` for a split); ``read_source(path)``;
            ``blueprint_problems(text)``.
* roles:    ``run_role(role, user, client=, cfg=, node=, toolbox=, extract=, validate=)``.
* context:  ``build_context(bp, label, graph=None, max_tokens=…) -> NodeContext``;
            ``context_benchmark(n_nodes, seed, sample)`` (for docs/benchmarks.md).

Nothing here accepts anything into the record: Lean verdicts are advisory, the gate decides.
"""
