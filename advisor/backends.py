"""The one place that knows each backend: npu/hccl, cuda/nccl, cpu/gloo.

torch_npu pins its own torch and needs Ascend's CANN toolkit, so it is imported only when the npu
device is chosen (or probed for by ``device=auto``), never at module import.
"""

from __future__ import annotations

import ast
import contextlib
import importlib
import importlib.util
import re
import time
from pathlib import Path
from typing import Any

from advisor.errors import BackendUnavailable

BACKEND_OF = {"npu": "hccl", "cuda": "nccl", "cpu": "gloo"}
DEVICE_OF = {backend: device for device, backend in BACKEND_OF.items()}
IFNAME_VAR = {
    "npu": "HCCL_SOCKET_IFNAME",
    "cuda": "NCCL_SOCKET_IFNAME",
    "cpu": "GLOO_SOCKET_IFNAME",
}
"""Environment variable that picks the NIC for each backend's bootstrap and data traffic."""
GLOO_IFNAME_VAR = "GLOO_SOCKET_IFNAME"


def interface_env(device_type: str, interface: str) -> dict[str, str]:
    """Variables that bind a job's traffic to ``interface``: the backend's own, and gloo's.

    gloo binds the NIC named by GLOO_SOCKET_IFNAME, else the address the host name resolves to
    (torch ProcessGroupGloo createDefaultDevice, with a loopback fallback): the side groups of an
    hccl or nccl job are gloo groups too, so both are set.
    """
    if not interface:
        return {}
    return {IFNAME_VAR[device_type]: interface, GLOO_IFNAME_VAR: interface}


VISIBLE_DEVICES_VAR = {"npu": "ASCEND_RT_VISIBLE_DEVICES", "cuda": "CUDA_VISIBLE_DEVICES"}
"""Environment variable that limits which devices a process sees."""

# ----------------------------------------------------------------- what each backend accepts
#
# gloo forgives what HCCL and NCCL refuse. These tables say what the device backends accept, so
# that strict emulation (``advisor.comm``) refuses on this host's CPUs what the real cluster
# would refuse, and a configuration that asks for more is refused before any job starts.

CHIPS = ("910", "A2", "A3", "950")
"""Ascend generations whose HCCL rules differ: Atlas training series (910, 910A/910ProB), Atlas A2
(910B), Atlas A3 (910_93), Ascend 950."""
DEFAULT_CHIP = "A2"
"""The generation assumed when none is declared or detected (the cluster presets' Atlas 800T A2;
A2 and A3 accept the same data types)."""

REDUCING_OPS = ("all_reduce", "reduce_scatter", "reduce")
MOVING_OPS = ("all_gather", "broadcast", "all_to_all", "send", "recv")
COLLECTIVE_OPS = (*REDUCING_OPS, *MOVING_OPS, "barrier", "monitored_barrier")

_HCCL_REDUCE_A2 = ("int8", "int16", "int32", "int64", "float16", "float32", "bfloat16")
_HCCL_MOVE_A2 = (
    "int8", "uint8", "int16", "uint16", "int32", "uint32", "int64", "uint64",
    "float16", "float32", "float64", "bfloat16", "bool",
)  # fmt: skip
HCCL_DTYPES: dict[str, dict[str, tuple[str, ...]]] = {
    # CANN: open HCCL docs (hicann/hccl docs/zh/api_ref/comm_op_interface/HcclAllReduce.md,
    # HcclReduceScatter.md, HcclReduce.md, HcclAllGather.md, HcclBroadcast.md, HcclAlltoAll.md,
    # HcclSend.md, HcclRecv.md, "dataType说明"; 910 has no int16/bf16 reductions, only 950 reduces
    # uint64/fp64); src/ops/op_common/op_common.cc CheckDataType (uint8/16/32 never reduce).
    # torch_npu checks first: ProcessGroupHCCL.cpp checkSupportedDataType ("HCCL allreduce:
    # Unsupported data type at::kDouble"; fp64 reductions pass on Ascend950 only on master, every
    # release branch refuses them); broadcast/allgather/alltoall/send/recv take every type of
    # HCCLUtils.cpp kScalarTypeToHcclDataType (bool travels as uint8).
    "910": {
        "reduce": ("int8", "int32", "int64", "float16", "float32"),
        "move": tuple(d for d in _HCCL_MOVE_A2 if d != "bfloat16"),
    },
    "A2": {"reduce": _HCCL_REDUCE_A2, "move": _HCCL_MOVE_A2},
    "A3": {"reduce": _HCCL_REDUCE_A2, "move": _HCCL_MOVE_A2},
    "950": {"reduce": (*_HCCL_REDUCE_A2, "uint64", "float64"), "move": _HCCL_MOVE_A2},
}
"""Per chip: data types of HCCL's reducing operations (all_reduce, reduce_scatter, reduce) and of
the ones that only move data (all_gather, broadcast, all_to_all, send, recv)."""
HCCL_CAST_TO_INT32 = ("bool", "uint8")
"""torch_npu casts these to int32 before all_reduce and reduce (ProcessGroupHCCL.cpp allreduce,
reduce: kBool/kByte → kInt), so those two accept them; reduce_scatter has no such cast."""
NCCL_DTYPES = (
    "int8", "uint8", "int32", "int64", "float16", "float32", "float64", "bfloat16", "bool",
)  # fmt: skip
"""torch's map to ncclDataType_t (torch/csrc/distributed/c10d/NCCLUtils.hpp ``ncclDataType``; any
other type: "Input tensor data type is not supported for NCCL process group"; bool travels as
uint8). NCCL has no 16-bit integers (nccl.h ``ncclDataType_t``)."""
REDUCE_OPS: dict[str, tuple[str, ...]] = {
    # HCCL: sum, prod, max, min (open HCCL docs, HcclAllReduce.md "op"; torch_npu maps avg to sum
    # then divides, and refuses band/bor/bxor: ProcessGroupHCCL.cpp getHcclReduceOp); NCCL: sum,
    # prod, max, min, avg (nccl.h ncclRedOp_t; avg since 2.10).
    "hccl": ("sum", "prod", "max", "min", "avg"),
    "nccl": ("sum", "prod", "max", "min", "avg"),
}
MISSING_OPS: dict[str, dict[str, str]] = {
    "hccl": {
        "monitored_barrier": "torch implements monitored_barrier for gloo only (distributed_c10d."
        "monitored_barrier: 'monitored_barrier is only implemented for GLOO backend.'); run it "
        "on a gloo side group",
    },
    "nccl": {
        "monitored_barrier": "torch implements monitored_barrier for gloo only (distributed_c10d."
        "monitored_barrier: 'monitored_barrier is only implemented for GLOO backend.'); run it "
        "on a gloo side group",
    },
}
"""Operations a backend does not have, with the error the real job would meet."""
UNBOUNDED_WAIT_VARS = {"hccl": "TORCH_HCCL_BLOCKING_WAIT", "nccl": "TORCH_NCCL_BLOCKING_WAIT"}
"""Without this variable, ``Work.wait(timeout)`` on the backend does not bound the host's wait:
it only makes the current stream wait on the work's end event (torch_npu ProcessGroupHCCL.cpp
WorkHCCL::synchronizeInternal: the timeout is read only in the blocking-wait loop, enabled by
TORCH_HCCL_BLOCKING_WAIT or HCCL_BLOCKING_WAIT; torch ProcessGroupNCCL.cpp WorkNCCL likewise)."""
P2P_TAGS_IGNORED = ("hccl", "nccl")
"""Backends that accept a send/recv ``tag`` and ignore it: messages between two ranks match in
the order they were posted (torch_npu ProcessGroupHCCL.cpp send/recv never read ``tag``; torch's
distributed_c10d.isend: "``tag`` is not supported with the NCCL backend")."""


HCCL_ALGO_LEVEL1 = ("ring", "H-D_R", "NHR", "NHR_V1", "NB", "AHC", "pipeline", "pairwise")
"""Documented level-1 (between servers) algorithms (CANN environment variable reference,
HCCL_ALGO; open HCCL docs/zh/user_guide/hccl_env/HCCL_ALGO.md; its parser also takes undocumented
names such as fullmesh, which are not offered here)."""
HCCL_ALGO_LEVEL2 = ("ring", "H-D_R", "NHR", "NB", "pipeline")
"""Documented level-2 (between super pods) algorithms (same page; 950 and A3 only)."""
HCCL_ALGO_OPS = (
    "allgather",
    "reducescatter",
    "allreduce",
    "broadcast",
    "reduce",
    "scatter",
    "alltoall",
)
"""Documented operations of HCCL_ALGO's per-operation form (same page; no ``other``)."""


def hccl_algo_problems(value: str) -> list[str]:
    """Problems with an ``HCCL_ALGO`` value (empty when it parses).

    Forms: ``level0:NA;level1:<algo>[;level2:<algo>]`` for every op, or per op
    ``allreduce=level0:NA;level1:<algo>/allgather=...``.
    """
    text = value.strip()
    if not text:
        return ["empty value"]
    errors: list[str] = []
    per_op = "=" in text
    for part in text.split("/") if per_op else [text]:
        op, _, levels = part.partition("=") if per_op else ("", "", part)
        if per_op and op.strip() not in HCCL_ALGO_OPS:
            errors.append(f"unknown operation {op.strip()!r} (one of {', '.join(HCCL_ALGO_OPS)})")
        seen = set()
        for level in levels.split(";"):
            name, sep, algo = level.strip().partition(":")
            if not sep:
                errors.append(f"{level.strip()!r} is not levelN:ALGO")
                continue
            seen.add(name)
            allowed = {"level1": HCCL_ALGO_LEVEL1, "level2": HCCL_ALGO_LEVEL2}.get(name)
            if name == "level0":
                if algo != "NA":
                    errors.append(f"level0 must be NA, got {algo!r}")
            elif allowed is not None:
                if algo not in allowed:
                    errors.append(
                        f"unknown {name} algorithm {algo!r} (one of {', '.join(allowed)})"
                    )
            else:
                errors.append(f"unknown level {name!r} (level0, level1, level2)")
        if "level1" not in seen:
            errors.append(f"{part!r} has no level1 algorithm")
    return errors


def native_setting_problems(setting: str) -> list[str]:
    """Why a native algorithm setting ``VAR=value`` would fail its library (empty when fine)."""
    name, _, value = setting.partition("=")
    if name == "HCCL_ALGO":
        return hccl_algo_problems(value)
    if name in ("NCCL_ALGO", "NCCL_PROTO"):
        problems = nccl_list(value, NCCL_ALGOS if name == "NCCL_ALGO" else NCCL_PROTOS)[1]
        broken = nccl_ops_left_without_algorithm(value) if name == "NCCL_ALGO" else []
        if broken and not problems:
            problems.append(
                f"leaves {', '.join(broken)} without an algorithm (NCCL ≥ 2.24 fails them: "
                "'No algorithm/protocol available'); fix all_reduce alone with "
                f"NCCL_ALGO={nccl_allreduce_only(value.split(',')[0].strip() or 'tree')}"
            )
        return problems
    return []


NCCL_PER_OP_SINCE = (2, 24)
"""NCCL_ALGO / NCCL_PROTO take per-operation entries (``allreduce:tree``) from NCCL 2.24.3
(src/graph/tuning.cc parseList, first in tag v2.24.3-1)."""


NCCL_ALGOS = ("Tree", "Ring", "CollNetDirect", "CollNetChain", "NVLS", "NVLSTree", "PAT")
"""NCCL_ALGO's names, matched without case (src/init.cc ncclAlgoStr; no "CollNet" alias)."""
NCCL_PROTOS = ("LL", "LL128", "Simple")
"""NCCL_PROTO's names (src/init.cc ncclProtoStr)."""
NCCL_OPS = ("Broadcast", "Reduce", "AllGather", "ReduceScatter", "AllReduce")
"""The operation prefixes NCCL_ALGO / NCCL_PROTO take (src/init.cc ncclFuncStr; no sendrecv)."""
NCCL_ALGOS_OF_OP = {
    "broadcast": ("ring",),
    "reduce": ("ring",),
    "allgather": ("pat", "ring", "nvls", "collnetdirect"),
    "reducescatter": ("pat", "ring", "nvls", "collnetdirect"),
    "allreduce": ("tree", "ring", "collnetdirect", "collnetchain", "nvls", "nvlstree"),
}
"""The algorithms NCCL can run each operation with at all (src/graph/tuning.cc
ncclTopoTuneModel: broadcast and reduce are ring-only, tree is all_reduce-only); hardware may
narrow this further (NVLS needs NVSwitch, CollNet a network plugin)."""


def nccl_list(value: str, names: tuple[str, ...]) -> tuple[dict[str, set[str]], list[str]]:
    """Parse an NCCL_ALGO / NCCL_PROTO value: (enabled names per op, '' for the global entry;
    problems). Grammar of src/graph/tuning.cc parseList: entries split by ';', an optional
    ``op:`` prefix, names split by ',', a leading '^' enables all but those; every entry after
    the first needs a prefix."""
    known = {n.lower() for n in names}
    ops = {o.lower() for o in NCCL_OPS}
    enabled: dict[str, set[str]] = {}
    problems: list[str] = []
    text = value.strip()
    if not text:
        return enabled, ["empty value"]
    for index, entry in enumerate(text.split(";")):
        op, colon, body = entry.partition(":")
        if not colon:
            op, body = "", entry
            if index > 0:
                problems.append(
                    f"entry {entry.strip()!r} after the first needs an operation prefix"
                )
        op = op.strip().lower()
        if colon and op not in ops:
            problems.append(
                f"unknown operation {op!r} (one of {', '.join(o.lower() for o in NCCL_OPS)})"
            )
            continue
        body = body.strip()
        exclude = body.startswith("^")
        listed = {n.strip().lower() for n in body.removeprefix("^").split(",") if n.strip()}
        for name in sorted(listed - known):
            problems.append(f"unknown name {name!r} (one of {', '.join(names)})")
        enabled[op] = (known - listed) if exclude else (listed & known)
    return enabled, problems


def nccl_ops_left_without_algorithm(value: str) -> list[str]:
    """Operations an NCCL_ALGO value leaves no algorithm for ("No algorithm/protocol
    available" from NCCL 2.24, src/enqueue.cc topoGetAlgoInfo): ``Tree`` alone leaves every
    operation but all_reduce without one."""
    enabled, _ = nccl_list(value, NCCL_ALGOS)
    everything = {n.lower() for n in NCCL_ALGOS}
    out = []
    for op, possible in NCCL_ALGOS_OF_OP.items():
        allowed = enabled.get(op, enabled.get("", everything))
        if not allowed & set(possible):
            out.append(op)
    return out


def nccl_allreduce_only(value: str, nccl_version: tuple[int, ...] | None = None) -> str:
    """The NCCL_ALGO / NCCL_PROTO text that fixes ``value`` for all_reduce alone.

    From NCCL 2.24 a global ``NCCL_ALGO=Tree`` leaves broadcast, reduce, all_gather and
    reduce_scatter without an algorithm: "No algorithm/protocol available" (src/enqueue.cc
    topoGetAlgoInfo; tree is all_reduce-only in src/graph/tuning.cc ncclTopoTuneModel), which DDP
    meets at its first broadcast; the per-op form leaves the other operations alone. Before 2.24
    only the global form parses, and the operations Tree lacks fell back to Ring. An unknown
    version (an emulated cluster) takes the current form.
    """
    if nccl_version is not None and tuple(nccl_version[:2]) < NCCL_PER_OP_SINCE:
        return value
    return f"allreduce:{value.lower()}"


def nccl_version() -> tuple[int, ...] | None:
    """The NCCL version torch was built with, where this host has CUDA (None otherwise)."""
    torch = _torch()
    if not torch.cuda.is_available():
        return None
    try:
        v = torch.cuda.nccl.version()
    except Exception:  # builds without NCCL
        return None
    return tuple(int(x) for x in v) if isinstance(v, tuple) else None


def chip_generation(name: str) -> str:
    """The HCCL rules' generation of an Ascend chip name (npu-smi's Name column, torch_npu's
    device name): ``910B3`` → A2, ``Ascend910_9391`` → A3, ``910ProB`` → 910; '' when unknown."""
    text = name.strip().lower().removeprefix("ascend").strip()
    if not text:
        return ""
    if text.startswith("950"):
        return "950"
    if text.startswith("910_93") or text.startswith("910c"):
        return "A3"
    if text.startswith("910b"):
        return "A2"
    if text.startswith("910"):
        return "910"
    return ""


def supported_dtypes(backend: str, op: str, chip: str = "") -> tuple[str, ...] | None:
    """Data types ``backend`` accepts for ``op`` (None: this table sets no limit, e.g. gloo)."""
    if backend == "nccl":
        return NCCL_DTYPES
    if backend == "hccl":
        table = HCCL_DTYPES[chip or DEFAULT_CHIP]
        if op in ("all_reduce", "reduce"):
            return (*table["reduce"], *HCCL_CAST_TO_INT32)
        if op in REDUCING_OPS:
            return table["reduce"]
        if op in MOVING_OPS:
            return table["move"]
    return None


def dtype_problems(
    backend: str, ops: list[str] | tuple[str, ...], dtypes: list[str], chip: str = ""
) -> list[str]:
    """Why ``backend`` cannot run these (op, torch dtype name) pairs, one line per op."""
    problems = []
    for op in ops:
        allowed = supported_dtypes(backend, op, chip)
        if allowed is None:
            continue
        bad = [d for d in dtypes if d not in allowed]
        if bad:
            where = f" ({chip or DEFAULT_CHIP + ' assumed'})" if backend == "hccl" else ""
            problems.append(
                f"{backend}{where} has no {op} for {', '.join(bad)}; it takes {', '.join(allowed)}"
            )
    return problems


def _torch() -> Any:
    import torch

    return torch


def npu_available() -> bool:
    if importlib.util.find_spec("torch_npu") is None:
        return False
    try:
        importlib.import_module("torch_npu")
    except Exception:  # a broken CANN install must read as "not available", not crash auto
        return False
    return bool(_torch().npu.is_available())


_BUILD_FIELD_RE = re.compile(r"^(__version__|cuda|hip)\b[^=\n]*=\s*(.+?)\s*$", re.MULTILINE)


def _torch_build() -> dict[str, Any]:
    """The installed torch's ``torch/version.py`` fields, read without importing torch (about a
    second and a half of the CLI's start): ``__version__``, ``cuda`` and ``hip`` as written
    there (``"2.13.0+cpu"``, None); empty when the file cannot be read.

    torch's build writes that file (tools/generate_torch_version.py) with ``cuda`` and ``hip``
    set to the toolkit versions, None when built without them; ``torch.__version__`` is its
    ``__version__``. A value that is not a plain literal is left out."""
    spec = importlib.util.find_spec("torch")
    if spec is None or not spec.submodule_search_locations:
        return {}
    version_py = Path(next(iter(spec.submodule_search_locations))) / "version.py"
    try:
        text = version_py.read_text(encoding="utf-8")
    except OSError:
        return {}
    fields = {}
    for name, value in _BUILD_FIELD_RE.findall(text):
        with contextlib.suppress(ValueError, SyntaxError):
            fields[name] = ast.literal_eval(value)
    return fields


def _cpu_only_torch_build() -> bool:
    """True when torch was built without CUDA and without ROCm: ``torch.cuda.is_available()``
    is then False at once (``_is_compiled()``: torch._C has no ``_cuda_getDeviceCount``).
    Anything unexpected in the file answers False: ask torch."""
    fields = _torch_build()
    return "cuda" in fields and "hip" in fields and fields["cuda"] is None and fields["hip"] is None


def cuda_available() -> bool:
    if _cpu_only_torch_build():
        return False
    return bool(_torch().cuda.is_available())


def detect() -> str:
    """``device=auto``: npu, then cuda, then cpu."""
    if npu_available():
        return "npu"
    if cuda_available():
        return "cuda"
    return "cpu"


def require(device: str, *, cluster_name: str) -> None:
    """Fail clearly when the declared device cannot run here; never fall back silently."""
    if device == "npu":
        if importlib.util.find_spec("torch_npu") is None:
            raise BackendUnavailable(
                f"cluster {cluster_name!r} declares npu devices (backend hccl) but torch_npu is "
                "not installed on this host. Install it with `pip install .[npu]` on a host with "
                "Ascend's CANN toolkit, or run the declared shape on this host's CPUs with "
                "`emulate=true`."
            )
        if not npu_available():
            raise BackendUnavailable(
                f"cluster {cluster_name!r} declares npu devices but torch_npu finds no NPU "
                "(check the driver and CANN with `npu-smi info`), or pass `emulate=true`."
            )
    elif device == "cuda":
        if not cuda_available():
            raise BackendUnavailable(
                f"cluster {cluster_name!r} declares cuda devices (backend nccl) but torch sees "
                "no CUDA device on this host (check `nvidia-smi` and that torch is a CUDA "
                "build), or run the declared shape on this host's CPUs with `emulate=true`."
            )


def device_count(device: str) -> int:
    torch = _torch()
    if device == "npu":
        importlib.import_module("torch_npu")
        return int(torch.npu.device_count())
    if device == "cuda":
        return int(torch.cuda.device_count())
    return 1


def set_device(device: str, local_rank: int) -> Any:
    """Bind this process to its device before init (a missing set_device is Ascend's EI0015)."""
    torch = _torch()
    if device == "npu":
        importlib.import_module("torch_npu")
        torch.npu.set_device(local_rank)
        return torch.device(f"npu:{local_rank}")
    if device == "cuda":
        torch.cuda.set_device(local_rank)
        return torch.device(f"cuda:{local_rank}")
    return torch.device("cpu")


def chip_of_device() -> str:
    """The HCCL generation of NPU 0 on this host, from torch_npu's device name ('' unknown)."""
    try:
        importlib.import_module("torch_npu")
        return chip_generation(str(_torch().npu.get_device_name(0)))
    except Exception:  # a device we cannot name leaves the chip unknown, not the run broken
        return ""


def synchronize(device: Any) -> None:
    """Wait for queued device work: asynchronous devices must sync before the clock is read."""
    torch = _torch()
    kind = getattr(device, "type", str(device))
    if kind == "cuda":
        torch.cuda.synchronize(device)
    elif kind == "npu":
        torch.npu.synchronize(device)


class Clock:
    """Marks on a device's own timeline: events on cuda/npu, the host clock on the CPU.

    On an asynchronous device a host timestamp taken when work is enqueued says nothing about
    when it ran; an event recorded on the stream does. Read ``seconds`` after synchronising.
    """

    def __init__(self, device: Any) -> None:
        torch = _torch()
        kind = getattr(device, "type", str(device))
        self._event: Any = None
        if kind == "cuda":
            self._event = torch.cuda.Event
        elif kind == "npu":
            self._event = torch.npu.Event

    def mark(self) -> Any:
        if self._event is None:
            return time.perf_counter()
        event = self._event(enable_timing=True)
        event.record()
        return event

    def seconds(self, start: Any, end: Any) -> float:
        if self._event is None:
            return float(end - start)
        return float(start.elapsed_time(end)) / 1000.0  # events measure milliseconds


def device_id(device: Any) -> dict[str, Any]:
    """Device identity for topology checks: index and PCI bus id where the backend has them."""
    torch = _torch()
    kind = getattr(device, "type", str(device))
    out: dict[str, Any] = {"type": kind, "index": getattr(device, "index", None)}
    if kind == "cuda":
        props = torch.cuda.get_device_properties(device)
        out["name"] = props.name
        bus = getattr(props, "pci_bus_id", None)
        if bus is not None:
            out["bus_id"] = f"{getattr(props, 'pci_domain_id', 0):04x}:{bus:02x}:"
            out["bus_id"] += f"{getattr(props, 'pci_device_id', 0):02x}.0"
    elif kind == "npu":
        out["name"] = torch.npu.get_device_name(device)
    return out


def versions(device: str) -> dict[str, str]:
    """Versions of the software stack that matter to communication."""
    import platform

    out = {"python": platform.python_version()}
    # A CPU run's parent never needs torch itself: its version is read from its version file.
    written = _torch_build().get("__version__")
    if device == "cpu" and isinstance(written, str):
        out["torch"] = written
    else:
        out["torch"] = str(_torch().__version__)
    try:
        import advisor

        out["advisor"] = advisor.__version__
    except ImportError:
        pass
    if device == "cuda" and (torch := _torch()).version.cuda:
        out["cuda"] = str(torch.version.cuda)
        # nccl is absent from some builds; the version is informative only
        with contextlib.suppress(Exception):
            nccl = torch.cuda.nccl.version()
            out["nccl"] = ".".join(str(x) for x in nccl) if isinstance(nccl, tuple) else str(nccl)
    if device == "npu":
        try:
            mod = importlib.import_module("torch_npu")
            out["torch_npu"] = str(getattr(mod, "__version__", "unknown"))
        except ImportError:
            pass
    return out
