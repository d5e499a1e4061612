"""What only a real accelerator can show: NCCL's asynchronous work, device events, device OOM.

These tests need a CUDA device and skip, saying so, on a host without one (this project's CI has
none: ``tests/device/check.sh`` runs them on a machine that has one). Everything else about the
nccl path is checked on every host by strict emulation (``test_comm_strict.py``).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
import torch

pytestmark = [
    pytest.mark.device,
    pytest.mark.skipif(not torch.cuda.is_available(), reason="needs a CUDA device"),
]

REPO = Path(__file__).resolve().parents[1]
JOB = Path(__file__).with_name("device_job.py")


def test_nccl_work_is_polled_to_completion_and_timed_on_the_device(tmp_path: Path) -> None:
    """On NCCL an async collective reports completion only through its device event: comm.wait
    polls is_completed against its own deadline; the Clock times it with events."""
    out = tmp_path / "out.json"
    gpus = torch.cuda.device_count()
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    proc = subprocess.run(
        [sys.executable, "-m", "torch.distributed.run", "--standalone",
         f"--nproc-per-node={gpus}", str(JOB), str(out)],
        capture_output=True, text=True, timeout=300, env=env,
    )  # fmt: skip
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
    result = json.loads(out.read_text())
    assert result["backend"] == "nccl" and result["strict"] is False
    assert result["sum_ok"] and result["waited"]
    assert result["event_s"] > 0 and result["host_enqueue_s"] >= 0
    assert result["bus_id"], "cuda devices report their PCI bus id"


def test_device_out_of_memory_is_recognised_by_its_type() -> None:
    from advisor.sweep.train import is_oom

    free, _ = torch.cuda.mem_get_info()
    with pytest.raises(torch.OutOfMemoryError) as e:
        torch.empty(int(free * 4), dtype=torch.uint8, device="cuda")
    assert is_oom(e.value)
    torch.cuda.empty_cache()
