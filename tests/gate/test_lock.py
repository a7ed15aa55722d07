"""The lock file: contents, atomic save, and refusal of anything that is not our lock."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from harness.blueprint import parse_text
from harness.errors import InputError
from harness.gate.lock import SCHEMA, Lock, load_lock, make_lock
from harness.gate.verify import verify
from tests.gate.corpus import BASE


def test_lock_records_every_declaration(base_lock: Lock) -> None:
    keys = [e.key for e in base_lock.entries]
    assert keys == ["def:double", "def:count", "lem:double-eq", "lem:double-mono",
                    "lem:double-succ", "lem:count-append", "thm:double-count", "thm:small"]
    e = base_lock.entry("lem:double-eq")
    assert e.name == "Gate.double_eq" and e.kind == "theorem" and e.label == "lem:double-eq"
    assert e.definition is None and e.informal and len(e.statement) == 64
    assert not e.claims_proved
    d = base_lock.entry("def:double")
    assert d.definition is not None and d.claims_proved
    assert base_lock.elaborated is False and all(x.elaborated is None for x in base_lock.entries)
    assert base_lock.forbidden == {"import|header": 1, "set_option|header": 1}


def test_elaborated_hashes_are_recorded_when_given() -> None:
    lock = make_lock(parse_text(BASE), elaborated={"lem:double-eq": "abc", "Gate.small": "def"})
    assert lock.elaborated
    assert lock.entry("lem:double-eq").elaborated == "abc"
    assert lock.entry("thm:small").elaborated == "def"


def test_save_and_load_round_trip(tmp_path: Path, base_lock: Lock) -> None:
    p = tmp_path / "sub" / "Base.lock.json"
    base_lock.save(p)
    assert [x.name for x in p.parent.iterdir()] == ["Base.lock.json"]  # no temp file left
    data = json.loads(p.read_text())
    assert data["schema"] == SCHEMA and data["version"] == 1 and data["tool"].startswith("harness")
    assert load_lock(p) == base_lock
    base_lock.save(p)  # overwriting is atomic too
    assert load_lock(p) == base_lock


@pytest.mark.parametrize("content, needle", [
    ("{not json", "corrupt lock file"),
    ("[1, 2]", "not a statement lock"),
    ('{"name": "some-package", "version": "1.0"}', "not a statement lock"),
    ('{"schema": "slt-harness/statement-lock", "version": 99}', "version 99"),
    ('{"schema": "slt-harness/statement-lock", "version": 1, "tool": "x", "header": "h", '
     '"entries": [{"key": 3}]}', "corrupt statement lock"),
    ('{"schema": "slt-harness/statement-lock", "version": 1, "tool": "x", "header": "h", '
     '"entries": [], "surprise": true}', "corrupt statement lock"),
])
def test_bad_lock_files_are_input_errors(tmp_path: Path, content: str, needle: str) -> None:
    p = tmp_path / "bad.lock.json"
    p.write_text(content)
    with pytest.raises(InputError) as err:
        load_lock(p)
    assert needle in err.value.line() and err.value.line().startswith(str(p))


def test_missing_and_binary_lock_files(tmp_path: Path) -> None:
    with pytest.raises(InputError, match="no such lock file"):
        load_lock(tmp_path / "nope.json")
    (tmp_path / "bin.json").write_bytes(b"\xff\xfe\x00")
    with pytest.raises(InputError):
        load_lock(tmp_path / "bin.json")
    with pytest.raises(InputError):
        load_lock(tmp_path)


def test_duplicate_entry_keys_are_corrupt(tmp_path: Path, base_lock: Lock) -> None:
    data = json.loads(base_lock.to_json())
    data["entries"].append(data["entries"][0])
    p = tmp_path / "dup.json"
    p.write_text(json.dumps(data))
    with pytest.raises(InputError, match="duplicate"):
        load_lock(p)


def test_existing_forbidden_construct_may_stay_but_not_multiply() -> None:
    base = BASE.replace("namespace Gate\n", "namespace Gate\n\naxiom magic : 1 = 1\n")
    lock = make_lock(parse_text(base))
    assert lock.forbidden.get("axiom|Gate.magic") == 1
    assert verify(base, "B.lean", lock, static_only=True).exit_code == 0
    more = base.replace("axiom magic : 1 = 1\n", "axiom magic : 1 = 1\n\naxiom magic2 : 2 = 2\n")
    r = verify(more, "B.lean", lock, static_only=True)
    assert r.exit_code == 1
    assert [(f.rule, f.key, f.line) for f in r.failures if f.check == "forbidden"] == \
        [("axiom", "Gate.magic2", more.splitlines().index("axiom magic2 : 2 = 2") + 1)]


def test_a_lock_from_another_file_rejects(base_lock: Lock) -> None:
    other = "import Architect\n\nnamespace Other\n\ntheorem t : True := trivial\n\nend Other\n"
    r = verify(other, "Other.lean", base_lock, static_only=True)
    assert r.exit_code == 1
    assert sum(1 for f in r.failures if f.check == "lock" and "deleted" in f.message) == 8


def test_workspace_files_are_locked(tmp_path: Path) -> None:
    from harness.blueprint import parse_file
    from tests.support.fakelean import make_workspace

    text = BASE.replace("import Architect\n", "import Architect\nimport Proj.Helpers\n")
    ws = make_workspace(tmp_path / "ws", {
        "Blueprint/Base.lean": text,
        "Proj/Helpers.lean": "import Proj.Deep\n\ntheorem helper : True := trivial\n",
        "Proj/Deep.lean": "theorem deep : True := trivial\n"}, toolchain="4.32.0")
    path = ws / "Blueprint" / "Base.lean"
    lock = make_lock(parse_file(path))
    assert set(lock.environment) == {"lakefile.lean", "lakefile.toml", "lean-toolchain",
                                     "lake-manifest.json", "Proj/Helpers.lean", "Proj/Deep.lean",
                                     "@root"}
    assert lock.environment["@root"] == ".."  # the workspace root, relative to the file
    assert lock.environment["lakefile.toml"] == "absent"

    def failures() -> list[str]:
        r = verify(text, path, lock, static_only=True)
        return [f.message for f in r.failures if f.check == "lock"]

    assert failures() == []
    deep = ws / "Proj" / "Deep.lean"
    deep.write_text("macro \"trivial\" : term => `(sorry)\n")  # a transitive import turns evil
    assert any("`Proj/Deep.lean` changed" in m for m in failures())
    deep.write_text("theorem deep : True := trivial\n")
    assert failures() == []
    with (ws / "lakefile.lean").open("a") as fh:
        fh.write('\nlean_lib Evil where\n  leanOptions := #[⟨`debug.skipKernelTC, true⟩]\n')
    assert any("`lakefile.lean` changed" in m for m in failures())
    (ws / "lakefile.toml").write_text('name = "evil"\n')
    assert any("`lakefile.toml` appeared" in m for m in failures())
    (ws / "lean-toolchain").unlink()
    assert any("`lean-toolchain` vanished" in m for m in failures())


def test_a_file_the_gate_cannot_read_is_not_locked() -> None:
    text = BASE.replace("theorem small : 2 ^ 5 = 32 := by\n  sorry",
                        "theorem small : 2 ^ 5 = 32 := by\n  /-/- -/ sorry -- -/")
    with pytest.raises(InputError, match="lexers disagree"):
        make_lock(parse_text(text, "Q.lean"))
