"""Rank program of ``test_device.py`` (started by torchrun on every GPU; not a test module).

Real NCCL: an async all_reduce waited for with comm.wait (which polls is_completed on NCCL, where
Work.wait(timeout) does not bound the host), timed with device events (backends.Clock) against the
host's enqueue time. Rank 0 writes what it saw as JSON to the path given as the first argument.
"""

from __future__ import annotations

import json
import os
import sys
import time
from datetime import timedelta

import torch.distributed as dist

from advisor import backends, comm


def main() -> int:
    local = int(os.environ["LOCAL_RANK"])
    device = backends.set_device("cuda", local)
    dist.init_process_group("nccl", timeout=timedelta(seconds=120))
    st = comm.setup(declared_backend="nccl", strict=True, device=device)  # strict: gloo only
    n = dist.get_world_size()
    t = comm.full(64 * 2**20, 1.0)  # 256 MiB: long enough for events to see it
    clock = backends.Clock(device)
    comm.barrier()
    start = clock.mark()
    t0 = time.perf_counter()
    work = comm.all_reduce(t, async_op=True)
    host_enqueue_s = time.perf_counter() - t0
    assert work is not None
    comm.wait(work, 60.0, "all_reduce of 256 MiB")
    end = clock.mark()
    backends.synchronize(device)
    result = {
        "backend": st.backend,
        "strict": st.strict,
        "sum_ok": bool((t == n).all().item()),
        "waited": work.is_completed(),
        "event_s": clock.seconds(start, end),
        "host_enqueue_s": host_enqueue_s,
        "bus_id": backends.device_id(device).get("bus_id", ""),
    }
    if dist.get_rank() == 0:
        with open(sys.argv[1], "w", encoding="utf-8") as f:
            json.dump(result, f)
    dist.destroy_process_group()
    return 0


if __name__ == "__main__":
    code = main()
    # Leave without the interpreter's teardown: on a loaded host gloo's threads can still be
    # joinable when C++ statics are destroyed, and a finished rank then aborts ("terminate
    # called without an active exception"), failing the job for a reason of its own.
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(code)
