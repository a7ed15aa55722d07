"""What `search` and `index` tell a user about the library they read (no heavy imports)."""

from __future__ import annotations

from pathlib import Path


def library_note(workspace: Path) -> str | None:
    """`search` and `index` read `.lake/packages/*` (Mathlib, …) besides the workspace: when
    there are none, say so plainly rather than answer from the workspace alone."""
    from harness.preflight.lean import manifest

    base = workspace / (manifest(workspace).get("packagesDir") or ".lake/packages")
    if base.is_dir() and any(p.is_dir() for p in base.iterdir()):
        return None
    return (f"Mathlib not indexed: no packages in {base} (run `lake exe cache get` in "
            f"{workspace}); only the workspace's own files are searched")
