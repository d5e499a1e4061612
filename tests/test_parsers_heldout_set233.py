"""Outputs the two-hundred-thirty-third and two-hundred-thirty-fourth held-out evaluations
misread that this stop reads: Ascend 950's mode-first hccn_tool command and its ``-ub_connect``
answer, npu-smi's blank process names, ibv_devinfo's ``Device ports:`` heading, prterun's first
failed process, a page's code fence after torch's NCCL error, and ranks of one group timing out
at different SeqNums.

Samples: ``tests/data/evidence_heldout_41/`` (sources in ``tests/data/SOURCES.md``).
"""

from __future__ import annotations

from functools import partial

from tests import heldout
from tests.conftest import DATA
from tests.rules_facts import finding_items

HELDOUT = DATA / "evidence_heldout_41"


_load = partial(heldout.load, HELDOUT)


def test_an_ascend_950_ub_connect_answer_gives_each_port_of_the_device() -> None:
    ev = _load(
        "hccn_tool_g_ub_connect_i0_ascend950_partial_link_port5_down_port6_partial_up_driver_doc.txt"
    )
    assert ev.files[0].status == "read"
    got = [(p["device"], p["die_port"], p["link"], p["line"]) for p in ev.npu_ports]
    assert got == [
        (0, "UB port 4", "UP", 3),
        (0, "UB port 5", "DOWN", 4),
        (0, "UB port 6", "PARTIAL UP", 5),
    ]
    (line,) = finding_items({"evidence.npu_ports": ev.npu_ports}, "hccl")["evidence-npu-port-down"]
    assert "UB port 5" in line


def test_a_blank_process_name_is_left_out_not_printed_as_a_space() -> None:
    ev = _load("npu_smi_info_910B3_8_chips_container_blank_process_names_vllm_ascend250_cut.txt")
    assert [c["processes"] for c in ev.npu_chips[:2]] == [
        ["(pid 277624, 51270 MB)"],
        ["(pid 277626, 51271 MB)"],
    ]


def test_ibv_devinfo_with_its_device_ports_heading_is_read() -> None:
    ev = _load("ibv_devinfo_two_mlx4_dual_port_device_ports_heading_port2_down_heioy_books.txt")
    assert ev.files[0].status == "read"
    got = [(p["ca"], p["port"], p["state"], p["active"]) for p in ev.hca_ports]
    assert got == [
        ("mlx4_1", 1, "PORT_ACTIVE", True),
        ("mlx4_1", 2, "PORT_DOWN", False),
        ("mlx4_0", 1, "PORT_ACTIVE", True),
        ("mlx4_0", 2, "PORT_DOWN", False),
    ]
    assert {p["firmware"] for p in ev.hca_ports} == {"2.42.5000"}


def test_prteruns_first_failed_process_names_its_rank() -> None:
    ev = _load(
        "nccl_tests_alltoall_sophia_2node_unhandled_system_error_prterun_first_process_rank10_alcf.log"
    )
    (end,) = [e for e in ev.failures if e["kind"] == "launcher_exit"]
    assert (end["rank"], end["exit_code"], end["line"]) == (10, 3, 40)
    assert end["message"].endswith(
        "Process name: [prterun-sophia-gpu-09-2564016@1,10] Exit code:    3"
    )


def test_a_code_fence_after_torchs_nccl_error_is_not_its_last_error() -> None:
    ev = _load(
        "torch_nccl_error_unhandled_system_error_inside_markdown_fence_jean_zay_bigscience_cut.txt"
    )
    (err,) = [e for e in ev.failures if e["kind"] == "nccl_call_failure"]
    assert (err["code_name"], err["exception_type"]) == ("ncclSystemError", None)
    assert "```" not in err["message"]


def test_ranks_of_one_group_timing_out_at_different_seqnums_are_a_finding() -> None:
    ev = _load("polaris_ddp_broadcast_watchdog_timeouts_8_ranks_seqnums_5_7_40_48_56_alcf.log")
    (timeline,) = ev.timelines
    assert timeline.seq_spread == {5: [1], 7: [4, 5, 6, 7], 40: [3], 48: [2], 56: [0]}
    findings = finding_items({"evidence.timelines": ev.timelines}, "nccl")
    assert "evidence-watchdog-seq-spread" in findings


def test_ascend_950s_health_and_current_fault_events_are_read() -> None:
    health = _load("npu_smi_info_t_health_i0_ascend950_health_key_ok_driver_doc.txt")
    (chip,) = health.npu_chips
    assert (chip["npu"], chip["health"], chip["query"]) == (0, "OK", "health")
    events = _load(
        "npu_smi_info_t_current_fault_event_i0_ascend950_one_event_0x81AF8000_driver_doc.txt"
    )
    (chip,) = events.npu_chips
    assert (chip["npu"], chip["health"], chip["error_codes"]) == (
        0, "1 current fault event(s)", ["0x81AF8000"],
    )  # fmt: skip
    assert chip["error_info"][0].startswith("event id=0x81AF8000, severity=2")
    findings = finding_items({"evidence.npu_chips": health.npu_chips + events.npu_chips}, "hccl")
    (line,) = findings["evidence-npu-chip-health"]
    assert "0x81AF8000" in line


def test_ibstatus_gives_each_ports_state() -> None:
    ev = _load("ibstatus_mlx5_ports_down_disabled_sdr_qdr_nccl1935_cut.txt")
    assert (ev.files[0].status, ev.files[0].formats) == ("read", ["rdma"])
    first, second = ev.hca_ports[:2]
    assert (first["tool"], first["ca"], first["state"], first["active"]) == (
        "ibstatus",
        "mlx5_11",
        "DOWN",
        False,
    )
    assert (first["physical_state"], first["rate_gbps"], first["link_layer"]) == (
        "Disabled",
        10.0,
        "InfiniBand",
    )
    assert (second["ca"], second["rate_gbps"], second["link_layer"]) == ("mlx5_2", 40.0, "Ethernet")
    findings = finding_items({"evidence.hca_ports": ev.hca_ports}, "nccl")
    # every port is down, the last one (cut after its state line) too: no port of the host
    # carries RDMA traffic (critical since set 586, as a lone ibstat with every port Down)
    assert len(findings["evidence-hca-host-all-ports-down"]) == len(ev.hca_ports) == 6
    assert "evidence-hca-port-not-active" not in findings
    assert ev.hca_ports[-1]["physical_state"] is None


def test_a_tcpstore_waiting_for_its_workers_is_a_store_time_out() -> None:
    ev = _load("tcpstore_diststoreerror_timed_out_6s_1_of_2_workers_joined_pytorch_pr111805.txt")
    (store,) = ev.failures
    assert (store["kind"], store["timeout_ms"], store["rank_size"], store["numel"]) == (
        "store_timeout", 6000, 2, 1,
    )  # fmt: skip


def test_two_processes_that_are_each_rank_1_of_a_pg_11_are_not_one_group() -> None:
    ev = _load(
        "pg_watchdog_two_ranks_both_rank1_of_pg11_alltoall_216_allreduce_57_nccl1610_cut.log"
    )
    assert [
        (e["rank"], e["seq"], e["group"]) for e in ev.failures if e["kind"] == "watchdog_timeout"
    ] == [
        (13, 216, "11"),
        (15, 57, "11"),
    ]
    (timeline,) = ev.timelines
    assert timeline.seq_spread == {} and timeline.mismatched_ops == {}
