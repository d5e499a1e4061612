"""The one place that knows each backend: npu/hccl, cuda/nccl, cpu/gloo.

torch_npu pins its own torch and needs Ascend's CANN toolkit, so it is imported only when the npu
device is chosen (or probed for by ``device=auto``), never at module import.
"""

from __future__ import annotations

import contextlib
import importlib
import importlib.util
from typing import Any

from advisor.errors import BackendUnavailable

BACKEND_OF = {"npu": "hccl", "cuda": "nccl", "cpu": "gloo"}
IFNAME_VAR = {
    "npu": "HCCL_SOCKET_IFNAME",
    "cuda": "NCCL_SOCKET_IFNAME",
    "cpu": "GLOO_SOCKET_IFNAME",
}
"""Environment variable that picks the NIC for each backend's bootstrap and data traffic."""


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


def cuda_available() -> bool:
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


def synchronize(device: Any) -> None:
    """Wait for queued device work: asynchronous devices must sync before the clock is read."""
    torch = _torch()
    kind = getattr(device, "type", str(device))
    if kind == "cuda":
        torch.cuda.synchronize(device)
    elif kind == "npu":
        torch.npu.synchronize(device)


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

    torch = _torch()
    out = {"python": platform.python_version(), "torch": str(torch.__version__)}
    try:
        import advisor

        out["advisor"] = advisor.__version__
    except ImportError:
        pass
    if device == "cuda" and torch.version.cuda:
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
