"""The blueprint core: parse LeanArchitect files, edit them by spans, analyse their DAG."""

from harness.blueprint.model import Blueprint, BodyStatus, Decl, DeclKind, Finding, Pos, Span
from harness.blueprint.parse import parse_text
from harness.blueprint.source import parse_file

__all__ = ["Blueprint", "BodyStatus", "Decl", "DeclKind", "Finding", "Pos", "Span",
           "parse_file", "parse_text"]
