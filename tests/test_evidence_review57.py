"""Review 57 of round KKKK's mends, faults 1 to 4: a ucx_perftest copy whose UCX ERROR line was
dropped for its WARN one; iproute2's ``transns`` (carrier changes) taken for an error counter
and its ``heartbt`` (heartbeat errors) left out; MindIE's "Daemon is killing..." missed under
pdsh's "node-7: " prefix; an EI0005 of one file said to have stopped another file's HCCL links:
each on its input (tests/data/review57, described in tests/data/SOURCES.md)."""

from __future__ import annotations

from functools import partial
from pathlib import Path

from advisor.evidence.load import EvidenceFacts, load_paths
from advisor.rules.findings import RulesOutcome
from tests import heldout
from tests.conftest import DATA

REVIEW = DATA / "review57"
HELDOUT = DATA / "evidence_heldout_71"

UCX = "ucx_perftest_ucp_am_bw_1mib_warn_cpu_affinity_then_ucx_error_ibv_reg_mr_enomem_cut.txt"
UCX_REAL = (
    "ucx_perftest_ucp_am_bw_1mib_warn_cpu_affinity_80cpus_mlx5dv_devx_obj_destroy_flush_dvmr_"
    "einval_ucx10359_cut.txt"
)
IP = "ip_s_s_link_eth4_iproute2_current_layout_heartbt_transns_14_every_error_0.txt"
IP_REAL = (
    "ip_s_s_link_eth4_promisc_rx_missed_1725828_overrun_47323_dropped_179_wrapped_seconion437.txt"
)
MINDIE = "mindie_multinode_npu7_npu4_oom_daemon_exit_then_daemon_is_killing_pdsh_node7_prefix.log"
MINDIE_REAL = (
    "mindie_multinode_deepseek_output3_npu7_npu4_out_of_memory_450mib_mie04e13030a_daemon_exit_"
    "itove_ascend.log"
)
BUNDLE = REVIEW / "hccl_bundle_job_a_ei0005_job_b_transport_init"
JOB_A = "job_a_rank5_ei0005_count_16512_vs_8320_transport_init_2_links.log"
JOB_B = "job_b_rank443_transport_init_recv_fail_no_ei0005.log"
EI0005_REAL = (
    "cann8.5_hccl_ei0005_args_inconsistent_between_ranks_count_16512_vs_8320_rank5_hcclug51_850_"
    "cut.log"
)
TRANSPORT_REAL = DATA / "evidence_heldout_23" / "hccl_plog_transport_init_recv_fail_rank443.log"

_write = partial(heldout.load_copy, name="copy.txt")


def _load(path: Path) -> EvidenceFacts:
    return load_paths([path])


def _message(outcome: RulesOutcome, rule_id: str) -> str:
    (finding,) = [f for f in outcome.findings if f.rule_id == rule_id]
    return str(finding.message)


# --- fault 1: a UCX ERROR in a ucx_perftest copy ----------------------------------------------


def test_ucx_perftest_error_line_is_a_ucx_error_not_a_warning_it_went_past() -> None:
    ev = _load(REVIEW / UCX)
    assert ev.files[0].formats == ["pingpong"]
    (note,) = heldout.said(ev)
    assert "1 UCX warning(s): CPU affinity is not set" in note
    assert "1 UCX error(s), operations that failed: ibv_reg_mr(" in note
    assert "Cannot allocate memory (line 8)" in note
    warns = [f for f in ev.failures if f["kind"] == "ucx_perftest_warn"]
    assert [f["line"] for f in warns] == [2]
    (error,) = [f for f in ev.failures if f["kind"] == "ucx_error"]
    assert (error["line"], error["host"], error["pid"]) == (8, "node223", 4153660)
    assert error["exception_type"] == (
        "ib_mlx5.h:962: ibv_reg_mr(address=0x7f, length=1048576, access=0xf) failed: "
        "Cannot allocate memory"
    )
    level, outcome = heldout.imported(ev)
    assert level == "NOT READY"
    assert heldout.above_info(outcome) == [
        ("evidence-ucx-error", "critical"),
        ("evidence-ucx-perftest-warn", "warning"),
    ]
    (item,) = heldout.items(outcome, "evidence-ucx-error")
    assert item.startswith("node223 pid 4153660: ib_mlx5.h:962: ibv_reg_mr(")
    assert item.endswith(f"{UCX}, line 8)")
    # (the WARN rule's "went on past them" speaks of the WARN line only)
    (warned,) = heldout.items(outcome, "evidence-ucx-perftest-warn")
    assert "CPU affinity" in warned and "Cannot allocate memory" not in warned


def test_ucx_perftest_real_copy_with_two_warns_still_reads_two_warnings() -> None:
    ev = _load(HELDOUT / UCX_REAL)
    assert not [f for f in ev.failures if f["kind"] == "ucx_error"]
    warns = [f for f in ev.failures if f["kind"] == "ucx_perftest_warn"]
    assert [f["line"] for f in warns] == [2, 8]
    level, outcome = heldout.imported(ev)
    assert level == "READY WITH WARNINGS"
    assert heldout.above_info(outcome) == [("evidence-ucx-perftest-warn", "warning")]


def test_ucx_perftest_fatal_in_a_c_file_is_an_error_too(tmp_path: Path) -> None:
    # (FATAL, "Immediate termination", from a .c file, under the WARN line: read as ERROR is)
    text = (HELDOUT / UCX_REAL).read_text()
    text = text.replace(
        "ib_mlx5.h:962  UCX  WARN  mlx5dv_devx_obj_destroy(flush_dvmr) failed: Invalid argument",
        "rc_mlx5_ep.c:412  UCX  FATAL failed to connect to remote peer",
    )
    ev = _write(tmp_path, text)
    (error,) = [f for f in ev.failures if f["kind"] == "ucx_error"]
    assert error["exception_type"] == "rc_mlx5_ep.c:412: failed to connect to remote peer"
    assert "UCX FATAL" in error["message"]
    assert [f["line"] for f in ev.failures if f["kind"] == "ucx_perftest_warn"] == [2]
    assert heldout.imported(ev)[0] == "NOT READY"


def test_ucx_perftest_errors_only_say_no_warning(tmp_path: Path) -> None:
    text = (REVIEW / UCX).read_text().replace("UCX  WARN  CPU affinity", "UCX  ERROR CPU affinity")
    ev = _write(tmp_path, text)
    (note,) = heldout.said(ev)
    assert "UCX warning(s)" not in note and "2 UCX error(s)" in note
    assert not [f for f in ev.failures if f["kind"] == "ucx_perftest_warn"]
    _, outcome = heldout.imported(ev)
    assert heldout.above_info(outcome) == [("evidence-ucx-error", "critical")]


# --- fault 2: iproute2's transns and heartbt ---------------------------------------------------


def test_ip_s_s_transns_is_carrier_changes_not_an_error_counter() -> None:
    ev = _load(REVIEW / IP)
    assert ev.files[0].formats == ["netif"]
    said = heldout.said(ev)
    assert not any("transns" in m for m in said)
    assert not any("not 0" in m for m in said)
    assert ev.failures == []
    level, outcome = heldout.imported(ev)
    assert level == "READY"
    assert heldout.above_info(outcome) == []


def test_ip_s_s_heartbt_errors_are_counted(tmp_path: Path) -> None:
    # (iproute2's own spelling of tx_heartbeat_errors: an error, kept beside transns 14)
    text = (
        (REVIEW / IP)
        .read_text()
        .replace("0      0       0       0      14", "0      0       0       3      14")
    )
    ev = _write(tmp_path, text)
    (counters,) = [m for m in heldout.said(ev) if "not 0" in m]
    assert "eth4 tx_heartbt 3" in counters
    assert "transns" not in counters


def test_ip_s_s_crc_errors_beside_transns_still_said(tmp_path: Path) -> None:
    text = (
        (REVIEW / IP)
        .read_text()
        .replace(
            "                     0      0       0       0       0",
            "                     0      5       0       0       0",
        )
    )
    ev = _write(tmp_path, text)
    (counters,) = [m for m in heldout.said(ev) if "not 0" in m]
    assert "eth4 rx_crc 5" in counters and "transns" not in counters


def test_ip_s_s_real_file_still_reads_its_counters() -> None:
    ev = _load(HELDOUT / IP_REAL)
    _, counters = heldout.said(ev)
    assert "eth4 rx_dropped 179, rx_overrun 47323, rx_missed 1725828" in counters
    assert heldout.imported(ev)[0] == "READY"


# --- fault 3: MindIE's "Daemon is killing..." under pdsh's prefix ------------------------------


_STOPPED = "; then it stopped the service ('Daemon is killing...', line 132)"


def test_mindie_daemon_killing_under_pdsh_prefix_is_read_with_its_host() -> None:
    ev = _load(REVIEW / MINDIE)
    (daemon,) = [f for f in ev.failures if f["kind"] == "mindie_error"]
    assert daemon["host"] == "node-7"
    assert daemon["exception_type"].endswith(_STOPPED)
    level, outcome = heldout.imported(ev)
    assert level == "NOT READY"
    (item,) = heldout.items(outcome, "evidence-mindie-error")
    assert item.startswith("On host node-7: MIE04E010109: MindIE Server's daemon saw 2 worker")
    assert _STOPPED in item


def test_mindie_real_file_still_says_the_stop_with_no_host() -> None:
    ev = _load(HELDOUT / MINDIE_REAL)
    (daemon,) = [f for f in ev.failures if f["kind"] == "mindie_error"]
    assert daemon["host"] is None
    assert daemon["exception_type"].endswith(_STOPPED)
    _, outcome = heldout.imported(ev)
    (item,) = heldout.items(outcome, "evidence-mindie-error")
    assert item.startswith("MIE04E010109: ")


def test_mindie_daemon_killing_under_an_address_prefix(tmp_path: Path) -> None:
    text = "".join(
        "10.0.0.7: " + line for line in (HELDOUT / MINDIE_REAL).read_text().splitlines(True)
    )
    ev = _write(tmp_path, text)
    (daemon,) = [f for f in ev.failures if f["kind"] == "mindie_error"]
    assert daemon["exception_type"].endswith(_STOPPED)


def test_mindie_daemon_exit_without_the_stop_says_no_stop(tmp_path: Path) -> None:
    text = (REVIEW / MINDIE).read_text().replace("node-7: Daemon is killing...\n", "")
    ev = _write(tmp_path, text)
    (daemon,) = [f for f in ev.failures if f["kind"] == "mindie_error"]
    assert "Daemon is killing" not in daemon["exception_type"]


# --- fault 4: an EI0005 of one file and another file's transport failure -----------------------


def test_ei0005_of_one_file_does_not_explain_another_files_links() -> None:
    ev = load_paths([BUNDLE / JOB_A, BUNDLE / JOB_B])
    links = [f for f in ev.failures if f["kind"] == "hccl_transport_failure"]
    assert [(Path(f["source"]).name, f["rank"]) for f in links] == [
        (JOB_A, 5),
        (JOB_A, 5),
        (JOB_B, 443),
    ]
    level, outcome = heldout.imported(ev)
    assert level == "NOT READY"
    message = _message(outcome, "evidence-hccl-transport-failed")
    assert message.startswith("HCCL's transport set-up failed for 3 pair(s) of ranks")
    assert f"for 2 of them ({BUNDLE / JOB_A}) the ranks' arguments for it differ" in message
    assert "which stopped those links" in message
    assert "the other 1 were logged where no argument mismatch was" in message
    assert JOB_B not in message


def test_another_files_transport_failure_alone_blames_no_ei0005() -> None:
    ev = load_paths([BUNDLE / JOB_B])
    _, outcome = heldout.imported(ev)
    message = _message(outcome, "evidence-hccl-transport-failed")
    assert "EI0005" not in message
    # (and the real file it was copied from reads the same)
    _, real = heldout.imported(load_paths([TRANSPORT_REAL]))
    assert "EI0005" not in _message(real, "evidence-hccl-transport-failed")


def test_ei0005_real_file_still_names_its_own_links_stopped() -> None:
    _, outcome = heldout.imported(load_paths([HELDOUT / EI0005_REAL]))
    message = _message(outcome, "evidence-hccl-transport-failed")
    assert "the ranks' arguments for it differ (EI0005, said above) in the same log" in message
    assert "which stopped these links: that mismatch is the cause, not the links." in message
    assert "for 2 of them" not in message and "the other" not in message


def test_ei0005_file_alone_with_another_files_ei0005_only(tmp_path: Path) -> None:
    # (an EI0005 in a file with no link failures, links failed in another: no blame)
    ei_only = tmp_path / "ei_only.log"
    ei_only.write_text((HELDOUT / EI0005_REAL).read_text().splitlines(True)[0])
    _, outcome = heldout.imported(load_paths([ei_only, BUNDLE / JOB_B]))
    assert "EI0005" not in _message(outcome, "evidence-hccl-transport-failed")
