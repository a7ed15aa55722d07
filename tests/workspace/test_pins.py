"""`lakefile.lean`, `lake-manifest.json` and `lean-toolchain` agree with each other.

Lake's manifest format (schema "1.2.0", what Lake v4.32 writes): `Lake/Load/Manifest.lean`
(`Manifest.toJson`, `PackageEntry.toJson`) in leanprover/lean4; the layout below (keys in
descending order, `Json.pretty`'s indentation) is the one of the real manifests read for the pins
(mathlib4 @81a5d257, LeanArchitect @d9013cc), see docs/slt.md. Resolution order (later requires
first, the first manifest to name a package wins, entries written in workspace order):
`Lake/Load/Resolve.lean` (`Workspace.updateAndMaterializeCore`, `writeManifest`).
"""

from __future__ import annotations

import copy
import json
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

ENTRY_KEYS = {"url", "type", "subDir", "scope", "rev", "name", "manifestFile", "inputRev",
              "inherited", "configFile"}
TOP_KEYS = {"version", "packagesDir", "packages", "name", "lakeDir", "fixedToolchain"}
SHA = re.compile(r"^[0-9a-f]{40}$")
REQUIRE = re.compile(r'^require\s+(?:"[^"]+"\s*/\s*)?«?([\w.]+)»?\s+from\s+git\s+"([^"]+)"'
                     r'(?:\s*@\s*"([^"]+)")?', re.M)

# What each pinned revision itself requires, read from that revision's own files (docs/slt.md):
# name -> (url, scope, rev, inputRev) as its lake-manifest.json records them.
MATHLIB_81A5D257 = {
    "plausible": ("https://github.com/leanprover-community/plausible", "leanprover-community",
                  "e12c1910fe855cbfc38803cd4e55543906d5fa62", "main"),
    "LeanSearchClient": ("https://github.com/leanprover-community/LeanSearchClient",
                         "leanprover-community", "c5d5b8fe6e5158def25cd28eb94e4141ad97c843",
                         "main"),
    "importGraph": ("https://github.com/leanprover-community/import-graph",
                    "leanprover-community", "7e9612bf0b9ee66db3cb5b9988a35afc706f5a12", "main"),
    "proofwidgets": ("https://github.com/leanprover-community/ProofWidgets4",
                     "leanprover-community", "6e311e2a844da9b2cc3971187df2fe0066947b93", "main"),
    "aesop": ("https://github.com/leanprover-community/aesop", "leanprover-community",
              "a7dbf0c63b694e47f425f3dcddbc0e178bb432d3", "master"),
    "Qq": ("https://github.com/leanprover-community/quote4", "leanprover-community",
           "38d591e778f100aec9762bb582f9c7f55f50e9dc", "master"),
    "batteries": ("https://github.com/leanprover-community/batteries", "leanprover-community",
                  "023ce7d62a0531e22a5331e20b587817a80d49ff", "main"),
    "Cli": ("https://github.com/leanprover/lean4-cli", "leanprover",
            "88679d088c9720c27ebdf2ba4dafe17341747f94", "v4.32.0"),
}
UPSTREAM = {
    ("mathlib", "81a5d257c8e410db227a6665ed08f64fea08e997"): MATHLIB_81A5D257,
    # lakefile.lean @d9013cc: batteries and Cli (mhuisi/lean4-cli), both @ "v4.32.0-rc1"
    ("LeanArchitect", "d9013cc08bd2b5483e837368dfa4cc7ead92a5c2"): {
        "batteries": ("https://github.com/leanprover-community/batteries", "",
                      "954dbc9873f3b4534dc9896604593406d0383520", "v4.32.0-rc1"),
        "Cli": ("https://github.com/mhuisi/lean4-cli", "",
                "406ebb8c8e2f7e852a1b47764b42494022ce652c", "v4.32.0-rc1"),
    },
    # lakefile.toml: no [[require]]
    ("REPL", "68a3b3a059787a7db44fb1e6281e4a657efee470"): {},
}


def lake_render(manifest: dict) -> str:
    """The text Lake's `Manifest.save` (`Json.pretty`) writes for a manifest of this shape."""
    def scalar(v: object) -> str:
        return json.dumps(v, ensure_ascii=False)

    def entry(e: dict) -> str:
        return "{" + ",\n   ".join(f"{scalar(k)}: {scalar(e[k])}"
                                    for k in sorted(e, reverse=True)) + "}"

    parts = []
    for key in sorted(manifest, reverse=True):
        value = manifest[key]
        if key == "packages" and value:
            parts.append('"packages":\n [' + ",\n  ".join(entry(e) for e in value) + "]")
        else:
            parts.append(f"{scalar(key)}: {scalar(value)}")
    return "{" + ",\n ".join(parts) + "}\n"


def requires(lakefile: str) -> list[tuple[str, str, str | None]]:
    """(name, url, rev) of every `require … from git` in order (comments stripped)."""
    code = re.sub(r"/-.*?-/", "", lakefile, flags=re.S)
    code = re.sub(r"--[^\n]*", "", code)
    return REQUIRE.findall(code)


def problems(lakefile: str, manifest_text: str, toolchain: str) -> list[str]:
    out: list[str] = []
    m = json.loads(manifest_text)
    if set(m) != TOP_KEYS:
        out.append(f"manifest keys {sorted(m)} are not Lake's {sorted(TOP_KEYS)}")
        return out
    if m["version"] != "1.2.0" or m["packagesDir"] != ".lake/packages" or m["lakeDir"] != ".lake":
        out.append("manifest version/packagesDir/lakeDir are not Lake v4.32's defaults")
    if manifest_text != lake_render(m):
        out.append("manifest text is not in Lake's layout (regenerate it with `lake update`)")
    pkg = re.search(r"^package\s+«?([\w.]+)»?", lakefile, re.M)
    if not pkg or m["name"] != pkg.group(1):
        out.append(f"manifest name {m['name']!r} is not the lakefile's package")
    fixed = re.search(r"fixedToolchain\s*:=\s*true", lakefile) is not None
    if m["fixedToolchain"] != fixed:
        out.append("manifest fixedToolchain disagrees with the lakefile")
    entries = m["packages"]
    names = [e.get("name") for e in entries]
    if len(set(names)) != len(names):
        out.append(f"duplicate package names in the manifest: {names}")
    by_name = {e.get("name"): e for e in entries}
    for e in entries:
        if set(e) != ENTRY_KEYS:
            out.append(f"{e.get('name')}: entry keys {sorted(e)} are not Lake's")
            continue
        if e["type"] != "git" or not SHA.match(e["rev"]) or e["subDir"] is not None:
            out.append(f"{e['name']}: not a git entry with a 40-hex rev")
        if e["manifestFile"] != "lake-manifest.json":
            out.append(f"{e['name']}: unexpected manifestFile {e['manifestFile']!r}")

    reqs = requires(lakefile)
    direct = [e for e in entries if e.get("inherited") is False]
    if [e.get("name") for e in direct] != [n for n, _, _ in reversed(reqs)]:
        out.append("direct entries are not the lakefile's requires in Lake's (reverse) order")
    if entries[:len(direct)] != direct:
        out.append("inherited entries must follow the direct ones (Lake's workspace order)")
    for name, url, rev in reqs:
        e = by_name.get(name)
        if e is None:
            out.append(f"{name}: required in the lakefile but missing from the manifest")
            continue
        if e.get("inherited") is not False or e.get("scope") != "":
            out.append(f"{name}: a direct require must be inherited=false with scope ''")
        if e.get("url") != url:
            out.append(f"{name}: url {e.get('url')!r} != lakefile {url!r}")
        if e.get("inputRev") != rev:
            out.append(f"{name}: inputRev {e.get('inputRev')!r} != lakefile pin {rev!r}")

    tag = toolchain.strip().removeprefix("leanprover/lean4:")
    if not re.fullmatch(r"v\d+\.\d+\.\d+(-rc\d+)?", tag):
        out.append(f"lean-toolchain {toolchain.strip()!r} is not a Lean release")
    mathlib = by_name.get("mathlib", {})
    if mathlib.get("inputRev") != tag:
        out.append(f"lean-toolchain {tag} does not match Mathlib's tag {mathlib.get('inputRev')}")
    for name, _, rev in reqs:
        if rev is None or not re.fullmatch(re.escape(tag) + r"(-rc\d+)?", rev):
            out.append(f"{name}: pin {rev!r} is not a tag of the toolchain's release {tag}")

    # Inherited packages: exactly the closure of what the pinned revisions require, and for a
    # package several of them name, the entry of the one Lake visits first (the last require).
    wanted: dict[str, tuple] = {}
    for name, _, _ in reversed(reqs):
        e = by_name.get(name)
        if e is None:
            continue
        deps = UPSTREAM.get((name, e.get("rev")))
        if deps is None:
            out.append(f"{name} @ {e.get('rev')}: its own requirements are not recorded here; "
                       "read them from that revision's lake-manifest.json (docs/slt.md)")
            continue
        for dep, spec in deps.items():
            wanted.setdefault(dep, spec)
    inherited = {e.get("name"): e for e in entries if e.get("inherited") is True}
    for dep, (url, scope, rev, input_rev) in wanted.items():
        e = inherited.get(dep)
        if e is None:
            out.append(f"{dep}: required by a dependency but missing from the manifest")
        elif (e.get("url"), e.get("scope"), e.get("rev"), e.get("inputRev")) != (
                url, scope, rev, input_rev):
            out.append(f"{dep}: manifest entry is not the one Lake resolves ({rev})")
    for dep in sorted(set(inherited) - set(wanted)):
        out.append(f"{dep}: inherited entry that no pinned dependency requires")
    return out


def _repo() -> tuple[str, str, str]:
    return ((ROOT / "lakefile.lean").read_text(encoding="utf-8"),
            (ROOT / "lake-manifest.json").read_text(encoding="utf-8"),
            (ROOT / "lean-toolchain").read_text(encoding="utf-8"))


def _mutate(manifest_text: str, fn) -> str:
    m = json.loads(manifest_text)
    fn(m)
    return lake_render(m)


def test_lakefile_manifest_and_toolchain_agree():
    assert problems(*_repo()) == []


def test_pins_are_the_confirmed_ones():
    pins = {name: rev for name, _, rev in requires(_repo()[0])}
    assert pins == {"mathlib": "v4.32.0", "LeanArchitect": "v4.32.0-rc1", "REPL": "v4.32.0"}
    assert [name for name, _, _ in requires(_repo()[0])][-1] == "mathlib"


def test_requires_reads_scoped_and_multiline_requires():
    text = ('-- require old from git "u0" @ "x"\n/- require c from git "u" -/\n'
            'require a from git\n  "https://a.git" @ "v1"\n'
            'require "scope" / b from git "https://b" @ "v2"\n')
    assert requires(text) == [("a", "https://a.git", "v1"), ("b", "https://b", "v2")]


def test_a_changed_lakefile_pin_is_caught():
    lakefile, manifest, toolchain = _repo()
    bumped = lakefile.replace('@ "v4.32.0-rc1"', '@ "v4.32.0-rc2"')
    assert any("inputRev" in p and "LeanArchitect" in p for p in problems(bumped, manifest,
                                                                          toolchain))


def test_a_toolchain_that_does_not_match_mathlib_is_caught():
    lakefile, manifest, _ = _repo()
    found = problems(lakefile, manifest, "leanprover/lean4:v4.33.0\n")
    assert any("does not match Mathlib" in p for p in found)


def test_a_missing_inherited_package_is_caught():
    lakefile, manifest, toolchain = _repo()
    text = _mutate(manifest, lambda m: m["packages"].pop())  # the last one: Cli
    assert "Cli: required by a dependency but missing from the manifest" in problems(
        lakefile, text, toolchain)


def test_leanarchitects_batteries_instead_of_mathlibs_is_caught():
    lakefile, manifest, toolchain = _repo()

    def swap(m: dict) -> None:
        (e,) = [e for e in m["packages"] if e["name"] == "batteries"]
        e["rev"] = "954dbc9873f3b4534dc9896604593406d0383520"
    found = problems(lakefile, _mutate(manifest, swap), toolchain)
    assert any(p.startswith("batteries: manifest entry is not the one") for p in found)


def test_an_unrecorded_dependency_revision_is_caught():
    lakefile, manifest, toolchain = _repo()

    def bump(m: dict) -> None:
        m["packages"][0]["rev"] = "0" * 40
    found = problems(lakefile, _mutate(manifest, bump), toolchain)
    assert any("its own requirements are not recorded" in p for p in found)


def test_hand_formatted_manifest_is_caught():
    lakefile, manifest, toolchain = _repo()
    reformatted = json.dumps(json.loads(manifest), indent=2) + "\n"
    assert any("Lake's layout" in p for p in problems(lakefile, reformatted, toolchain))


def test_lake_render_keeps_entry_keys_in_lakes_order():
    entry = {k: None for k in ENTRY_KEYS}
    text = lake_render({"version": "1.2.0", "packages": [copy.deepcopy(entry)]})
    order = [k for k in re.findall(r'"(\w+)":', text) if k in ENTRY_KEYS]
    assert order == ["url", "type", "subDir", "scope", "rev", "name", "manifestFile",
                     "inputRev", "inherited", "configFile"]


def test_the_statement_lock_environment_pins_the_committed_manifest():
    """harness/gate/environment.py hashes the manifest into every lock: it must see this file."""
    import hashlib

    from harness.gate.environment import environment

    env = environment(ROOT / "Blueprint" / "Demo.lean", [])
    manifest = (ROOT / "lake-manifest.json").read_bytes()
    assert env["lake-manifest.json"] == hashlib.sha256(manifest).hexdigest()
    assert env["lakefile.lean"] != "absent" and env["lean-toolchain"] != "absent"
