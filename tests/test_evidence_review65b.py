"""Review 65 of round SSSS (sets 700, 700b, 701 and 702), part b, faults 1-4: perftest's "Bad wc
status" at close after a complete table; a PF's VFs down with their own PF beside another PF
active; rdma statistic's duplicate_request and roce_adp_retrans counters; srun's "Node failure
on" before any of the job's output: each on its input (tests/data/review65, described in
tests/data/SOURCES.md) and the real sample it was built from."""

from __future__ import annotations

from functools import partial
from pathlib import Path

from advisor.evidence.load import EvidenceFacts, load_paths
from advisor.parsers import ethtool, rdma
from tests import heldout
from tests.conftest import DATA

REVIEW = DATA / "review65"
HELDOUT = DATA / "evidence_heldout_79"
HELDOUT34 = DATA / "evidence_heldout_34"

_write = partial(heldout.load_copy, name="copy.txt")


def _load(name: str, where: Path = REVIEW) -> EvidenceFacts:
    return load_paths([where / name])


def _said(ev: EvidenceFacts) -> list[tuple[int | None, str]]:
    return [(m.line, m.message) for f in ev.files for m in f.messages]


# --- 1. perftest: "Bad wc status" at close after a complete table ------------------------------

TEARDOWN = "perftest_write_bw_65536b_table_complete_then_bad_wc_status_5_at_close.txt"
BAD_WC = (
    "perftest_iwarp_teardown_bad_wc_status_5_failed_to_close_connection_perftest_a0c16d4_cut.txt"
)
ROW = " 65536      5000             37.12              37.10              0.070762\n"
RULE = "-" * 87 + "\n"
HEAD = " #bytes     #iterations    BW peak[Gb/sec]    BW average[Gb/sec]   MsgRate[Mpps]\n"


def test_bad_wc_status_after_a_complete_table_is_a_teardown_warning() -> None:
    ev = _load(TEARDOWN)
    (port,) = ev.hca_ports
    assert port["perftest"]["teardown_failed"] is True
    assert port["perftest"]["bw_average_gbps"] == 37.1
    level, outcome = heldout.imported(ev)
    assert level == "READY WITH WARNINGS"
    assert heldout.above_info(outcome) == [("evidence-rdma-perftest-teardown-error", "warning")]
    (item,) = heldout.items(outcome, "evidence-rdma-perftest-teardown-error")
    assert "37.1 Gb/s average at 65536 B, its table complete, then at its close" in item
    assert "Bad wc status 5 (IBV_WC_WR_FLUSH_ERR" in item
    assert not any("larger sizes were not measured" in f.message for f in outcome.findings)


def test_bad_wc_status_with_no_row_still_broke_off() -> None:
    # the real sample the variant is built from: the error lines alone, no row measured
    ev = _load(BAD_WC, HELDOUT)
    level, outcome = heldout.imported(ev)
    assert level == "NOT READY"
    assert heldout.above_info(outcome) == [("evidence-rdma-perftest-broke-off", "critical")]
    assert not ev.hca_ports[0]["perftest"]["teardown_failed"]


def test_an_error_mid_sweep_with_no_closing_rule_still_stopped_mid_run(tmp_path: Path) -> None:
    rows = "".join(
        f" {n:<10} 5000             3{i}.12              3{i}.10              0.07\n"
        for i, n in enumerate((4096, 8192))
    )
    for error in (
        " Bad wc status 12\n Unable to read from socket/rdma_cm\n"
        "Failed to sync between server and client between different msg sizes\n",
        "Completion with error at client\nFailed status 12: wr_id 0 syndrom 0x81\n",
    ):
        ev = _write(tmp_path, RULE + HEAD + rows + error)
        assert not ev.hca_ports[0]["perftest"]["teardown_failed"], error
        level, outcome = heldout.imported(ev)
        assert level == "NOT READY", error
        assert ("evidence-rdma-perftest-stopped-mid-run", "critical") in heldout.above_info(outcome)


def test_a_tcp_exchange_broken_at_close_after_the_table_is_a_teardown_too(tmp_path: Path) -> None:
    # the TCP exchange's words (no RDMA CM), the table's rule cut from the copy: the close's own
    # "Failed to close connection" says where it failed
    text = RULE + HEAD + ROW + " Unable to read from socket/rdma_cm\n"
    text += "Failed to close connection between server and client\n"
    (port,), _ = rdma.parse_perftest(text)
    assert port.perftest is not None and port.perftest.teardown_failed
    cut = RULE + HEAD + ROW + " Bad wc status 5\n"
    (port,), _ = rdma.parse_perftest(cut)
    # (no closing rule, no close's words: not known to be the close, stays a stop)
    assert port.perftest is not None and not port.perftest.teardown_failed
    level, outcome = heldout.imported(_write(tmp_path, text))
    assert level == "READY WITH WARNINGS"
    assert heldout.above_info(outcome) == [("evidence-rdma-perftest-teardown-error", "warning")]


# --- 2. SR-IOV: a VF is excused by its own PF only ---------------------------------------------

VF_OF_DOWN_PF = "ibdev2netdev_v_connectx6_pf_mlx5_1_down_its_vfs_03_00_1_2_down_pf_mlx5_0_up.txt"
VFS = "ibdev2netdev_v_connectx4_mlx5_0_1_up_4_new_vfs_down_sriov_dp_vf_setup_cut.txt"


def test_vfs_of_a_down_pf_are_down_with_it_not_unused() -> None:
    ev = _load(VF_OF_DOWN_PF)
    by_ca = {p["ca"]: p for p in ev.hca_ports}
    assert by_ca["mlx5_2"]["vf"] and by_ca["mlx5_3"]["vf"]
    assert not by_ca["mlx5_2"]["vf_unused"] and not by_ca["mlx5_3"]["vf_unused"]
    notes = [(no, m) for no, m in _said(ev) if "virtual function" in m]
    assert not any("no failed rail" in m for _, m in notes)
    ((line, note),) = notes
    assert line == 3
    assert "functions of the physical function(s) mlx5_1 (PCI 0000:03:00.0)" in note
    assert "down with their PF" in note
    level, outcome = heldout.imported(ev)
    assert level == "READY WITH WARNINGS"
    (finding,) = [f for f in outcome.findings if f.rule_id == "evidence-hca-port-not-active"]
    said = " ".join(str(i) for i in finding.items)
    assert all(ca in said for ca in ("mlx5_1", "mlx5_2", "mlx5_3"))


def test_vfs_beside_their_own_active_pfs_stay_unused() -> None:
    # the real sample: ConnectX-4 PFs 02:00.0 and 02:00.1 active, their VFs 02:00.2-.7 down
    ev = _load(VFS, HELDOUT)
    assert all(p["vf_unused"] for p in ev.hca_ports if p["vf"])
    ((_, note),) = [(no, m) for no, m in _said(ev) if "virtual function" in m]
    assert "beside their physical function port(s) active (mlx5_0, mlx5_1)" in note
    assert heldout.imported(ev)[0] == "READY"


def test_a_vf_is_excused_by_its_own_pf_not_by_another(tmp_path: Path) -> None:
    rows = (REVIEW / VF_OF_DOWN_PF).read_text().splitlines(keepends=True)
    # its own PF up, the other PF down: the VFs are unused, named beside mlx5_1 only
    swapped = (
        rows[0].replace("(ACTIVE)", "(DOWN  )").replace("(Up)", "(Down)")
        + rows[1].replace("(DOWN  )", "(ACTIVE)").replace("(Down)", "(Up)")
        + "".join(rows[2:])
    )
    ev = _write(tmp_path, swapped)
    assert all(p["vf_unused"] for p in ev.hca_ports if p["vf"])
    ((_, note),) = [(no, m) for no, m in _said(ev) if "virtual function" in m]
    assert "beside their physical function port(s) active (mlx5_1)" in note
    # VFs spread over the bus's next device numbers (PCI ARI, 03:01.x): no PF on their device,
    # their bus's PF down, the other bus's up: not excused
    ari = "".join(rows[:2]) + "".join(r.replace("0000:03:00.", "0000:03:01.") for r in rows[2:])
    ev = _write(tmp_path, ari)
    assert not any(p["vf_unused"] for p in ev.hca_ports)
    assert any("down with their PF" in m for _, m in _said(ev))


# --- 3. rdma statistic: duplicate_request and roce_adp_retrans* are loss ------------------------

DUP = "rdma_stat_show_link_mlx5_2_1_duplicate_request_1532_others_zero.txt"
ADP = "rdma_stat_one_a_line_local_ack_timeout_17_roce_adp_retrans_40_retrans_to_3.txt"
STAT = "rdma_stat_show_link_mlx5_2_1_all_error_counters_zero_healthy_iproute2_a7137e5_cut.txt"


def test_duplicate_requests_are_a_warning_not_every_error_counter_zero() -> None:
    ev = _load(DUP)
    assert not any("every error and drop counter is 0" in m for _, m in _said(ev))
    level, outcome = heldout.imported(ev)
    assert level == "READY WITH WARNINGS"
    assert heldout.above_info(outcome) == [("evidence-rdma-counter-errors", "warning")]
    (item,) = heldout.items(outcome, "evidence-rdma-counter-errors")
    assert "duplicate_request 1532" in item


def test_adaptive_retransmissions_are_counted_with_the_timeouts() -> None:
    ev = _load(ADP)
    (item,) = heldout.items(heldout.imported(ev)[1], "evidence-rdma-counter-errors")
    assert "3 error or drop counter(s) not 0" in item
    assert "local_ack_timeout_err 17, roce_adp_retrans 40, roce_adp_retrans_to 3" in item
    (block,) = ethtool.parse_hw_counters((REVIEW / ADP).read_text())
    # (slow restart is the rate control's event, no loss: still among the other counters)
    assert "roce_slow_restart" not in block.losses
    assert any("other counters not 0:" in m and "roce_slow_restart 2" in m for _, m in _said(ev))


def test_all_zero_counters_still_ready_and_show_counters_too() -> None:
    ev = _load(STAT, HELDOUT)
    assert heldout.imported(ev)[0] == "READY"
    assert any("every error and drop counter is 0" in m for _, m in _said(ev))
    text = "show_counters mlx5_0\nPort 1 hw counters:\nduplicate_request: 9\nrx_write_requests: 5\n"
    (block,) = ethtool.parse_hw_counters(text)
    assert block.losses == {"duplicate_request": 9}


# --- 4. srun's node failure: mid-job only after the job's own output ----------------------------

NO_OUTPUT = "srun_node_failure_jean_zay_iam37_no_job_output_before_it.log"
JEAN_ZAY = "slurm_node_failure_step_cancelled_mid_training_jean_zay_m4_tr141_v06.log"


def _lost(ev: EvidenceFacts) -> dict[str, object]:
    (lost,) = [f for f in ev.failures if f["kind"] == "launcher_exit" and f["host"]]
    return lost


def test_a_node_failure_with_no_job_output_before_it_is_not_said_mid_job() -> None:
    lost = _lost(_load(NO_OUTPUT))
    assert lost["host"] == "jean-zay-iam37"
    assert lost["exception_type"] == (
        "srun (Slurm reported a node failure; no output of the job before it)"
    )


def test_a_node_failure_after_the_training_lines_is_a_node_lost(tmp_path: Path) -> None:
    # the real sample: the training loop's iteration and validation lines before it
    lost = _lost(_load(JEAN_ZAY, HELDOUT34))
    assert lost["exception_type"] == "srun (Slurm lost the node: node failure)"
    nccl = "gpu-n07:1234:1234 [0] NCCL INFO NCCL version 2.18.3+cuda12.2\n"
    ev = _write(tmp_path, nccl + "srun: error: Node failure on gpu-n07\n")
    assert _lost(ev)["exception_type"] == "srun (Slurm lost the node: node failure)"
    # srun's own lines before it are not the job's
    alloc = "srun: job 4242 has been allocated resources\nsrun: error: Node failure on gpu-n07\n"
    assert "no output of the job" in str(_lost(_write(tmp_path, alloc))["exception_type"])
