"""The Lean side of the preflight: toolchain, the dependencies' oleans, the REPL, pinned revisions.

Paths follow Lake's defaults: packages under ``packagesDir`` (manifest; default
``.lake/packages``), each built into ``<package>/.lake/build/lib/lean/<Module>.olean``
(leanprover/lean4 ``src/lake/Lake/Config/Defaults.lean``: ``defaultBuildDir`` =
``.lake/build``, ``defaultLeanLibDir`` = ``lib/lean``). Nothing here compiles Lean: the only
subprocess is ``lake env lean --version`` (harness.lean.toolchain) — and, for `doctor` only
(``probe=True``), one small ``import Mathlib`` elaboration under the address-space cap.
Also here: the Lean options Lake gives each library (harness.lean.options) and whether the
sandbox (harness.lean.sandbox) works; without it run/prove/lock refuse to start (exit 2) unless
the user opted out with ``--unsafe-no-sandbox``.
"""

from __future__ import annotations

import json
import os
import re
import shutil
from pathlib import Path
from typing import Any

from harness.errors import HarnessError, InputError, UsageError
from harness.lean import sandbox
from harness.lean.run import MEM_ENV, default_mem_mb, run
from harness.lean.toolchain import ELAN_INSTALL, find_toolchain, lean_available
from harness.preflight.report import Check

# required package (as named in the lakefile) -> (its root module, how to get its oleans)
PACKAGES = {"mathlib": ("Mathlib", "lake exe cache get"),
            "LeanArchitect": ("Architect", "lake build Architect")}
CHECK_NAMES = {"mathlib": "mathlib", "LeanArchitect": "architect"}
_REQUIRE = re.compile(r"^\s*require\s+«?([\w.\-]+)»?", re.M)
_TOML_NAME = re.compile(r"^\s*name\s*=\s*\"([^\"]+)\"", re.M)


def toolchain_spec(workspace: Path) -> str | None:
    f = workspace / "lean-toolchain"
    if not f.is_file():
        return None
    return f.read_text(encoding="utf-8", errors="replace").strip() or None


def toolchain_check(workspace: Path, lake: str | None) -> tuple[Check, Any]:
    """(the check, the Toolchain or None). No Lean at all is not blocking here: run/prove/lock
    have their own documented behaviour without Lean (exit 3 / tactics unavailable / static
    lock). A Lean that does not match ``lean-toolchain`` is: every verdict would be suspect."""
    explicit = lake or os.environ.get("HARNESS_LAKE")
    if not explicit and not lean_available(None):
        return Check(name="lean", status="missing", found="no lake on PATH or in ~/.elan/bin",
                     fix=f"install elan: {ELAN_INSTALL}"), None
    try:
        tc = find_toolchain(workspace, lake)
    except HarnessError as err:
        if isinstance(err, InputError):  # the lakefile's options cannot be read
            return Check(name="lean-options", status="missing", found=err.line(), blocking=True,
                         fix="write leanOptions as literal arrays, or use lakefile.toml"), None
        return Check(name="lean", status="missing", found=err.line(),
                     fix="check --lake / HARNESS_LAKE and the elan installation",
                     blocking=isinstance(err, UsageError)), None
    spec = toolchain_spec(workspace)
    if tc.lean_version is None:
        return Check(name="lean", status="warn", found=f"{tc.lake}: Lean version unreadable",
                     fix="run `lake env lean --version` in the workspace"), tc
    found = f"Lean {tc.lean_version} via {tc.lake}"
    if tc.pinned and tc.pinned != tc.lean_version:
        return Check(name="lean", status="missing", blocking=True,
                     found=f"{found}, but lean-toolchain pins {spec}",
                     fix=f"run `elan toolchain install {spec}` and use elan's lake (it follows "
                         "lean-toolchain), or pass --lake"), tc
    return Check(name="lean", status="ok",
                 found=found + (f" (lean-toolchain: {spec})" if spec else "")), tc


def manifest(workspace: Path) -> dict[str, Any]:
    try:
        data = json.loads((workspace / "lake-manifest.json").read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return data if isinstance(data, dict) else {}


def required_packages(workspace: Path) -> list[str]:
    """The direct requirements of the workspace (lakefile.lean `require`, lakefile.toml
    `[[require]] name`)."""
    names: list[str] = []
    lean, toml = workspace / "lakefile.lean", workspace / "lakefile.toml"
    if lean.is_file():
        names = _REQUIRE.findall(lean.read_text(encoding="utf-8", errors="replace"))
    elif toml.is_file():
        text = toml.read_text(encoding="utf-8", errors="replace")
        for block in text.split("[[require]]")[1:]:
            m = _TOML_NAME.search(block.split("\n[", 1)[0])
            if m:
                names.append(m.group(1))
    return names


def package_dir(workspace: Path, name: str) -> Path:
    base = manifest(workspace).get("packagesDir") or ".lake/packages"
    return workspace / base / name


def olean_path(workspace: Path, name: str) -> Path:
    module = PACKAGES[name][0]
    return package_dir(workspace, name) / ".lake" / "build" / "lib" / "lean" / f"{module}.olean"


def package_checks(workspace: Path) -> list[Check]:
    """Mathlib's build and LeanArchitect's `Architect` oleans, for the ones the lakefile
    requires (without them every compile rebuilds Mathlib, or fails on `import Architect`)."""
    required = {n.lower(): n for n in required_packages(workspace)}
    revs = {p.get("name", "").lower(): p for p in manifest(workspace).get("packages", [])
            if isinstance(p, dict)}
    out: list[Check] = []
    for name, (module, fix) in PACKAGES.items():
        check = CHECK_NAMES[name]
        if name.lower() not in required:
            out.append(Check(name=check, status="skipped", found="not required by the lakefile"))
            continue
        olean = olean_path(workspace, name)
        rev = _rev(revs.get(name.lower()))
        if olean.is_file():
            out.append(Check(name=check, status="ok",
                             found=f"{olean.relative_to(workspace)}" + (f" ({rev})" if rev
                                                                        else "")))
        else:
            out.append(Check(name=check, status="missing", blocking=True,
                             found=f"no {module}.olean under "
                                   f"{package_dir(workspace, name).relative_to(workspace)}",
                             fix=f"run `{fix}` in {workspace}"))
    return out


def _rev(p: dict[str, Any] | None) -> str:
    if not p:
        return ""
    rev, tag = str(p.get("rev") or "")[:12], p.get("inputRev")
    return f"{tag} @ {rev}" if tag and rev else (tag or rev)


def repl_check(workspace: Path) -> Check:
    """The REPL binary (advisory only: the harness works without it, more slowly)."""
    cands = [package_dir(workspace, "REPL") / ".lake" / "build" / "bin" / "repl",
             workspace / ".lake" / "build" / "bin" / "repl"]
    which = shutil.which("repl")
    found = next((p for p in cands if p.is_file() and os.access(p, os.X_OK)), None)
    path = str(found) if found else which
    revs = {p.get("name", "").lower(): p for p in manifest(workspace).get("packages", [])
            if isinstance(p, dict)}
    rev = _rev(revs.get("repl"))
    if path:
        return Check(name="repl", status="ok", found=path + (f" ({rev})" if rev else ""))
    return Check(name="repl", status="warn", found="no repl binary (optional: goals come from "
                 "the compiler instead)",
                 fix="run `lake build repl` (REPL pinned in the lakefile)" if rev or
                 "repl" in {n.lower() for n in required_packages(workspace)} else
                 "add leanprover-community/repl to the lakefile and `lake build repl`")


def options_check(tc: Any) -> Check:
    """The options every Lean run of the harness gets, as `lake build` would (per library)."""
    opts = tc.options
    if opts is None or not opts.source:
        return Check(name="lean-options", status="ok", found="no lakefile options")
    parts = [f"package: {opts.describe(None)}"]
    for lib in opts.libs:
        parts.append(f"{lib.name}: {opts.describe(lib.globs[0][1] if lib.globs else lib.name)}")
    return Check(name="lean-options", status="ok",
                 found=f"{Path(opts.source).name} (as lake build): " + " | ".join(parts))


def sandbox_check(*, blocking: bool = True, tc: Any = None,
                  workspace: Path | None = None) -> Check:
    """Is the box for prover-written Lean there (and, with Lean, does Lean start in it)?
    Blocking (when Lean would run) unless the user opted out."""
    ok, why = sandbox.status()
    if ok and tc is not None and workspace is not None and sandbox.required():
        res = run(tc.lean("--version"), cwd=workspace, timeout_s=120, mem_mb=None)
        if not res.ok:
            tail = (res.stderr.strip() or res.stdout.strip() or "no output").splitlines()[-1]
            return Check(name="sandbox", status="missing", blocking=blocking,
                         found=f"bubblewrap works, but Lean does not start in the box: "
                               f"{tail[:160]}",
                         fix="see docs/lean-backend.md (the sandbox), or accept running prover "
                             f"code unboxed: `run --unsafe-no-sandbox` / {sandbox.UNSAFE_ENV}=1")
        why += "; Lean starts in it"
    if ok:
        return Check(name="sandbox", status="ok", found=why)
    if not sandbox.required():
        return Check(name="sandbox", status="warn", found=f"{why}; running Lean UNBOXED "
                     f"({sandbox.UNSAFE_ENV} / --unsafe-no-sandbox)", fix=sandbox.INSTALL)
    return Check(name="sandbox", status="missing", blocking=blocking, found=why,
                 fix=f"{sandbox.INSTALL}, or accept running prover code unboxed: "
                     f"`run --unsafe-no-sandbox` / {sandbox.UNSAFE_ENV}=1")


PROBE_TEXT = "import Mathlib\n\nexample : (2 : ℕ) + 2 = 4 := rfl\n"


def memory_check(tc: Any, workspace: Path, *, timeout_s: float = 600.0) -> Check:
    """Elaborate a tiny `import Mathlib` file under the cap (doctor only: seconds, GBs)."""
    cap = default_mem_mb()
    shown = f"{cap} MB" if cap else "no cap"
    if tc is None:
        return Check(name="memory-cap", status="skipped", found=f"{shown} (no Lean to probe)")
    if not (package_dir(workspace, "mathlib") / ".lake").is_dir():
        return Check(name="memory-cap", status="skipped",
                     found=f"{shown} (no Mathlib build to probe with)")
    tmp = workspace / ".harness" / "tmp"
    tmp.mkdir(parents=True, exist_ok=True)
    probe = tmp / "MemoryProbe.lean"
    probe.write_text(PROBE_TEXT, encoding="utf-8")
    try:
        res = run(tc.lean("--json", str(probe.relative_to(workspace))), cwd=workspace,
                  timeout_s=timeout_s, mem_mb=cap)
    except HarnessError as err:
        return Check(name="memory-cap", status="warn", found=f"{shown}: not probed ({err})")
    finally:
        probe.unlink(missing_ok=True)
    if res.memory_exceeded:
        return Check(name="memory-cap", status="missing", blocking=True,
                     found=f"{shown}: `import Mathlib` fails under it ({res.memory_line()})",
                     fix=f"raise [lean] memory_mb in harness.toml (or {MEM_ENV}); 0 = no cap")
    if not res.ok:
        tail = (res.stderr.strip() or res.stdout.strip()).splitlines()[-1:] or ["no output"]
        return Check(name="memory-cap", status="warn",
                     found=f"{shown}: probe failed ({tail[0][:120]})")
    return Check(name="memory-cap", status="ok",
                 found=f"{shown}: `import Mathlib` elaborated under it in {res.wall_s:.1f}s")


def lean_checks(workspace: Path, lake: str | None, *, probe: bool = False
                ) -> tuple[list[Check], Any]:
    """The toolchain and, when Lean was found, the dependencies' oleans, the options Lake
    uses, the sandbox, and (``probe``: `doctor`) the memory cap under `import Mathlib`."""
    tc_check, tc = toolchain_check(workspace, lake)
    checks = [tc_check]
    if tc is not None:
        checks += package_checks(workspace)
        checks.append(options_check(tc))
    checks.append(sandbox_check(blocking=tc is not None, tc=tc, workspace=workspace))
    if probe:
        checks.append(memory_check(tc, workspace))
    return checks, tc
