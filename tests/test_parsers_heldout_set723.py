"""Outputs of round WWWW's held-out evaluation (set 723, NVIDIA tool outputs) that the advisor
read wrong or in part before this change (tests/data/evidence_heldout_83, sources in
tests/data/SOURCES.md): Fabric Manager's own log lines ("NodeId 0 partition id 57082 is
activated.", "Successfully configured all the available GPUs and NVSwitches ...") were no format
the advisor knew; an nccl-tests run whose two ranks stood on one GPU (one host, one bus id) was
READY with its busbw as a link's; and a ``--query-gpu`` CSV's pcie.link.width.current was not
read, a GPU at x4 beside another at x16 left unsaid."""

from __future__ import annotations

from functools import partial
from pathlib import Path

from advisor.parsers import nccl_tests
from tests import heldout
from tests.conftest import DATA

HELDOUT = DATA / "evidence_heldout_83"

FM_LOG = "fabricmanager_log_lines_b300_p6_nvl5_nvlsm_started_opensm_master_partition_57082_activated_successfully_configured_gpus_nvswitches_cn_notes_cut.log"
SHARED = "nccl_tests_2_18_0_reduce_scatter_perf_mpi_2_ranks_same_rtx5090_device0_lab_busbw_max_2_73_avg_1_74_default_proto_ebpf_notes_cut.txt"
WIDTH = "nvidia_smi_query_gpu_csv_pcie_gen_width_gtx1060_egpu_razer_core_0f00_gen1_x4_plus_lspci_gp106_host_state_report_cut.txt"

_write = partial(heldout.load_copy, name="copy.txt")
_load = partial(heldout.load, HELDOUT)
_text = partial(heldout.text, HELDOUT)


# --- Fabric Manager's own log lines ----------------------------------------------------------


def test_fabric_manager_log_lines_saying_the_fabric_configured_are_read_healthy() -> None:
    ev = _load(FM_LOG)
    assert ev.files[0].formats == ["log"] and ev.files[0].status == "read"
    level, outcome = heldout.imported(ev)
    assert level == "READY"
    assert heldout.above_info(outcome) == []
    assert heldout.notes(ev) == [
        (
            4,
            "log: Fabric Manager configured all the available GPUs and NVSwitches to route "
            "NVLink traffic (its log); node 0's partition 57082 activated (line 3); the NVLink "
            "subnet manager (OpenSM) is MASTER (line 2)",
        )
    ]


def test_the_journal_form_of_the_lines_names_its_host_and_partition(tmp_path: Path) -> None:
    journal = (
        "Aug 27 07:13:17 hgx-b07 OpenSM[31060]: Entering MASTER state\n"
        "Aug 27 07:13:21 hgx-b07 nv-fabricmanager[31082]: NodeId 0 partition id 12 is activated.\n"
        "Aug 27 07:13:21 hgx-b07 nv-fabricmanager[31082]: Successfully configured all the "
        "available GPUs and NVSwitches to route NVLink traffic.\n"
    )
    ev = _write(tmp_path, journal)
    level, outcome = heldout.imported(ev)
    assert level == "READY" and heldout.above_info(outcome) == []
    ((line, note),) = heldout.notes(ev)
    assert line == 3
    assert " on hgx-b07; node 0's partition 12 activated (line 2)" in note
    assert "(OpenSM) is MASTER (line 1)" in note


def test_a_unit_failure_after_the_configured_line_still_stands(tmp_path: Path) -> None:
    failed = _text(FM_LOG) + (
        "nvidia-fabricmanager.service: Control process exited, code=exited, status=1/FAILURE\n"
    )
    level, outcome = heldout.imported(_write(tmp_path, failed))
    assert level == "NOT READY"
    assert [r for r, _ in heldout.above_info(outcome)] == ["evidence-fabric-manager-failed"]


# --- nccl-tests: two ranks on one GPU --------------------------------------------------------


def test_two_ranks_on_one_gpu_are_a_warning_and_their_busbw_no_link_measure() -> None:
    ev = _load(SHARED)
    assert ev.files[0].formats == ["nccl_tests"] and ev.files[0].status == "read"
    (bench,) = ev.benchmarks
    assert bench["shared_gpus"] == [
        {"host": "lab", "bus": "0000:02:00", "device": "0", "ranks": [0, 1], "lines": [5, 6]}
    ]
    level, outcome = heldout.imported(ev)
    assert level == "READY WITH WARNINGS"
    assert heldout.above_info(outcome) == [("evidence-nccl-tests-shared-gpu", "warning")]
    message, (item,) = heldout.finding(outcome, "evidence-nccl-tests-shared-gpu")
    assert "measured no GPU-to-GPU path" in message and "Duplicate GPU detected" in message
    assert item.endswith(
        ": ranks 0, 1 on lab device 0 [0000:02:00] (lines 5, 6); busbw peak 2.73 GB/s, "
        "average 1.74 GB/s (reduce_scatter): not a link measure"
    )


def test_only_the_ranks_that_share_a_gpu_are_named(tmp_path: Path) -> None:
    lines = _text(SHARED).splitlines()
    rank = "#  Rank  {r} Group  0 Pid 90{r} on node7 device {d} [0000:{b}:00] NVIDIA H100"
    four = [
        rank.format(r=0, d=0, b="18"),
        rank.format(r=1, d=1, b="2a"),
        rank.format(r=2, d=2, b="41"),
        rank.format(r=3, d=2, b="41"),
    ]
    ev = _write(tmp_path, "\n".join([*lines[:4], *four, *lines[6:]]) + "\n")
    assert nccl_tests.parse("\n".join([*lines[:4], *four, *lines[6:]])).shared_gpus == [
        {"host": "node7", "bus": "0000:41:00", "device": "2", "ranks": [2, 3], "lines": [7, 8]}
    ]
    level, outcome = heldout.imported(ev)
    assert level == "READY WITH WARNINGS"
    (item,) = heldout.items(outcome, "evidence-nccl-tests-shared-gpu")
    assert ": ranks 2, 3 on node7 device 2 [0000:41:00] (lines 7, 8);" in item


def test_ranks_on_their_own_gpus_or_hosts_stay_ready(tmp_path: Path) -> None:
    own_gpu = _text(SHARED).replace(
        "Pid 2329640 on lab device 0 [0000:02:00]", "Pid 2329640 on lab device 1 [0000:03:00]"
    )
    own_host = _text(SHARED).replace("Pid 2329640 on lab ", "Pid 2329640 on lab2 ")
    for text in (own_gpu, own_host):
        assert text != _text(SHARED)
        ev = _write(tmp_path, text)
        assert ev.benchmarks[0]["shared_gpus"] == []
        level, outcome = heldout.imported(ev)
        assert level == "READY" and heldout.above_info(outcome) == []


# --- nvidia-smi --query-gpu: a GPU's link narrower than its peer's ------------------------------


def test_a_gpu_at_x4_beside_one_of_another_name_at_x16_is_a_note_and_the_idle_gen_a_note() -> None:
    # (review 69b faults 2-3: "GeForce GTX 1060" and "GeForce GTX 1060 6GB" are two names, so
    # neither is the other's peer, and both sit in P8, where --help-query-gpu says the current
    # width "may be reduced": a note, no warning)
    ev = _load(WIDTH)
    assert ev.files[0].formats == ["lspci_list", "nvidia_smi_query_csv"]
    level, outcome = heldout.imported(ev)
    assert level == "READY" and heldout.above_info(outcome) == []
    (width,) = [n for _, n in heldout.notes(ev) if "not compared" in n]
    assert "GPU 1 (NVIDIA GeForce GTX 1060 6GB) at x4" in width
    (gen,) = [n for line, n in heldout.notes(ev) if line == 2 and "PCIe Gen1" in n]
    assert gen.startswith(
        "nvidia_smi_query_csv: nvidia-smi --query-gpu: GPU 0 at PCIe Gen1 in P8, GPU 1 at PCIe Gen1 in P8:"
    )
    assert "not a fault" in gen


def test_four_gpus_one_at_x8_only_that_one_is_named(tmp_path: Path) -> None:
    head = _text(WIDTH).splitlines()[0]
    rows = [
        f"{i}, 00000000:{bus}:00.0, NVIDIA L40S, Disabled, P0, 4, {w}"
        for i, (bus, w) in enumerate([("17", 16), ("31", 16), ("B1", 8), ("CA", 16)])
    ]
    ev = _write(tmp_path, "\n".join([head, *rows]) + "\n")
    level, outcome = heldout.imported(ev)
    assert level == "READY WITH WARNINGS"
    (item,) = heldout.items(outcome, "evidence-gpu-pcie-width-below-peers")
    assert item.startswith("GPU 2 (00000000:B1:00.0) NVIDIA L40S: link width x8 against x16 of GPU")
    assert not [n for _, n in heldout.notes(ev) if "Gen4 in P0" in n]  # (P0: no idle note)


def test_equal_widths_or_a_max_column_leave_no_peer_warning(tmp_path: Path) -> None:
    equal = _text(WIDTH).replace("P8, 1, 4\n", "P8, 1, 16\n")
    assert equal != _text(WIDTH)
    level, outcome = heldout.imported(_write(tmp_path, equal))
    assert level == "READY" and heldout.above_info(outcome) == []
    # with the max asked, each GPU is judged against its own (x4 of x4: the slot's)
    with_max = (
        "index, pci.bus_id, pstate, pcie.link.gen.current, pcie.link.width.current, "
        "pcie.link.width.max\n"
        "0, 00000000:01:00.0, P8, 1, 16, 16\n"
        "1, 00000000:0F:00.0, P8, 1, 4, 4\n"
    )
    level, outcome = heldout.imported(_write(tmp_path, with_max))
    assert level == "READY" and heldout.above_info(outcome) == []
