"""Review 30 of the readers added in rounds WW to YY and review 29's mends (host listings merged
and reached over ssh, UCX's older QP errors, the short-paste fallback, GPU Direct RDMA lines,
ping-pongs, Slurm refusals, ping): each fault it found, on its input (tests/data/review30,
described in tests/data/SOURCES.md)."""

from __future__ import annotations

import re
import time

from advisor.evidence.load import EvidenceFacts, load_paths
from advisor.parsers import logs, netif
from tests.conftest import DATA

REVIEW = DATA / "review30"


def _load(name: str) -> EvidenceFacts:
    return load_paths([REVIEW / name])


def _kinds(ev: EvidenceFacts) -> list[tuple[str, str | None]]:
    return [(f["kind"], f["host"]) for f in ev.failures]


def test_a_later_ip_link_gives_its_flags_to_an_earlier_brief_listing_without_them() -> None:
    # (ip -br addr prints no flags: the lost carrier is ip link's to say)
    assert _kinds(_load("brief_then_link.txt")) == [("link_carrier_lost", "gpu01")]


def test_ssh_options_and_their_values_are_no_host() -> None:
    assert _kinds(_load("ssh_port_iplink.txt")) == [
        ("link_carrier_lost", "gpu02"),
        ("link_carrier_lost", "gpu03"),
    ]


def test_an_older_ucx_qp_error_behind_a_timestamp_names_its_own_host() -> None:
    (fail,) = _load("ucx_old_qp.txt").failures
    assert (fail["kind"], fail["host"], fail["pid"]) == ("ucx_error", "gpu01", 57430)


def test_a_paste_that_went_through_or_a_config_value_is_no_failure() -> None:
    for name in ("pip_install.txt", "logging_conf.yaml"):
        ev = _load(name)
        assert ev.files[0].status == "unknown" and not ev.failures


def test_gpu_direct_rdma_disabled_on_a_run_whose_channels_stay_on_the_host_is_no_finding() -> None:
    for name in ("nccl_single_node.txt", "nccltests_info.txt"):
        assert not [f for f in _load(name).failures if f["kind"] == "nccl_no_gdr"]


def test_a_qp_that_would_not_reach_rtr_is_a_set_up_failure() -> None:
    (fail,) = _load("rc_pp_rtr.txt").failures
    assert fail["kind"] == "rdma_test_setup_failed"


def test_a_padded_slurm_refusal_is_read_in_linear_time() -> None:
    # this process's CPU time: other jobs on a shared host do not count against it
    began = time.process_time()
    (fail,) = _load("srun_padded.txt").failures
    assert time.process_time() - began < 5.0  # (cubic: a minute)
    assert fail["kind"] == "launch_failed"


def test_the_ping_and_ucx_patterns_stay_linear_on_long_lines() -> None:
    for pattern, line in (
        (netif._PING_SUMMARY_RE, "4 packets transmitted, 0 received, " + "1" * 40000 + "x"),
        (netif._PING_REPLY_RE, "64 bytes from " + "a" * 40000 + " icmp_seq=1 x"),
        (logs._UCX_QP_ERROR_RE, "[x:1:1] " * 8000 + "Error on QP"),
    ):
        began = time.process_time()
        re.search(pattern, line)
        assert time.process_time() - began < 1.0


def test_pods_short_of_ready_beyond_a_rollouts_replacements_are_failing() -> None:
    (fail,) = _load("ds_update.txt").failures  # 4 of 8 ready, 7 of 8 already updated
    assert (fail["kind"], fail["message"]) == (
        "pod_failing",
        "nvidia-device-plugin-daemonset: DaemonSet with 4 of 8 pod(s) ready",
    )


def test_a_blocking_wait_time_out_keeps_its_time_out() -> None:
    (fail,) = _load("blocking_wait.txt").failures
    assert (fail["kind"], fail["rank"], fail["timeout_ms"]) == ("watchdog_timeout", 3, 60000)


def test_ping_with_its_interface_and_a_ping_run_over_ssh_keep_dont_fragment() -> None:
    (fail,) = _load("ping_iface.txt").failures  # ("PING ... from 10.10.1.11 ib0: 4064(4092) ...")
    assert fail["exception_type"] == (
        "a 4092-byte packet with don't fragment was refused: the path's MTU is 2044"
    )
    notes = [m.message for f in _load("ping_two.txt").files for m in f.messages]
    assert all("don't fragment (-M do)" in n for n in notes) and len(notes) == 2


def test_a_kueue_workload_admitted_after_its_wait_is_no_unschedulable_pod() -> None:
    ev = _load("kueue_admitted.txt")
    assert not ev.failures
    (note,) = [m.message for f in ev.files for m in f.messages]
    assert note.startswith("prechecks: kueue: the workload waited for quota (")
    assert note.endswith("then Kueue admitted it (line 7)")


def test_mlnx_qos_of_two_interfaces_is_two_notes() -> None:
    notes = [m.message for f in _load("mlnx_qos_two.txt").files for m in f.messages]
    assert [n.split(":")[1].strip() for n in notes] == ["mlnx_qos ens1f0", "mlnx_qos ens1f1"]
    assert "PFC on priorities 3" in notes[0] and "PFC on no priority" in notes[1]


def test_pyxis_quotes_enroots_own_error_line() -> None:
    fail = _load("pyxis_401.txt").failures[0]
    assert fail["kind"] == "container_start_failure"
    assert "returned error code: 401 Unauthorized" in fail["exception_type"]
