"""Rank program for the strict-emulation tests, started by torchrun (not a test module).

``python -m torch.distributed.run --nproc-per-node=2 strict_job.py OUT DECLARED [CHIP]``: a gloo
job that declares itself ``DECLARED`` (hccl or nccl), sets up ``advisor.comm`` with strict
emulation, and runs every case below: the calls this project's rank code made before strict
emulation (each marked ``# site: <case>``, the line the refusal must name) and the legal calls
that replaced them. Each case is run on every rank; rank 0 writes ``{case: {"refused": bool,
"message": str}}`` as JSON to OUT.
"""

from __future__ import annotations

import json
import os
import sys
from datetime import timedelta

import torch
import torch.distributed as dist

from advisor import comm


def old_bench_stats() -> None:
    # bench/collectives.py _time_point before: CPU float64 times all-reduced on the default group
    times = torch.zeros(4, dtype=torch.float64)
    dist_times = times  # the same tensor the old code reduced with op MAX
    comm.all_reduce(dist_times, op="max")  # site: old_bench_stats


def old_broadcast_buffer() -> None:
    # bench/collectives.py _Point.fill before: the non-root receive buffer had no device (every
    # rank uses that buffer here, so all refuse together and none waits in the broadcast)
    buf = torch.zeros(8, dtype=torch.float32)
    comm.broadcast(buf, src=0)  # site: old_broadcast_buffer


def old_membership_float64() -> None:
    # probes/subgroups.py membership before: a float64 all_reduce on the device
    t = comm.tensor([dist.get_rank() + 1.0, 1.0], dtype=torch.float64)
    comm.all_reduce(t)  # site: old_membership_float64


def old_pair_wait_timeout() -> None:
    # probes/connectivity.py before: work.wait(timeout) as the pair's deadline
    peer = 1 - dist.get_rank()
    buf = comm.ones(4, dtype=torch.int8)
    work = comm.isend(buf, peer) if dist.get_rank() == 0 else comm.irecv(buf, peer)
    try:
        work.wait(timedelta(seconds=5))  # site: old_pair_wait_timeout
    finally:
        work.wait()  # keep the pair matched for the next case


def old_tagged_send() -> None:
    # probes/connectivity.py before: each round's messages carried a tag
    peer = 1 - dist.get_rank()
    buf = comm.ones(4, dtype=torch.int8)
    send = comm.isend if dist.get_rank() == 0 else comm.irecv
    send(buf, peer, tag=3)  # site: old_tagged_send


def old_monitored_barrier_on_device_group() -> None:
    comm.monitored_barrier(None, 5.0)  # site: old_monitored_barrier_on_device_group


def device_tensor_on_side_group() -> None:
    t = comm.ones(4)
    comm.all_reduce(t, group=comm.side_group())  # site: device_tensor_on_side_group


def mixed_devices() -> None:
    t = comm.ones(4)
    _ = t + torch.ones(4)  # site: mixed_devices


def int16_reduction() -> None:
    t = comm.ones(4, dtype=torch.int16)
    comm.all_reduce(t)  # site: int16_reduction


def bf16_reduction() -> None:
    t = comm.ones(4, dtype=torch.bfloat16)
    comm.all_reduce(t)  # site: bf16_reduction


def uint8_reduce_scatter() -> None:
    n = dist.get_world_size()
    inp = comm.ones(2 * n, dtype=torch.uint8)
    out = comm.zeros(2, dtype=torch.uint8)
    comm.reduce_scatter_tensor(out, inp)  # site: uint8_reduce_scatter


def numpy_of_device_tensor() -> None:
    comm.ones(4).numpy()  # site: numpy_of_device_tensor


# ----------------------------------------------------------------- legal: must not be refused


def new_bench_stats() -> None:
    times = torch.tensor([1.0, 2.0], dtype=torch.float64)
    comm.all_reduce(times, op="max", group=comm.side_group())
    assert times.tolist() == [1.0, 2.0]


def new_membership() -> None:
    t = comm.tensor([dist.get_rank() + 1, 1], dtype=torch.int64)
    comm.all_reduce(t)
    n = dist.get_world_size()
    assert t.tolist() == [n * (n + 1) // 2, n]


def new_broadcast() -> None:
    buf = comm.full(8, 7.0) if dist.get_rank() == 0 else comm.zeros(8)
    comm.broadcast(buf, src=0)
    assert buf.cpu().tolist() == [7.0] * 8


def new_pair_wait() -> None:
    peer = 1 - dist.get_rank()
    buf = comm.ones(4, dtype=torch.int8)
    work = comm.isend(buf, peer) if dist.get_rank() == 0 else comm.irecv(buf, peer)
    comm.wait(work, 10.0, f"pair with rank {peer}")


def new_exchange_and_derived() -> None:
    peer = 1 - dist.get_rank()
    send = comm.arange(0, 6, dtype=torch.float32) * (dist.get_rank() + 1)
    recv = send.new_empty(6)  # derived tensors stay on the device
    comm.exchange([(send, peer)], [(recv, peer)])
    assert recv.cpu().tolist() == [float(i * (peer + 1)) for i in range(6)]


def new_gather_objects() -> None:
    assert comm.gather_objects(dist.get_rank()) == list(range(dist.get_world_size()))


def new_all_gather_float64() -> None:
    # HCCL moves every type it maps (all_gather takes float64 even where it reduces none)
    n = dist.get_world_size()
    out = comm.zeros(2 * n, dtype=torch.float64)
    comm.all_gather_into_tensor(out, comm.full(2, 1.0, dtype=torch.float64))


def new_groups() -> None:
    g = comm.new_group([0, 1])
    t = comm.ones(2)
    comm.all_reduce(t, group=g)
    comm.barrier(g)
    comm.destroy_group(g)


CASES = [
    old_bench_stats,
    old_broadcast_buffer,
    old_membership_float64,
    old_pair_wait_timeout,
    old_tagged_send,
    old_monitored_barrier_on_device_group,
    device_tensor_on_side_group,
    mixed_devices,
    int16_reduction,
    bf16_reduction,
    uint8_reduce_scatter,
    numpy_of_device_tensor,
    new_bench_stats,
    new_membership,
    new_broadcast,
    new_pair_wait,
    new_exchange_and_derived,
    new_gather_objects,
    new_all_gather_float64,
    new_groups,
]


def main() -> int:
    out_path, declared = sys.argv[1], sys.argv[2]
    chip = sys.argv[3] if len(sys.argv) > 3 else ""
    dist.init_process_group("gloo", timeout=timedelta(seconds=60))
    comm.setup(declared_backend=declared, strict=True, chip=chip)
    outcome: dict[str, dict[str, object]] = {}
    for case in CASES:
        result: dict[str, object] = {"refused": False, "message": "", "error": ""}
        try:
            case()
        except comm.StrictEmulationError as e:
            result.update(refused=True, message=str(e))
        except Exception as e:  # a legal call that failed: the test reports it
            result["error"] = f"{type(e).__name__}: {e}"
        outcome[case.__name__] = result
        # every case ends with the ranks together, refused or not
        comm.barrier(comm.side_group())
    if dist.get_rank() == 0:
        with open(out_path, "w", encoding="utf-8") as f:
            json.dump({"strict": comm.strict(), "cases": outcome}, f)
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
