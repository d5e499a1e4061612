"""Rank program for the flight-recorder tests, started by torchrun (not a test module).

``python -m torch.distributed.run --nproc-per-node=N flight_job.py OUT KIND CULPRIT AT OP``: a
plain torch job (no advisor.comm: what a user's training script does) that issues ``AT + 2``
collectives ``OP`` (all_reduce, all_gather, broadcast) on the default group, or on a subgroup of
ranks 0..N-2 for KIND ``subgroup``, where rank CULPRIT misbehaves at the AT-th one:

- skip: does not call it;  op: calls a different collective;  size: sends twice the elements;
- hang: sleeps (hung in compute) before it;  subgroup: built its subgroup with other members.

Every rank records with torch's flight recorder; the advisor's rank-side dumper writes its buffer
under OUT when the rank's collective fails (the process-group timeout is short) or when the test
writes the request file (a rank hung in compute never fails on its own).
"""

from __future__ import annotations

import os
import socket
import sys
import time
from datetime import timedelta
from pathlib import Path

import torch
import torch.distributed as dist

from advisor.flight.dump import Dumper

TIMEOUT_S = 4.0


def call(op: str, t: torch.Tensor, group: dist.ProcessGroup | None) -> None:
    if op == "all_reduce":
        dist.all_reduce(t, group=group)
    elif op == "all_gather":
        out = [torch.empty_like(t) for _ in range(dist.get_world_size(group))]
        dist.all_gather(out, t, group=group)
    else:
        dist.broadcast(t, src=0, group=group)


def main(out: Path, kind: str, culprit: int, at: int, op: str) -> int:
    dist.init_process_group("gloo", timeout=timedelta(seconds=TIMEOUT_S))
    rank, world = dist.get_rank(), dist.get_world_size()
    dumper = Dumper(
        run_dir=out, launch="job", rank=rank, where=(f"node{rank // 2}", socket.gethostname())
    )
    dumper.start()
    (out / f"ready_{rank}").touch()
    group = None
    if kind == "subgroup":
        members = list(range(world - 1))
        if rank == culprit:
            members = [*members[:-1], world - 1]
        group = dist.new_group(members, timeout=timedelta(seconds=TIMEOUT_S))
        if rank not in members:
            # outside its own idea of the group: waits where the members meet, as a rank would
            # that believed it had no part in that step
            time.sleep(60)
    try:
        for i in range(1, at + 3):
            t = torch.full((16,), float(rank + 1))
            if rank == culprit and i == at:
                if kind == "skip":
                    continue
                if kind == "op":
                    call("broadcast" if op != "broadcast" else "all_reduce", t, group)
                    continue
                if kind == "size":
                    # larger, not smaller: gloo aborts the rank that receives more than it
                    # expects, and the culprit should live to show its entry
                    t = torch.full((32,), float(rank + 1))
                if kind == "hang":
                    time.sleep(60)
            call(op, t, group)
        # a training script's last collective: a rank that skipped one meets the others' last
        dist.barrier()
    except Exception as e:
        dumper.dump_on_error(f"{type(e).__name__}: {e}")
        return 1
    dist.destroy_process_group()
    return 0


if __name__ == "__main__":
    a = sys.argv[1:]
    code = main(Path(a[0]), a[1], int(a[2]), int(a[3]), a[4])
    # Leave without the interpreter's teardown: on a loaded host gloo's threads can still be
    # joinable when C++ statics are destroyed, and a finished rank then aborts ("terminate
    # called without an active exception"), failing the job for a reason of its own.
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(code)
