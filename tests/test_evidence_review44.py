"""Review 44 of round YYY's change (a CANN WARNING fallback behind grep's bare file name, a GPU
fallen off the bus behind an untrained root port, one fp16 step skipped with a NaN, a Lightning
node's log without rank 0, a root port excused by link lines the copy lacks, two hosts' ibstat
under dshbak's headers): each fault it found, on its input (tests/data/review44, described in
tests/data/SOURCES.md)."""

from __future__ import annotations

import time

from advisor.evidence.load import EvidenceFacts, load_paths, load_text
from advisor.parsers import lspci, rdma
from tests import heldout
from tests.conftest import DATA

REVIEW = DATA / "review44"


def _load(name: str) -> EvidenceFacts:
    return load_paths([REVIEW / name])


def test_a_halmemalloc_warning_behind_greps_bare_file_name_is_no_failure() -> None:
    ev = _load("cann_plog_halMemAlloc_hugepage_WARNING_fallback_grep_r_no_line_numbers.log")
    assert not ev.failures
    assert heldout.rules_verdict(ev) == "READY"
    # (the same refusal as an ERROR line behind the same prefix is still the process's failure)
    text = (REVIEW / ev.files[0].path).read_text().replace("[WARNING]", "[ERROR]", 1)
    failed = load_text(text, "plog.log").failures
    assert [(f["kind"], f["pid"], f["device"]) for f in failed] == [("device_oom", 1993875, 1)]


def test_a_gpu_fallen_off_the_bus_behind_an_x0_root_port_is_no_empty_slot() -> None:
    ev = _load(
        "lspci_vvv_full_dell_p100_slot6_gpu_fell_off_bus_rev_ff_root_port_x0_dlactive_minus.txt"
    )
    failed = {f["kind"]: f for f in ev.failures}
    lost = failed["gpu_driver_fault"]
    assert (lost["line"], lost["exception_type"]) == (
        1165,
        "GPU 04:00.0 reads revision ff: it does not answer its PCI configuration reads (all "
        "ones), as a device that fell off the bus",
    )
    narrow = failed["pcie_link_narrow"]
    assert narrow["line"] == 150 and narrow["message"].startswith("00:02.0 PCI bridge")
    assert (
        "no link trained (x0), though the copy lists 04:00.0 behind it" in narrow["exception_type"]
    )
    assert not [m for _, m in heldout.notes(ev) if "an empty slot" in m and "00:02.0" in m]
    assert heldout.rules_verdict(ev) == "NOT READY"
    # (lspci -v's heading puts the programming interface after the revision)
    (gpu,) = lspci.parse_list(
        "04:00.0 3D controller: NVIDIA Corporation GP100GL [Tesla P100 PCIe 12GB] (rev ff) "
        "(prog-if ff)\n"
    )
    assert (gpu.name, gpu.rev) == ("NVIDIA Corporation GP100GL [Tesla P100 PCIe 12GB]", "ff")


def test_one_skipped_fp16_step_with_a_finite_falling_loss_is_no_divergence() -> None:
    ev = _load(
        "megatron_gpt2_fp16_one_nan_iteration_skipped_at_300_loss_finite_and_falling_after_healthy.log"
    )
    assert not ev.failures
    assert heldout.rules_verdict(ev) == "READY"
    (note,) = [m for m in heldout.said(ev) if "loss lines" in m]
    assert note.endswith("to iteration 500 of 5000 (loss 7.215907E+00); no error in them")
    # a printed NaN the loop trained past is none either; one that stays to the end is, from
    # its first line of the NaNs that end the log
    line = " iteration {i}/ 6 | consumed samples: {i} | lm loss: {loss} | loss scale: 1.0 |\n"
    losses = ["9.9E+00", "nan", "9.1E+00", "8.8E+00", "nan", "nan"]
    rows = [line.format(i=i, loss=loss) for i, loss in enumerate(losses, start=1)]
    assert not load_text("".join(rows[:4]), "train.log").failures
    (turned,) = load_text("".join(rows), "train.log").failures
    assert turned["line"] == 5
    assert turned["exception_type"] == (
        "the loss turned NaN at iteration 5 of 6, after 3 step(s) with a finite loss (the last "
        "8.8E+00)"
    )


def test_a_lightning_log_without_rank_0_is_not_warned_for_ending_at_its_init() -> None:
    ev = _load(
        "lightning_2node_ddp_node1_log_ranks2_3_only_healthy_rank0_prints_registered_elsewhere.log"
    )
    assert not ev.failures
    assert heldout.rules_verdict(ev) == "READY"
    (note,) = heldout.said(ev)
    assert "rank 0 is not in this log" in note


def test_a_root_port_is_judged_where_the_copy_lacks_its_gpus_link_lines() -> None:
    ev = _load(
        "lspci_short_grep_nvidia_then_vvv_s_root_port_only_x8_of_x16_gpu_link_lines_absent.txt"
    )
    ((kind, line, said),) = [(f["kind"], f["line"], f["exception_type"]) for f in ev.failures]
    assert (kind, line) == ("pcie_link_narrow", 33)
    assert (
        said
        == "PCIe link 8GT/s x8 against its 8GT/s x16 capability: fewer lanes than the device has"
    )
    assert not [m for _, m in heldout.notes(ev) if "whose own link lines judge it" in m]
    assert heldout.rules_verdict(ev) == "READY WITH WARNINGS"
    (link,) = lspci.parse((REVIEW / ev.files[0].path).read_text())
    assert (link.below, link.listed_below) == (None, "04:00.0")


def test_two_hosts_under_dshbak_headers_are_compared_each_on_its_own() -> None:
    ev = _load("ibstat_clush_dshbak_two_hosts_cx6_hdr200_host_a_hdr100_host_b_each_uniform.txt")
    assert [(p["host"], p["ca"], p["rate_gbps"]) for p in ev.hca_ports] == [
        ("gpu-a01", "mlx5_0", 200),
        ("gpu-a01", "mlx5_1", 200),
        ("gpu-b07", "mlx5_0", 100),
        ("gpu-b07", "mlx5_1", 100),
    ]
    assert not [p for p in ev.hca_ports if p.get("sibling_rate_gbps")]
    assert "evidence-hca-rate-below-siblings" not in heldout.found(ev)
    assert heldout.rules_verdict(ev) == "READY"


def test_a_host_without_an_active_port_is_found_beside_another_hosts_listing() -> None:
    ev = _load(
        "ibstat_clush_dshbak_two_hosts_host_b_all_ports_initializing_sm_lid0_host_a_active.txt"
    )
    assert [(p["host"], p["no_active_on_host"]) for p in ev.hca_ports] == [
        ("gpu-a01", None),
        ("gpu-a01", None),
        ("gpu-b07", True),
        ("gpu-b07", True),
    ]
    assert heldout.rules_verdict(ev) == "NOT READY"
    # two hosts' listings pasted with nothing naming them: each a listing of its own, where a
    # device the first listed is listed again
    block = (
        "CA '{ca}'\n\tCA type: MT4123\n\tPort 1:\n\t\tState: {state}\n\t\tPhysical state: "
        "LinkUp\n\t\tRate: {rate}\n\t\tBase lid: 0\n\t\tSM lid: 0\n\t\tLink layer: InfiniBand\n"
    )
    active = [block.format(ca=ca, state="Active", rate=200) for ca in ("mlx5_0", "mlx5_1")]
    waiting = [block.format(ca=ca, state="Initializing", rate=100) for ca in ("mlx5_0", "mlx5_1")]
    ports, _ = rdma.parse("".join(active + waiting))
    assert [p.no_active_on_host for p in ports] == [None, None, True, True]
    slower = [block.format(ca=ca, state="Active", rate=100) for ca in ("mlx5_0", "mlx5_1")]
    ports, _ = rdma.parse("".join(active + slower))
    assert [p.sibling_rate_gbps for p in ports] == [None] * 4
    # (a dshbak header over a long line of dashes stays linear)
    began = time.perf_counter()
    rdma.parse("-" * 100_000 + "\n" + "".join(active))
    assert time.perf_counter() - began < 1.0
