"""A Ray worker running in the shipped copy of the workspace (`ray_workspace = "runtime_env"`)
finds each job's file in that copy: a project's jobs name files all over the workspace."""

from __future__ import annotations

from pathlib import Path

from harness.cluster.worker import WorkerSpec, worker_file


def test_a_jobs_file_is_found_in_the_workers_copy(tmp_path: Path) -> None:
    spec = WorkerSpec(workspace="/head/ws", workspace_mode="runtime_env")
    copy = tmp_path / "working_dir"
    assert worker_file(spec, "/head/ws/Gen/Layer00/File001.lean", copy) == \
        str(copy / "Gen" / "Layer00" / "File001.lean")
    assert worker_file(spec, "/elsewhere/X.lean", copy) == "/elsewhere/X.lean"
