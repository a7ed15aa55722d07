"""The box prover-written Lean runs in: bubblewrap (``bwrap``), one per Lean process.

Lean runs code while it elaborates: ``#eval``, macros and elaborators, ``include_str``'s argument,
a tactic's ``(config := …)`` term — arbitrary ``IO`` with the user's rights. Every Lean process the
harness starts through :mod:`harness.lean.run` is therefore wrapped in ``bwrap`` with
- every namespace unshared (``--unshare-all``): no network, its own pids, IPC, hostname;
- the whole file system read-only (``--ro-bind / /``), then private empty ``/tmp``, ``/var/tmp``,
  ``/run``, ``/home``, ``/root`` and the user's home (keys, tokens, shell history are not there);
  the workspace and the toolchain (elan, lake) are bound back read-only;
- the workspace's ``.git`` (the record) and ``.harness`` (runs, state) hidden, except
- the scratch directory (``.harness/tmp``: the copies Lean compiles) and the extra writable
  paths a caller names (``lake build`` writes ``.lake``) — the only writable places;
- an environment without secrets (names matching key/token/secret/password… are dropped);
- ``--die-with-parent``: if the harness dies, the box dies.

Why bubblewrap: it is Debian's (and Flatpak's) unprivileged sandbox, a single small setuid-free
binary using user namespaces, packaged everywhere (`apt install bubblewrap`), and it needs no
daemon or root (unlike Docker/podman set-ups or systemd-run); ``unshare(1)`` alone cannot build
a read-only view with holes. Where unprivileged user namespaces are disabled (some hardened
kernels, Ubuntu ≥ 24.04's AppArmor default for unconfined programs) `doctor` says so.

``HARNESS_UNSAFE_NO_SANDBOX=1`` (what ``run --unsafe-no-sandbox`` and ``[lean] sandbox = "off"``
set) runs Lean unboxed; otherwise a missing sandbox is a refusal, never a silent fallback.
"""

from __future__ import annotations

import os
import pwd
import re
import shutil
import subprocess
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path

from harness.errors import CannotCertify

UNSAFE_ENV = "HARNESS_UNSAFE_NO_SANDBOX"
BWRAP_ENV = "HARNESS_BWRAP"  # another bwrap binary (tests point it at a missing path)
SCRATCH = Path(".harness") / "tmp"
INSTALL = "install bubblewrap (`apt-get install bubblewrap`)"
_SECRET = re.compile(r"KEY|TOKEN|SECRET|PASSW|CREDENTIAL|AUTH|COOKIE|SESSION|PRIVATE", re.I)
_HIDDEN_DIRS = ("/tmp", "/var/tmp", "/run", "/home", "/root")


class SandboxUnavailable(CannotCertify):
    """Lean would run prover code unboxed: refused (fail closed)."""


@dataclass(frozen=True)
class Sandbox:
    """What one Lean process may touch besides reading the system and the workspace."""

    workspace: Path
    writable: tuple[Path, ...] = field(default=())  # besides the scratch directory
    readable: tuple[Path, ...] = field(default=())  # bound back read-only (toolchain dirs)

    @property
    def scratch(self) -> Path:
        return self.workspace / SCRATCH


def required() -> bool:
    """Is the box mandatory? (yes, unless the user opted out explicitly)"""
    return os.environ.get(UNSAFE_ENV, "").strip().lower() not in ("1", "true", "yes")


def bwrap_path() -> str | None:
    explicit = os.environ.get(BWRAP_ENV)
    if explicit:
        return explicit if Path(explicit).is_file() and os.access(explicit, os.X_OK) else None
    return shutil.which("bwrap")


@lru_cache(maxsize=8)
def _probe(exe: str) -> str | None:
    try:
        res = subprocess.run([exe, "--die-with-parent", "--unshare-all", "--ro-bind", "/", "/",
                              "--dev", "/dev", "--proc", "/proc", "--tmpfs", "/tmp", "true"],
                             capture_output=True, timeout=20, stdin=subprocess.DEVNULL)
    except (OSError, subprocess.TimeoutExpired) as err:
        return f"{exe} cannot run: {err}"
    if res.returncode != 0:
        tail = res.stderr.decode(errors="replace").strip().splitlines()
        return f"{exe} fails: {tail[-1] if tail else f'exit {res.returncode}'}" + \
            " (user namespaces disabled? see docs/lean-backend.md)"
    return None


def status() -> tuple[bool, str]:
    """(usable, one line): is a working bwrap there?"""
    exe = bwrap_path()
    if exe is None:
        where = os.environ.get(BWRAP_ENV)
        return False, (f"{BWRAP_ENV}={where} is not an executable" if where
                       else "bwrap not found on PATH")
    problem = _probe(exe)
    if problem:
        return False, problem
    return True, f"bubblewrap ({exe}): no network, writes only to .harness/tmp"


def _homes() -> list[Path]:
    out = {Path.home()}
    try:
        out.add(Path(pwd.getpwuid(os.getuid()).pw_dir))
    except (KeyError, OSError):
        pass
    return [p for p in out if str(p) not in ("/", "")]


def _under(p: Path, tops: list[Path]) -> bool:
    return any(p == t or t in p.parents for t in tops)


def clean_env(env: dict[str, str] | None) -> dict[str, str]:
    """The child's environment without anything that looks like a credential."""
    base = dict(os.environ if env is None else env)
    return {k: v for k, v in base.items() if not _SECRET.search(k)}


def _git_dirs(ws: Path) -> list[Path]:
    """The record's git directories: the nearest ``.git`` at or above the workspace (a Lean
    project may live in a subdirectory of its repository), and a worktree's git and common dir."""
    dot = next((d / ".git" for d in (ws, *ws.parents) if (d / ".git").exists()), ws / ".git")
    out = [dot]
    if dot.is_file():
        m = re.match(r"gitdir:\s*(.+)", dot.read_text(encoding="utf-8", errors="replace"))
        if m:
            gd = (dot.parent / m.group(1).strip()).resolve()
            out.append(gd)
            if gd.parent.name == "worktrees":
                out.append(gd.parent.parent)
    return out


def wrap(argv: list[str], box: Sandbox) -> list[str]:
    """``argv`` inside the box (raises SandboxUnavailable when there is no working bwrap)."""
    ok, why = status()
    if not ok:
        raise SandboxUnavailable(f"no sandbox for Lean: {why}; {INSTALL}, or accept running "
                                 f"prover code unboxed: `run --unsafe-no-sandbox` / "
                                 f"{UNSAFE_ENV}=1")
    ws = box.workspace.resolve()
    box.scratch.mkdir(parents=True, exist_ok=True)
    hidden = [Path(d) for d in _HIDDEN_DIRS] + _homes()
    out = [bwrap_path() or "bwrap", "--die-with-parent", "--unshare-all", "--ro-bind", "/", "/",
           "--dev", "/dev", "--proc", "/proc"]
    for d in hidden:
        if d.is_dir() and not d.is_symlink():
            out += ["--tmpfs", str(d)]
    home = os.environ.get("ELAN_HOME") or str(Path.home() / ".elan")
    back = [ws, Path(home), *box.readable, Path(argv[0]).resolve().parent]
    for p in back:  # read-only holes in the hidden directories, for what Lean needs to read
        p = p.resolve() if p.exists() else p
        if p.exists() and _under(p, hidden):
            out += ["--ro-bind", str(p), str(p)]
    for g in _git_dirs(ws):
        if g.is_dir():
            out += ["--tmpfs", str(g)]
        elif g.is_file():
            out += ["--ro-bind", "/dev/null", str(g)]
    if (ws / ".harness").is_dir():
        out += ["--tmpfs", str(ws / ".harness")]
    for w in (box.scratch, *box.writable):
        w.mkdir(parents=True, exist_ok=True)
        out += ["--bind", str(w.resolve()), str(w.resolve())]
    return out + ["--chdir", str(ws), "--", *argv]
