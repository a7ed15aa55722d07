#!/usr/bin/env bash
# Run a command with Graphviz hidden from PATH, so the graph falls back to the layered engine
# (issue #19: the fallback must be exercised on every CI run, also where `dot` is installed).
# Each PATH directory that holds `dot` is replaced by a temporary copy made of symlinks to
# everything in it except Graphviz's programs. HARNESS_DOT is cleared for the same reason.
# Usage: .ci/without-graphviz.sh COMMAND [ARG...]
set -euo pipefail
GRAPHVIZ="dot neato twopi circo fdp sfdp patchwork osage"
shadows=()
cleanup() { if [ "${#shadows[@]}" -gt 0 ]; then rm -rf "${shadows[@]}"; fi; }
trap cleanup EXIT
new_path=""
IFS=: read -ra dirs <<<"$PATH"
for d in "${dirs[@]}"; do
  if [ -n "$d" ] && [ -e "$d/dot" ]; then
    shadow="$(mktemp -d)"
    shadows+=("$shadow")
    for f in "$d"/* "$d"/.[!.]*; do
      [ -e "$f" ] || continue
      name="$(basename "$f")"
      case " $GRAPHVIZ " in *" $name "*) continue ;; esac
      ln -s "$f" "$shadow/$name"
    done
    d="$shadow"
  fi
  new_path="${new_path:+$new_path:}$d"
done
export PATH="$new_path"
unset HARNESS_DOT
if command -v dot >/dev/null; then
  echo "without-graphviz.sh: dot is still on PATH ($(command -v dot))" >&2
  exit 2
fi
# not exec: the EXIT trap removes the shadow directories afterwards
"$@"
