"""One trial on one rank: train the built-in model with DDP under the trial's settings, measure.

Phases, each a recorded step (so a hang is reported at the phase it happened in):

- ``setup``: model, DDP with the trial's bucket size, gradient view and communication hook,
  AdamW; on the CPU with ``max_memory_bytes`` the address space is capped from here on.
- ``probe``: one forward and backward under ``no_sync`` and one optimizer step on zeroed
  gradients (identical on every rank, so the replicas stay equal). This is where an
  out-of-memory shows; the ranks then agree (all_reduce MAX) whether any ran out, so all stop
  together and the trial is recorded as ``oom`` — the batch limit — instead of leaving the others
  waiting in a collective.
- ``train``: warm-up, then the measured synchronised steps: forward+backward time (DDP overlaps
  the bucket all-reduces with the backward and waits for them at its end), optimizer time, the
  span during which gradient communication was in flight (first bucket handed to the hook to the
  last bucket's result, on the device's own timeline: on HCCL and NCCL a hook's future completes
  when the collective is enqueued, so host clocks would time the enqueueing), and the loss of
  each step.
- ``nosync``: forward+backward steps with no communication at all (gradients thrown away). The
  synchronised forward+backward minus this is the communication *not hidden* behind compute.
"""

from __future__ import annotations

import math
import resource
import sys
import time
from statistics import median
from typing import TYPE_CHECKING, Any

from advisor.backends import Clock
from advisor.sweep import model as gpt
from advisor.sweep.config import AUTO

if TYPE_CHECKING:
    import torch

    from advisor.sweep.config import TrialJob
    from advisor.worker import RankContext

OOM_MARKERS = (
    "out of memory",
    "can't allocate memory",
    "cannot allocate memory",
    # CANN's allocator failure as torch_npu's task queue reports it (NPUException.cpp isCannOOM:
    # error code EL0004, text "Failed to allocate"); older torch_npu raise it as RuntimeError.
    "el0004",
    "failed to allocate",
)


def is_oom(e: BaseException) -> bool:
    """True for an allocator failure, by exception type first, then by the message.

    torch raises ``torch.OutOfMemoryError`` (a RuntimeError) for CUDA and, since torch_npu 2.7.1,
    for the NPU caching allocator and CANN's EL0004 (NPUCachingAllocator.cpp, NPUQueue.cpp);
    older torch_npu raise a plain RuntimeError ("NPU out of memory"); the CPU raises MemoryError
    or a RuntimeError under an address-space cap.
    """
    import torch

    if isinstance(e, MemoryError | torch.OutOfMemoryError):
        return True
    return isinstance(e, RuntimeError) and any(m in str(e).lower() for m in OOM_MARKERS)


def autocast_dtype(precision: str) -> torch.dtype | None:
    import torch

    return {"fp32": None, "bf16": torch.bfloat16, "fp16": torch.float16}[precision]


def precision_unsupported(device: torch.device, precision: str) -> str:
    """Why autocast at ``precision`` cannot run on this device ('' when it can)."""
    import torch

    dtype = autocast_dtype(precision)
    if dtype is None:
        return ""
    if not torch.amp.autocast_mode.is_autocast_available(device.type):
        return f"autocast is not available on {device.type}"
    try:
        with torch.autocast(device.type, dtype=dtype):
            a = torch.ones((4, 4), device=device)
            out = a @ a
        if out.dtype != dtype:
            return f"{device.type} autocast does not compute matmul in {precision}"
    except (RuntimeError, TypeError) as e:
        return f"{device.type} autocast {precision}: {e}"
    return ""


class CommTimer:
    """Wraps a DDP communication hook to time when gradient communication is in flight.

    Marks are taken on the device's timeline (``backends.Clock``: device events on cuda/npu,
    where the hook's future completes at enqueue and its ``then`` callback runs ordered after
    the collective on the stream; the host clock on the CPU, where gloo's futures complete when
    the work does). Read ``span_s`` after synchronising the device.
    """

    def __init__(self, device: Any) -> None:
        self.clock = Clock(device)
        self.first: Any = None
        self.last: Any = None
        self.largest_bucket_bytes = 0

    def reset(self) -> None:
        self.first = self.last = None

    def span_s(self) -> float:
        if self.first is None or self.last is None:
            return 0.0
        return max(0.0, self.clock.seconds(self.first, self.last))

    def wrap(self, hook: Any) -> Any:
        # Hooks stay unannotated: DDP rejects a hook whose annotations are not its own types,
        # and this module's annotations are strings.
        def timed(state, bucket):
            if self.first is None:
                self.first = self.clock.mark()
            buf = bucket.buffer()
            self.largest_bucket_bytes = max(
                self.largest_bucket_bytes, buf.numel() * buf.element_size()
            )
            fut = hook(state, bucket)

            def done(f: Any) -> Any:
                self.last = self.clock.mark()
                return f.value()

            return fut.then(done)

        return timed


def comm_hook(
    comm: str, *, drill_scale: float, backend: str, auto_table: list[list[Any]] | None = None
) -> tuple[Any, Any]:
    """(state, hook) for DDP's ``register_comm_hook``.

    fp32 uses torch's ``allreduce_hook`` — the same all_reduce and division DDP's reducer does
    itself — so that every setting, the baseline included, is timed the same way.
    """
    from torch.distributed.algorithms.ddp_comm_hooks import default_hooks, powerSGD_hook

    kind, _, arg = comm.partition(":")
    state: Any = None
    if kind == "fp32":
        hook: Any = default_hooks.allreduce_hook
    elif kind == "fp16":
        hook = default_hooks.fp16_compress_hook
    elif kind == "bf16":
        hook = default_hooks.bf16_compress_hook
    elif kind == "algo" and arg == AUTO:
        from advisor.bench.algorithms import make_auto_hook

        hook = make_auto_hook([(int(a), int(b), str(c)) for a, b, c in auto_table or []])
    elif kind == "algo":
        from advisor.bench.algorithms import DDP_HOOKS

        hook = DDP_HOOKS[arg]  # state None: the default process group
    else:
        # start_powerSGD_iter=2: the earliest torch allows; warm-up steps cover the switch.
        state = powerSGD_hook.PowerSGDState(
            process_group=None,
            matrix_approximation_rank=int(arg),
            start_powerSGD_iter=2,
            min_compression_rate=2,
        )
        hook = powerSGD_hook.powerSGD_hook
        if backend == "gloo":
            hook = _one_bucket_at_a_time(hook)
    if drill_scale == 1.0:
        return state, hook
    inner = hook

    def unscale(state, bucket):
        return inner(state, bucket).then(lambda f: f.value() / drill_scale)

    return state, unscale


def _one_bucket_at_a_time(hook: Any) -> Any:
    """Finish each bucket's communication before the next bucket starts.

    PowerSGD issues its second and third all-reduce from completion callbacks. With several
    buckets in flight, gloo ranks can run those callbacks in different orders and issue
    mismatched collectives (gloo aborts: "Received data size doesn't match expected size";
    seen on a 2x4 lab run). NCCL and HCCL order them on the stream; on gloo each bucket waits.
    """

    def serial(state, bucket):
        fut = hook(state, bucket)
        fut.wait()
        return fut

    return serial


def peak_memory_bytes(device: torch.device) -> int:
    import torch

    if device.type == "cuda":
        return int(torch.cuda.max_memory_allocated(device))
    if device.type == "npu":
        return int(torch.npu.max_memory_allocated(device))  # type: ignore[attr-defined]
    # ru_maxrss is KiB on Linux, bytes on macOS.
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    return int(peak if sys.platform == "darwin" else peak * 1024)


def cap_memory(extra_bytes: int) -> int:
    """Cap this process's address space at its current size plus ``extra_bytes``."""
    import psutil

    limit = psutil.Process().memory_info().vms + extra_bytes
    _, hard = resource.getrlimit(resource.RLIMIT_AS)
    if hard != resource.RLIM_INFINITY:
        limit = min(limit, hard)
    resource.setrlimit(resource.RLIMIT_AS, (limit, hard))
    return int(limit)


def p90(xs: list[float]) -> float:
    s = sorted(xs)
    return s[min(len(s) - 1, math.ceil(0.9 * len(s)) - 1)]


def run_rank(ctx: RankContext, job: TrialJob) -> None:
    import torch
    from torch.nn.parallel import DistributedDataParallel as DDP

    from advisor import comm

    trial, mc = job.trial, job.model
    device = ctx.device
    why = precision_unsupported(device, trial.precision)
    if why:
        ctx.record("unsupported", reason=why)
        return
    shape = gpt.shape_for(
        mc.preset,
        layers=mc.layers,
        hidden=mc.hidden,
        heads=mc.heads,
        seq_len=mc.seq_len,
        vocab=mc.vocab,
    )
    dtype = autocast_dtype(trial.precision)
    timer = CommTimer(device)
    with ctx.step("setup") as m:
        if mc.max_memory_bytes and device.type == "cpu":
            m["address_space_limit_bytes"] = cap_memory(mc.max_memory_bytes)
        net = gpt.build(shape, seed=mc.seed).to(device)
        ddp = DDP(
            net,
            device_ids=None if device.type == "cpu" else [device.index],
            bucket_cap_mb=trial.bucket_cap_mb,
            gradient_as_bucket_view=trial.gradient_as_bucket_view,
        )
        state, hook = comm_hook(
            trial.comm,
            drill_scale=mc.drill_loss_scale,
            backend=ctx.backend,
            auto_table=job.auto_table,
        )
        ddp.register_comm_hook(state, timer.wrap(hook))
        opt = torch.optim.AdamW(ddp.parameters(), lr=mc.lr)
        scaler = torch.amp.GradScaler(device.type, enabled=trial.precision == "fp16")
        m.update(params=shape.params, grad_bytes=4 * shape.params)

    def forward_backward(step: int) -> float:
        x, y = gpt.batch(
            shape, trial.batch_size, seed=mc.seed, rank=ctx.rank, step=step, device=device
        )
        with torch.autocast(device.type, dtype=dtype or torch.float32, enabled=dtype is not None):
            loss = ddp(x, y)
        scaler.scale(loss * mc.drill_loss_scale).backward()
        return float(loss.detach())

    oom = ""
    with ctx.step("probe") as m:
        try:
            with ddp.no_sync():
                forward_backward(-1)
            opt.zero_grad(set_to_none=False)
            opt.step()
            opt.zero_grad(set_to_none=False)
            m["peak_mem_bytes"] = peak_memory_bytes(device)
        except (RuntimeError, MemoryError) as e:
            if not is_oom(e):
                raise
            oom = f"{type(e).__name__}: {str(e)[:300]}"
            opt.zero_grad(set_to_none=True)
        flag = comm.tensor([1 if oom else 0], dtype=torch.int32)
        comm.all_reduce(flag, op="max")
        m["oom_any_rank"] = bool(flag.item())
    if flag.item():
        ctx.record("oom", error=oom or "another rank ran out of memory", batch=trial.batch_size)
        return

    losses: list[float | None] = []
    step_s: list[float] = []
    fb_s: list[float] = []
    opt_s: list[float] = []
    comm_s: list[float] = []
    with ctx.step("train") as m:
        t_measure = 0.0
        for step in range(mc.warmup_steps + mc.steps):
            timer.reset()
            ctx.sync()
            t0 = time.perf_counter()
            loss = forward_backward(step)
            ctx.sync()
            t1 = time.perf_counter()
            scaler.step(opt)
            scaler.update()
            opt.zero_grad(set_to_none=True)
            ctx.sync()
            t2 = time.perf_counter()
            losses.append(loss if math.isfinite(loss) else None)
            if step >= mc.warmup_steps:
                step_s.append(t2 - t0)
                fb_s.append(t1 - t0)
                opt_s.append(t2 - t1)
                comm_s.append(timer.span_s())
                t_measure += t2 - t0
        m.update(
            losses=losses,
            step_s=step_s,
            fb_s=fb_s,
            opt_s=opt_s,
            comm_span_s=comm_s,
            measured_s=t_measure,
            samples=trial.batch_size * mc.steps,
        )
    with ctx.step("nosync") as m:
        nosync: list[float] = []
        with ddp.no_sync():
            for step in range(mc.nosync_steps):
                ctx.sync()
                t0 = time.perf_counter()
                forward_backward(10_000 + step)
                ctx.sync()
                nosync.append(time.perf_counter() - t0)
                opt.zero_grad(set_to_none=True)
        m["nosync_fb_s"] = nosync
    ctx.record(
        "metrics",
        step_s_p50=median(step_s),
        step_s_p90=p90(step_s),
        fb_s_p50=median(fb_s),
        nosync_fb_s_p50=median(nosync),
        comm_span_s_p50=median(comm_s),
        peak_mem_bytes=peak_memory_bytes(device),
        largest_bucket_bytes=timer.largest_bucket_bytes,
    )
