"""Shared test helpers: run the real CLI in a subprocess and read what it wrote."""

from __future__ import annotations

import fcntl
import json
import os
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

REPO = Path(__file__).resolve().parent.parent
DATA = Path(__file__).resolve().parent / "data"


LONGEST_FIRST = (
    "test_lab_runs.py",
    "test_flight.py",
    "test_isolate_lab.py",
    "test_cli.py",
    "test_sweep.py",
    "test_shared_job.py",
    "test_lab_soak.py",
    "test_algorithms.py",
    "test_timeouts_subgroups.py",
    "test_launch.py",
    "test_connectivity.py",
    "test_launchers.py",
)
"""Modules that take longest on the 2-core host (a full run's durations, tests/perf/RESULTS.md),
collected first: xdist (--dist loadfile --no-loadscope-reorder, pyproject.toml) then hands them
out first, and the many short modules fill in, so that no long module starts last while the
other worker has nothing left to do."""


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    rank = {name: i for i, name in enumerate(LONGEST_FIRST)}
    # a stable sort: the order within a module (and of every other module) stays pytest's
    items.sort(key=lambda item: rank.get(item.path.name, len(rank)))


@dataclass
class AdvisorResult:
    returncode: int
    stdout: str
    stderr: str
    run_dir: Path

    @property
    def facts(self) -> dict[str, Any]:
        return json.loads((self.run_dir / "facts.json").read_text())

    def stage(self, name: str) -> dict[str, Any]:
        return self.facts["stages"][name]


def advisor_cmd() -> list[str]:
    """The installed console script when present (CI), else the module from this checkout."""
    exe = Path(sys.executable).parent / "advisor"
    if exe.exists() and os.environ.get("ADVISOR_TEST_MODULE") != "1":
        return [str(exe)]
    return [sys.executable, "-m", "advisor"]


def run_advisor(
    args: list[str],
    run_dir: Path | None = None,
    *,
    timeout_s: float = 600,
    env: dict[str, str] | None = None,
    command: str = "run",
) -> AdvisorResult:
    argv = [*advisor_cmd(), command, *args]
    if run_dir is not None and command == "run":
        argv.append(f"hydra.run.dir={run_dir}")
    full_env = dict(os.environ)
    full_env.setdefault("PYTHONPATH", str(REPO))
    if env:
        full_env.update(env)
    proc = subprocess.run(
        argv,
        capture_output=True,
        text=True,
        timeout=timeout_s,
        env=full_env,
        cwd=str(run_dir.parent if run_dir else REPO),
    )
    return AdvisorResult(proc.returncode, proc.stdout, proc.stderr, run_dir or Path())


@pytest.fixture
def advisor(tmp_path: Path):
    """Call as ``advisor(["+cluster=2x2", "emulate=true"])``; returns an AdvisorResult."""

    def _run(args: list[str], **kw: Any) -> AdvisorResult:
        return run_advisor(args, tmp_path / "run", **kw)

    return _run


def only_stages(*wanted: str) -> list[str]:
    """Overrides that run just these stages (a test then pays for no other stage's launch)."""
    from advisor import stages

    return [f"stages.{n}.enabled={str(n in wanted).lower()}" for n in stages.names()]


@pytest.fixture(scope="session")
def emulated_2x8(tmp_path_factory: pytest.TempPathFactory) -> AdvisorResult:
    """One real ``+cluster=2x8 emulate=true`` run (the quick profile, 16 ranks on 2 emulated
    nodes), shared by the tests that read it: 16 ranks on a small host take minutes to start, so
    each such run is paid once. Tests only read its directory.

    A session fixture runs once per xdist worker: the workers of one test run share this one
    through their common temporary directory, the first to need it running it under a lock."""
    base = tmp_path_factory.getbasetemp()
    if os.environ.get("PYTEST_XDIST_WORKER"):
        base = base.parent  # the test run's directory, above each worker's own
    shared = base / "emulated-2x8"
    shared.mkdir(exist_ok=True)
    with open(shared / "lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)  # released when the file closes
        done = shared / "result.json"
        if done.exists():
            kept = json.loads(done.read_text())
            return AdvisorResult(kept["returncode"], kept["stdout"], kept["stderr"], shared / "run")
        # a generous smoke deadline keeps the tests about the outputs, not the host's load
        args = ["+cluster=2x8", "emulate=true", "stages.smoke.deadline_s=900"]
        res = run_advisor(args, shared / "run", timeout_s=1200)
        done.write_text(
            json.dumps({"returncode": res.returncode, "stdout": res.stdout, "stderr": res.stderr})
        )
        return res
