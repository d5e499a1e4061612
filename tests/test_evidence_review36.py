"""Review 36 of round OOO's readings and review 35's mends (IPv6-only RoCE GIDs, Python warnings
in a program log, torch elastic's restarts, values-only and looped --query-gpu queries, a
cgroup's memory files, slow patterns, a row-remapper page, ibv_devinfo's open failures, a tmux
pane's right border, emoji codes in the console, HCCL's watchdog, masks said once, vLLM's NCCL
said once, a prompt wrapped inside an address): each fault it found, on its input
(tests/data/review36, described in tests/data/SOURCES.md)."""

from __future__ import annotations

from advisor import console
from advisor.evidence.load import EvidenceFacts, load_paths
from tests import heldout
from tests.conftest import DATA

REVIEW = DATA / "review36"


def _load(name: str) -> EvidenceFacts:
    return load_paths([REVIEW / name])


def test_ipv6_only_rocev2_gids_are_a_warning_with_nccls_address_family() -> None:
    ev = _load("show_gids_ipv6_only_rocev2_no_finding_no_env.txt")
    finding = heldout.found(ev)["evidence-rdma-ipv6-gid-only"]
    assert len(finding.items) == 2
    assert {(r.name, r.value) for r in finding.recommendations if r.kind == "env"} == {
        ("NCCL_IB_ADDR_FAMILY", "AF_INET6")
    }


def test_torchs_cuda_initialization_warning_is_cuda_not_starting() -> None:
    ev = _load("torch_cuda_init_unknown_error_warning_read_as_clean_log.txt")
    (item,) = heldout.found(ev)["evidence-cuda-not-ready"].items
    assert item.startswith(
        "CUDA could not start under torch (CUDA unknown error): torch set its available GPUs to zero"
    )


def test_a_restarted_worker_group_is_no_clean_start() -> None:
    # (the copy ends as the restarted group starts: a failed attempt, set 641's reading)
    ev = _load("torchelastic_worker_group_failed_restart_read_as_clean_start.log")
    (restart,) = ev.failures
    assert restart["kind"] == "elastic_restart_pending"
    assert not any("no error" in m for m in heldout.said(ev))
    assert "evidence-elastic-restart-pending" in heldout.found(ev)


def test_a_values_only_header_with_any_later_field_is_read() -> None:
    ev = _load("nvidia_smi_query_values_only_ecc_then_mig_mode_no_longer_read.csv")
    (item,) = heldout.found(ev)["evidence-gpu-ecc-uncorrected"].items
    assert item.startswith("GPU #3 of the output: 12 uncorrectable ECC error(s)")


def test_a_looped_query_without_timestamps_is_samples() -> None:
    ev = _load("nvidia_smi_query_loop_l1_no_timestamp_one_gpu_read_as_8.csv")
    assert ev.gpus == []
    (note,) = heldout.said(ev)
    assert "a looped query (-l) of 8 row(s), not time-stamped, of values only" in note


def test_a_cgroups_memory_files_are_no_gpus() -> None:
    ev = _load("cgroup_memory_files_read_as_nvidia_smi_gpus.txt")
    assert ev.gpus == [] and "nvidia_smi_query_csv" not in ev.files[0].formats


def test_long_lines_under_the_new_patterns_read_as_before() -> None:
    said = heldout.said(_load("slow_npu_smi_unusable_then_100k_spaces.log"))
    assert any(m.startswith("log: 'can not use command: npu-smi info' 1 time(s)") for m in said)
    assert max(len(m) for m in said) < 400
    said = heldout.said(_load("slow_dcgmi_discovery_line_of_100k_spaces.txt"))
    assert "dcgmi_discovery: 0 NvSwitches found" in said
    assert _load("slow_watchdog_header_unclosed_pg_brackets.log").failures == []


def test_a_row_remapper_page_claims_nothing_of_ecc_counts_it_does_not_hold() -> None:
    said = heldout.said(_load("nvidia_smi_q_d_row_remapper_says_no_volatile_ecc.txt"))
    (note,) = [m for m in said if "memory error history" in m]
    assert note.endswith("3 row(s) remapped after correctable errors (a memory error history)")


def test_ibv_devinfos_open_failures_beside_other_blocks_are_said_once() -> None:
    said = heldout.said(_load("ibv_devinfo_one_of_four_failed_to_open_names_all.txt"))
    failed = [m for m in said if "open" in m and "device" in m.lower()]
    assert len(failed) == 1
    assert "could not open 2 RDMA device(s)" in failed[0]


def test_a_left_panes_right_border_is_taken_off() -> None:
    ev = _load("ibstat_tmux_left_pane_border_on_right_not_read.txt")
    assert [(p["port"], p["state"]) for p in ev.hca_ports] == [(1, "Active"), (2, "Down")]


def test_the_console_prints_no_emoji_for_a_bus_id() -> None:
    with console.out.capture() as printed:
        console.out.print("GPU 00000000:AB:00.0 and 00000000:CD:00.0")
    assert printed.get().strip() == "GPU 00000000:AB:00.0 and 00000000:CD:00.0"


def test_an_hccl_watchdogs_start_is_said_as_hccls() -> None:
    said = heldout.said(_load("torchelastic_hccl_watchdog_said_nccl.log"))
    assert any("the HCCL watchdog started on rank(s) 0, 1" in m for m in said)
    assert not any("NCCL watchdog" in m for m in said)


def test_one_supported_mask_of_every_gpu_is_one_note() -> None:
    said = heldout.said(_load("nvidia_smi_query_8gpu_supported_mask_said_8_times.csv"))
    supported = [m for m in said if "clocks_throttle_reasons.supported" in m]
    assert len(supported) <= 2
    assert supported[0].startswith("nvidia_smi_query_csv: 7 GPUs 00000000:18:00.0, ")


def test_one_nccl_version_is_said_once() -> None:
    said = heldout.said(_load("vllm_pynccl_and_nccl_version_line_same_version_said_twice.log"))
    assert sum("2.21.5" in m for m in said) == 1


def test_a_prompt_wrapped_inside_the_addresss_last_number() -> None:
    ev = _load("perftest_prompt_wrapped_after_valid_ipv4_prefix_peer_192_168_1_6.txt")
    assert [p["perftest"]["peer"] for p in ev.hca_ports] == ["192.168.1.60"]
