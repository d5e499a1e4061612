"""Review 52 of round GGGG (sets 625-630) and review 51's mends, faults 1, 2, 7 and 10: an
unmarked LnkSta loop with two Gen4 x8 NICs beside eight Gen5 x16 ones; two grepped ``nvidia-smi
-i N -q`` sections, GPU 1's then GPU 3's; an ib_write_bw -a client stopped by a remote access
error right after perftest's default 65536 B; npu-smi rows under pdsh's address prefixes: each on
its input (tests/data/review52, described in tests/data/SOURCES.md)."""

from __future__ import annotations

from functools import partial
from pathlib import Path

from advisor.evidence.load import EvidenceFacts, load_paths
from tests import heldout
from tests.conftest import DATA

REVIEW = DATA / "review52"
REVIEW51 = DATA / "review51"
HELDOUT = DATA / "evidence_heldout_68"

_write = partial(heldout.load_copy, name="copy.txt")


def _load(name: str, where: Path = REVIEW) -> EvidenceFacts:
    return load_paths([where / name])


# --- 1. lspci LnkSta loop: Gen4 x8 NICs beside Gen5 x16 ones ------------------------------------

LNKSTA_MIXED = (
    "lspci_lnksta_per_mlx5_loop_older_pciutils_8x16_cx7_plus_2_cx6lx_native_x8_healthy.txt"
)
LNKSTA_X4 = "lspci_lnksta_per_mlx5_loop_older_pciutils_no_ok_downgraded_marks_mlx5_106_x4.txt"


def test_narrower_nics_at_another_speed_are_another_model_noted_not_trained_short() -> None:
    ev = _load(LNKSTA_MIXED)
    assert not ev.failures
    said = [(n, m) for n, m in heldout.notes(ev) if "fewer lanes than the other NICs" in m]
    assert [n for n, _ in said] == [5, 6]
    assert said[0][1].endswith(
        "mlx5_4: PCIe link 16GT/s x8: fewer lanes than the other NICs of the listing (x16 at "
        "32GT/s), at another speed too: most likely another model (such as a Gen4 x8 card beside "
        "Gen5 x16 ones) at its full width; no LnkCap or lspci (ok)/(downgraded) mark in the copy "
        "says its own width (lspci -vv's LnkCap line does)"
    )
    level, outcome = heldout.imported(ev)
    assert level == "READY"
    assert "evidence-pcie-link-narrow" not in {f.rule_id for f in outcome.findings}
    # the review-51 variant it was made from (an x4 among x16 at one speed) reads as before
    x4 = _load(LNKSTA_X4, REVIEW51)
    assert [(f["line"], f["message"]) for f in x4.failures] == [(2, "mlx5_106")]
    assert heldout.imported(x4)[0] == "READY WITH WARNINGS"


def test_a_narrow_nic_at_its_siblings_speed_is_still_said_narrow_against_them(
    tmp_path: Path,
) -> None:
    row = "MLX Number: mlx5_{n}            LnkSta: Speed {s}GT/s, Width x{w}\n"
    wide = "".join(row.format(n=n, s=32, w=16) for n in range(6))
    # x8 at 32 GT/s: the Gen5 x16 siblings' own speed, so most likely their model, trained short
    ev = _write(tmp_path, wide + row.format(n=6, s=32, w=8))
    assert [(f["kind"], f["line"]) for f in ev.failures] == [("pcie_link_narrow", 7)]
    assert "(x16); no LnkCap" in ev.failures[0]["exception_type"]
    # a wide sibling at the narrow one's speed (a Gen4 x16 among Gen5 ones) makes it a peer too
    mixed = wide + row.format(n=6, s=16, w=16) + row.format(n=7, s=16, w=8)
    assert [f["line"] for f in _write(tmp_path, mixed).failures] == [8]
    # x4 at 8 GT/s among 32 GT/s x16s: another model's or a link down in both; a note
    ev = _write(tmp_path, wide + row.format(n=6, s=8, w=4))
    assert not ev.failures
    assert any("(x16 at 32GT/s), at another speed too" in m for _, m in heldout.notes(ev))


# --- 2. nvidia-smi -i 1 -q | grep Fabric, then -i 3 -------------------------------------------

FABRIC_TWO = "nvidia_smi_query_gpu_4x_gb300_then_i_1_and_i_3_q_grep_fabric_gpu3_in_progress.txt"
FABRIC_I3 = "nvidia_smi_query_gpu_4x_gb300_memory_rows_then_i_3_q_grep_fabric_in_progress.txt"


def test_each_grepped_section_is_the_gpu_its_own_command_asked() -> None:
    ev = _load(FABRIC_TWO)
    sections = [(g["gpu"], g["line"], g["fabric_state"]) for g in ev.gpus if g["query"] == "q"]
    assert sections == [(1, 10, "Completed"), (3, 19, "In Progress")]
    level, outcome = heldout.imported(ev)
    assert level == "NOT READY"
    (item,) = heldout.items(outcome, "evidence-gpu-fabric-not-registered")
    assert item.startswith("GPU 3: Fabric State In Progress Status N/A (")
    assert item.endswith(", line 19)")
    assert "GPU 1:" not in str(outcome.findings)
    # the review-51 variant with its one -i 3 section reads as before
    one = _load(FABRIC_I3, REVIEW51)
    assert [(g["gpu"], g["line"]) for g in one.gpus if g["query"] == "q"] == [(3, 10)]
    (item,) = heldout.items(heldout.imported(one)[1], "evidence-gpu-fabric-not-registered")
    assert item.startswith("GPU 3: Fabric State In Progress Status N/A (")


def test_a_command_starts_its_own_record_and_a_headed_one_takes_its_i_too(
    tmp_path: Path,
) -> None:
    fabric = "    Fabric\n        State          : {state}\n        Status         : {status}\n"
    # the second command's section names another GPU: not added to the first's record
    text = (
        "$ nvidia-smi -i 0 -q | grep -A 2 Fabric\n"
        + fabric.format(state="Completed", status="Success")
        + "$ nvidia-smi --id=2 -q | grep -A 2 Fabric\n"
        + fabric.format(state="In Progress", status="N/A")
    )
    ev = _write(tmp_path, text)
    assert [(g["gpu"], g["fabric_state"]) for g in ev.gpus] == [
        (0, "Completed"),
        (2, "In Progress"),
    ]
    # a whole record of nvidia-smi -i 2 -q: its GPU line is GPU 2's, not the list's first
    headed = (
        "$ nvidia-smi -i 2 -q\n==============NVSMI LOG==============\n\n"
        "Driver Version                            : 580.105.06\n"
        "Attached GPUs                             : 4\n"
        "GPU 00000009:01:00.0\n    Product Name                          : NVIDIA GB300\n"
        + fabric.format(state="In Progress", status="N/A")
    )
    ev = _write(tmp_path, headed)
    assert [(g["gpu"], g["fabric_state"]) for g in ev.gpus] == [(2, "In Progress")]
    # a grep over every GPU (no -i) still numbers its sections in order
    ev = _write(
        tmp_path,
        "$ nvidia-smi -q | grep -A 2 Fabric\n"
        + fabric.format(state="Completed", status="Success")
        + fabric.format(state="In Progress", status="N/A"),
    )
    assert [(g["gpu"], g["fabric_state"]) for g in ev.gpus] == [
        (0, "Completed"),
        (1, "In Progress"),
    ]


# --- 7. ib_write_bw -a: a remote access error right after the default 65536 B ----------------

PERFTEST = (
    "ib_write_bw_a_client_only_rem_access_err_after_65536_row_server_default_size_single_prompt.txt"
)
PERFTEST_REAL = (
    "ib_write_bw_a_gke_a3ultra_mlx5_3_roce_381gbps_then_failed_status_10_syndrom_0x88_doubled_"
    "prompt.txt"
)


def test_a_remote_access_error_after_the_measured_sizes_is_the_tests_set_up_a_warning() -> None:
    ev = _load(PERFTEST)
    (port,) = ev.hca_ports
    run = port["perftest"]
    assert (port["ca"], run["peer"], run["rows"][-1]["bytes"], run["bw_average_gbps"]) == (
        "mlx5_3",
        "10.0.4.8",
        65536,
        381.41,
    )
    assert (run["failed_line"], run["sizes_mismatched"]) == (41, True)
    level, outcome = heldout.imported(ev)
    assert level == "READY WITH WARNINGS"
    assert heldout.above_info(outcome) == [("evidence-rdma-perftest-sizes-mismatched", "warning")]
    (item,) = heldout.items(outcome, "evidence-rdma-perftest-sizes-mismatched")
    assert item.startswith(
        "mlx5_3 port 1 (Ethernet): RDMA_Write BW to 10.0.4.8: 381.41 Gb/s average at 65536 B, its "
        "last row (perftest's default size, the buffer of a server started without -a or -s), "
        "then: Completion with error at client (IBV_WC_REM_ACCESS_ERR, vendor syndrome 0x88)"
    )
    assert "evidence-rdma-perftest-stopped-mid-run" not in {f.rule_id for f in outcome.findings}
    # the real sample it was made from (a doubled prompt) reads alike
    real = _load(PERFTEST_REAL, HELDOUT)
    assert real.hca_ports[0]["perftest"]["sizes_mismatched"] is True
    assert heldout.above_info(heldout.imported(real)[1]) == heldout.above_info(outcome)


def test_another_status_after_the_measured_sizes_is_still_the_test_stopped_mid_run(
    tmp_path: Path,
) -> None:
    text = (REVIEW / PERFTEST).read_text()
    # a retry-exceeded error (status 12): the path between the hosts, critical as before
    ev = _write(tmp_path, text.replace("Failed status 10:", "Failed status 12:"))
    assert ev.hca_ports[0]["perftest"]["sizes_mismatched"] is False
    level, outcome = heldout.imported(ev)
    assert level == "NOT READY"
    assert heldout.above_info(outcome) == [("evidence-rdma-perftest-stopped-mid-run", "critical")]
    # the same error before any row: no size passed to set the server's buffer apart from the
    # path, so it stays the run that broke off after its header, as before
    head, _, tail = text.partition(" 2          5000")
    no_rows = head + tail[tail.index(" Completion with error") :]
    ev = _write(tmp_path, no_rows)
    run = ev.hca_ports[0]["perftest"]
    assert (run["rows"], run["sizes_mismatched"]) == ([], False)
    assert heldout.above_info(heldout.imported(ev)[1]) == [
        ("evidence-rdma-perftest-broke-off", "critical")
    ]


# --- 10. npu-smi info | grep 0000 under pdsh, hosts given by address ---------------------------

NPU_IP = "npu_smi_info_grep_0000_pdsh_ip_hosts_10.0.0.11_12_chip_0000_02_hbm_held_on_second.txt"
NPU_NAMED = "npu_smi_info_grep_0000_pdsh_two_nodes_node02_chip_0000_02_hbm_held.txt"


def test_pdsh_rows_of_hosts_given_by_address_keep_their_host() -> None:
    ev = _load(NPU_IP)
    assert [c["host"] for c in ev.npu_chips] == ["10.0.0.11"] * 8 + ["10.0.0.12"] * 8
    level, outcome = heldout.imported(ev)
    assert level == "READY WITH WARNINGS"
    (item,) = heldout.items(outcome, "evidence-npu-hbm-held")
    assert item.startswith("the NPU chip at bus id 0000:02:00.0 on 10.0.0.12 (its NPU id, name")
    assert "HBM 61234 of 65536 MB (93.4 %)" in item and "line 15" in item
    # the review-51 variant with named hosts reads as before
    named = _load(NPU_NAMED, REVIEW51)
    assert [c["host"] for c in named.npu_chips] == ["node01"] * 8 + ["node02"] * 8
    (item,) = heldout.items(heldout.imported(named)[1], "evidence-npu-hbm-held")
    assert item.startswith("the NPU chip at bus id 0000:02:00.0 on node02 (its NPU id, name")
