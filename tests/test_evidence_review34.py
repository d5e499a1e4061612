"""Review 34 of round KKK's readings and review 33's mends (a CSV query's bracketed cells, a
prompt that runs nvidia-smi elsewhere, vLLM's engine core said once, iblinkinfo of one leaf,
bounded NCCL note patterns, NIC discards, NCCL's WARN count, npu-smi info -l, NCCL's bootstrap):
each fault it found, on its input (tests/data/review34, described in tests/data/SOURCES.md)."""

from __future__ import annotations

from advisor.evidence.load import EvidenceFacts, load_paths
from tests import heldout
from tests.conftest import DATA

REVIEW = DATA / "review34"


def _load(name: str) -> EvidenceFacts:
    return load_paths([REVIEW / name])


def test_a_deprecated_or_missing_field_in_brackets_is_no_read_failure() -> None:
    ev = _load("query_gpu_csv_r595_applications_clocks_deprecated_healthy.csv")
    assert all(not g["unreadable"] for g in ev.gpus)
    assert not [f for f in heldout.found(ev).values() if f.severity == "critical"]


def test_a_lost_gpus_row_keeps_no_error_text_as_its_name() -> None:
    ev = _load("query_gpu_csv_gpu_is_lost_row_named_by_error.csv")
    lost = [g for g in ev.gpus if g["unreadable"]]
    assert [(g["name"], g["bus_id"]) for g in lost] == [("", "")]
    (item,) = heldout.found(ev)["evidence-gpu-unreadable"].items
    assert "[GPU is lost]" not in item


def test_nvidia_smi_run_over_ssh_is_the_named_hosts() -> None:
    (lost,) = _load("nvidia_smi_ssh_other_node_gpu_is_lost.txt").failures
    assert lost["host"] == "gpu-node-07"


def test_vllms_engine_core_is_not_said_beside_the_error_it_repeats() -> None:
    ev = _load("vllm_engine_core_oom_then_failed_core_procs_empty.log")
    assert [f["kind"] for f in ev.failures] == ["device_oom"]


def test_one_leaf_with_uplinks_to_unlisted_spines_is_no_slower_lanes() -> None:
    ev = _load("iblinkinfo_one_leaf_S_hdr_hosts_ndr_uplinks_custom_spine_names.txt")
    assert not [p for p in ev.hca_ports if p["fastest_lane_gbps"]]


def test_notes_after_long_blank_tails_are_bounded() -> None:
    said = heldout.said(_load("slow_nccl_net_plugin_loaded_line_100k_spaces.log"))
    assert "log: NCCL loaded its network plugin: X" in said
    assert max(len(m) for m in said) < 400
    said = heldout.said(_load("slow_nccl1_rank_access_line_100k_spaces.log"))
    assert "log: NCCL's paths between ranks: 0->1 via P2P" in said


def test_a_few_discards_are_no_congestion_and_the_interface_is_named() -> None:
    assert not _load("ethtool_S_fresh_port_3_discards_warning.txt").failures
    (drops,) = _load("ethtool_S_two_ports_discards_iface_unnamed.txt").failures
    assert drops["exception_type"].startswith("ens2f0np0: the port discarded 0.3 %")


def test_a_watchdog_quoting_the_warn_is_not_another_nccl_error() -> None:
    finding = heldout.found(_load("nccl_one_warn_quoted_by_watchdog_said_more_warn.log"))[
        "evidence-nccl-warning"
    ]
    assert finding.message.startswith("NCCL printed 1 WARN line(s) in 1 process(es):")


def test_every_npu_of_npu_smi_info_l_is_of_the_device_list() -> None:
    # (one note of the list, every NPU in it: round MMM's leftover)
    (said,) = heldout.said(_load("npu_smi_info_l_8npu.txt"))
    assert said.startswith("npu_smi_query: npu-smi info -l: Total Count 8; 8 NPU(s) listed (")
    assert all(f"NPU {n} (IT21PDDA01) with 1 chip(s)" in said for n in range(8))


def test_nccls_bootstrap_on_many_hosts_is_one_note() -> None:
    said = heldout.said(_load("nccl_16_hosts_bootstrap_said_per_host.log"))
    boot = [m for m in said if "bootstrap" in m]
    assert len(boot) == 1
    assert boot[0].startswith("log: NCCL's bootstrap on 16 host(s): gpu-node-00 bond0:10.1.0.10")
