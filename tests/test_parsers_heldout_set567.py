"""Outputs of round WWW's held-out evaluation (set 567) that the advisor read wrong or not at all
before this change (tests/data/evidence_heldout_60, sources in tests/data/SOURCES.md): NVIDIA
tool outputs (nvbandwidth, nvidia-smi -L beside nvlink -s, a looped --query-gpu CSV) and a
benchmark pod's JSON log."""

from __future__ import annotations

from functools import partial

from tests import heldout
from tests.conftest import DATA

HELDOUT = DATA / "evidence_heldout_60"


_load = partial(heldout.load, HELDOUT)


def test_a_multinode_nvbandwidths_processes_name_its_gpus_and_hosts() -> None:
    ev = _load(
        "oke_gb200_kubectl_logs_nvbandwidth_v07_multinode_d2d_read_ce_2x4_hgx_gb200_798gbs_sum_44685.txt"
    )
    (run,) = ev.gpu_copy
    devices = run["devices"]
    assert len(devices) == 8
    assert devices[0] == {
        "index": 0,
        "name": "HGX GB200",
        "bus_id": "00000008:01:00",
        "process": 0,
        "host": "nvbandwidth-test-worker-0",
        "line": 20,
    }
    assert (devices[7]["process"], devices[7]["host"], devices[7]["index"]) == (
        7,
        "nvbandwidth-test-worker-1",
        3,
    )
    assert (
        "nvbandwidth: 8 process(es) on 2 host(s), one GPU each: nvbandwidth-test-worker-0: 4 "
        "GPU(s) (devices 0, 1, 2, 3); nvbandwidth-test-worker-1: 4 GPU(s) (devices 0, 1, 2, 3) "
        "(8 x HGX GB200)"
    ) in heldout.said(ev)
    assert [h["host"] for h in ev.hosts if h["named"]] == [
        "nvbandwidth-test-worker-0",
        "nvbandwidth-test-worker-1",
    ]
    (shape,) = ev.shapes
    assert (shape["nodes"], shape["per_node"], shape["tool"]) == (2, 4, "nvbandwidth")
    # the run is healthy: nothing of it is a warning or worse
    assert not ev.failures
    assert not [f for f in heldout.found(ev).values() if f.severity in ("critical", "warning")]


def test_nvlink_s_gpu_lines_are_not_a_second_listing() -> None:
    ev = _load(
        "hpe_dl380g11_2x_a100_pcie_40gb_555_42_table_list_gpus_nvlink_s_inactive_q_ecc_all_zero_ja_notes.txt"
    )
    said = heldout.said(ev)
    assert "nvidia_smi_list: nvidia-smi -L: 2 GPU(s) (NVIDIA A100-PCIE-40GB): GPU 0, 1" in said
    assert not [m for m in said if "-L again" in m]
    (report,) = ev.files
    assert not [m for m in report.messages if m.line == 32]
    # nvlink -s is still read: both GPUs with no link up
    assert [(n["gpu"], n["none_up"]) for n in ev.nvlinks] == [(0, True), (1, True)]


def test_a_looped_querys_unknown_error_rows_are_a_failure() -> None:
    ev = _load("nvidia_smi_query_gpu_util_enc_dec_loop_l1_first_sample_then_unknown_error_rows.txt")
    (report,) = ev.files
    assert (report.status, report.formats) == ("read", ["nvidia_smi_query_csv"])
    (fail,) = ev.failures
    assert (fail["kind"], fail["line"], fail["library"]) == ("gpu_driver_error", 3, "nvidia-smi")
    assert fail["exception_type"].startswith(
        "nvidia-smi --query-gpu: NVML answered [Unknown Error] for every field asked in 2 of its "
        "3 row(s) (the rest read)"
    )
    (item,) = heldout.found(ev)["evidence-gpu-driver-error"].items
    assert "line 3" in item
    # no GPU is made up from rows that do not tell which GPU they are
    assert not ev.gpus


def test_a_benchmarks_fatal_json_record_cut_in_its_output_is_its_failure() -> None:
    ev = _load("soperator296_gpubench_worker1_8x_h100_all_reduce_perf_fatal_exit_status_3_cut.log")
    (fail,) = ev.failures
    assert (fail["kind"], fail["line"]) == ("log_error", 11)
    assert fail["message"] == "fatal: Failed to execute all_reduce_perf: exit status 3"
    assert "log: a structured log of 2 JSON record(s): 1 info, 1 fatal" in heldout.said(ev)
    found = heldout.found(ev)
    (item,) = found["evidence-log-error"].items
    assert "line 11" in item
    # the nccl-tests output inside the record is still read as cut before its first size
    (bench,) = ev.benchmarks
    assert (bench["ranks"], bench["results"]) == (8, [])
