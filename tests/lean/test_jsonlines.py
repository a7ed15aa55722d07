"""The one reader of our Lean programs' JSON lines (harness/lean/jsonlines.py), used by the
gate's `.olean` audit on a captured text and by the library's exact pass on a stream."""

from __future__ import annotations

import subprocess
import sys

import pytest

from harness.errors import CannotCertify
from harness.gate.declared import parse_audit
from harness.lean.jsonlines import Line, done_count, read_lines

OUT = '{"a": 1}\n\n  [1, 2]\n{"done": 1}\nPANIC at Lean.Expr\n{"x": "\\u00e9"}\n'


def test_text_and_stream_read_alike() -> None:
    want = [Line(1, '{"a": 1}', {"a": 1}), Line(3, "[1, 2]", None),
            Line(4, '{"done": 1}', {"done": 1}), Line(5, "PANIC at Lean.Expr", None),
            Line(6, '{"x": "\\u00e9"}', {"x": "é"})]
    assert list(read_lines(OUT.splitlines())) == want
    # the same bytes through a real pipe, read as exact_run reads its child
    proc = subprocess.Popen([sys.executable, "-c", f"import sys; sys.stdout.write({OUT!r})"],
                            stdout=subprocess.PIPE)
    assert proc.stdout is not None
    try:
        got = list(read_lines(iter(lambda: proc.stdout.readline(1 << 20), b"")))
    finally:
        proc.stdout.close()
        proc.wait(timeout=30)
    assert got == want


def test_invalid_utf8_is_garbage_not_a_crash() -> None:
    assert list(read_lines([b'{"a": "\xff"}', b"\xfe\xff"])) == [
        Line(1, '{"a": "\ufffd"}', {"a": "\ufffd"}), Line(2, "\ufffd\ufffd", None)]


@pytest.mark.parametrize("obj, want", [({"done": 0}, 0), ({"done": 7}, 7),
                                        ({"done": 1, "name": "x"}, None), ({"name": "x"}, None)])
def test_done_line(obj, want) -> None:
    assert done_count(obj) == want


@pytest.mark.parametrize("bad", ["3", 3.5, -1, True, None])
def test_a_done_line_without_a_count_is_refused(bad) -> None:
    with pytest.raises(ValueError):
        done_count({"done": bad})


def test_the_audit_names_the_garbage_line_and_refuses_a_cut_answer() -> None:
    head = '{"module": "M", "imports": ["Init"]}\n'
    kernel = '{"kernel": "ok"}\n'
    const = '{"name": "M.x", "kind": "theorem", "type": "1"}\n'
    audit = parse_audit(head + "\n" + const + kernel + '{"done": 1}\n', "M")
    assert [c.name for c in audit.constants] == ["M.x"] and audit.kernel_ok
    with pytest.raises(CannotCertify, match="output line 3 is not part of the protocol"):
        parse_audit(head + "\nPANIC\n" + kernel + '{"done": 0}\n', "M")
    with pytest.raises(CannotCertify, match="incomplete"):
        parse_audit(head + const + kernel, "M")
    with pytest.raises(CannotCertify, match="not part of the protocol"):
        parse_audit(head + kernel + '{"done": "0"}\n', "M")
