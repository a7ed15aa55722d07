"""The Lean options `lake build` gives a module, read from the lakefile the way Lake adds them up.

How Lake does it (leanprover/lean4, ``src/lake/Lake``):
- ``Config/LeanLib.lean`` ``LeanLib.leanOptions`` = build type's ++ package's ``leanOptions`` ++
  library's ``leanOptions``; ``LeanLib.leanArgs`` = build type's ++ package's ``moreLeanArgs`` ++
  library's ``moreLeanArgs``. ``Config/Module.lean``: a module takes its library's.
- ``Build/Module.lean`` ``recFetchSetup`` puts ``options := mod.leanOptions`` into the module's
  ``ModuleSetup``; ``Build/Actions.lean`` ``compileLeanModule`` writes it to a setup file and runs
  ``lean <leanArgs> FILE … --setup FILE.setup.json --json``.
- Which library owns a module: ``Config/Module.lean`` ``Package.findModule?`` =
  ``leanLibs.findSomeRev?`` (the *last* declared library whose globs match; ``LeanLibConfig.
  isBuildableModule``). A file in no library (``lake lean`` on a scratch file,
  ``Build/Module.lean`` ``prepareLeanCommand``'s external branch) gets the package's options.

We pass the same options to ``lean`` as ``-D name=value`` (Lean's command line, ``src/Lean/
Shell.lean`` ``displayHelp``: "set a configuration option (see set_option command)"); ``weak.``
options keep their prefix (Lean ignores them where the option is not declared). Asking Lake
instead (``lake lean``) would re-check the build of every import on each of our compiles and
cannot run a scratch copy *as* the module it stands for, so the lakefile is read here: TOML
completely, ``lakefile.lean`` for the forms Lake's DSL uses for options (literal arrays,
``abbrev``/``def`` names defined in the file, ``++``). A ``lakefile.lean`` that computes its
options otherwise (Mathlib's ``….map fun s ↦ { s with name := `weak ++ s.name }``) is handed to
Lake itself: ``lake translate-config toml OUT`` (``CLI/Main.lean`` ``translateConfig``) evaluates
the configuration and writes it as TOML, which is then read as above. If Lake cannot either, the
options are refused in one line (fail closed: a check under the wrong options could accept what
`lake build` rejects). TOML globs: ``Config/Glob.lean`` ``Glob.toString`` (``M``, ``M.+``,
``M.*``).
"""

from __future__ import annotations

import re
import shutil
import tempfile
import tomllib
from dataclasses import dataclass, field, replace
from pathlib import Path

from harness.errors import InputError

Option = tuple[str, str]  # (name, value as Lean's -D parser reads it)


@dataclass(frozen=True)
class Lib:
    name: str
    options: tuple[Option, ...] = ()
    args: tuple[str, ...] = ()
    globs: tuple[tuple[str, str], ...] = ()  # (kind: one|submodules|andSubmodules, module)
    src_dir: str = "."

    def owns(self, module: str) -> bool:
        """Lake's ``isBuildableModule``: a glob matches (roots are globs here)."""
        for kind, root in self.globs:
            if kind == "one" and module == root:
                return True
            inside = module.startswith(root + ".")
            if (kind == "submodules" and inside) or (kind == "andSubmodules"
                                                     and (inside or module == root)):
                return True
        return False


@dataclass(frozen=True)
class LakeOptions:
    source: str  # the lakefile read ("" when the workspace has none)
    options: tuple[Option, ...] = ()  # the package's leanOptions
    args: tuple[str, ...] = ()  # the package's moreLeanArgs
    libs: tuple[Lib, ...] = field(default=())

    def lib_of(self, module: str | None) -> Lib | None:
        if not module:
            return None
        return next((lib for lib in reversed(self.libs) if lib.owns(module)), None)

    def for_module(self, module: str | None) -> tuple[list[Option], list[str]]:
        """(options, extra args) Lake uses for ``module`` (None: a file in no library)."""
        lib = self.lib_of(module)
        merged: dict[str, str] = {}
        for name, value in self.options + (lib.options if lib else ()):
            merged.pop(name, None)  # a later setting wins (NameMap insert), order kept
            merged[name] = value
        return list(merged.items()), list(self.args + (lib.args if lib else ()))

    def lean_args(self, module: str | None = None) -> list[str]:
        opts, args = self.for_module(module)
        return [f"-D{n}={v}" for n, v in opts] + args

    def describe(self, module: str | None = None) -> str:
        opts, args = self.for_module(module)
        shown = ", ".join(f"{n}={v}" for n, v in opts) or "none"
        return shown + (f"; moreLeanArgs {' '.join(args)}" if args else "")


def module_of(workspace: Path, file: Path | str | None, opts: LakeOptions | None = None
              ) -> str | None:
    """The module name of a workspace file (``Blueprint/Demo.lean`` -> ``Blueprint.Demo``),
    relative to the source directory of the library that owns it."""
    if file is None:
        return None
    try:
        rel = Path(file).resolve().relative_to(workspace.resolve())
    except (ValueError, OSError):
        return None
    if rel.suffix != ".lean":
        return None
    for src in sorted({lib.src_dir for lib in (opts.libs if opts else ())} | {"."},
                      key=len, reverse=True):
        try:
            inner = rel.relative_to(Path(src)) if src not in ("", ".") else rel
        except ValueError:
            continue
        mod = ".".join(inner.with_suffix("").parts)
        if opts is None or src in ("", ".") or opts.lib_of(mod):
            return mod
    return None


TRANSLATE_TIMEOUT_S = 300.0


def read_options(workspace: Path, lake: Path | str | None = None) -> LakeOptions:
    """The workspace lakefile's options (lakefile.lean first, as Lake prefers it). ``lake``: ask
    Lake to evaluate a lakefile.lean the text reading cannot follow."""
    lean, toml = workspace / "lakefile.lean", workspace / "lakefile.toml"
    if lean.is_file():
        try:
            return _read_lean(lean)
        except InputError as err:
            if lake is None:
                raise
            return _ask_lake(Path(lake), workspace, err)
    if toml.is_file():
        return _read_toml(toml)
    return LakeOptions(source="")


def _ask_lake(lake: Path, workspace: Path, why: InputError) -> LakeOptions:
    """``lake translate-config toml OUT``: Lake evaluates lakefile.lean (the user's own, trusted
    configuration: run unboxed, like ``lake env``) and writes it as TOML."""
    from harness.lean.run import run  # here: run.py -> sandbox.py must not import this module

    tmp = Path(tempfile.mkdtemp(prefix="harness-lakecfg-"))
    out = tmp / "lakefile.toml"
    try:
        res = run([str(lake), "translate-config", "toml", str(out)], cwd=workspace,
                  timeout_s=TRANSLATE_TIMEOUT_S, mem_mb=None, sandbox=False)
        if not res.ok or not out.is_file():
            tail = (res.stderr.strip() or res.stdout.strip() or "no output").splitlines()[-1]
            raise InputError(why.path, why.lineno, why.col,
                             f"{why.message}; `lake translate-config toml` could not evaluate "
                             f"it either: {tail[:160]}") from None
        got = _read_toml(out)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    return replace(got, source=f"{workspace / 'lakefile.lean'} (evaluated by Lake)")


# ----------------------------------------------------------------------------- lakefile.toml

def _toml_value(v: object) -> str:
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, (int, str)):
        return str(v)
    raise ValueError(f"unsupported option value {v!r}")


def _flatten(table: dict, prefix: str = "") -> list[Option]:
    """Lake's ``decodeLeanOptions``: dotted keys are nested tables (``pp.unicode.fun``)."""
    out: list[Option] = []
    for k, v in table.items():
        if isinstance(v, dict):
            out += _flatten(v, f"{prefix}{k}.")
        else:
            out.append((prefix + k, _toml_value(v)))
    return out


def _toml_globs(lib: dict) -> tuple[tuple[str, str], ...]:
    """TOML globs (Lake ``Config/Glob.lean``): ``M`` one, ``M.+`` submodules, ``M.*`` both."""
    raw = lib.get("globs") or lib.get("roots") or [lib["name"]]
    out = []
    for g in raw:
        if g.endswith(".*"):
            out.append(("andSubmodules", g[:-2]))
        elif g.endswith(".+"):
            out.append(("submodules", g[:-2]))
        else:
            out.append(("one", g))
    return tuple(out)


def _read_toml(path: Path) -> LakeOptions:
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
        libs = tuple(Lib(name=str(lib["name"]), options=tuple(_flatten(lib.get("leanOptions", {}))),
                         args=tuple(lib.get("moreLeanArgs", [])), globs=_toml_globs(lib),
                         src_dir=str(lib.get("srcDir", ".")))
                     for lib in data.get("lean_lib", []))
        return LakeOptions(source=str(path), options=tuple(_flatten(data.get("leanOptions", {}))),
                           args=tuple(data.get("moreLeanArgs", [])), libs=libs)
    except (tomllib.TOMLDecodeError, ValueError, KeyError, TypeError, AttributeError) as err:
        raise InputError(path, 1, 0, f"cannot read the Lean options Lake uses: {err}") from None


# ----------------------------------------------------------------------------- lakefile.lean

_COMMENT = re.compile(r"/-.*?-/|--[^\n]*", re.S)
_DEF = re.compile(r"^(?:@\[[^\]]*\]\s*)?(?:abbrev|def)\s+(\w+)\s*(?::[^\n]*?)?:=\s*", re.M)
_BLOCK = re.compile(r"^(?:@\[[^\]]*\]\s*)?(package|lean_lib)\s+«?([\w.]+)»?", re.M)
_FIELD = re.compile(r"^\s+(leanOptions|moreLeanArgs|globs|roots|srcDir)\s*:=\s*", re.M)
_OPT = re.compile(r"⟨\s*`([\w.«»]+)\s*,\s*(.+?)\s*⟩|\{\s*name\s*:=\s*`([\w.«»]+)\s*,\s*"
                  r"value\s*:=\s*(.+?)\s*\}", re.S)
_GLOB = re.compile(r"(?:\.(one|submodules|andSubmodules)\s+)?`([\w.«»]+)")


class _Unreadable(Exception):
    def __init__(self, offset: int, what: str) -> None:
        super().__init__(what)
        self.offset = offset


def _blank_comments(text: str) -> str:
    return _COMMENT.sub(lambda m: re.sub(r"[^\n]", " ", m.group(0)), text)


def _extent(text: str, start: int) -> int:
    """End of the expression starting at ``start``: the next line at or left of the indentation
    of a new field / declaration (bracket depth 0)."""
    depth, i = 0, start
    while i < len(text):
        c = text[i]
        if c in "([{⟨":
            depth += 1
        elif c in ")]}⟩":
            depth -= 1
        elif c == "\n" and depth <= 0:
            nxt = text[i + 1:i + 200]
            if re.match(r"\s*(\w+\s*:=|$)", nxt.split("\n", 1)[0]) or not nxt[:1].isspace():
                return i
        i += 1
    return i


def _value(raw: str, off: int) -> str:
    v = raw.strip().strip("()").strip()
    v = re.sub(r"\s*:\s*(Nat|Bool|String)\s*$", "", v)
    m = re.fullmatch(r"(?:(?:LeanOptionValue)?\.of(Bool|Nat|String)\s+)?(.+)", v)
    body = m.group(2).strip() if m else v
    if body in ("true", "false") or re.fullmatch(r"\d+", body):
        return body
    if re.fullmatch(r'"[^"\\]*"', body):
        return body[1:-1]
    raise _Unreadable(off, f"option value `{raw.strip()}` is not a literal")


def _eval(expr: str, off: int, defs: dict[str, tuple[str, int]], kind: str,
          seen: frozenset[str] = frozenset()) -> list:
    """``#[…] ++ NAME ++ …`` -> items (options, strings or globs)."""
    out: list = []
    for part in _split_concat(expr):
        p = part.strip()
        while p.startswith("(") and p.endswith(")"):
            p = p[1:-1].strip()
        if p.startswith("#[") and p.endswith("]"):
            inner = p[2:-1]
            if kind == "options":
                found = list(_OPT.finditer(inner))
                rest = _OPT.sub("", inner).replace(",", "").strip()
                if rest:
                    raise _Unreadable(off, f"cannot read `{rest[:40]}` as a LeanOption")
                for m in found:
                    name = (m.group(1) or m.group(3)).replace("«", "").replace("»", "")
                    out.append((name, _value(m.group(2) or m.group(4), off)))
            elif kind == "args":
                out += re.findall(r'"([^"\\]*)"', inner)
            else:
                out += [(k or "one", n.replace("«", "").replace("»", ""))
                        for k, n in _GLOB.findall(inner)]
        elif re.fullmatch(r"[\w.]+", p) and p in defs and p not in seen:
            body, at = defs[p]
            out += _eval(body, at, defs, kind, seen | {p})
        elif p in ("#[]", ""):
            continue
        else:
            raise _Unreadable(off, f"cannot read `{p[:60]}` (a literal array, `++`, or a name "
                                   "defined in the lakefile)")
    return out


def _split_concat(expr: str) -> list[str]:
    parts, depth, cur, i = [], 0, "", 0
    while i < len(expr):
        c = expr[i]
        depth += c in "([{⟨"
        depth -= c in ")]}⟩"
        if depth == 0 and expr.startswith("++", i):
            parts.append(cur)
            cur, i = "", i + 2
            continue
        cur += c
        i += 1
    return parts + [cur]


def _read_lean(path: Path) -> LakeOptions:
    raw = path.read_text(encoding="utf-8", errors="replace")
    text = _blank_comments(raw)
    defs = {m.group(1): (text[m.end():_extent(text, m.end())], m.end()) for m in _DEF.finditer(text)}
    blocks = list(_BLOCK.finditer(text))
    pkg: dict = {}
    libs: list[Lib] = []
    try:
        for i, b in enumerate(blocks):
            end = blocks[i + 1].start() if i + 1 < len(blocks) else len(text)
            nxt = re.search(r"^(?!\s)(?=\S)", text[b.end():end], re.M)  # the next top-level line
            stop = b.end() + nxt.start() if nxt and nxt.start() > 0 else end
            fields: dict = {}
            for f in _FIELD.finditer(text, b.end(), stop):
                expr = text[f.end():_extent(text, f.end())]
                kind = {"leanOptions": "options", "moreLeanArgs": "args", "srcDir": "src",
                        "globs": "globs", "roots": "globs"}[f.group(1)]
                if kind == "src":
                    fields["srcDir"] = expr.strip().strip('"')
                else:
                    fields[f.group(1)] = _eval(expr, f.end(), defs, kind)
            if b.group(1) == "package":
                pkg = fields
            else:
                globs = fields.get("globs") or [("one", g) for _, g in fields.get("roots", [])] \
                    or [("one", b.group(2))]
                libs.append(Lib(name=b.group(2), options=tuple(fields.get("leanOptions", [])),
                                args=tuple(fields.get("moreLeanArgs", [])), globs=tuple(globs),
                                src_dir=fields.get("srcDir", ".")))
    except _Unreadable as err:
        line = text.count("\n", 0, err.offset) + 1
        col = err.offset - (text.rfind("\n", 0, err.offset) + 1)
        raise InputError(path, line, col, f"cannot read the Lean options Lake uses: {err}; "
                                          "write them as literal arrays (or use lakefile.toml)"
                         ) from None
    return LakeOptions(source=str(path), options=tuple(pkg.get("leanOptions", [])),
                       args=tuple(pkg.get("moreLeanArgs", [])), libs=tuple(libs))
