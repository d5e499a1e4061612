"""Review 33 of rounds III and JJJ's readings (InfiniBand lane speeds, ibstat's posted marks, a
driver error's runtime follow-up, vLLM's worker and engine-core lines, Ray task chains, NCCL's
notes, watchdog time-outs with no group named, a failed build): each fault it found, on its input
(tests/data/review33, described in tests/data/SOURCES.md)."""

from __future__ import annotations

from advisor.evidence.load import EvidenceFacts, load_paths
from tests import heldout
from tests.conftest import DATA

REVIEW = DATA / "review33"


def _load(name: str) -> EvidenceFacts:
    return load_paths([REVIEW / name])


def test_vllms_worker_nccl_error_without_the_debug_suffix_is_a_failed_call() -> None:
    ev = _load("vllm_worker_nccl_error_remote_process_exited.log")
    (failed,) = ev.failures
    assert (failed["kind"], failed["code_name"], failed["pid"]) == (
        "nccl_call_failure",
        "ncclRemoteError",
        233,
    )


def test_hdr_hosts_under_ndr_uplinks_are_no_slower_lanes() -> None:
    ev = _load("iblinkinfo_hdr_hcas_ndr_isls_every_host_flagged.txt")
    assert not [p for p in ev.hca_ports if p["fastest_lane_gbps"]]
    assert "evidence-hca-link-lanes-slower" not in heldout.found(ev)


def test_one_slow_link_listed_from_both_ends_is_one_link() -> None:
    ev = _load("ibnetdiscover_one_edr_hca_in_hdr_fabric_listed_from_both_ends.txt")
    finding = heldout.found(ev)["evidence-hca-link-lanes-slower"]
    assert finding.message.startswith("1 active link(s)")
    ev = _load("iblinkinfo_qdr_link_could_be_edr_said_twice.txt")
    found = heldout.found(ev)
    assert len(found["evidence-hca-link-below-capability"].items) == 1
    assert "evidence-hca-link-lanes-slower" not in found  # (its "Could be" says it already)


def test_a_runtime_failure_hours_later_is_not_the_driver_errors_follow_up() -> None:
    ev = _load("plog_drv_startup_error_runtime_error_two_hours_later.log")
    (error,) = ev.failures
    assert "the runtime then" not in (error["exception_type"] or "")
    assert error["code"] is None


def test_a_long_runtime_line_after_a_driver_error_is_read() -> None:
    # (the follow-up's regex was quadratic on this 104,000-character line, 8.6 s here; it is
    # bounded now: the import's time is in tests/perf's scale, not asserted in a unit test)
    (error,) = _load("plog_drv_error_then_long_runtime_args_line.log").failures
    assert (error["line"], error["exception_type"]) == (1, "DRV error")


def test_two_workers_separate_ray_errors_are_no_chain() -> None:
    (raised,) = _load("ray_two_workers_raytaskerror_cut.log").failures
    assert (raised["line"], raised["pid"], raised["host"], raised["rank"]) == (
        2,
        4121,
        "10.0.0.21",
        0,
    )
    assert "driver got it through" not in raised["call"]


def test_a_rank_timed_out_at_two_seqnums_gives_no_unnamed_spread() -> None:
    (timeline,) = _load("watchdog_unnamed_rank0_two_timeouts_same_seq_as_peers.log").timelines
    assert timeline.unnamed_seq_spread == {}


def test_each_segfault_takes_its_own_engine_core() -> None:
    crashes = _load("vllm_dp2_two_segfaults_failed_core_procs.log").failures
    assert [(c["line"], c["exception_type"].split("; vLLM: ")[1]) for c in crashes] == [
        (4, "its EngineCore_DP0 process exited with -11 (line 10)"),
        (7, "its EngineCore_DP1 process exited with -11 (line 10)"),
    ]


def test_one_communicator_destroyed_by_its_two_ranks_is_one() -> None:
    said = heldout.said(_load("nccl_2rank_destroy_complete_one_comm.log"))
    assert any(
        m.startswith("log: a communicator of 2 rank(s) ended by ncclCommDestroy") for m in said
    )
    assert not any("communicators of 2 rank(s) ended" in m for m in said)


def test_nccl_221s_topology_dump_with_system_ids_is_read() -> None:
    said = heldout.said(_load("nccl_2_21_topology_dump_system_id.log"))
    assert (
        "log: NCCL's topology: 4 GPU(s) (18000, 2A000, 3A000, 5D000); NVLink 360.0 GB/s to an "
        "NVSwitch" in said
    )


def test_other_posted_marks_after_an_ibstat_state_are_not_the_state() -> None:
    (port,) = _load("ibstat_initializing_posted_triple_angle_mark.txt").hca_ports
    assert (port["state"], port["physical_state"]) == ("Initializing", "LinkUp")


def test_a_failed_link_gives_the_linkers_own_words() -> None:
    (error,) = _load("hccl_test_build_failed_link_cannot_find_lhccl.log").failures
    assert (error["line"], error["message"]) == (
        5,
        "/usr/bin/ld: cannot find -lhccl: No such file or directory",
    )
