"""`harness init [--openai | --vllm URL] [--model M] [--force] [-o FILE]` — write a commented
`harness.toml` for OpenAI (default) or a local vLLM server. An existing file is never replaced
without `--force`; with it, the old file is kept as `harness.toml.bak`.

The key is never written: the file names the variable that holds it (`api_key_env`).
"""

from __future__ import annotations

import argparse
from pathlib import Path

from harness.errors import ExitCode, UsageError
from harness.fsutil import atomic_write, user_output
from harness.report.output import console, emit_json
from harness.workspace import LAKEFILES, find_workspace

OPENAI = '''# harness.toml — written by `python -m harness init --openai`; see docs/orchestrator.md.
# The API key is read from the variable named here; never put the key itself in this file.

[endpoint]
# base_url = "https://api.openai.com/v1"   # the default; OPENAI_BASE_URL overrides it
api_key_env = "OPENAI_API_KEY"
# the model of every role without its own; HARNESS_MODEL / OPENAI_MODEL override it
default_model = "{model}"
max_tokens_param = "max_completion_tokens"   # OpenAI's reasoning models take this one

[roles.audit]   # stage 1: the fidelity audit reads every statement against the source
reasoning_effort = "high"

[roles.prove]   # stage 2: tools mode (check_candidate, goals, lookup, submit)
mode = "tools"
# model = "…"    # a role may use its own model

[prices."{model}"]   # USD per million tokens, for the cost ledger and --budget
input_per_mtok = 1.25
output_per_mtok = 10.0

[budgets]
per_node_usd = 0.50
# per_run_usd = 20.0

[run]
workers = 4
# max_rounds = 5             # stage 1: audit/refine rounds
# budget = 20.0              # USD for the whole run
'''

VLLM = '''# harness.toml — written by `python -m harness init --vllm`; see docs/orchestrator.md.
# A local vLLM server (`vllm serve {model}`) speaks the OpenAI API; it needs no key.

[endpoint]
base_url = "{url}"   # OPENAI_BASE_URL overrides it
api_key_env = "OPENAI_API_KEY"             # vLLM ignores it unless started with --api-key
# the name vLLM serves (`--served-model-name`); HARNESS_MODEL / OPENAI_MODEL override it
default_model = "{model}"
max_tokens_param = "max_tokens"

[roles.prove]   # prover models complete a Lean file: answer with a fenced ```lean block
mode = "completion"
temperature = 0.6
max_tokens = 8192

[roles.construct]   # stage 1 (construct / refine) and the audit: completion mode too
mode = "completion"

[roles.audit]
mode = "completion"

[roles.repair]
mode = "completion"

[timeouts]
request_s = 600.0    # long proofs take a while on one GPU

[run]
workers = 4
'''


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("init", help="write a commented harness.toml (OpenAI or local vLLM)",
                       description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    which = p.add_mutually_exclusive_group()
    which.add_argument("--openai", action="store_true", help="OpenAI (the default)")
    which.add_argument("--vllm", metavar="URL", nargs="?", const="http://localhost:8000/v1",
                       help="a local vLLM server (default URL http://localhost:8000/v1)")
    p.add_argument("--model", help="default model (OpenAI: gpt-5; vLLM: "
                                   "deepseek-ai/DeepSeek-Prover-V2-7B)")
    p.add_argument("-o", "--output", type=Path,
                   help="file to write (default: WORKSPACE/harness.toml)")
    p.add_argument("--force", action="store_true",
                   help="replace an existing file (kept as FILE.bak)")
    p.add_argument("--json", action="store_true", help="machine-readable output on stdout")
    p.set_defaults(func=run)


def render(vllm: str | None, model: str | None) -> str:
    if vllm:
        return VLLM.format(url=vllm, model=model or "deepseek-ai/DeepSeek-Prover-V2-7B")
    return OPENAI.format(model=model or "gpt-5")


def run(args: argparse.Namespace) -> int:
    from harness.agents.config import CONFIG_NAME, load_config

    if args.model is not None and (not args.model.strip() or '"' in args.model):
        raise UsageError("--model: give a model name (no quotes)")
    if args.output is None:  # outside a workspace: refuse, as `search` and `index` do
        ws = find_workspace(Path.cwd())
        if not any((ws / f).is_file() for f in LAKEFILES):
            raise UsageError(f"{Path.cwd()}: not inside a Lake workspace (no lakefile.lean or "
                             "lakefile.toml here or above); run it in the workspace, or pass -o FILE")
        out: Path = ws / CONFIG_NAME
    else:
        out = user_output(args.output)
    text = render(args.vllm, args.model)
    backup = None
    if out.exists() or out.is_symlink():
        if not args.force:
            raise UsageError(f"{out}: already exists; pass --force to replace it (it is kept "
                             f"as {out.name}.bak)")
        backup = out.with_name(out.name + ".bak")
        atomic_write(backup, out.read_bytes())
    atomic_write(out, text)
    load_config(out)  # what we write must load (a template bug is ours, not the user's)
    kind = "vllm" if args.vllm else "openai"
    if args.json:
        emit_json({"written": str(out), "kind": kind, "backup": str(backup) if backup else None})
    else:
        console().print(f"wrote {out} ({kind})" + (f"; the old file is {backup}" if backup
                                                   else ""), markup=False)
        console().print("next: `python -m harness doctor` checks Lean and the endpoint",
                        markup=False)
    return int(ExitCode.OK)
