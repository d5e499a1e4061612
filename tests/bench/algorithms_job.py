"""Rank program for the algorithm correctness test, started by torchrun (not a test module).

Every in-project all-reduce is compared with the backend's native all_reduce on the same inputs:
integers must match exactly, floats within a tolerance. Tensor sizes include 1 element and sizes
not divisible by the world size; the hierarchical algorithm runs with every node layout that
divides the world (and with tiny pipeline chunks); the ring, halving-doubling and tree algorithms
also run on a subgroup; each DDP hook is checked against DDP's own gradient averaging. Rank 0
writes the list of mismatches as JSON to the path given as the first argument.
"""

from __future__ import annotations

import copy
import json
import os
import sys
import time
from functools import partial

import torch
import torch.distributed as dist

from advisor.bench import algorithms


def inputs(n: int, dtype: torch.dtype, rank: int, seed: int) -> torch.Tensor:
    gen = torch.Generator().manual_seed(seed * 1000 + rank)
    if dtype.is_floating_point:
        return torch.randn(n, generator=gen).to(dtype)
    return torch.randint(-1000, 1000, (n,), generator=gen, dtype=dtype)


def compare(name: str, fn, n: int, dtype: torch.dtype, group, failures: list, seed: int) -> None:
    rank = dist.get_rank()
    x = inputs(n, dtype, rank, seed)
    expected = x.clone()
    dist.all_reduce(expected, group=group)
    got = x.clone()
    fn(got, group)
    if dtype.is_floating_point:
        tol = 1e-4 if dtype == torch.float32 else 5e-2
        ok = torch.allclose(got.float(), expected.float(), rtol=tol, atol=tol * 8)
    else:
        ok = torch.equal(got, expected)
    if not ok:
        wrong = int((~torch.isclose(got.float(), expected.float(), rtol=1e-3, atol=1e-3)).sum())
        failures.append(
            {"rank": rank, "algorithm": name, "numel": n, "dtype": str(dtype), "wrong": wrong}
        )


def check_ddp_hooks(failures: list) -> None:
    rank = dist.get_rank()
    torch.manual_seed(0)
    base = torch.nn.Sequential(torch.nn.Linear(7, 5), torch.nn.ReLU(), torch.nn.Linear(5, 3))
    data = torch.randn(4, 7, generator=torch.Generator().manual_seed(rank))
    reference = torch.nn.parallel.DistributedDataParallel(copy.deepcopy(base))
    reference(data).square().sum().backward()
    want = [p.grad.clone() for p in reference.parameters()]
    for name, hook in algorithms.DDP_HOOKS.items():
        model = torch.nn.parallel.DistributedDataParallel(copy.deepcopy(base))
        model.register_comm_hook(None, hook)
        model(data).square().sum().backward()
        for a, b in zip(model.parameters(), want, strict=True):
            if not torch.allclose(a.grad, b, rtol=1e-5, atol=1e-6):
                failures.append({"rank": rank, "algorithm": f"ddp_hook/{name}", "numel": -1})
                break


def main() -> int:
    out_path = sys.argv[1]
    started = time.perf_counter()
    dist.init_process_group("gloo")
    phases: dict[str, float] = {"init_s": time.perf_counter() - started}
    rank, world = dist.get_rank(), dist.get_world_size()
    failures: list = []
    # 1 element (all chunks but one empty), world+1 (uneven chunks), a prime larger size
    sizes = [1, world + 1, 4099]
    layouts = [g for g in range(1, world + 1) if world % g == 0]
    hierarchies = {g: algorithms.Hierarchy.build(g) for g in layouts}
    checked = 0
    for seed, n in enumerate(sizes):
        # integers everywhere (exact); floats at the largest size
        dtypes = [torch.int64]
        if n == sizes[-1]:
            dtypes += [torch.float32, torch.bfloat16]
        for dtype in dtypes:
            for name in ("ring", "halving_doubling", "tree"):
                compare(name, algorithms.ALGORITHMS[name], n, dtype, None, failures, seed)
                checked += 1
            for g, h in hierarchies.items():
                # small chunks: every size but 1 element is cut into several pipelined chunks
                chunk = 8 if n < 100 else 4096
                fn = partial(algorithms.hierarchical_all_reduce, hierarchy=h, chunk_bytes=chunk)
                compare(
                    f"hierarchical/{g}", lambda t, grp, fn=fn: fn(t), n, dtype, None, failures, seed
                )
                checked += 1
    phases["algorithms_s"] = time.perf_counter() - started - sum(phases.values())
    # default layout (torchrun's LOCAL_WORLD_SIZE) through the registry, as DDP and the bench use it
    compare(
        "hierarchical", algorithms.ALGORITHMS["hierarchical"], 1001, torch.int64, None, failures, 99
    )
    # a subgroup of every other rank: group-local peers must map to the right global ranks
    members = list(range(0, world, 2))
    sub = dist.new_group(members)
    if rank in members:
        for name in ("ring", "halving_doubling", "tree"):
            for n in (1, 5, 333):
                compare(
                    f"subgroup/{name}",
                    algorithms.ALGORITHMS[name],
                    n,
                    torch.int64,
                    sub,
                    failures,
                    n,
                )
                checked += 1
    # a non-contiguous tensor is reduced in place too
    x = inputs(6 * 5, torch.int64, rank, 7).view(6, 5).t()
    want = x.clone()
    dist.all_reduce(want)
    for name, fn in algorithms.ALGORITHMS.items():
        got = x.clone()
        fn(got)
        if not torch.equal(got, want):
            failures.append({"rank": rank, "algorithm": f"noncontiguous/{name}", "numel": 30})
    phases["subgroup_s"] = time.perf_counter() - started - sum(phases.values())
    if world == 4:
        # the first DDP model costs ~12 s of lazy imports on a small host; the hooks share one
        # wrapper, so one world size proves them all
        check_ddp_hooks(failures)
    phases["ddp_s"] = time.perf_counter() - started - sum(phases.values())
    gathered: list = [None] * world
    dist.all_gather_object(gathered, {"failures": failures, "checked": checked})
    if rank == 0:
        result = {
            "world_size": world,
            "phases_s": phases,
            "checked": sum(g["checked"] for g in gathered),
            "failures": [f for g in gathered for f in g["failures"]],
        }
        with open(out_path, "w") as f:
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
