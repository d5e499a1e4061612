"""Every in-project all-reduce equals gloo's native all_reduce, as a real multi-process job.

One torchrun job per world size loops over all algorithms, sizes (1 element, not divisible by the
world size, a larger prime), dtypes and node layouts (see ``algorithms_job.py``), so the cost of
starting the ranks is paid once per world size.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

JOB = Path(__file__).with_name("algorithms_job.py")
REPO = Path(__file__).resolve().parents[2]


def run_job(world_size: int, tmp_path: Path) -> dict:
    out = tmp_path / f"algorithms-{world_size}.json"
    env = {**os.environ, "PYTHONPATH": str(REPO), "OMP_NUM_THREADS": "1"}
    proc = subprocess.run(
        [
            sys.executable,
            "-m",
            "torch.distributed.run",
            "--standalone",
            f"--nproc-per-node={world_size}",
            str(JOB),
            str(out),
        ],
        capture_output=True,
        text=True,
        timeout=300,
        env=env,
        cwd=str(tmp_path),
    )
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
    return json.loads(out.read_text())


def check(world_size: int, tmp_path: Path) -> None:
    result = run_job(world_size, tmp_path)
    assert result["world_size"] == world_size
    # every rank checked something in every category (guards against a loop that ran nothing)
    assert result["checked"] >= world_size * 20
    assert result["failures"] == []


# Powers of two (2, 4, 8, 16: halving-doubling's exact case), primes (3, 7: every chunk uneven,
# the hierarchy has one layout besides the flat one) and a composite non-power (6: several
# hierarchies, halving-doubling's fold-in step). Each size is a fresh job of its own, so the list
# is the smallest that covers those cases.
@pytest.mark.parametrize("world_size", [2, 3, 4, 6, 8])
def test_algorithms_equal_native(world_size: int, tmp_path: Path) -> None:
    check(world_size, tmp_path)


@pytest.mark.slow
@pytest.mark.parametrize("world_size", [7, 16])
def test_algorithms_equal_native_large_worlds(world_size: int, tmp_path: Path) -> None:
    check(world_size, tmp_path)
