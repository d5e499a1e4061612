"""The fifteenth review's findings on round J's readings (inputs in tests/data/review15, each
written from the format its name gives; sources in tests/data/SOURCES.md)."""

from __future__ import annotations

from advisor.evidence.load import EvidenceFacts, load_paths
from tests.conftest import DATA
from tests.rules_facts import builtin_findings, finding_items

REVIEW = DATA / "review15"


def _load(name: str) -> EvidenceFacts:
    return load_paths([REVIEW / name])


def _kinds(ev: EvidenceFacts) -> list[tuple[str, str | None]]:
    return [(f["kind"], f["code_name"]) for f in ev.failures]


def test_nccl_2_23s_async_error_event_wording_is_read_as_a_port_error() -> None:
    ev = _load("ib01_nccl2.23_async_error_event_port_error.log")
    assert _kinds(ev) == [("nccl_ib_port_event", "port error")]
    assert ev.failures[0]["exception_type"].startswith("mlx5_3 port 1: the port left")


def test_the_fabrics_notices_are_no_errors() -> None:
    ev = _load("ib02_nccl2.28_nonfatal_port_active_notice.log")
    assert {k for k, _ in _kinds(ev)} == {"nccl_ib_notice"}
    assert "evidence-nccl-warning" not in builtin_findings({"evidence.failures": ev.failures})


def test_a_port_that_went_down_and_came_back_is_one_flap_and_a_warning() -> None:
    ev = _load("ib04_nccl2.18_port_error_then_active_flap.log")
    (port,) = [f for f in ev.failures if f["kind"] == "nccl_ib_port_event"]
    assert port["exception_type"].endswith("Active again at line 2 (a flap)")
    found = builtin_findings({"evidence.failures": ev.failures}, "nccl")
    assert found["evidence-nccl-ib-port-error"].severity == "warning"
    assert "evidence-nccl-ib-fatal-event" not in found


def test_a_flap_in_a_run_that_passed_its_checks_stops_nothing() -> None:
    ev = _load("ib07_nccltests_port_flap_run_passed.log")
    found = builtin_findings(
        {"evidence.failures": ev.failures, "evidence.benchmarks": ev.benchmarks}, "nccl"
    )
    assert found["evidence-nccl-ib-port-error"].severity == "warning"
    assert not [f for f in found.values() if f.severity == "critical"]


def test_a_two_ring_training_boards_sys_pairs_are_its_design() -> None:
    ev = _load("npu01_910a_atlas800_two_hccs_rings.txt")
    (topo,) = ev.topologies
    assert topo["hccs"] and topo["sys_by_design"] and len(topo["sys_pairs"]) == 16
    found = builtin_findings({"evidence.topologies": ev.topologies}, "hccl")
    assert "evidence-npu-topology-sys" not in found
    assert found["evidence-npu-topology-no-hccs"].severity == "info"


def test_nccl_2_21s_paths_pair_a_source_without_its_system_id() -> None:
    ev = _load("nv01_nccl2.21_paths_src_upper_dst_sysid.log")
    (asym,) = [f for f in ev.failures if f["kind"] == "nccl_nvlink_asymmetric"]
    assert "GPU/65000 -> GPU/17000 20 GB/s and the way back 240 GB/s" in asym["exception_type"]


def test_the_result_passed_up_is_the_failing_threads_never_a_retry() -> None:
    ev = _load("plog02_again_warning_trace_window.log")
    (plog,) = [f for f in ev.failures if f["kind"] == "hccl_plog_error"]
    assert (plog["code"], plog["code_name"]) == ("12", "HCCL_E_ROCE_CONNECT")
    assert plog["device"] is None  # localDeviceId is a physical id: said, not a rank's device
    assert plog["exception_type"].endswith("on physical device 11")


def test_an_older_nccls_reset_connection_without_an_address_is_the_peer_going_away() -> None:
    ev = _load("sock01_nccl2.7_call_to_recv_failed_reset.log")
    (warn,) = [f for f in ev.failures if f["kind"] == "nccl_warning"]
    assert warn["exception_type"].startswith(
        "the other end dropped the connection (Connection reset by peer)"
    )


def test_a_socket_connect_warn_does_not_repeat_its_own_words() -> None:
    ev = _load("warn01_socket_connect_duplicated_text.log")
    (item,) = finding_items({"evidence.failures": ev.failures}, "nccl")["evidence-nccl-warning"]
    assert item.count("Software caused connection abort") == 1
