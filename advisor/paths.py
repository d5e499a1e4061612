"""Where things are: the config tree, and the names of a run directory's files.

A low module (of the package it imports only ``advisor.errors``): every module that reads or writes a run
directory takes its names from here, so the writer and the readers cannot drift apart.
"""

from __future__ import annotations

import importlib.resources
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
