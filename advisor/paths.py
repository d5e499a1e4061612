"""Where things are: the config tree, and the names of a run directory's files.

A low module (of the package it imports only ``advisor.errors``): every module that reads or writes a run
directory takes its names from here, so the writer and the readers cannot drift apart.
"""

from __future__ import annotations

import errno
import importlib.resources
import os
from pathlib import Path

from advisor.errors import ConfigError

RESULTS_DIR = "results"
"""Raw records: ``<stage>.jsonl`` per stage, written by the ranks as they go."""
STAGES_FILE = "stages.jsonl"
"""Outcome of each stage as the supervisor saw it (status, per-rank outcome), one line a stage."""
LAUNCHES_FILE = "launches.jsonl"
"""Every job launch: which stages it ran, and each rank's start (launch to process, process-group
init), one record per rank (written by the ranks)."""
RUN_FILE = "run.json"
"""Run-level facts measured once (run info, cluster, environment), beside the stage results."""
EVIDENCE_FILE = "evidence.json"
"""Evidence imported from files (``advisor import``, or ``evidence=[...]`` on a run)."""
FACTS_FILE = "facts.json"
FINDINGS_FILE = "findings.json"
ENV_FILE = "recommended.env"
LAUNCH_FILE = "launch.sh"
SETTINGS_FILE = "settings.yaml"
REPORT_FILE = "report.html"
JOBS_DIR = "jobs"
"""Job specs the launcher writes for the ranks."""
LOGS_DIR = "logs"
"""Agents' output per job."""


def results_dir(run_dir: Path) -> Path:
    return run_dir / RESULTS_DIR


def conf_dir() -> Path:
    """The config tree: inside the installed package, or ``conf/`` beside it in a checkout."""
    packaged = Path(str(importlib.resources.files("advisor"))) / "conf"
    if (packaged / "config.yaml").exists():
        return packaged
    checkout = Path(__file__).resolve().parent.parent / "conf"
    if (checkout / "config.yaml").exists():
        return checkout
    raise ConfigError(
        "cannot find the advisor's config tree (conf/config.yaml): reinstall the package."
    )


def symlink_loop(path: Path) -> Path | None:
    """The link in ``path`` that leads back to itself (``a -> b -> a``), or None.

    A loop reads as "does not exist" to ``exists()``; naming it tells the user what to fix."""
    try:
        os.stat(path)
    except OSError as e:
        if e.errno != errno.ELOOP:
            return None
        # The first component of the path whose own resolution loops is the link to fix.
        probe = Path(path.anchor) if path.is_absolute() else Path()
        for part in path.parts[1 if path.is_absolute() else 0 :]:
            probe = probe / part
            try:
                os.stat(probe)
            except OSError as inner:
                if inner.errno == errno.ELOOP:
                    return probe
        return path
    return None


def missing_path(path: Path, what: str, fix: str) -> str:
    """Why ``path`` (a ``what``: "rule path", "evidence path") cannot be read: a symlink loop is
    named as one; anything else "does not exist"; ``fix`` says what to give instead."""
    loop = symlink_loop(path)
    if loop is not None:
        return (
            f"{what} {path} is a symbolic link loop ({loop} leads back to itself): point the "
            f"link at a real file or directory, or {fix}"
        )
    return f"{what} {path} does not exist: {fix}"


def unwritable_dir(path: Path) -> str | None:
    """Why a run directory at ``path`` cannot be made and written, or None when it can: the
    nearest part that exists must be a writable directory, and no part a symlink loop."""
    loop = symlink_loop(path)
    if loop is not None:
        return f"{loop} is a symbolic link loop (it leads back to itself)"
    probe = path
    while not os.path.lexists(probe) and probe != probe.parent:
        probe = probe.parent
    if probe.is_symlink() and not probe.exists():
        return f"{probe} is a broken symbolic link"
    if not probe.is_dir():
        return f"{probe} is a file, not a directory"
    if not os.access(probe, os.W_OK | os.X_OK):
        return f"{probe} is not writable by this user (or is on a read-only file system)"
    return None
