"""The host tools the advisor reads (npu-smi, hccn_tool, nvidia-smi): where they are, which of
their commands to run, and running one with a deadline, its output parsed by advisor.parsers.
"""

from __future__ import annotations

import importlib
import os
import shutil
import subprocess
import time
from dataclasses import asdict, is_dataclass
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from advisor.cluster import Cluster

OUTPUT_LIMIT = 20000
"""Characters of a tool's output kept in the facts (the head: tables start there)."""
TOOL_DIRS = {
    # The driver installs hccn_tool in its tools folder and links it from /usr/bin; the link is
    # often missing on hosts set up by hand (Ascend HDK docs: "hccn_tool放置在软链接“/usr/bin/”下，
    # 实际路径为“/usr/local/Ascend/driver/tools”"; MindCluster toolbox guide).
    "hccn_tool": ("/usr/local/Ascend/driver/tools",),
    "npu-smi": ("/usr/local/sbin", "/usr/local/Ascend/driver/tools"),
}


def find_tool(name: str) -> str | None:
    """The tool on PATH, else in the folder its installer puts it in."""
    found = shutil.which(name)
    if found:
        return found
    for folder in TOOL_DIRS.get(name, ()):
        candidate = os.path.join(folder, name)
        if os.path.isfile(candidate) and os.access(candidate, os.X_OK):
            return candidate
    return None


def tool_commands(cluster: Cluster) -> list[tuple[list[str], str, str]]:
    """``(argv, parser module, parser function)`` for each installed host tool command."""
    cmds: list[tuple[list[str], str, str]] = []
    npu_smi = find_tool("npu-smi")
    if npu_smi:
        cmds += [
            ([npu_smi, "info"], "npu_smi", "parse_info"),
            ([npu_smi, "info", "-t", "topo"], "npu_smi", "parse_topo"),
        ]
    hccn = find_tool("hccn_tool")
    if hccn:
        for dev in range(cluster.devices_per_node if cluster.device_type == "npu" else 8):
            for flag, parser in (
                ("-link", "parse_link"),
                ("-net_health", "parse_net_health"),
                ("-ip", "parse_ip"),
                ("-tls", "parse_tls"),
            ):
                cmds.append(([hccn, "-i", str(dev), flag, "-g"], "hccn_tool", parser))
    nvidia_smi = find_tool("nvidia-smi")
    if nvidia_smi:
        cmds.append(([nvidia_smi, "topo", "-m"], "nvidia_smi", "parse_topo"))
    return cmds


def run_tool(argv: list[str], module: str, func: str, timeout_s: float) -> dict[str, Any]:
    """Run one tool command (an argument list, no shell) and parse its output."""
    t0 = time.monotonic()
    out: dict[str, Any] = {"argv": argv, "returncode": None, "timed_out": False}
    try:
        proc = subprocess.run(argv, capture_output=True, text=True, timeout=timeout_s, check=False)
    except subprocess.TimeoutExpired as e:
        raw = e.stdout.decode(errors="replace") if isinstance(e.stdout, bytes) else e.stdout
        return {**out, "timed_out": True, "output": (raw or "")[:OUTPUT_LIMIT],
                "error": f"no result within {timeout_s:g} s", "elapsed_s": time.monotonic() - t0}  # fmt: skip
    except OSError as e:
        return {**out, "output": "", "error": str(e), "elapsed_s": time.monotonic() - t0}
    text = proc.stdout + (("\n" + proc.stderr) if proc.stderr.strip() else "")
    out.update(returncode=proc.returncode, output=text[:OUTPUT_LIMIT])
    out["elapsed_s"] = time.monotonic() - t0
    try:
        parsers = importlib.import_module(f"advisor.parsers.{module}")
        parsed = getattr(parsers, func)(proc.stdout)
        out["parsed"] = asdict(parsed) if is_dataclass(parsed) else parsed  # type: ignore[arg-type]
    except ImportError as e:
        out["parse_error"] = f"parser advisor.parsers.{module} unavailable: {e}"
    except Exception as e:  # ParseError, or a parser bug: keep the raw output either way
        out["parse_error"] = f"{type(e).__name__}: {e}"
    return out
