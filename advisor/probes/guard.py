"""Arrival guard: names the ranks that never reach a step instead of hanging with them.

Before each guarded step every rank writes the step it reached to the job's rendezvous store
(``progress/<rank>``) and waits at ``monitored_barrier`` (gloo; a side gloo group on nccl/hccl),
which fails after ``timeout_s`` naming the ranks that did not arrive. monitored_barrier is run by
rank 0, so the other ranks first wait (same timeout) for rank 0's arrival in the store; a missing
rank 0 is named from the published progress. A rank that sees a failure writes a ``hang``
record (step, missing ranks, each missing rank's last step from the store) and raises
:class:`HangDetected`, so the stage ends in seconds with its culprit named, well before the
stage deadline.
"""

from __future__ import annotations

import re
import time
from dataclasses import dataclass, field
from datetime import timedelta
from typing import TYPE_CHECKING, Any, NoReturn

if TYPE_CHECKING:
    from advisor.results import Record
    from advisor.worker import RankContext

HANG_STEP = "hang"
"""Record step written when a guarded step times out (metrics: at_step, missing_ranks,
last_steps, source, timeout_s, message)."""

_MISSING = re.compile(r"Ranks? ([\d,\s]+) failed to pass monitoredBarrier")


class HangDetected(RuntimeError):
    """Some ranks did not reach a guarded step within its timeout."""

    def __init__(self, step: str, missing_ranks: list[int], timeout_s: float) -> None:
        self.step = step
        self.missing_ranks = missing_ranks
        who = ", ".join(map(str, missing_ranks))
        noun = "rank" if len(missing_ranks) == 1 else "ranks"
        super().__init__(
            f"{noun} {who or '(unknown)'} did not reach step {step!r} within {timeout_s:g} s"
        )


def missing_from_message(message: str) -> list[int]:
    """Ranks named by gloo's monitored_barrier failure (only rank 0 sees them)."""
    m = _MISSING.search(message)
    if not m:
        return []
    return sorted({int(x) for x in re.findall(r"\d+", m.group(1))})


class Guard:
    """One per rank and job: ``arrive(step)`` before each step that every rank must reach."""

    def __init__(self, ctx: RankContext, timeout_s: float) -> None:
        import torch.distributed as dist

        from advisor import comm

        self.ctx = ctx
        self.timeout_s = timeout_s
        self.store: Any = dist.distributed_c10d._get_default_store()
        # monitored_barrier exists only on gloo: on nccl/hccl it runs on the job's gloo side
        # group of all ranks (advisor.comm), over which probes also exchange small objects.
        self.group: Any = comm.side_group()

    def mark(self, step: str) -> None:
        """Publish the step this rank has reached (read back when a guarded step times out)."""
        self.store.set(f"progress/{self.ctx.rank}", step)
        if self.ctx.rank == 0:
            self.store.set(self._arrived_key(step), "1")

    def _arrived_key(self, step: str) -> str:
        # stages share the job's store: a step name is the stage's own
        return f"arrived/{self.ctx.stage}/{step}/0"

    def progress(self) -> dict[int, str]:
        """Last step each rank published; '' for a rank that published nothing."""
        out: dict[int, str] = {}
        for r in range(self.ctx.world_size):
            key = f"progress/{r}"
            try:
                out[r] = self.store.get(key).decode() if self.store.check([key]) else ""
            except Exception:  # the store lives on rank 0's agent: it may be gone too
                out[r] = ""
        return out

    def arrive(self, step: str) -> float:
        """Wait until every rank reaches ``step``; returns the seconds this rank waited."""
        from advisor import comm

        self.mark(step)
        t0 = time.perf_counter()
        timeout = timedelta(seconds=self.timeout_s)
        if self.ctx.rank != 0:
            # monitored_barrier is run by rank 0: without it the other ranks would wait the
            # process-group timeout, so they first wait for rank 0 in the store.
            try:
                with comm.waiting_in("monitored_barrier", self.group):
                    self.store.wait([self._arrived_key(step)], timeout)
            except Exception as e:
                self._diagnose(step, e, named=[])
        try:
            comm.monitored_barrier(self.group, self.timeout_s, wait_all_ranks=True)
        except RuntimeError as e:
            self._diagnose(step, e, named=missing_from_message(str(e)))
        return time.perf_counter() - t0

    def _diagnose(self, step: str, error: Exception, named: list[int]) -> NoReturn:
        """Record which ranks are missing at ``step`` (and where they are), then raise."""
        last_steps = self.progress()
        behind = [r for r, s in last_steps.items() if s != step]
        missing = named or behind
        self.ctx.record(
            HANG_STEP,
            "error",
            at_step=step,
            missing_ranks=missing,
            last_steps={str(r): last_steps[r] for r in missing},
            source="monitored_barrier" if named else "store",
            timeout_s=self.timeout_s,
            message=str(error)[:500],
        )
        raise HangDetected(step, missing, self.timeout_s) from error


@dataclass(kw_only=True)
class Hang:
    """Ranks that never reached a step, as the arrival guard diagnosed it (facts ``hang``)."""

    step: str
    missing_ranks: list[int]
    last_steps: dict[str, str] = field(default_factory=dict)
    """Last step each missing rank published in the rendezvous store ('' if none)."""
    detected_by: int = 0
    """Rank whose guard timed out and wrote this diagnosis."""
    source: str = ""
    """monitored_barrier (its failure named the ranks) or store (published progress)."""
    timeout_s: float = 0.0
    message: str = ""


def hang_from_records(records: list[Record]) -> Hang | None:
    """The best ``hang`` diagnosis among the records: rank 0's names the ranks itself."""
    hangs = [r for r in records if r.step == HANG_STEP]
    if not hangs:
        return None
    best = min(hangs, key=lambda r: (r.metrics.get("source") != "monitored_barrier", r.rank))
    return Hang(
        step=str(best.metrics["at_step"]),
        missing_ranks=[int(x) for x in best.metrics.get("missing_ranks", [])],
        last_steps=dict(best.metrics.get("last_steps", {})),
        detected_by=best.rank,
        source=str(best.metrics.get("source", "")),
        timeout_s=float(best.metrics.get("timeout_s", 0.0)),
        message=str(best.metrics.get("message", "")),
    )
