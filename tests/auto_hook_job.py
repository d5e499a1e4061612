"""Rank program for the algo:auto test, started by torchrun (not a test module).

``python -m torch.distributed.run --nproc-per-node=2 auto_hook_job.py OUT``: a DDP model whose
gradient buckets are one small (a 4x512 layer) and one large (a 512x512 layer) trains one step with
``make_auto_hook`` over a table that gives small buckets to ring and large ones to tree. Each of
the project's algorithms is wrapped to count the bytes it reduced; rank 0 writes those counts and
the largest difference of the gradients from plain DDP's (all_reduce and average) to OUT.
"""

from __future__ import annotations

import json
import os
import sys

import torch
import torch.distributed as dist
from torch.nn.parallel import DistributedDataParallel as DDP

from advisor.bench import algorithms

TABLE = [(0, 65536, "ring"), (65537, 2**64 - 1, "tree")]


def model() -> torch.nn.Module:
    torch.manual_seed(0)
    # DDP fills buckets in reverse order of the parameters, closing one once it reaches its cap
    # (1 MiB for the first): the large layer last makes a bucket of its own
    return torch.nn.Sequential(torch.nn.Linear(4, 512), torch.nn.Linear(512, 512))


def main(out: str) -> int:
    dist.init_process_group("gloo")
    rank = dist.get_rank()
    used: dict[str, list[int]] = {}
    for name in ("ring", "tree"):
        fn = algorithms.ALGORITHMS[name]

        def counted(t: torch.Tensor, group: object = None, _fn=fn, _name=name) -> None:
            used.setdefault(_name, []).append(t.numel() * t.element_size())
            _fn(t, group)

        algorithms.ALGORITHMS[name] = counted
    grads = []
    for hooked in (False, True):  # plain DDP first, then the hook (its counts are kept)
        # a cap below the large layer's size: the small layers' gradients share another bucket
        ddp = DDP(model(), bucket_cap_mb=0.5)
        if hooked:
            ddp.register_comm_hook(None, algorithms.make_auto_hook(TABLE))
        x = torch.randn(8, 4, generator=torch.Generator().manual_seed(rank))
        # DDP rebuilds its buckets after the first step, by the order gradients arrived: the
        # second step's buckets are the ones training runs with
        for _ in range(2):
            used.clear()
            ddp.zero_grad()
            ddp(x).pow(2).sum().backward()
        grads.append([p.grad.clone() for p in ddp.parameters()])
    diff = max(float((a - b).abs().max()) for a, b in zip(*grads, strict=True))
    if rank == 0:
        with open(out, "w") as f:
            json.dump({"used": used, "max_abs_diff": diff}, f)
    dist.destroy_process_group()
    return 0


if __name__ == "__main__":
    code = main(sys.argv[1])
    # Leave without the interpreter's teardown: on a loaded host gloo's threads can still be
    # joinable when C++ statics are destroyed, and a finished rank then aborts ("terminate
    # called without an active exception"), failing the job for a reason of its own.
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(code)
