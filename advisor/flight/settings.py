"""The flight recorder's configuration and the variables that turn it on, per backend.

Importable without torch (the launcher, ``launch.sh`` and the sweep's own-command jobs use it).

Sources (variable names and defaults read from the code, not from memory):
- torch ``torch/csrc/distributed/c10d/FlightRecorder.hpp``: from 2.8 the buffer size is read from
  ``TORCH_FR_BUFFER_SIZE`` or its older name ``TORCH_NCCL_TRACE_BUFFER_SIZE`` (default 0 up to
  2.9, 2000 in 2.13); 2.6 and 2.7 read only ``TORCH_NCCL_TRACE_BUFFER_SIZE``. The dump file prefix
  is ``TORCH_FR_DUMP_TEMP_FILE`` or ``TORCH_NCCL_DEBUG_INFO_TEMP_FILE`` (rank appended). gloo
  records into the recorder from 2.8 (``ProcessGroupGloo.hpp`` ``trace_id_``); 2.6 and 2.7 keep
  no gloo entries.
- torch ``ProcessGroupNCCL.hpp``: ``TORCH_NCCL_DUMP_ON_TIMEOUT`` makes the watchdog dump every
  rank's buffer when a collective times out.
- torch_npu (Ascend/pytorch) ``torch_npu/csrc/distributed/ProcessGroupHCCL.hpp`` and
  ``TraceUtils.h``: ``TORCH_HCCL_TRACE_BUFFER_SIZE`` (default 0: off), ``TORCH_HCCL_DUMP_ON_TIMEOUT``,
  which needs ``TORCH_HCCL_ENABLE_MONITORING`` and a buffer (the header's own comment), and
  ``TORCH_HCCL_DEBUG_INFO_TEMP_FILE`` (default ``/tmp/hccl_trace_rank_``, rank appended,
  ``HCCLUtils.cpp`` ``DebugInfoWriter::getWriter``).
"""

from __future__ import annotations

import importlib.metadata
import time
from dataclasses import dataclass
from pathlib import Path

from advisor.errors import ConfigError

FLIGHT_DIR = "flight"
"""Under the run directory: ``flight/<launch>/`` per job whose dumps were taken."""
DUMPS_SUBDIR = "dumps"
"""The dumps proper, one file per rank named ``DUMP_PREFIX<rank>``: the layout torch's analyzer
(``torchfrtrace DIR``) reads."""
RANKS_SUBDIR = "ranks"
"""Beside the dumps, ``<rank>.json`` per rank: what the dump lacks (the groups the rank asked
for and holds, with their members; the call its error came from; its node and host)."""
REQUEST_FILE = "request"
"""Written by the supervisor when a stage fails or nears its deadline: every live rank dumps."""
DUMP_PREFIX = "fr_rank_"


def job_dir(run_dir: Path, launch: str) -> Path:
    """Where one job's dumps go (``flight/<launch>``)."""
    return run_dir / FLIGHT_DIR / launch


PREFIX_OF_BACKEND = {"gloo": "fr_rank_", "nccl": "nccl_trace_rank_", "hccl": "hccl_trace_rank_"}
"""File prefixes the backends' own dump-on-timeout writes under (``advisor import`` finds them)."""


@dataclass(kw_only=True)
class FlightConfig:
    """``flight``: the flight recorder in every job the advisor starts."""

    enabled: bool = True
    """Record every job's collectives and dump them when a stage fails or nears its deadline."""
    buffer_entries: int = 2000
    """Collectives kept per rank (the ring buffer's size)."""
    dump_wait_s: float = 3.0
    """How long the supervisor waits for the live ranks' dumps before it stops a failed job; a
    stage's dumps are requested this long before its deadline, so they land within it."""
    timeline_entries: int = 8
    """Collectives per rank and group kept for the report's timeline."""

    def __post_init__(self) -> None:
        if self.buffer_entries < 1:
            raise ConfigError(
                f"flight.buffer_entries={self.buffer_entries}: give at least 1 (or "
                "flight.enabled=false to turn the recorder off)."
            )
        if self.dump_wait_s <= 0:
            raise ConfigError(f"flight.dump_wait_s={self.dump_wait_s} must be positive.")


def recorder_env(
    backend: str, buffer_entries: int, dump_prefix: str = "", torch_version: str = ""
) -> dict[str, str]:
    """Variables that turn the recorder on for ``backend`` and, where the backend can dump on its
    own at a time-out (nccl, hccl), make it write under ``dump_prefix`` (a path prefix; the rank
    is appended). gloo has no dump-on-timeout: the advisor's own jobs dump on request.

    From torch 2.8 the recorder's own names are read (the NCCL-named ones warn that they are
    deprecated); before, only the NCCL-named ones. ``torch_version`` '' means this host's."""
    size = str(buffer_entries)
    new_names = recorder_names_are_new(torch_version or installed_torch())
    env = {"TORCH_FR_BUFFER_SIZE": size} if new_names else {"TORCH_NCCL_TRACE_BUFFER_SIZE": size}
    if backend == "nccl":
        env["TORCH_NCCL_DUMP_ON_TIMEOUT"] = "1"
        if dump_prefix:
            name = "TORCH_FR_DUMP_TEMP_FILE" if new_names else "TORCH_NCCL_DEBUG_INFO_TEMP_FILE"
            env[name] = dump_prefix
    elif backend == "hccl":
        # torch_npu reads its own names, whatever the torch version
        env = {
            "TORCH_HCCL_TRACE_BUFFER_SIZE": size,
            "TORCH_HCCL_DUMP_ON_TIMEOUT": "1",
            "TORCH_HCCL_ENABLE_MONITORING": "1",
        }
        if dump_prefix:
            env["TORCH_HCCL_DEBUG_INFO_TEMP_FILE"] = dump_prefix
    return env


def installed_torch() -> str:
    """This host's torch version, without importing torch ('' when it is not installed)."""
    try:
        return importlib.metadata.version("torch")
    except importlib.metadata.PackageNotFoundError:
        return ""


def _minor(torch_version: str) -> tuple[int, int] | None:
    try:
        major, minor = (int(p) for p in torch_version.split("+")[0].split(".")[:2])
    except ValueError:
        return None
    return major, minor


def recorder_names_are_new(torch_version: str) -> bool:
    """torch 2.8 on reads TORCH_FR_BUFFER_SIZE / TORCH_FR_DUMP_TEMP_FILE."""
    v = _minor(torch_version)
    return v is None or v >= (2, 8)


QUIET_S = 1.0
"""A request's dumps land within a few polls of each other: once this long passes with no new
one, the ranks still missing are gone (a dead rank never writes its dump)."""


def wait_for_dumps(dumps: Path, world: int, until: float, *, poll_s: float = 0.1) -> int:
    """Wait (monotonic ``until`` at most) for ``world`` dumps in ``dumps``, or for the dumps to
    stop coming; the number found."""
    last_count, last_change = -1, time.monotonic()
    while True:
        count = sum(1 for _ in dumps.glob(f"{DUMP_PREFIX}*")) if dumps.is_dir() else 0
        now = time.monotonic()
        if count != last_count:
            last_count, last_change = count, now
        if count >= world or now >= until or (count and now - last_change >= QUIET_S):
            return count
        time.sleep(poll_s)
