"""Blueprint-driven proving harness for Lean 4.

Public surface: :func:`harness.blueprint.parse_file`, :func:`harness.blueprint.parse_text`,
:func:`harness.blueprint.dag.analyse`, and the CLI (``python -m harness``).
"""

__version__ = "0.1.0"
