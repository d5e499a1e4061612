"""Rank side: dump this rank's flight-recorder buffer when asked, or when its stage fails.

A side thread watches for the supervisor's request file (the run directory is where the ranks
already write their records, so it reaches every rank the supervisor can see); it runs while the
main thread is blocked in a collective or hung in compute, which is when the dump matters. The
rank that raises dumps at once, before it reports, so its buffer is there even if it exits.
"""

from __future__ import annotations

import json
import os
import select
import signal
import threading
import time
from pathlib import Path
from typing import Any

import torch.distributed as dist

from advisor import comm
from advisor.flight.settings import (
    DUMP_PREFIX,
    DUMPS_SUBDIR,
    RANKS_SUBDIR,
    REQUEST_FILE,
    job_dir,
    wait_for_dumps,
)

POLL_S = 0.1
TERMINATED_EXIT_CODE = 128 + signal.SIGTERM
"""A rank stopped by SIGTERM dumps first, then exits with the code a shell gives that signal."""


def _dump_bytes(backend: str) -> bytes | None:
    """This rank's buffer as torch pickles it (every group of the backend's recorder)."""
    names = {
        "nccl": ("_dump_nccl_trace", "_dump_fr_trace"),
        "hccl": ("_dump_hccl_trace",),
    }.get(backend, ("_dump_fr_trace",))
    modules: list[Any] = []
    if backend == "hccl":
        try:
            import torch_npu  # noqa: F401  (only on an Ascend host with the npu backend)

            modules.append(__import__("torch_npu._C._distributed_c10d", fromlist=["_"]))
        except ImportError:
            return None
    import torch._C._distributed_c10d as c10d

    modules.append(c10d)
    for module in modules:
        for name in names:
            fn = getattr(module, name, None)
            if fn is not None:
                return bytes(fn(True, True, False))
    return None


def _groups() -> dict[str, list[int]]:
    """Every process group this rank holds, by name, with its members (global ranks): the gloo
    recorder's own ``pg_config`` is empty (torch 2.13), so the membership is written beside it."""
    world = getattr(dist.distributed_c10d, "_world", None)
    out: dict[str, list[int]] = {}
    for pg, ranks in dict(getattr(world, "pg_group_ranks", {}) or {}).items():
        name = comm.group_name(pg)
        if name:
            out[name] = sorted(int(r) for r in ranks)
    return out


class Dumper:
    """This rank's dumps for one job."""

    def __init__(self, *, run_dir: Path, launch: str, rank: int, where: tuple[str, str]) -> None:
        self.dir = job_dir(run_dir, launch)
        self.rank = rank
        self.where = where
        self._lock = threading.RLock()
        self._seen = 0.0
        self._stop = threading.Event()
        self._wakeup: int | None = None
        self._final = False
        self._thread = threading.Thread(target=self._watch, name="advisor-flight", daemon=True)

    def start(self) -> None:
        """Start watching; on the main thread also catch SIGTERM, so a rank that its agent stops
        (after a peer crashed) dumps before it goes, even while blocked in a collective."""
        if threading.current_thread() is threading.main_thread():
            r, w = os.pipe()
            os.set_blocking(w, False)
            # The C-level handler writes the signal number to this pipe at once; the Python
            # handler would wait for the main thread, which may be blocked in a collective.
            signal.set_wakeup_fd(w, warn_on_full_buffer=False)
            signal.signal(signal.SIGTERM, lambda signum, frame: self._terminated())
            self._wakeup = r
        self._thread.start()

    def stop(self) -> None:
        """No dump from now on: the job's groups are being destroyed (a dump now would hold
        none of them and overwrite one that did)."""
        with self._lock:
            self._stop.set()

    def _watch(self) -> None:
        request = self.dir / REQUEST_FILE
        while not self._stop.is_set():
            if self._wakeup is not None:
                ready, _, _ = select.select([self._wakeup], [], [], POLL_S)
                if ready and signal.SIGTERM in os.read(self._wakeup, 64):
                    self._terminated()
            else:
                time.sleep(POLL_S)
            try:
                stamp = request.stat().st_mtime
            except OSError:
                continue
            if stamp != self._seen:
                self._seen = stamp
                self.dump()

    def _terminated(self) -> None:
        """Dump and exit as a process ended by SIGTERM would (128 + 15)."""
        self.dump()
        os._exit(TERMINATED_EXIT_CODE)

    def dump_on_error(self, error: str, wait_s: float = 3.0) -> None:
        """This rank failed: dump its buffer, ask every peer for theirs, and give them up to
        ``wait_s`` to write them before the rank exits (its agent then stops the others, and a
        rank's buffer goes with its process)."""
        self.dump(error=error)
        # the dump that names the failing call is the one to keep: what follows is teardown
        # (groups destroyed, the call forgotten), and a later dump would overwrite it
        self._final = True
        request = self.dir / REQUEST_FILE
        try:
            request.parent.mkdir(parents=True, exist_ok=True)
            request.write_text(f"rank {self.rank}: {error[:200]}", encoding="utf-8")
            self._seen = request.stat().st_mtime  # its own watcher need not dump again
        except OSError:
            return
        world = dist.get_world_size() if dist.is_initialized() else 1
        wait_for_dumps(self.dir / DUMPS_SUBDIR, world, time.monotonic() + wait_s, poll_s=POLL_S)

    def dump(self, error: str = "") -> bool:
        """Write this rank's buffer and its side facts; False when the recorder has nothing to
        give (turned off, or a backend that does not record)."""
        with self._lock:
            if self._final or self._stop.is_set():
                return False
            try:
                backend = str(dist.get_backend()) if dist.is_initialized() else ""
                data = _dump_bytes(backend)
            except Exception:  # a dump must never take the rank down with it
                return False
            if not data:
                return False
            st = comm.current() if dist.is_initialized() else None
            side: dict[str, Any] = {
                "rank": self.rank,
                "where": list(self.where),
                "pid": os.getpid(),
                "groups": _groups() if dist.is_initialized() else {},
                "requested": st.requested if st else [],
            }
            if st is not None and st.in_flight is not None:
                call = {"op": st.in_flight[0], "group": st.in_flight[1]}
                # the call the rank is blocked in: what the recorder may not keep (gloo records
                # no point-to-point op, so no monitored_barrier)
                side["inside"] = call
                if error:
                    side["failed"] = {**call, "error": error}
            _write(self.dir / DUMPS_SUBDIR / f"{DUMP_PREFIX}{self.rank}", data)
            _write(
                self.dir / RANKS_SUBDIR / f"{self.rank}.json",
                json.dumps(side, indent=1).encode(),
            )
            return True


def _write(path: Path, data: bytes) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f".{path.name}.tmp")
    tmp.write_bytes(data)
    os.replace(tmp, path)
