"""`.harness/memory/<label>.json`: load, record, escalate, clear. Writes are atomic; a file
that does not parse is set aside (`.corrupt`) and the node starts with an empty memory."""

from __future__ import annotations

import hashlib
import json
import re
import time
from pathlib import Path

from pydantic import ValidationError

from harness.fsutil import atomic_write
from harness.memory.model import MAX_DIGESTS, SCHEMA, AttemptDigest, Blocker, NodeMemory


def statement_hash(signature_text: str) -> str:
    """The node's statement with whitespace collapsed: a restatement invalidates its memory."""
    return hashlib.sha256(" ".join(signature_text.split()).encode()).hexdigest()[:16]


class MemoryStore:
    def __init__(self, root: Path) -> None:
        self.root = root

    def path(self, label: str) -> Path:
        slug = re.sub(r"[^A-Za-z0-9._-]", "-", label)[:60]
        return self.root / f"{slug}-{hashlib.sha1(label.encode()).hexdigest()[:8]}.json"

    def _read(self, label: str) -> NodeMemory | None:
        p = self.path(label)
        try:
            raw = json.loads(p.read_text(encoding="utf-8"))
            mem = NodeMemory.model_validate(raw)
        except FileNotFoundError:
            return None
        except (OSError, ValueError, ValidationError):
            try:
                p.replace(p.with_suffix(".corrupt"))
            except OSError:
                pass
            return None
        if mem.schema_version != SCHEMA or mem.label != label:
            return None
        return mem

    def load(self, label: str, stmt_hash: str) -> NodeMemory:
        """The node's memory for this statement (a different statement: a fresh memory)."""
        mem = self._read(label)
        if mem is None or mem.statement_hash != stmt_hash:
            return NodeMemory(label=label, statement_hash=stmt_hash)
        return mem

    def _write(self, mem: NodeMemory) -> None:
        self.root.mkdir(parents=True, exist_ok=True)
        atomic_write(self.path(mem.label), mem.model_dump_json(indent=1))

    def record(self, label: str, stmt_hash: str, digest: AttemptDigest) -> NodeMemory:
        mem = self.load(label, stmt_hash)
        if any(d.aid == digest.aid for d in mem.digests):
            return mem  # a replayed result (resume) is recorded once
        mem.digests.append(digest)
        del mem.digests[:-MAX_DIGESTS]
        mem.attempts += 1
        mem.spent_usd = round(mem.spent_usd + digest.cost_usd, 6)
        self._write(mem)
        return mem

    def escalate(self, label: str, stmt_hash: str, blocker: Blocker) -> NodeMemory:
        mem = self.load(label, stmt_hash)
        mem.blocker = blocker.model_copy(update={"at": blocker.at or time.time()})
        self._write(mem)
        return mem

    def clear_blocker(self, label: str) -> bool:
        mem = self._read(label)
        if mem is None or mem.blocker is None:
            return False
        mem.blocker = None
        self._write(mem)
        return True

    def blockers(self) -> dict[str, Blocker]:
        """Every node that needs a person (for status, the report, result.json)."""
        out: dict[str, Blocker] = {}
        if not self.root.is_dir():
            return out
        for p in sorted(self.root.glob("*.json")):
            try:
                mem = NodeMemory.model_validate_json(p.read_text(encoding="utf-8"))
            except (OSError, ValueError, ValidationError):
                continue
            if mem.blocker is not None:
                out[mem.label] = mem.blocker
        return out
