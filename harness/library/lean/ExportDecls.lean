import Lean

/-!
# ExportDecls: the environment's constants, one JSON line each

Run by `harness/library/exact.py` as `lake env lean --run ExportDecls.lean MOD…` in the workspace:
imports the modules `MOD…` (each must be built), walks every constant of the environment, skips
the names Lean itself treats as implementation details, and prints one compact JSON object per
line on stdout (streamed, flushed every 1 000 lines):

`{"name", "kind", "module", "line", "type", "doc", "protected", "private"}`

`name` is the user-facing name (a private `_private.M.0.n` prints as `n`, `"private": true`).
The last line is `{"done": N}` so the reader knows the walk was not cut short.

UNVERIFIED: no Lean toolchain was available where this was written; every API below was looked
up in leanprover/lean4's sources (cited per use), not compiled. The harness treats any failure
of this program as "no exact pass" and keeps the scanned index. Citations name the stored
lean4 source version read (commit, or search-index file id where the index gave no commit).
-/

-- `lean --run` prints this file's own messages on stdout before `main` runs, and any line that is
-- not JSON voids the answer (`exact_run.py`): no linter warning may be emitted.
-- `getLinterValue` falls back to `linter.all` (src/Lean/Linter/Basic.lean, file id 17248021644).
set_option linter.all false

open Lean Meta

namespace HarnessExport

/-- The kind word of the harness index (`harness/library/model.py`, `LibDecl.kind`).
`ConstantInfo` constructors: `src/Lean/Declaration.lean`; `isClass`: `src/Lean/Class.lean`;
`isStructure`: `src/Lean/Structure.lean` (`getStructureInfo? env n |>.isSome`). -/
def kindOf (env : Environment) (n : Name) (ci : ConstantInfo) (inst : Bool) : String :=
  match ci with
  | .thmInfo _ => if inst then "instance" else "theorem"
  | .defnInfo _ => if inst then "instance" else "def"
  | .axiomInfo _ => "axiom"
  | .opaqueInfo _ => if inst then "instance" else "opaque"
  | .quotInfo _ => "quot"
  | .inductInfo _ =>
    if isClass env n then "class" else if isStructure env n then "structure" else "inductive"
  | .ctorInfo _ => "constructor"
  | .recInfo _ => "recursor"

/-- Lean's own notion of a name users never write: `Name.isInternalDetail` (`_`-prefixed parts,
`match_N`, `proof_N`, `eq_N`, numeric parts; `src/Lean/Data/Name.lean`), auxiliary recursors
(`casesOn`, `recOn`, `brecOn`, `below`: `isAuxRecursor`, `src/Lean/AuxRecursor.lean`),
`noConfusion` (`isNoConfusion`, same file) and recursors (`isRecCore`, `src/Lean/MonadEnv.lean`)
— the same three tests
`findDeclarationRanges?` uses to recognise generated declarations
(`src/Lean/DeclarationRange.lean`). `user` is the name with any private prefix removed. -/
def hidden (env : Environment) (n user : Name) : Bool :=
  user.isAnonymous || user.isInternalDetail || isAuxRecursor env n || isNoConfusion env n ||
    isRecCore env n

/-- The width the type is laid out in: wide enough that a type is one line, as the index stores
signatures (`Std.Format.pretty f width indent column`, src/Init/Data/Format/Basic.lean). -/
def typeWidth : Nat := 1000000

/-- One constant as one JSON line. The type is printed by `PrettyPrinter.ppExpr`
(src/Lean/PrettyPrinter.lean, file id 1538027463: `ppExpr (e : Expr) : MetaM Format`, the
delaborator run in *our* MetaM), not `Meta.ppExpr`: that one goes through `Lean.ppExprWithInfos`
(src/Lean/Util/PPExt.lean), which catches every error itself, returns the text
"failed to pretty print expression …" as if it were the type, and runs in a fresh `CoreM` whose
heartbeat budget ours cannot see. `Core.withCurrHeartbeats` (src/Lean/CoreM.lean, lean4@00675a04)
gives each constant a fresh budget so one pathological type cannot starve the rest; a failure
leaves `type` empty. -/
def declLine (env : Environment) (mods : Array Name) (insts : Instances) (n : Name)
    (ci : ConstantInfo) : CoreM (Option String) := do
  -- `privateToUserName`, `isPrivateName`: src/Lean/PrivateName.lean
  let priv := isPrivateName n
  let user := privateToUserName n
  if hidden env n user then return none
  -- `getModuleIdxFor?`: src/Lean/Environment.lean (`const2ModIdx`); `ModuleIdx.toNat`, same file
  let some idx := env.getModuleIdxFor? n | return none
  let some mod := mods[idx.toNat]? | return none
  -- `Core.tryCatchRuntimeEx (x : CoreM α) (h : Exception → CoreM α)` (src/Lean/CoreM.lean,
  -- lean4@00675a04): a heartbeat or recursion-depth limit is a runtime exception, which plain
  -- `try … catch` (`Core.tryCatch`) rethrows. `MetaM.run' (ctx := {}) (s := {}) : CoreM α`:
  -- src/Lean/Meta/Basic.lean (file id 196805413).
  let ty ← Core.tryCatchRuntimeEx
    (Core.withCurrHeartbeats do
      let fmt ← (PrettyPrinter.ppExpr ci.type).run'
      return Std.Format.pretty fmt typeWidth)
    (fun _ => pure "")
  -- `findDocString? (env) (declName) (includeBuiltin := true) … : IO (Option String)`:
  -- src/Lean/DocString.lean (file id 56505482564); an IO error here must not end the walk.
  -- `findDeclarationRanges? [MonadEnv m] [MonadLiftT BaseIO m]`: src/Lean/DeclarationRange.lean
  -- (file id 17283230322; a generated name gets its generator's range; under the module system
  -- the ranges live in the server-level data, which `importModules`' default
  -- `level := .private` loads).
  let doc ← try
      pure ((← findDocString? env n).getD "")
    catch _ => pure ""
  let ln := match (← findDeclarationRanges? n) with
    | some r => r.range.pos.line
    | none => 0
  -- `Json.compress : Json → String` escapes `"`, `\\` and characters < 0x20 and keeps the rest
  -- as UTF-8 (src/Lean/Data/Json/Printer.lean, file id 17277683605); `Json.mkObj`: Basic.lean
  let j := Json.mkObj [
    ("name", toJson (user.toString (escape := false))),
    ("kind", toJson (kindOf env n ci (insts.instanceNames.contains n))),
    ("module", toJson (mod.toString (escape := false))),
    ("line", toJson ln),
    ("type", toJson ty),
    ("doc", toJson doc),
    -- `isProtected`: src/Lean/Modifiers.lean (`protectedExt`)
    ("protected", toJson (isProtected env n)),
    ("private", toJson priv)]
  return some j.compress

/-- Walk the imported constants and print each kept one; `{"done": N}` last. `env.constants`
is a `def` (`env.toKernelEnv.constants`) and `env.header.moduleNames` a `def` over
`header.modules` in the module-system `src/Lean/Environment.lean` (file id 13577889070);
`finalizeImport` puts every imported constant in `map₁` (`SMap.fromHashMap … false`) and
numbers the modules in `moduleNames` order, the `ModuleIdx` of `const2ModIdx`. -/
def exportAll (env : Environment) : CoreM Unit := do
  let out ← IO.getStdout
  let mods := env.header.moduleNames
  -- instance names: `instanceExtension` state (`instanceNames`), src/Lean/Meta/Instances.lean
  let insts := instanceExtension.getState env
  let mut count := 0
  for (n, ci) in env.constants.map₁.toList do
    if let some s ← declLine env mods insts n ci then
      out.putStrLn s
      count := count + 1
      if count % 1000 == 0 then out.flush
  out.putStrLn (Json.mkObj [("done", toJson count)]).compress
  out.flush

end HarnessExport

/-- `lean --run ExportDecls.lean MOD…`. Extensions must be loaded for instance, class, structure
and notation data: `importModules (imports) (opts) (trustLevel := 0) (plugins := #[])
(leakEnv := false) (loadExts := false) (level := OLeanLevel.private) (arts := {}) : IO
Environment` (src/Lean/Environment.lean, file id 13577889070; `level := .private` loads private
constants too). `loadExts` is only safe after `enableInitializersExecution`
(src/Lean/ImportingFlag.lean, file id 988975055: `unsafe def … : IO Unit`; the frontend already
calls it at startup; it became `BaseIO` only after v4.32), hence `unsafe def main`. `leakEnv`:
the environment lives until the process ends anyway. The search path comes from `LEAN_PATH`,
which `lake env` sets (`initSearchPath (leanSysroot) (sp := ∅) : IO Unit`, `findSysroot (lean :=
"lean") : IO FilePath`, which prefers `LEAN_SYSROOT`: src/Lean/Util/Path.lean, file id
17072467568). `Import` fields other than `module` have defaults (src/Lean/Setup.lean). -/
unsafe def main (args : List String) : IO UInt32 := do
  if args.isEmpty then
    IO.eprintln "usage: lean --run ExportDecls.lean MODULE…"
    return 2
  initSearchPath (← findSysroot)
  enableInitializersExecution
  let imports := args.toArray.map fun m => ({ module := m.toName } : Import)
  let env ← importModules imports {} (trustLevel := 1024) (leakEnv := true) (loadExts := true)
  -- `CoreM.toIO (x) (ctx : Context) (s : State) : IO (α × State)`; `Context` needs only
  -- `fileName` and `fileMap`, `State` only `env` (src/Lean/CoreM.lean, lean4@00675a04);
  -- `maxHeartbeats` is in raw units (`getMaxHeartbeats`: 1000 × the option)
  let ctx : Core.Context := { fileName := "<ExportDecls>", fileMap := default,
                              maxHeartbeats := 200000 * 1000 }
  discard <| Core.CoreM.toIO (HarnessExport.exportAll env) ctx { env := env }
  return 0
