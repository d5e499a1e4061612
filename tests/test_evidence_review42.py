"""Review 42 of round WWW's change (60d274f..12d0e8e): the fault mended this stop (the others are
named in tests/data/HELDOUT.md as left)."""

from __future__ import annotations

from advisor.evidence.load import load_paths
from tests.conftest import DATA
from tests.test_parsers_heldout_set453 import _said


def test_a_single_process_nvbandwidth_is_no_one_gpu_cluster() -> None:
    # nvbandwidth v0.8 prints "Process 0 (dgx01): device 0: ..." in a single-process run too,
    # then "Device 0:" .. "Device 3:": its GPUs are the four, and the file states no cluster
    ev = load_paths([DATA / "review16" / "nvb01_v0.8_device_to_device_latency_sm.txt"])
    (run,) = ev.gpu_copy
    assert [d["index"] for d in run["devices"]] == [0, 1, 2, 3]
    assert not ev.shapes
    assert not any("one GPU each" in m for m in _said(ev))
    # a multi-node run still gives its hosts' shape
    ev = load_paths(
        [
            DATA
            / "evidence_heldout_60"
            / "oke_gb200_kubectl_logs_nvbandwidth_v07_multinode_d2d_read_ce_2x4_hgx_gb200_798gbs_sum_44685.txt"
        ]
    )
    (shape,) = ev.shapes
    assert (shape["nodes"], shape["per_node"]) == (2, 4)
