"""The centrality prior: how many signatures refer to each declaration (real build, SQLite)."""

from __future__ import annotations

from pathlib import Path

import pytest

from harness.library import rank
from harness.library.query import open_index
from harness.library.refs import read_refs
from tests.library.conftest import lib_ws, write  # noqa: F401 - the fixture


def _refs(ix) -> dict[str, int]:
    arr = read_refs(ix.rows)
    return {name: int(arr[i]) for i, name in ix.rows("SELECT id, name FROM decls")}


def test_refs_count_signatures_and_follow_incremental_builds(
        lib_ws: Path, monkeypatch: pytest.MonkeyPatch):  # noqa: F811
    monkeypatch.setattr(rank, "W_REFS", 1.0)  # computed only while the ranker weighs it
    ix = open_index(lib_ws)
    try:
        got = _refs(ix)
    finally:
        ix.close()
    # `measure_ge_le (h : HasSubgaussianMGF X c μ)` refers to the structure; nothing refers to
    # the tail bound itself
    assert got["ProbabilityTheory.HasSubgaussianMGF"] >= 1
    assert got["ProbabilityTheory.HasSubgaussianMGF.measure_ge_le"] == 0
    before = got["Real.exp_le_exp"]
    write(lib_ws / "Uses.lean", "theorem a (h : Real.exp_le_exp) : True := trivial\n"
                                "theorem b (h : Real.exp_le_exp) : True := trivial\n")
    ix = open_index(lib_ws)  # an incremental build: the prior is recomputed
    try:
        from harness.library.store import build_index

        build_index(lib_ws)
        ix.close()
        ix = open_index(lib_ws)
        assert _refs(ix)["Real.exp_le_exp"] == before + 2
    finally:
        ix.close()


def test_refs_are_not_computed_at_weight_zero_and_a_stale_array_goes(
        lib_ws: Path, monkeypatch: pytest.MonkeyPatch):  # noqa: F811
    from harness.library.store import build_index

    monkeypatch.setattr(rank, "W_REFS", 1.0)
    build_index(lib_ws)
    ix = open_index(lib_ws, build=False)
    try:
        assert ix.rows("SELECT count(*) FROM arrays WHERE name = 'refs'")[0][0] == 1
    finally:
        ix.close()
    monkeypatch.setattr(rank, "W_REFS", 0.0)
    write(lib_ws / "More.lean", "theorem c (h : Real.exp_le_exp) : True := trivial\n")
    build_index(lib_ws)  # incremental: the old counts would now be wrong, so they are dropped
    ix = open_index(lib_ws, build=False)
    try:
        assert ix.rows("SELECT count(*) FROM arrays WHERE name = 'refs'")[0][0] == 0
        assert not read_refs(ix.rows).any()
    finally:
        ix.close()
