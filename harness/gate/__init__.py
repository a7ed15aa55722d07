"""The trust gate: nothing enters the record unless it passes (threat model: docs/trust.md).

Library API (stable; the orchestrator and the prove agent call it)::

    from harness.gate.lock import make_lock, load_lock, Lock
    from harness.gate.verify import verify, GateReport, GateFailure

    lock = make_lock(parse_file(path))            # statement lock (pydantic, versioned)
    lock.save(lock_path)                           # atomic write
    lock = load_lock(lock_path)                    # InputError on corrupt/foreign/wrong version
    report = verify(new_text, path, lock,
                    base_text=old_text, allow={"lem:x"},   # scope: only lem:x's body + helpers
                    lean=toolchain, workspace=ws)          # Toolchain or (bp, labels)->FileVerdict
    report.passed / report.certified / report.failures / report.exit_code  # 0 / 1 / 3

Modules: tokens (a second, Lean-faithful lexer), fingerprint (normal forms), forbidden (the
static scan), lock, scope (diff discipline), leanstep (compile + axioms), verify (all of it).
"""
