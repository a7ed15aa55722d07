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
of this program as "no exact pass" and keeps the scanned index.
-/

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

/-- One constant as one JSON line. `ppExpr` (`src/Lean/Meta/Basic.lean`) runs the delaborator;
`Core.withCurrHeartbeats` (`src/Lean/CoreM.lean`) gives each constant a fresh heartbeat budget so
one pathological type cannot starve the rest; a failure leaves `type` empty. -/
def declLine (env : Environment) (mods : Array Name) (insts : Instances) (n : Name)
    (ci : ConstantInfo) : CoreM (Option String) := do
  -- `privateToUserName`, `isPrivateName`: src/Lean/PrivateName.lean
  let priv := isPrivateName n
  let user := privateToUserName n
  if hidden env n user then return none
  -- `getModuleIdxFor?`: src/Lean/Environment.lean (`const2ModIdx`); `ModuleIdx.toNat`, same file
  let some idx := env.getModuleIdxFor? n | return none
  let some mod := mods[idx.toNat]? | return none
  -- `Core.tryCatchRuntimeEx` (src/Lean/CoreM.lean): a heartbeat timeout is a runtime exception,
  -- which plain `try … catch` lets through
  let ty ← Core.tryCatchRuntimeEx
    (Core.withCurrHeartbeats do return toString (← (Meta.ppExpr ci.type).run'))
    (fun _ => pure "")
  -- `findDocString?`: src/Lean/DocString.lean; `findDeclarationRanges?`:
  -- src/Lean/DeclarationRange.lean (a generated name gets its generator's range)
  let doc := (← findDocString? env n).getD ""
  let ln := match ← findDeclarationRanges? n with
    | some r => r.range.pos.line
    | none => 0
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

/-- Walk the imported constants (`env.constants.map₁`, `src/Lean/Environment.lean`: the
imported part of the `SMap`) and print each kept one; `{"done": N}` last. -/
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
and notation data (`importModules … (loadExts := true)`, `src/Lean/Environment.lean`, which is
only safe after `enableInitializersExecution`, `src/Lean/ImportingFlag.lean`, an `unsafe … : IO
Unit` at v4.32, hence `unsafe def main`); the search path comes from
`LEAN_PATH`, which `lake env` sets (`initSearchPath`, `findSysroot`: `src/Lean/Util/Path.lean`). -/
unsafe def main (args : List String) : IO UInt32 := do
  if args.isEmpty then
    IO.eprintln "usage: lean --run ExportDecls.lean MODULE…"
    return 2
  initSearchPath (← findSysroot)
  enableInitializersExecution
  let imports := args.toArray.map fun m => ({ module := m.toName } : Import)
  let env ← importModules imports {} (trustLevel := 1024) (loadExts := true)
  -- `CoreM.toIO`: src/Lean/CoreM.lean; `maxHeartbeats` is in raw units (1000 × the option)
  let ctx : Core.Context := { fileName := "<ExportDecls>", fileMap := default,
                              maxHeartbeats := 200000 * 1000 }
  discard <| Core.CoreM.toIO (HarnessExport.exportAll env) ctx { env := env }
  return 0
