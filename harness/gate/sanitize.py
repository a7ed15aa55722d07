"""Text from a blueprint (labels, names, Lean's messages) made safe for a terminal.

A label or a Lean message can carry terminal escapes (``ESC [2J`` clears the screen, ``ESC ]``
sets the window title or writes hyperlinks, bidi overrides reorder what a reviewer reads). rich
strips only BEL/BS/VT/FF/CR, so every gate line is passed through :func:`printable`: C0/C1
controls other than newline and tab, DEL and bidi controls are shown as ``\\xNN``/``\\uNNNN``.
"""

from __future__ import annotations

import re

_UNSAFE = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u200e\u200f\u202a-\u202e\u2066-\u2069]")


def printable(text: str) -> str:
    def esc(m: re.Match[str]) -> str:
        c = ord(m.group(0))
        return f"\\x{c:02x}" if c < 0x100 else f"\\u{c:04x}"

    return _UNSAFE.sub(esc, text)
