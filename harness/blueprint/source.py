"""Reading a blueprint file from disk: size limit, binary and encoding checks (the I/O edge)."""

from __future__ import annotations

import os
from pathlib import Path

from harness.blueprint.model import Blueprint
from harness.blueprint.parse import parse_text
from harness.didyoumean import path_hint
from harness.errors import InputError

MAX_FILE_BYTES = int(os.environ.get("HARNESS_MAX_FILE_MB", "64")) * 1024 * 1024


def parse_file(path: str | Path) -> Blueprint:
    """Read and parse a blueprint file. Every problem with the input raises :class:`InputError`."""
    p = Path(path)
    try:
        size = p.stat().st_size
    except FileNotFoundError:
        raise InputError(p, 1, 0, "no such file" + path_hint(p)) from None
    except OSError as err:
        raise InputError(p, 1, 0, f"cannot read: {err.strerror or err}") from None
    if p.is_dir():
        raise InputError(p, 1, 0, "is a directory, not a Lean file")
    if size > MAX_FILE_BYTES:
        raise InputError(p, 1, 0, f"file is {size / 2**20:.1f} MiB, over the "
                         f"{MAX_FILE_BYTES // 2**20} MiB limit (HARNESS_MAX_FILE_MB)")
    try:
        data = p.read_bytes()
    except OSError as err:
        raise InputError(p, 1, 0, f"cannot read: {err.strerror or err}") from None
    text, bom = decode(data, p)

    return parse_text(text, p, bom=bom)


def decode(data: bytes, path: object = None) -> tuple[str, bool]:
    """UTF-8 text (line endings untouched) and whether a BOM was present."""
    bom = data.startswith(b"\xef\xbb\xbf")
    if bom:
        data = data[3:]
    nul = data.find(b"\x00")
    if nul != -1:
        line = data.count(b"\n", 0, nul) + 1
        col = nul - (data.rfind(b"\n", 0, nul) + 1)
        raise InputError(path, line, col, "binary data (NUL byte): not a Lean source file")
    try:
        return data.decode("utf-8"), bom
    except UnicodeDecodeError as err:
        line = data.count(b"\n", 0, err.start) + 1
        prefix = data[data.rfind(b"\n", 0, err.start) + 1:err.start]
        col = len(prefix.decode("utf-8", errors="replace"))
        raise InputError(path, line, col,
                         f"not UTF-8 (invalid byte 0x{data[err.start]:02x})") from None
