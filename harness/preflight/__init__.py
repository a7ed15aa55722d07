"""Preflight: is this machine ready for `run` / `prove` / `lock`? Checked before any work.

* :mod:`.report`   — ``Check`` (one row: ok / missing / warn / skipped, what was found, how to
  fix), ``enforce()`` (the first blocking problem -> exit 2 with one line), the roles a command
  will use.
* :mod:`.lean`     — the toolchain against ``lean-toolchain``, Mathlib's and LeanArchitect's
  oleans, the REPL binary, the pinned revisions (no Lean compile: files and ``lean --version``).
* :mod:`.endpoint` — every role that will be used has a model; the endpoint answers
  (``GET /v1/models``, then one minimal chat call of one output token).

`harness doctor` prints the same checks as a table (harness/commands/doctor.py).
"""
