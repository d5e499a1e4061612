"""Shared test helpers: run the real CLI in a subprocess and read what it wrote."""

from __future__ import annotations

import fcntl
import json
import os
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
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


ALONE_DIR_ENV = "PYTEST_XDIST_TESTRUNUID"
"""xdist gives every worker of one test run the same id: the run's lock files are named by it."""


@contextmanager
def _turn(lock_dir: Path, *, alone: bool) -> Iterator[None]:
    """Hold the room shared (any test) or alone (a ``@pytest.mark.alone`` test) for a test.

    Two locks: a test passes the turnstile to enter, and one waiting to be alone keeps the
    turnstile while the others leave, so tests arriving after it wait instead of overtaking it
    (flock(2) alone would let shared holders keep it waiting)."""
    lock_dir.mkdir(parents=True, exist_ok=True)
    with open(lock_dir / "turnstile", "w") as gate, open(lock_dir / "room", "w") as room:
        fcntl.flock(gate, fcntl.LOCK_EX)
        try:
            fcntl.flock(room, fcntl.LOCK_EX if alone else fcntl.LOCK_SH)
        finally:
            if not alone:
                fcntl.flock(gate, fcntl.LOCK_UN)
        try:
            yield
        finally:
            fcntl.flock(room, fcntl.LOCK_UN)
            if alone:
                fcntl.flock(gate, fcntl.LOCK_UN)


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_protocol(item: pytest.Item, nextitem: pytest.Item | None) -> Iterator[None]:
    """With xdist (the README's ``-n 2``), a test marked ``alone`` runs with no other test of
    the run beside it, set-up (module fixtures included) and teardown too: it measures rates or
    holds a deadline to a few seconds, which another worker's jobs on a 2-core host would
    stretch. Serially there is nothing to wait for."""
    run_id = os.environ.get(ALONE_DIR_ENV)
    if not run_id or not os.environ.get("PYTEST_XDIST_WORKER"):
        yield
        return
    # (beside the run's workers' own temporary directories, which pytest removes with its old
    # runs' basetemps: a lock directory in the system's /tmp would outlive every run)
    factory = getattr(item.config, "_tmp_path_factory", None)
    base = (
        Path(factory.getbasetemp()).parent if factory is not None else Path(tempfile.gettempdir())
    )
    lock_dir = base / f"advisor-tests-{run_id}"
    with _turn(lock_dir, alone=item.get_closest_marker("alone") is not None):
        yield


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
