"""Outputs of round UUU's held-out evaluation (set 555) that the advisor read wrong before this
change (tests/data/evidence_heldout_59, sources in tests/data/SOURCES.md)."""

from __future__ import annotations

from advisor.parsers import nccl_tests, nvbandwidth, nvidia_smi
from tests import heldout
from tests.test_parsers_heldout_set453 import HELDOUT, _load

GH200 = "nvbandwidth_v0_5_gh200_480gb_h2d_299_d2h_272_gbs_with_perf_stat_nvlink_c2c_counters.txt"
RTX3050 = "nvbandwidth_v0_8_rtx3050_laptop_572_83_full_run_ce_sm_latency_local_copy_waived_p2p.txt"
D2D = (
    "nvbandwidth_d2d_memcpy_read_ce_invalid_value_pattern_offset_200064_assert_memcpy_cpp165_"
    "plus_nvswitch_sxid_11004_ingress_invalid_acl.txt"
)
NCCL323 = (
    "nccltests323_2node_l40s_socket_1gpu_per_node_ok_7_88gbs_then_g2_test_cuda_failure_invalid_"
    "device_ordinal_exit2.log"
)
LIST = "nvidia_smi_L_4x_a100_sxm4_80gb_all_mig_7g80_2g20_1g20_then_salloc_job_view_dcgm_job_map.txt"
CGI = (
    "nvidia_smi_mig_gh200_lgip_then_cgi_in_use_by_another_client_nsys_then_insufficient_"
    "resources_then_3x_1g24gb.txt"
)


def test_a_one_gpu_matrix_cpu_0_to_gpu_0_is_a_figure_not_a_self_pair() -> None:
    run, _ = nvbandwidth.parse((HELDOUT / GH200).read_text())
    d2h, h2d = run.matrices
    assert (d2h.test, d2h.figures(), d2h.sum) == (
        "device_to_host_memcpy_ce",
        [("0", "0", 272.94)],
        272.94,
    )
    assert (h2d.test, h2d.figures()) == ("host_to_device_memcpy_ce", [("0", "0", 299.51)])


def test_every_testcase_of_a_one_gpu_run_has_its_figure_and_waived_lines_are_skips() -> None:
    run, _ = nvbandwidth.parse((HELDOUT / RTX3050).read_text())
    figures = {m.test: (m.figures(), m.unit) for m in run.matrices}
    assert len(figures) == 18
    assert figures["host_to_device_memcpy_ce"] == ([("0", "0", 12.98)], "GB/s")
    assert figures["host_device_latency_sm"] == ([("0", "0", 613.22)], "ns")
    assert figures["device_local_copy"] == ([("0", "0", 84.33)], "GB/s")  # line 150
    # v0.8's "Waived: " names no test: each a skip, none a failure
    assert run.waived == [] and len(run.waived_unnamed) == 17 and run.waived_unnamed[-1] == 146
    assert not run.failures and run.running is None
    ev = _load(RTX3050)
    assert not ev.failures


def test_a_device_to_device_matrix_keeps_its_diagonal_out() -> None:
    m = nvbandwidth.Matrix(
        line=1, title="memcpy CE GPU(row) -> GPU(column) bandwidth (GB/s)", unit="GB/s"
    )
    m.rows = {"0": {"0": 0.0, "1": 20.5}, "1": {"0": 21.0, "1": None}}
    assert m.figures() == [("0", "1", 20.5), ("1", "0", 21.0)]


def test_the_pattern_check_failure_and_its_wrapped_assert_fail_the_testcase() -> None:
    ev = _load(D2D)
    assert ev.files[0].status == "read"
    (copy,) = ev.gpu_copy
    (failed,) = copy["failed"]
    assert failed["test"] == "device_to_device_memcpy_read_ce"
    assert failed["message"] == (
        "Invalid value when checking the pattern at 0x735f80000000; ASSERT in expression "
        "h_errorFlag == 0 (memcpy.cpp:165)"
    )
    assert (failed["line"], failed["offset"], copy["complete"]) == (2, "200064", False)
    # the log reader still reads the NVSwitch's SXid 11004 lines beside it
    sxid = [f for f in ev.failures if "11004" in str(f.get("message", ""))]
    assert len(sxid) >= 4


def test_two_mpiruns_the_second_failing_with_invalid_device_ordinal_are_two_runs() -> None:
    parsed = nccl_tests.parse((HELDOUT / NCCL323).read_text())
    first, second = parsed.tables
    assert (first.header_line, len(first.rows), first.failure()) == (13, 22, "")
    assert first.rows[-1].out_of_place is not None
    assert first.rows[-1].out_of_place.busbw_gbytes_s == 7.88
    assert (second.header_line, second.rows) == (41, [])
    assert second.check_failed == [
        "nvidiatools-29-workload: CUDA common.cu:1030 'invalid device ordinal' (line 44): a GPU "
        "index the process does not have (its header asks nThread x nGpus = 2 GPU(s) a process, "
        "from localRank x 2)"
    ]
    assert second.failed_on == ["nvidiatools-29-workload (pid 11024): common.cu:937"]
    assert second.launcher_exit == "mpirun: a process exited non-zero, exit code 2 (line 54)"
    (cut,) = [w for w in parsed.warnings if w.line == 36]
    assert cut.message.endswith(
        "no failure of it follows its rows: the next run's header line (line 41) does"
    )


def test_a_second_listing_of_the_same_uuids_is_the_same_four_gpus() -> None:
    gpus = nvidia_smi.parse_list((HELDOUT / LIST).read_text())
    assert [g.gpu for g in gpus] == [0, 1, 2, 3]
    assert [len(g.mig) for g in gpus] == [1, 4, 4, 4]
    # the job's view after salloc (line 39): GPU 0's 7g.80gb, GPU 1's two 2g.20gb, GPUs 2-3 bare
    assert [(a.line, a.mig) for g in gpus for a in g.seen_again] == [
        (40, ["7g.80gb"]),
        (42, ["2g.20gb", "2g.20gb"]),
        (45, []),
        (46, []),
    ]
    said = heldout.said(_load(LIST))
    assert any("nvidia-smi -L: 4 GPU(s) (NVIDIA A100-SXM4-80GB): GPU 0, 1, 2, 3" in m for m in said)


def test_mig_cgi_failures_and_the_instances_created_are_read() -> None:
    made = nvidia_smi.parse_mig_create((HELDOUT / CGI).read_text())
    assert [(c.line, c.profile, c.why) for c in made if c.why] == [
        (42, "20", "In use by another client"),
        (47, "20", "Insufficient Resources"),
    ]
    assert [(c.line, c.instance, c.profile) for c in made if c.why is None] == [
        (51, 5, "1g.24gb (ID 15)"),
        (53, 3, "1g.24gb (ID 15)"),
        (55, 4, "1g.24gb (ID 15)"),
    ]
    assert all(c.why in nvidia_smi.MIG_CREATE_WHY for c in made if c.why)
