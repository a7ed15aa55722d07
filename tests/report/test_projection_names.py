"""The module map's short labels (report/projection.py)."""

from harness.report.projection import short_names


def test_short_names_drop_only_the_prefix_every_module_shares():
    assert short_names(["A.B.C", "A.B.D", "A.E"]) == {"A.B.C": "B.C", "A.B.D": "B.D", "A.E": "E"}
    # a module that is the prefix itself keeps its name; a lone module keeps its whole name
    assert short_names(["A", "A.B"]) == {"A": "A", "A.B": "A.B"}
    assert short_names(["X.Y"]) == {"X.Y": "X.Y"}
    assert short_names(["A.B", "C.D", ""]) == {"A.B": "A.B", "C.D": "C.D", "": ""}
