"""The README is executable documentation: its commands and its config must stay true."""

from __future__ import annotations

import re
import tomllib
from pathlib import Path

from harness.agents.config import parse_config
from harness.cli import command_names

ROOT = Path(__file__).resolve().parents[2]
README = (ROOT / "README.md").read_text()


def blocks(lang: str) -> list[str]:
    return re.findall(rf"```{lang}\n(.*?)```", README, re.S)


def test_exactly_two_setup_commands_and_ci_runs_the_test_one():
    sh = blocks("sh")
    setup = [b.strip() for b in sh[:2]]
    assert setup[0] == "pip install -e . && python -m harness run Blueprint/Demo.lean"
    assert setup[1] == "pip install -e '.[dev]' && python -m pytest"
    ci = (ROOT / ".ci" / "run").read_text()
    assert "pip install -q -e '.[dev]'" in ci and "python -m pytest" in ci


def test_readme_config_snippet_is_a_valid_config():
    (snippet,) = blocks("toml")
    cfg = parse_config(tomllib.loads(snippet))
    assert cfg.endpoint.api_key_env == "OPENAI_API_KEY"
    assert cfg.role("prove").mode in ("tools", "completion")
    assert cfg.run["workers"] == 4


def test_every_command_is_documented():
    table = README[README.index("## Commands"):README.index("## Running the harness")]
    for name in command_names():
        assert f"`{name.replace('_', '-')}" in table, name  # resume_node: `resume-node`


def test_docs_mentioned_exist():
    for doc in re.findall(r"`(docs/[\w./-]+\.md)`", README):
        assert (ROOT / doc).is_file(), doc
