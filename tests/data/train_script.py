"""A user's training script, as the sweep's external-command workload sees it (used by tests).

Started by torchrun on every rank: trains a small model with DDP on random data for a few steps
and prints ``{"samples_per_s": ...}`` from rank 0. Some settings misbehave on purpose, so the
tests can check that a failing trial does not stop the sweep:
``--precision fp16`` crashes with an error on stderr; ``--comm bf16`` finishes without printing
the metric (unparseable output); ``--comm fp16`` hangs (the last rank never joins the first
all-reduce, so every rank waits until the trial's deadline).
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time

import torch
import torch.distributed as dist
from torch.nn.parallel import DistributedDataParallel


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--batch-size", type=int, required=True)
    parser.add_argument("--precision", default="fp32")
    parser.add_argument("--comm", default="fp32")
    parser.add_argument("--steps", type=int, default=5)
    args = parser.parse_args()
    dist.init_process_group("gloo")
    rank = dist.get_rank()
    if rank == 0:
        # what the advisor turned on for this job (the flight recorder's buffer)
        print(f"TORCH_FR_BUFFER_SIZE={os.environ.get('TORCH_FR_BUFFER_SIZE', '')}", flush=True)
    if args.precision == "fp16":
        print(f"rank {rank}: fp16 is not supported by this script", file=sys.stderr)
        return 3
    if args.comm == "fp16" and rank == dist.get_world_size() - 1:
        print(f"rank {rank}: stuck before the first all-reduce", file=sys.stderr, flush=True)
        time.sleep(3600)
    torch.manual_seed(0)
    model = DistributedDataParallel(torch.nn.Linear(64, 64))
    opt = torch.optim.SGD(model.parameters(), lr=0.01)
    gen = torch.Generator().manual_seed(rank)
    t0 = time.perf_counter()
    for _ in range(args.steps):
        x = torch.randn(args.batch_size, 64, generator=gen)
        loss = model(x).pow(2).mean()
        loss.backward()
        opt.step()
        opt.zero_grad()
    elapsed = time.perf_counter() - t0
    samples = args.steps * args.batch_size * dist.get_world_size()
    if rank == 0 and args.comm != "bf16":
        print("training done")
        print(json.dumps({"samples_per_s": samples / elapsed, "loss": float(loss.detach())}))
    # Every rank leaves together: a rank that tears gloo down while its peer is still mid-way
    # can make the peer abort at exit, which would fail the trial for an unrelated reason.
    dist.barrier()
    dist.destroy_process_group()
    return 0


if __name__ == "__main__":
    code = main()
    # Leave without the interpreter's teardown: on a loaded host, gloo's threads can still be
    # joinable when C++ statics are destroyed, and the process then aborts ("terminate called
    # without an active exception") after it finished, failing the trial for a reason of its own.
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(code)
