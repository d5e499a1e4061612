"""The one place the advisor's rank code talks to torch.distributed and allocates on its device.

Every collective, point-to-point call and process group of the advisor's own rank code goes
through this module (``tests/test_comm_strict.py`` holds the rest of the package to it). On a real
device the calls go straight to torch. On an emulated hccl or nccl cluster (gloo on this host's
CPUs) with strict emulation on (the default), each call is first checked against what the real
backend accepts (``advisor.backends``): a tensor that would not be on the device, a data type or
reduction the backend lacks for that operation, an operation it does not have, a wait it would not
bound, a point-to-point tag it would ignore. A refusal raises :class:`StrictEmulationError` naming
the call site and the fix, so the first real cluster is not where these are found.

Tensors on the device are made here (``zeros``, ``full``, ``arange`` ...), moved here
(``to_device``), declared by a framework that put them there (``adopt``: a DDP gradient bucket),
or derived from such tensors by torch operations (``t * 2``, ``t.new_empty(n)``, ``t[2:5]``).
Under strict emulation they are :class:`EmulatedDeviceTensor`: CPU tensors that remember they
stand for the device, which ``.cpu()`` and ``.to("cpu")`` leave, and which refuse to meet a CPU
tensor in arithmetic as a real device does. A device group refuses any other tensor, as torch
refuses a CPU tensor on a group whose backend serves only npu or cuda ("No backend type
associated with device type cpu": torch ProcessGroup::getBackend; torch_npu registers hccl for
npu only, torch_npu/_init/registry/distributed.py).

CPU-side bookkeeping (gathering small Python objects, timing statistics, arrival checks) goes
over a gloo side group of all ranks (``side_group``); on a gloo job that is the default group.
"""

from __future__ import annotations

import os
import sys
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import timedelta
from pathlib import Path
from typing import Any

import torch
import torch.distributed as dist

from advisor import backends, faults

_HERE = Path(__file__).resolve()
_PACKAGE_ROOT = _HERE.parent.parent


class StrictEmulationError(Exception):
    """A call the real backend of an emulated cluster would refuse (or not bound).

    Not a RuntimeError: code that handles the backends' own runtime errors (a peer that timed
    out, an allocator out of memory) must not take the advisor's own mistake for one of those.
    """


class CommTimeout(RuntimeError):
    """Asynchronous work did not complete within its deadline."""

    def __init__(self, what: str, timeout_s: float, detail: str = "") -> None:
        self.what = what
        self.timeout_s = timeout_s
        text = f"{what or 'communication'} did not complete within {timeout_s:g} s"
        super().__init__(f"{text}: {detail}" if detail else text)


# ----------------------------------------------------------------------------- the set-up


@dataclass(kw_only=True)
class Setup:
    """How this rank's communication is judged: what runs, what the cluster declares."""

    backend: str
    """The backend the job really runs (gloo on an emulated cluster)."""
    declared: str
    """The backend of the declared cluster (hccl, nccl, gloo)."""
    chip: str = ""
    """Ascend generation for HCCL's per-chip rules ('' assumes backends.DEFAULT_CHIP)."""
    strict: bool = False
    """Check every call against the declared backend's rules (emulated hccl/nccl only)."""
    device: torch.device = field(default_factory=lambda: torch.device("cpu"))
    """The torch device tensors are made on (cpu on an emulated cluster)."""
    side: Any = None
    """The gloo group of all ranks for CPU-side bookkeeping (None: the default group is gloo)."""
    side_groups: set[int] = field(default_factory=set)
    """ids of the gloo side groups this rank created."""
    stage_groups: list[Any] = field(default_factory=list)
    """Groups the current stage created (destroyed when it ends)."""
    stage_end: list[Callable[[], None]] = field(default_factory=list)
    """What to forget when the stage ends (caches keyed by its groups)."""
    requested: list[list[int]] = field(default_factory=list)
    """The members this rank asked for at each ``new_group`` call, in order (every rank must ask
    alike: the flight-recorder analysis compares them)."""
    in_flight: tuple[str, str] | None = None
    """(op, group name) of the collective this rank is inside; still set when it raised."""

    @property
    def device_type(self) -> str:
        """The device the declared backend serves (npu, cuda, cpu)."""
        return backends.DEVICE_OF.get(self.declared, "cpu")


_setup: Setup | None = None


def setup(
    *, declared_backend: str, strict: bool, chip: str = "", device: torch.device | None = None
) -> Setup:
    """Set this rank's communication up, after ``init_process_group`` (collective: every rank).

    Strict checking applies only where the job runs gloo in place of a declared hccl or nccl
    backend. A gloo side group is created when the default group is not plain gloo.
    """
    global _setup
    real = str(dist.get_backend())
    strict = strict and real == "gloo" and declared_backend in ("hccl", "nccl")
    st = Setup(
        backend=real,
        declared=declared_backend,
        chip=chip,
        strict=strict,
        device=device or torch.device("cpu"),
    )
    _setup = st
    if real != "gloo" or strict:
        # gloo binds the NIC named by GLOO_SOCKET_IFNAME, else the address of the host name
        # (torch ProcessGroupGloo createDefaultDevice): the launcher sets the variable.
        st.side = dist.new_group(backend="gloo")
        st.side_groups.add(id(st.side))
    return st


def current() -> Setup:
    """This rank's set-up; a plain one from the default group when ``setup`` was not called
    (the algorithms used on their own, outside the advisor's worker)."""
    global _setup
    if _setup is None:
        real = str(dist.get_backend())
        device = torch.device("cuda", torch.cuda.current_device()) if real == "nccl" else None
        _setup = Setup(backend=real, declared=real, device=device or torch.device("cpu"))
    return _setup


def reset() -> None:
    """Forget the set-up (the process group was destroyed)."""
    global _setup
    _setup = None


def end_stage() -> None:
    """Destroy the groups the stage created and forget what was cached about them: the next
    stage of the job starts with only the job's own groups (on HCCL each communicator holds
    2 x HCCL_BUFFSIZE of device memory)."""
    st = current()
    for group in reversed(st.stage_groups):
        destroy_group(group)
    st.stage_groups.clear()
    for forget in st.stage_end:
        forget()
    st.stage_end.clear()


def at_stage_end(forget: Callable[[], None]) -> None:
    """Call ``forget`` when the current stage ends (a cache of its groups)."""
    current().stage_end.append(forget)


def side_group() -> Any:
    """The gloo group of all ranks for CPU tensors and Python objects."""
    return current().side


def strict() -> bool:
    return current().strict


# ----------------------------------------------------------------------------- the device


class EmulatedDeviceTensor(torch.Tensor):
    """A CPU tensor standing for one on the emulated cluster's device (strict emulation).

    Torch operations on it give tensors of the same kind, as operations on a device tensor stay on
    the device; ``.cpu()``, ``.to("cpu")`` and ``.numpy()`` leave the device, as they would.
    """

    @classmethod
    def __torch_function__(
        cls,
        func: Callable[..., Any],
        types: Any,
        args: Sequence[Any] = (),
        kwargs: dict[str, Any] | None = None,
    ) -> Any:
        kwargs = kwargs or {}
        if func is torch.Tensor.numpy:
            raise StrictEmulationError(
                f"{_call_site()}: .numpy() of a tensor on the {current().device_type} device: "
                "a device tensor cannot be viewed as numpy; call .cpu() first"
            )
        if func is torch.Tensor.cpu or (func is torch.Tensor.to and _moves_to_cpu(args, kwargs)):
            with torch._C.DisableTorchFunctionSubclass():
                out = func(*args, **kwargs)
                # A real device-to-host copy is a new tensor, no longer on the device.
                return torch.Tensor.as_subclass(out, torch.Tensor).clone()
        if getattr(func, "__name__", "") in _SAME_DEVICE_FUNCS:
            _check_same_device(func, args, kwargs)
        return super().__torch_function__(func, types, args, kwargs)


_SAME_DEVICE_FUNCS = {
    "add", "sub", "mul", "div", "true_divide", "eq", "ne", "lt", "le", "gt", "ge", "maximum",
    "minimum", "cat", "stack", "matmul", "where", "add_", "sub_", "mul_", "div_",
    "__add__", "__radd__", "__iadd__", "__sub__", "__rsub__", "__isub__", "__mul__", "__rmul__",
    "__imul__", "__truediv__", "__rtruediv__", "__eq__", "__ne__", "__lt__", "__le__", "__gt__",
    "__ge__", "__matmul__",
}  # fmt: skip
"""Operations a device refuses when a CPU tensor with elements meets a device tensor (torch:
"Expected all tensors to be on the same device"); copies between devices stay allowed."""


def _moves_to_cpu(args: Sequence[Any], kwargs: dict[str, Any]) -> bool:
    target = kwargs.get("device")
    for a in args[1:2]:
        if isinstance(a, str | torch.device):
            target = a
        elif isinstance(a, torch.Tensor) and not isinstance(a, EmulatedDeviceTensor):
            target = "cpu"
    return target is not None and torch.device(target).type == "cpu"


def _check_same_device(func: Any, args: Sequence[Any], kwargs: dict[str, Any]) -> None:
    tensors: list[torch.Tensor] = []
    for a in [*args, *kwargs.values()]:
        if isinstance(a, torch.Tensor):
            tensors.append(a)
        elif isinstance(a, list | tuple):
            tensors += [t for t in a if isinstance(t, torch.Tensor)]
    on_device = any(isinstance(t, EmulatedDeviceTensor) for t in tensors)
    host = [t for t in tensors if not isinstance(t, EmulatedDeviceTensor) and t.dim() > 0]
    if on_device and host:
        raise StrictEmulationError(
            f"{_call_site()}: {func.__name__} mixes a tensor on the {current().device_type} "
            "device with a CPU tensor (torch: 'Expected all tensors to be on the same device'); "
            "move one of them (comm.to_device, .cpu())"
        )


def device() -> torch.device:
    """The torch device this rank's tensors live on."""
    return current().device


def _on_device(t: torch.Tensor) -> torch.Tensor:
    return t.as_subclass(EmulatedDeviceTensor) if current().strict else t


def zeros(*size: int, dtype: torch.dtype | None = None) -> torch.Tensor:
    return _on_device(torch.zeros(*size, dtype=dtype, device=device()))


def ones(*size: int, dtype: torch.dtype | None = None) -> torch.Tensor:
    return _on_device(torch.ones(*size, dtype=dtype, device=device()))


def empty(*size: int, dtype: torch.dtype | None = None) -> torch.Tensor:
    return _on_device(torch.empty(*size, dtype=dtype, device=device()))


def full(size: int | Sequence[int], value: float, dtype: torch.dtype | None = None) -> torch.Tensor:
    shape = (size,) if isinstance(size, int) else tuple(size)
    return _on_device(torch.full(shape, value, dtype=dtype, device=device()))


def arange(start: int, end: int, dtype: torch.dtype | None = None) -> torch.Tensor:
    return _on_device(torch.arange(start, end, dtype=dtype, device=device()))


def tensor(data: Any, dtype: torch.dtype | None = None) -> torch.Tensor:
    return _on_device(torch.tensor(data, dtype=dtype, device=device()))


def to_device(t: torch.Tensor) -> torch.Tensor:
    """A copy of ``t`` on this rank's device."""
    if current().strict:
        plain = torch.Tensor.as_subclass(t, torch.Tensor)
        return plain.clone().as_subclass(EmulatedDeviceTensor)
    return t.to(device())


def adopt(t: torch.Tensor) -> torch.Tensor:
    """``t`` as a device tensor, for tensors a framework placed on the device itself (a DDP
    gradient bucket of a model on the device); no copy."""
    return _on_device(t) if not isinstance(t, EmulatedDeviceTensor) else t


# ----------------------------------------------------------------------------- checking


def _call_site() -> str:
    """``advisor/x.py:123 (function)``: the first caller outside this module."""
    frame = sys._getframe(1)
    # torch's own frames (operator wrappers between the caller and __torch_function__) are
    # skipped too: the site worth naming is the advisor's line.
    while frame is not None and (
        Path(frame.f_code.co_filename).resolve() == _HERE
        or f"{os.sep}torch{os.sep}" in frame.f_code.co_filename
    ):
        frame = frame.f_back  # type: ignore[assignment]
    if frame is None:
        return "?"
    path = Path(frame.f_code.co_filename).resolve()
    try:
        name = str(path.relative_to(_PACKAGE_ROOT))
    except ValueError:
        name = path.name
    return f"{name}:{frame.f_lineno} ({frame.f_code.co_name})"


def group_backend(group: Any) -> str:
    """The declared backend serving ``group``: gloo for side groups, else the cluster's."""
    st = current()
    if group is not None and id(group) in st.side_groups:
        return "gloo"
    return st.declared


def _dtype_name(t: torch.Tensor) -> str:
    return str(t.dtype).removeprefix("torch.")


def check(op: str, group: Any, tensors: Sequence[torch.Tensor], *, reduce_op: str = "") -> None:
    """Refuse (strict emulation) what the group's real backend would refuse for this call."""
    st = current()
    if not st.strict:
        return
    backend = group_backend(group)
    if backend == "gloo":
        for t in tensors:
            if isinstance(t, EmulatedDeviceTensor):
                raise StrictEmulationError(
                    f"{_call_site()}: {op} on a gloo side group got a tensor on the "
                    f"{st.device_type} device: gloo takes CPU tensors on a {st.declared} "
                    "cluster; bring it over with .cpu()"
                )
        return
    missing = backends.MISSING_OPS.get(backend, {}).get(op)
    if missing:
        raise StrictEmulationError(f"{_call_site()}: {op} on the {backend} group: {missing}")
    for t in tensors:
        if not isinstance(t, EmulatedDeviceTensor):
            raise StrictEmulationError(
                f"{_call_site()}: {op} on the {backend} group got a tensor that is not on the "
                f"{st.device_type} device: {backend} serves {st.device_type} tensors only "
                "(torch: 'No backend type associated with device type cpu'); make it with "
                "advisor.comm (zeros, full, tensor ...) or move it with comm.to_device(), or use "
                "comm.side_group() for CPU tensors"
            )
        allowed = backends.supported_dtypes(backend, op, st.chip)
        name = _dtype_name(t)
        if allowed is not None and name not in allowed:
            chip = f" on {st.chip or backends.DEFAULT_CHIP}" if backend == "hccl" else ""
            raise StrictEmulationError(
                f"{_call_site()}: {op} of {name} on the {backend} group: {backend}{chip} takes "
                f"{', '.join(allowed)} for {op}"
            )
    if reduce_op and reduce_op not in backends.REDUCE_OPS.get(backend, (reduce_op,)):
        raise StrictEmulationError(
            f"{_call_site()}: {op} with reduction {reduce_op!r} on the {backend} group: {backend} "
            f"reduces with {', '.join(backends.REDUCE_OPS[backend])}"
        )


_REDUCE = {
    "sum": dist.ReduceOp.SUM,
    "prod": dist.ReduceOp.PRODUCT,
    "max": dist.ReduceOp.MAX,
    "min": dist.ReduceOp.MIN,
    "avg": dist.ReduceOp.AVG,
}


# ----------------------------------------------------------------------------- work


class Work:
    """An asynchronous operation's handle; wait on it with ``comm.wait(work, timeout_s, what)``."""

    def __init__(self, work: Any, backend: str) -> None:
        self.work = work
        self.backend = backend
        """The declared backend of the group it runs on."""

    def wait(self, timeout: timedelta | None = None) -> None:
        """Wait without a bound of our own (``comm.wait`` bounds it on every backend).

        A ``timeout`` here is refused under strict emulation where the real backend would not
        honour it (see backends.UNBOUNDED_WAIT_VARS).
        """
        var = backends.UNBOUNDED_WAIT_VARS.get(self.backend, "")
        if timeout is not None and current().strict and var and os.environ.get(var) != "1":
            raise StrictEmulationError(
                f"{_call_site()}: Work.wait(timeout) on the {self.backend} group does not bound "
                f"the wait unless {var}=1 (the timeout is read only in the blocking-wait loop); "
                "use comm.wait(work, timeout_s, what), which polls completion against its own "
                "deadline"
            )
        if timeout is None:
            self.work.wait()
        else:
            self.work.wait(timeout)

    def is_completed(self) -> bool:
        return bool(self.work.is_completed())


def wait(work: Work, timeout_s: float, what: str = "") -> None:
    """Wait for ``work`` at most ``timeout_s``; raise :class:`CommTimeout` naming ``what``.

    gloo honours a timeout given to wait (and its send/recv work reports completion only through
    wait: is_completed stays False until then, torch 2.13); hccl and nccl do not bound a wait
    unless blocking wait is on, but their is_completed queries the work's device event, so it is
    polled against this deadline.
    """
    real = "gloo" if work.backend == "gloo" else current().backend
    if real == "gloo":
        try:
            work.work.wait(timedelta(seconds=timeout_s))
        except RuntimeError as e:
            if "timed out" in str(e).lower():
                raise CommTimeout(what, timeout_s, str(e).splitlines()[0][:200]) from e
            raise
        return
    deadline = time.monotonic() + timeout_s
    pause = 0.0005
    while not work.work.is_completed():
        if time.monotonic() >= deadline:
            raise CommTimeout(what, timeout_s)
        time.sleep(pause)
        pause = min(pause * 2, 0.01)
    work.work.wait()


def _work(handle: Any, group: Any) -> Work | None:
    return None if handle is None else Work(handle, group_backend(group))


# ----------------------------------------------------------------------------- collectives


def group_name(group: Any) -> str:
    """The process group's name as the flight recorder keys it (``0``: the default group)."""
    pg: Any = group if group is not None else dist.group.WORLD
    try:
        return str(pg.group_name)
    except (AttributeError, RuntimeError):
        return ""


@contextmanager
def waiting_in(name: str, group: Any) -> Iterator[None]:
    """Note that this rank waits in ``name`` of ``group`` by other means than a collective (the
    arrival guard's store wait before its monitored_barrier): a flight-recorder dump shows it."""
    st = current()
    st.in_flight = (name, group_name(group))
    yield
    st.in_flight = None


def _call(name: str, on: Any, fn: Callable[..., Any], /, *args: Any, **kwargs: Any) -> Any:
    """Make the call, noting it in flight while it runs (a rank's error then names the call it
    came from, for the flight-recorder analysis); a pending injected fault
    (:mod:`advisor.faults`) changes this one call as a buggy rank would."""
    st = current()
    st.in_flight = (name, group_name(on))
    fault = "" if kwargs.get("async_op") else faults.take_collective_fault()
    if fault == "skip":
        result = None
    elif fault == "wrong_op":
        result = dist.barrier(group=on)
    elif (
        fault == "wrong_size" and args and isinstance(args[0], torch.Tensor) and args[0].numel() > 1
    ):
        half = args[0].reshape(-1)[: args[0].numel() // 2]
        result = fn(half, *args[1:], **kwargs)
    else:
        result = fn(*args, **kwargs)
    st.in_flight = None
    return result


def all_reduce(
    t: torch.Tensor, op: str = "sum", group: Any = None, async_op: bool = False
) -> Work | None:
    check("all_reduce", group, [t], reduce_op=op)
    handle = _call(
        "all_reduce", group, dist.all_reduce, t, op=_REDUCE[op], group=group, async_op=async_op
    )
    return _work(handle, group)


def broadcast(t: torch.Tensor, src: int, group: Any = None) -> None:
    """``src`` is a global rank."""
    check("broadcast", group, [t])
    _call("broadcast", group, dist.broadcast, t, src=src, group=group)


def all_gather(out: list[torch.Tensor], t: torch.Tensor, group: Any = None) -> None:
    check("all_gather", group, [*out, t])
    _call("all_gather", group, dist.all_gather, out, t, group=group)


def all_gather_into_tensor(out: torch.Tensor, t: torch.Tensor, group: Any = None) -> None:
    check("all_gather", group, [out, t])
    _call("all_gather", group, dist.all_gather_into_tensor, out, t, group=group)


def reduce_scatter_tensor(
    out: torch.Tensor, t: torch.Tensor, op: str = "sum", group: Any = None
) -> None:
    check("reduce_scatter", group, [out, t], reduce_op=op)
    _call("reduce_scatter", group, dist.reduce_scatter_tensor, out, t, op=_REDUCE[op], group=group)


def all_to_all_single(out: torch.Tensor, t: torch.Tensor, group: Any = None) -> None:
    check("all_to_all", group, [out, t])
    _call("all_to_all", group, dist.all_to_all_single, out, t, group=group)


def barrier(group: Any = None) -> None:
    check("barrier", group, [])
    _call("barrier", group, dist.barrier, group=group)


def monitored_barrier(group: Any, timeout_s: float, wait_all_ranks: bool = True) -> None:
    """gloo's barrier that names the ranks that did not arrive (gloo groups only)."""
    check("monitored_barrier", group, [])
    _call(
        "monitored_barrier",
        group,
        dist.monitored_barrier,
        group=group,
        timeout=timedelta(seconds=timeout_s),
        wait_all_ranks=wait_all_ranks,
    )


def gather_objects(obj: Any, group: Any = None) -> list[Any]:
    """Every rank's ``obj`` (picklable), in rank order, over the side group (or ``group``)."""
    g = group if group is not None else side_group()
    out: list[Any] = [None] * dist.get_world_size(g)
    dist.all_gather_object(out, obj, group=g)
    return out


# ----------------------------------------------------------------------------- point to point


def _check_p2p(op: str, t: torch.Tensor, group: Any, tag: int) -> None:
    check(op, group, [t])
    backend = group_backend(group)
    if tag and current().strict and backend in backends.P2P_TAGS_IGNORED:
        raise StrictEmulationError(
            f"{_call_site()}: {op} with tag {tag} on the {backend} group: {backend} ignores tags "
            "and matches a pair's messages in the order they were posted; post them in order"
        )


def _global(peer: int, group: Any) -> int:
    return peer if group is None else dist.get_global_rank(group, peer)


def isend(t: torch.Tensor, peer: int, group: Any = None, tag: int = 0) -> Work:
    """Send to ``peer`` (its rank in ``group``)."""
    _check_p2p("send", t, group, tag)
    w = _work(dist.isend(t, _global(peer, group), group=group, tag=tag), group)
    assert w is not None
    return w


def irecv(t: torch.Tensor, peer: int, group: Any = None, tag: int = 0) -> Work:
    """Receive from ``peer`` (its rank in ``group``)."""
    _check_p2p("recv", t, group, tag)
    w = _work(dist.irecv(t, _global(peer, group), group=group, tag=tag), group)
    assert w is not None
    return w


def exchange(
    sends: Sequence[tuple[torch.Tensor, int]],
    recvs: Sequence[tuple[torch.Tensor, int]],
    group: Any = None,
) -> None:
    """Post sends and receives together (``batch_isend_irecv``) and wait for all of them.

    Peers are ranks in ``group``. Posting both sides at once means no rank blocks in a receive
    before its neighbour has sent. Empty tensors are not sent.
    """
    ops = []
    for t, peer in sends:
        if t.numel() > 0:
            _check_p2p("send", t, group, 0)
            ops.append(dist.P2POp(dist.isend, t, _global(peer, group), group=group))
    for t, peer in recvs:
        if t.numel() > 0:
            _check_p2p("recv", t, group, 0)
            ops.append(dist.P2POp(dist.irecv, t, _global(peer, group), group=group))
    if ops:
        for w in dist.batch_isend_irecv(ops):
            w.wait()


# ----------------------------------------------------------------------------- groups


def new_group(ranks: Sequence[int] | None = None, timeout_s: float | None = None) -> Any:
    """A group of the job's backend (collective: every rank calls it, in the same order)."""
    timeout = timedelta(seconds=timeout_s) if timeout_s else None
    asked = list(ranks) if ranks is not None else list(range(dist.get_world_size()))
    if ranks is not None and faults.take_group_fault():
        asked = _other_members(asked)
    st = current()
    st.requested.append(sorted(asked))
    g = dist.new_group(ranks=asked if ranks is not None else None, timeout=timeout)
    st.stage_groups.append(g)
    return g


def _other_members(ranks: list[int]) -> list[int]:
    """An injected layout mistake: the last member swapped for a rank outside the group."""
    outside = [r for r in range(dist.get_world_size()) if r not in ranks]
    return [*ranks[:-1], outside[0]] if outside else ranks[:-1]


def new_side_group(ranks: Sequence[int] | None = None, timeout_s: float | None = None) -> Any:
    """A gloo group for CPU tensors (collective)."""
    timeout = timedelta(seconds=timeout_s) if timeout_s else None
    g = dist.new_group(
        ranks=list(ranks) if ranks is not None else None, timeout=timeout, backend="gloo"
    )
    st = current()
    st.side_groups.add(id(g))
    st.stage_groups.append(g)
    return g


def destroy_group(group: Any) -> None:
    """Free a group this rank created (on HCCL each holds 2 x HCCL_BUFFSIZE of device memory)."""
    st = current()
    st.stage_groups[:] = [g for g in st.stage_groups if g is not group]
    if group is None or group is dist.GroupMember.NON_GROUP_MEMBER:
        return
    st.side_groups.discard(id(group))
    dist.destroy_process_group(group)
