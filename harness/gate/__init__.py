"""The trust gate: nothing enters the record unless it passes (threat model: docs/trust.md).

Library API (stable; the orchestrator and the prove agent call it)::

    from harness.gate.lock import make_lock, load_lock, Lock
    from harness.gate.verify import verify, GateReport, GateFailure

    lock = make_lock(parse_file(path))            # statement lock (pydantic, versioned)
    lock.save(lock_path)                           # atomic write
    lock = load_lock(lock_path)                    # InputError on corrupt/foreign/wrong version
    report = verify(new_text, path, lock,
                    base_text=old_text, allow={"lem:x"},   # scope: only lem:x's body + helpers
                    allow_splits={"lem:y"},                # lem:y may be split (placeholder nodes)
                    lean=toolchain, workspace=ws)          # Toolchain or (bp, labels)->FileVerdict
    report.passed / report.certified / report.failures / report.exit_code  # 0 / 1 / 3
    report.elaborated  # "compared" | "not in lock" | "not run";  report.notes: info lines

    # with Lean: elaborated-type hashes for the lock (CannotCertify if Lean rejects the file)
    from harness.gate.elaborated import elaborated_hashes
    lock = make_lock(bp, elaborated=elaborated_hashes(bp, keys, toolchain, workspace=ws))

Modules: tokens (a second, Lean-faithful lexer), fingerprint (normal forms), forbidden (the
static scan), lock, scope (diff discipline, split mode), elaborated (type hashes), leanstep
(compile + axioms + types), verify (all of it).
"""
