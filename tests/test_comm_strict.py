"""Strict emulation: on an emulated hccl/nccl cluster, what the real backend refuses fails here.

Real multi-process gloo jobs (``strict_job.py``) run the calls this project's rank code made before
strict emulation, each refused with its call site named, beside the calls that replaced them;
the package itself is held to routing every collective through ``advisor.comm``.
"""

from __future__ import annotations

import ast
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from advisor import backends

JOB = Path(__file__).with_name("strict_job.py")
REPO = Path(__file__).resolve().parents[1]
PACKAGE = REPO / "advisor"

OLD_CALLS = [
    "old_bench_stats",
    "old_broadcast_buffer",
    "old_pair_wait_timeout",
    "old_monitored_barrier_on_device_group",
    "device_tensor_on_side_group",
    "mixed_devices",
    "numpy_of_device_tensor",
]
"""Refused on every device backend."""
LEGAL = [
    "new_bench_stats",
    "new_membership",
    "new_broadcast",
    "new_pair_wait",
    "new_exchange_and_derived",
    "new_gather_objects",
    "new_all_gather_float64",
    "new_groups",
]
# backend, chip -> the data-type and tag cases it refuses (the rest must pass)
REFUSED_BY = {
    ("hccl", "A2"): {"old_membership_float64", "old_tagged_send", "uint8_reduce_scatter"},
    ("hccl", "910"): {
        "old_membership_float64",
        "old_tagged_send",
        "uint8_reduce_scatter",
        "int16_reduction",
        "bf16_reduction",
    },
    ("nccl", ""): {"old_tagged_send", "int16_reduction"},
}
DTYPE_CASES = {
    "old_membership_float64",
    "old_tagged_send",
    "uint8_reduce_scatter",
    "int16_reduction",
    "bf16_reduction",
}


def site_line(case: str) -> int:
    for number, line in enumerate(JOB.read_text().splitlines(), 1):
        if line.rstrip().endswith(f"# site: {case}"):
            return number
    raise AssertionError(f"no '# site: {case}' marker in {JOB.name}")


@pytest.fixture(scope="module", params=sorted(REFUSED_BY), ids=lambda p: "-".join(filter(None, p)))
def outcome(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory):
    declared, chip = request.param
    out = tmp_path_factory.mktemp("strict") / "out.json"
    env = {**os.environ, "PYTHONPATH": str(REPO), "OMP_NUM_THREADS": "1"}
    proc = subprocess.run(
        [sys.executable, "-m", "torch.distributed.run", "--standalone", "--nproc-per-node=2",
         str(JOB), str(out), declared, chip],
        capture_output=True, text=True, timeout=300, env=env, cwd=str(out.parent),
    )  # fmt: skip
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
    return (declared, chip), json.loads(out.read_text())


def test_the_old_calls_are_refused_naming_their_line(outcome) -> None:
    (declared, chip), result = outcome
    assert result["strict"] is True
    cases = result["cases"]
    for case in [*OLD_CALLS, *sorted(REFUSED_BY[(declared, chip)])]:
        got = cases[case]
        assert got["refused"], f"{case} was not refused on {declared} {chip}: {got}"
        assert f"strict_job.py:{site_line(case)}" in got["message"], got["message"]
        assert declared in got["message"] or "device" in got["message"]


def test_what_the_backend_accepts_passes(outcome) -> None:
    (declared, chip), result = outcome
    cases = result["cases"]
    for case in LEGAL:
        assert cases[case] == {"refused": False, "message": "", "error": ""}, (case, cases[case])
    # Types the real backend takes pass the check (gloo itself may still lack one: int16)
    for case in sorted(DTYPE_CASES - REFUSED_BY[(declared, chip)]):
        assert not cases[case]["refused"], (case, cases[case])


def test_refusals_say_what_the_backend_takes(outcome) -> None:
    (declared, chip), result = outcome
    msg = result["cases"]["old_membership_float64"]["message"]
    if declared == "hccl":
        allowed = backends.supported_dtypes("hccl", "all_reduce", chip)
        assert allowed is not None and "float64" not in allowed
        assert f"of float64 on the hccl group: hccl on {chip} takes {', '.join(allowed)}" in msg
    wait = result["cases"]["old_pair_wait_timeout"]["message"]
    assert backends.UNBOUNDED_WAIT_VARS[declared] in wait and "comm.wait" in wait
    device = result["cases"]["old_bench_stats"]["message"]
    assert "No backend type associated with device type cpu" in device


DIST_CALLS = {
    "all_reduce", "broadcast", "all_gather", "all_gather_into_tensor", "reduce_scatter",
    "reduce_scatter_tensor", "all_to_all", "all_to_all_single", "barrier", "monitored_barrier",
    "isend", "irecv", "send", "recv", "batch_isend_irecv", "P2POp", "new_group",
    "all_gather_object", "broadcast_object_list", "gather", "scatter", "reduce",
    "destroy_process_group",
}  # fmt: skip
ALLOWED = {
    # the process group's own life: set up and torn down by the worker around every stage
    ("worker.py", "destroy_process_group"),
}


def test_rank_code_talks_to_torch_distributed_only_through_comm() -> None:
    offenders = []
    for path in sorted(PACKAGE.rglob("*.py")):
        if path.name == "comm.py":
            continue
        tree = ast.parse(path.read_text(), filename=str(path))
        for node in ast.walk(tree):
            if (
                isinstance(node, ast.Attribute)
                and node.attr in DIST_CALLS
                and isinstance(node.value, ast.Name)
                and node.value.id == "dist"
                and (path.name, node.attr) not in ALLOWED
            ):
                offenders.append(f"{path.relative_to(REPO)}:{node.lineno} dist.{node.attr}")
            if isinstance(node, ast.ImportFrom) and node.module == "torch.distributed":
                names = {a.name for a in node.names} & DIST_CALLS
                if names:
                    offenders.append(f"{path.relative_to(REPO)}:{node.lineno} imports {names}")
    assert offenders == [], "route these through advisor.comm: " + "; ".join(offenders)
