"""Collectives under a compute load: each rank keeps its device busy with matmuls while the
benchmark times a collective, because training overlaps communication with compute and the
algorithm fastest on idle devices is not always the fastest on busy ones.

The load runs beside the collective on every rank, in a background thread of the rank process:

* on cuda and npu the thread queues square matmuls on a stream of its own (not the stream the
  collective is issued from) and waits for each one on that stream;
* on the CPU (gloo) the thread runs ``torch.mm`` itself. torch releases the GIL for the whole of a
  torch function (every generated binding opens ``pybind11::gil_scoped_release`` around its
  dispatch: pytorch/pytorch tools/autograd/gen_python_functions.py), so the rank's own thread
  keeps running while a matmul computes; the job's intra-op threads are set to
  ``stages.bench.compute_load.cpu_threads`` for the loaded pass (``torch.set_num_threads``) so the
  load takes that many cores' worth per rank instead of every core of the host.

Intensity is the share of wall time the load is busy: in every ``period_ms`` the thread computes
for ``intensity × period_ms`` (whole matmuls: it stops at the first matmul ending past that mark)
and sleeps for the rest; 1.0 never sleeps. On a device that share is of the device's time with a
matmul running on the load's stream (how much of the device one matmul fills depends on the chip
and ``matrix_size``); on the CPU it is the share of one core per ``cpu_threads``. The achieved
share is measured and reported beside the requested one (``busy_share``).

Idle and loaded timings of a point are interleaved, iteration by iteration, in an order that
rotates each round, so drift of a noisy host falls on both alike; the slowdown is the loaded
median over the idle median of the same point.
"""

from __future__ import annotations

import contextlib
import statistics
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

from advisor.errors import ConfigError

CPU_MATRIX_SIZE = 256
"""Default side of the load's square matrices on the CPU: one fp32 matmul is tens of MFLOP, a
millisecond or so on one core, fine enough for a duty cycle of a few milliseconds."""
DEVICE_MATRIX_SIZE = 4096
"""Default side on cuda and npu: large enough that one matmul fills the device's compute units."""


@dataclass(kw_only=True)
class ComputeLoadConfig:
    """Matmul load the benchmark runs beside its collectives (``stages.bench.compute_load``).

    Off when ``intensities`` is empty (or holds only 0). Example:
    ``stages.bench.compute_load.intensities=[0.5,1.0]``.
    """

    intensities: list[float] = field(default_factory=list)
    """Load intensities in [0, 1]: the share of wall time each rank's load is busy (0 is the idle
    baseline, always measured; 1 never pauses). Empty: no loaded measurements. Each point then
    takes iters × (1 + intensities) timed iterations, each after one to two periods at its level."""
    ops: list[str] = field(default_factory=lambda: ["all_reduce"])
    """Collectives timed under load (all_reduce with every algorithm of stages.bench.algorithms,
    the others natively), in the first of stages.bench.dtypes, at the benchmark's sizes."""
    matrix_size: int = 0
    """Side of the load's square fp32 matrices; 0: 256 on the CPU, 4096 on cuda and npu."""
    period_ms: float = 5.0
    """Duty cycle of the load: busy for intensity × period_ms, idle for the rest."""
    cpu_threads: int = 1
    """torch intra-op threads during the loaded pass on the CPU (the load's matmuls use them)."""
    max_slowdown: float = 1.5
    """A collective slower than this many times its idle time under load is a finding
    (conf/rules/load.yaml reads it as ``bench.load_max_slowdown``)."""

    def __post_init__(self) -> None:
        key = "stages.bench.compute_load"
        bad = [x for x in self.intensities if not 0.0 <= x <= 1.0]
        if bad:
            raise ConfigError(
                f"{key}.intensities: {bad} outside [0, 1]; an intensity is the share of time each "
                "rank's matmul load is busy (0 idle, 1 always busy), e.g. [0.5,1.0]."
            )
        if self.matrix_size < 0:
            raise ConfigError(
                f"{key}.matrix_size must be ≥ 0 (0: by device), got {self.matrix_size}."
            )
        if self.period_ms <= 0:
            raise ConfigError(f"{key}.period_ms must be > 0, got {self.period_ms}.")
        if self.cpu_threads < 1:
            raise ConfigError(f"{key}.cpu_threads must be at least 1, got {self.cpu_threads}.")
        if self.max_slowdown < 1:
            raise ConfigError(f"{key}.max_slowdown must be at least 1, got {self.max_slowdown}.")

    def levels(self) -> list[float]:
        """The loaded intensities to measure: distinct, above 0, ascending."""
        return sorted({float(x) for x in self.intensities if x > 0})

    def matrix_side(self, device_type: str) -> int:
        if self.matrix_size:
            return self.matrix_size
        return CPU_MATRIX_SIZE if device_type == "cpu" else DEVICE_MATRIX_SIZE


# ---------------------------------------------------------------- rank side

TAKE_UP_TIMEOUT_S = 10.0
"""Longest a rank waits for its load thread to take a new level up: one matmul, far longer only
when the host starves the thread (a device matmul of DEVICE_MATRIX_SIZE takes milliseconds)."""


class MatmulLoad:
    """A thread keeping this rank's device busy with matmuls for a share of the time.

    ``set(intensity)`` returns once the thread has taken the new level up, within one matmul (a
    busy phase ends early when the level changes; a sleeping thread is woken), and after the
    thread has summed the phase it left. Without that handshake a loaded host could leave the
    thread unscheduled for a whole short phase: the collective would then be timed with no load
    beside it, and the phase's busy time would be missing from its share. Busy and wall seconds
    are summed per intensity.
    """

    def __init__(self, device: Any, *, matrix_size: int, period_s: float) -> None:
        import torch

        self._torch = torch
        self.device = device
        self.matrix_size = matrix_size
        self.period_s = period_s
        self._level = 0.0
        self._taken: float | None = None
        """The level the thread last took up (guarded by ``_taken_cond``)."""
        self._taken_cond = threading.Condition()
        self._stopping = False
        self._wake = threading.Event()
        self._lock = threading.Lock()
        self._seconds: dict[float, list[float]] = {}
        self._failure: BaseException | None = None
        self._thread = threading.Thread(target=self._run, name="advisor-matmul-load", daemon=True)

    def start(self) -> None:
        self._thread.start()

    def set(self, intensity: float) -> None:
        """Run at ``intensity`` from now on; returns when the thread has taken it up (bounded by
        ``TAKE_UP_TIMEOUT_S``, so a thread stuck in one matmul cannot hold the rank past its
        deadline: the achieved ``busy_share`` then shows the shortfall)."""
        self.raise_failure()
        with self._taken_cond:
            self._level = intensity
            self._wake.set()
            self._taken_cond.wait_for(
                lambda: (
                    self._taken == intensity
                    or self._failure is not None
                    or not self._thread.is_alive()
                ),
                timeout=TAKE_UP_TIMEOUT_S,
            )
        self.raise_failure()

    def stop(self) -> None:
        """End the thread (after its current matmul); a failure is left to raise_failure, so an
        error already on its way out of the rank is not masked by this one."""
        self._stopping = True
        self._level = 0.0
        self._wake.set()
        self._thread.join()

    def raise_failure(self) -> None:
        if self._failure is not None:
            raise RuntimeError(f"the matmul load failed: {self._failure!r}") from self._failure

    def take_seconds(self) -> dict[float, tuple[float, float]]:
        """(busy s, wall s) per intensity since the last call, and start afresh."""
        with self._lock:
            out = {k: (v[0], v[1]) for k, v in self._seconds.items()}
            self._seconds = {}
        return out

    def _stream(self) -> Any:
        kind = getattr(self.device, "type", "cpu")
        if kind not in ("cuda", "npu"):
            return None
        return getattr(self._torch, kind).Stream(device=self.device)

    @contextlib.contextmanager
    def _on(self, stream: Any) -> Iterator[None]:
        # The current stream is per thread (c10/cuda/CUDAStream.cpp keeps it thread_local), so
        # selecting the load's stream here leaves the rank's thread, and its collectives, on theirs.
        if stream is None:
            yield
            return
        with getattr(self._torch, self.device.type).stream(stream):
            yield

    def _run(self) -> None:
        try:
            torch = self._torch
            n = self.matrix_size
            stream = self._stream()
            with self._on(stream):
                a = torch.rand(n, n, device=self.device)
                b = torch.rand(n, n, device=self.device)
                out = torch.empty(n, n, device=self.device)
                while not self._stopping:
                    with self._taken_cond:
                        level = self._level
                        self._taken = level
                        self._taken_cond.notify_all()
                    if level <= 0:
                        self._wake.wait()
                        self._wake.clear()
                        continue
                    start = time.perf_counter()
                    busy_until = start + level * self.period_s
                    while True:
                        torch.mm(a, b, out=out)
                        if stream is not None:
                            stream.synchronize()  # the busy time is the device's, not the queue's
                        now = time.perf_counter()
                        if now >= busy_until or self._level != level or self._stopping:
                            break
                    busy = now - start
                    if level < 1.0 and self._level == level:
                        self._wake.wait(max(0.0, start + self.period_s - now))
                        self._wake.clear()
                    wall = time.perf_counter() - start
                    with self._lock:
                        acc = self._seconds.setdefault(level, [0.0, 0.0])
                        acc[0] += busy
                        acc[1] += wall
        except BaseException as e:  # reported to the rank's thread at its next set()
            self._failure = e
            with self._taken_cond:
                self._taken_cond.notify_all()


@contextlib.contextmanager
def running(device: Any, cfg: ComputeLoadConfig) -> Iterator[MatmulLoad]:
    """A started load (intensity 0) with the CPU's intra-op threads limited, stopped on exit."""
    import torch

    threads = torch.get_num_threads()
    kind = getattr(device, "type", "cpu")
    if kind == "cpu":
        torch.set_num_threads(cfg.cpu_threads)
    load = MatmulLoad(device, matrix_size=cfg.matrix_side(kind), period_s=cfg.period_ms / 1e3)
    load.start()
    try:
        yield load
    finally:
        load.stop()
        torch.set_num_threads(threads)
    load.raise_failure()


def sync_stream(device: Any) -> None:
    """Wait for the work queued on this thread's current stream only.

    ``torch.cuda.synchronize`` waits for every stream of the device (its documentation: "Wait for
    all kernels in all streams"), the load's included; the collective's own end is what is timed.
    """
    kind = getattr(device, "type", "cpu")
    if kind in ("cuda", "npu"):
        import torch

        getattr(torch, kind).current_stream(device).synchronize()


# ---------------------------------------------------------------- advisor side


@dataclass(kw_only=True)
class LoadResult:
    """One collective point at one load intensity, beside its idle time from the same rounds."""

    op: str
    dtype: str
    algorithm: str
    bytes: int
    intensity: float
    """Requested share of time each rank's load is busy (0 < intensity ≤ 1)."""
    busy_share: float
    """Share of the loaded rounds' wall time the load really was busy, mean over ranks."""
    rounds: int
    """Interleaved rounds: timed iterations of each of idle and every intensity."""
    idle_us_p50: float
    idle_us_p10: float
    idle_us_p90: float
    loaded_us_p50: float
    loaded_us_p10: float
    loaded_us_p90: float
    slowdown: float
    """loaded_us_p50 / idle_us_p50 (each iteration timed as the slowest rank's)."""
    beyond_noise: bool
    """The loaded p10 is above the idle p90: the slowdown exceeds the spread of both."""


@dataclass(kw_only=True)
class LoadChoice:
    """At one op, size and intensity: the fastest algorithm idle and under load."""

    op: str
    dtype: str
    bytes: int
    intensity: float
    idle_best: str
    """Smallest idle median among the algorithms timed under load."""
    loaded_best: str
    """Smallest loaded median."""
    changed: bool
    gain: float
    """The idle best's loaded median over the loaded best's (1.0 when unchanged)."""
    beyond_noise: bool
    """Changed, and the loaded best's loaded p90 is below the idle best's loaded p10."""


def results_of(records: list[Any]) -> list[LoadResult]:
    """LoadResults from rank 0's ``load/...`` records, in the order they were measured."""
    out: list[LoadResult] = []
    for r in records:
        m = r.metrics
        if r.rank != 0 or r.status != "ok" or not r.step.startswith("load/") or "op" not in m:
            continue
        idle = m["idle"]
        for lv in m["loaded"]:
            out.append(
                LoadResult(
                    op=m["op"],
                    dtype=m["dtype"],
                    algorithm=m["algorithm"],
                    bytes=int(m["bytes"]),
                    intensity=float(lv["intensity"]),
                    busy_share=float(lv["busy_share"]),
                    rounds=int(m["rounds"]),
                    idle_us_p50=float(idle["p50"]),
                    idle_us_p10=float(idle["p10"]),
                    idle_us_p90=float(idle["p90"]),
                    loaded_us_p50=float(lv["p50"]),
                    loaded_us_p10=float(lv["p10"]),
                    loaded_us_p90=float(lv["p90"]),
                    slowdown=float(lv["p50"]) / float(idle["p50"]),
                    beyond_noise=float(lv["p10"]) > float(idle["p90"]),
                )
            )
    return out


def choices(results: list[LoadResult]) -> list[LoadChoice]:
    """Per (op, dtype, size, intensity) timed with two algorithms or more: idle vs loaded best."""
    groups: dict[tuple[str, str, int, float], list[LoadResult]] = {}
    for r in results:
        groups.setdefault((r.op, r.dtype, r.bytes, r.intensity), []).append(r)
    out = []
    for (op, dtype, nbytes, intensity), rows in groups.items():
        if len(rows) < 2:
            continue
        idle = min(rows, key=lambda r: r.idle_us_p50)
        loaded = min(rows, key=lambda r: r.loaded_us_p50)
        changed = idle.algorithm != loaded.algorithm
        out.append(
            LoadChoice(
                op=op,
                dtype=dtype,
                bytes=nbytes,
                intensity=intensity,
                idle_best=idle.algorithm,
                loaded_best=loaded.algorithm,
                changed=changed,
                gain=idle.loaded_us_p50 / loaded.loaded_us_p50,
                beyond_noise=changed and loaded.loaded_us_p90 < idle.loaded_us_p10,
            )
        )
    return out


def pivot(results: list[LoadResult]) -> tuple[list[float], list[dict[str, Any]]]:
    """(intensities, rows): one row per (op, algorithm, dtype, size) with its idle median and,
    per intensity, the LoadResult (None where that intensity was not measured)."""
    intensities = sorted({r.intensity for r in results})
    rows: dict[tuple[str, str, str, int], dict[str, Any]] = {}
    for r in results:
        row = rows.setdefault(
            (r.op, r.algorithm, r.dtype, r.bytes),
            {
                "op": r.op,
                "algorithm": r.algorithm,
                "dtype": r.dtype,
                "bytes": r.bytes,
                "idle_us_p50": r.idle_us_p50,
                "by_intensity": dict.fromkeys(intensities),
            },
        )
        row["by_intensity"][r.intensity] = r
    return intensities, list(rows.values())


def table(results: list[LoadResult], *, title: str = "") -> str:
    """Console table: per op, algorithm and size, the idle median and each intensity's slowdown
    (loaded/idle median; ``*`` where the loaded p10 is above the idle p90) and achieved busy
    share."""
    intensities, rows = pivot(results)
    lines = [f"# {title}"] if title else []
    head = f"#{'op':>11} {'algorithm':>17} {'type':>5} {'size':>10} {'idle':>9}"
    units = f"#{'':>11} {'':>17} {'':>5} {'(B)':>10} {'(us)':>9}"
    for x in intensities:
        head += f" {f'load {x:g}':>18}"
        units += f" {'(x idle, busy)':>18}"
    lines += [head, units]
    for row in rows:
        line = (
            f" {row['op']:>11} {row['algorithm'][:17]:>17} {row['dtype']:>5} {row['bytes']:>10}"
            f" {row['idle_us_p50']:>9.1f}"
        )
        for x in intensities:
            r = row["by_intensity"][x]
            cell = (
                "-"
                if r is None
                else (
                    f"{r.slowdown:.2f}x{'*' if r.beyond_noise else ' '} {100 * r.busy_share:3.0f}%"
                )
            )
            line += f" {cell:>18}"
        lines.append(line)
    if results:
        worst = max(results, key=lambda r: r.slowdown)
        lines.append(
            f"# Median slowdown under load: {statistics.median(r.slowdown for r in results):.2f}x;"
            f" worst {worst.slowdown:.2f}x ({worst.op} {worst.algorithm} {worst.bytes} B at "
            f"{worst.intensity:g})"
        )
    return "\n".join(lines)
