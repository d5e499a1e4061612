"""The user's own training job as a sweep workload: build its command, read its metric.

The template is split into words first and each word filled in afterwards, so a trial's values
can never become shell syntax; the argv is started by torchrun on every rank (``--no-python``),
with the trial's environment. The metric comes from global rank 0's stdout: the last JSON line
holding the metric key, or the last match of a configured regex.
"""

from __future__ import annotations

import json
import re
import shlex
import sys
from dataclasses import asdict
from pathlib import Path

from advisor.sweep.config import CommandConfig, TrialConfig

STDERR_TAIL_CHARS = 2000


def command_argv(template: str, trial: TrialConfig, python: str = "") -> list[str]:
    """The trial's argv: the template's words, each filled with the trial's settings."""
    values = asdict(trial)
    values["gradient_as_bucket_view"] = str(trial.gradient_as_bucket_view).lower()
    argv = [word.format_map(values) for word in shlex.split(template)]
    if argv and argv[0] in ("python", "python3"):
        argv[0] = python or sys.executable
    return argv


def rank_stream(job_log_dir: Path, node: int, local_rank: int, stream: str) -> Path | None:
    """A rank's captured stdout/stderr under torchrun's log layout, if it exists."""
    hits = sorted(
        (job_log_dir / f"node{node}-ranks").glob(f"*/attempt_*/{local_rank}/{stream}.log")
    )
    return hits[-1] if hits else None


def parse_metric(stdout: str, cfg: CommandConfig) -> float | None:
    """The metric from a job's stdout (last occurrence), or None when it never printed one."""
    if cfg.metric_regex:
        matches = re.findall(cfg.metric_regex, stdout)
        for m in reversed(matches):
            text = m[0] if isinstance(m, tuple) else m
            try:
                return float(text)
            except ValueError:
                continue
        return None
    for line in reversed(stdout.splitlines()):
        line = line.strip()
        if not line.startswith("{"):
            continue
        try:
            row = json.loads(line)
        except json.JSONDecodeError:
            continue
        value = row.get(cfg.metric) if isinstance(row, dict) else None
        if isinstance(value, int | float) and not isinstance(value, bool):
            return float(value)
    return None


def tail(path: Path | None, chars: int = STDERR_TAIL_CHARS) -> str:
    if path is None or not path.exists():
        return ""
    return path.read_text(encoding="utf-8", errors="replace")[-chars:]
