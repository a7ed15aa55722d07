/-!
# SLT: statistical learning theory on Mathlib — the sorry-free library

This root module collects the modules of `SLT/`. The directory holds **only sorry-free** material;
at present it is empty: every statement of the development still lives in the blueprint
(`Blueprint/SLT/*.lean`, imported by `Blueprint.lean`), whose proofs are `sorry_using […]`.

## Promotion of blueprint material

A blueprint file `Blueprint/SLT/Foo.lean` is promoted to `SLT/Foo.lean` only when all of the
following hold:

1. every node of the file is proved (no `sorry`, `sorry_using`, `admit` in the file), and
   `python -m harness status Blueprint/SLT/Foo.lean` reports every node proved;
2. the verify gate passes against the committed statement lock:
   `python -m harness verify Blueprint/SLT/Foo.lean --lock Blueprint/SLT/Foo.lock.json`
   (statements unchanged, forbidden-construct scan clean, full compile);
3. the axiom audit of the file reports only `propext`, `Classical.choice` and `Quot.sound`
   (no `sorryAx`, no `Lean.ofReduceBool`, no custom axioms).

Promotion then does, in one commit:

* move the file to `SLT/Foo.lean` (module `SLT.Foo`) and add `import SLT.Foo` to this file;
* keep `namespace SLT` and every declaration name unchanged, so later layers and their proofs
  keep referring to the same constants;
* remove the `@[blueprint …]` attributes and `import Architect`: the library depends on Mathlib
  only. The informal statement becomes the declaration's docstring, followed by a line
  `Blueprint label: lem:…` for traceability; the informal proof sketch is dropped (the formal
  proof replaces it);
* add the Mathlib copyright header (the `SLT` library runs the full Mathlib linter set, header
  check included, and CI builds it with `--wfail`);
* rewrite `import Blueprint.SLT.Foo` to `import SLT.Foo` in the remaining blueprint files, delete
  `Blueprint/SLT/Foo.lock.json` and the `Blueprint.lean` import.

Dependencies run one way only: `SLT` never imports `Blueprint` or `Architect`.
-/
