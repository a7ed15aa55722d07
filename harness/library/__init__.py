"""The library declaration index: every declaration of the workspace and its Lake packages,
searchable offline (SQLite FTS5), for the prover's tools and context. See docs/architecture.md."""

from harness.library.model import BuildReport, Hit, LibDecl
from harness.library.query import LibraryIndex, QueryContext, open_index
from harness.library.store import build_index, index_path

__all__ = ["BuildReport", "Hit", "LibDecl", "LibraryIndex", "QueryContext", "build_index",
           "index_path", "open_index"]
