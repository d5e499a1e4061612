"""Outputs of round SSSS's held-out evaluation (set 700, network and node tool outputs on GPU
clusters) that the advisor read wrong before this change (tests/data/evidence_heldout_79, sources
in tests/data/SOURCES.md): iproute2's ``rdma statistic show link`` counters were no format it
knew; perftest's --run_infinitely table, its header without the "#" signs and its dashed rule
under it, was not read, and its row that counted two periods (189.42 Gb/s, a race perftest fixed
in 068b205) had to be kept out of the link's figure; and perftest's " Bad wc status 5" (a work
completion flushed, IBV_WC_WR_FLUSH_ERR) was not known as perftest's, so a later line was quoted
as the first error and the run judged a warning."""

from __future__ import annotations

from functools import partial

from advisor.evidence.load import EvidenceFacts, detect
from advisor.parsers import ethtool, rdma
from tests import heldout
from tests.conftest import DATA

HELDOUT = DATA / "evidence_heldout_79"

STAT = "rdma_stat_show_link_mlx5_2_1_all_error_counters_zero_healthy_iproute2_a7137e5_cut.txt"
INFINITE = (
    "perftest_bw_run_infinitely_92_70_gbps_rows_one_doubled_189_42_race_perftest_068b205_cut.txt"
)
BAD_WC = (
    "perftest_iwarp_teardown_bad_wc_status_5_failed_to_close_connection_perftest_a0c16d4_cut.txt"
)

_write = partial(heldout.load_copy, name="copy.txt")
_load = partial(heldout.load, HELDOUT)
_text = partial(heldout.text, HELDOUT)


def _said(ev: EvidenceFacts) -> list[tuple[int | None, str]]:
    return [(m.line, m.message) for f in ev.files for m in f.messages]


# --- rdma statistic show link ------------------------------------------------------------------


def test_rdma_statistic_link_counters_all_errors_zero_are_read_and_ready() -> None:
    ev = _load(STAT)
    assert ev.files[0].formats == ["rdma_hw_counters"] and ev.files[0].status == "read"
    level, outcome = heldout.imported(ev)
    assert level == "READY"
    assert heldout.above_info(outcome) == []
    ((line, note),) = _said(ev)
    assert line == 2  # the "link mlx5_2/1 ..." head
    assert (
        "mlx5_2 port 1 (rdma statistic): 23 counter(s); every error and drop counter is 0" in note
    )
    assert "rx_write_requests 8, rx_read_requests 4" in note
    (block,) = ethtool.parse_hw_counters(_text(STAT))
    assert (block.device, block.port, block.tool) == ("mlx5_2", 1, "rdma statistic")
    # every wrapped line's counters, the last line's too
    assert block.counters["np_cnp_sent"] == 0 and block.counters["rx_icrc_encapsulated"] == 0


def test_rdma_statistic_link_with_error_counters_not_zero_is_a_warning(tmp_path) -> None:
    text = (
        _text(STAT)
        .replace("mlx5_2/1", "mlx5_7/1")
        .replace("local_ack_timeout_err 0", "local_ack_timeout_err 31")
        .replace("out_of_sequence 0", "out_of_sequence 5")
    )
    ev = _write(tmp_path, text)
    level, outcome = heldout.imported(ev)
    assert level == "READY WITH WARNINGS"
    assert heldout.above_info(outcome) == [("evidence-rdma-counter-errors", "warning")]
    (item,) = heldout.items(outcome, "evidence-rdma-counter-errors")
    assert item.startswith("mlx5_7 port 1: 2 error or drop counter(s) not 0: ")
    assert "out_of_sequence 5" in item and "local_ack_timeout_err 31" in item
    assert "line 2)" in item
    # congestion counters are traffic, not errors
    cnp = _text(STAT).replace("np_cnp_sent 0", "np_cnp_sent 900")
    level, outcome = heldout.imported(heldout.load_copy(tmp_path, cnp, "cnp.txt"))
    assert level == "READY" and heldout.above_info(outcome) == []


def test_rdma_statistic_one_counter_a_line_form_and_two_links(tmp_path) -> None:
    # iproute2 since f962b24a (2024): each counter on its own line after four spaces
    text = (
        "$ rdma statistic show\n"
        "link mlx5_0/1\n    rx_write_requests 12\n    out_of_buffer 0\n    req_cqe_error 3\n"
        "link mlx5_1/1\n    rx_write_requests 7\n    out_of_buffer 0\n    req_cqe_error 0\n"
    )
    blocks = ethtool.parse_hw_counters(text)
    assert [(b.device, b.port, b.line, len(b.counters)) for b in blocks] == [
        ("mlx5_0", 1, 2, 3),
        ("mlx5_1", 1, 6, 3),
    ]
    assert blocks[0].losses == {"req_cqe_error": 3} and blocks[1].losses == {}
    level, outcome = heldout.imported(_write(tmp_path, text))
    assert level == "READY WITH WARNINGS"
    (item,) = heldout.items(outcome, "evidence-rdma-counter-errors")
    assert item.startswith("mlx5_0 port 1: 1 error or drop counter(s) not 0: req_cqe_error 3")


def test_rdma_link_show_is_not_taken_for_counters() -> None:
    # ``rdma link``'s own line ("state ACTIVE ...") has words for values
    link = "link mlx5_0/1 subnet_prefix fe80:0000:0000:0000 lid 3 sm_lid 1 lmc 0 state ACTIVE physical_state LINK_UP\n"
    assert "rdma_hw_counters" not in detect(link)


# --- perftest --run_infinitely without "#" signs, one row doubled -------------------------------


def test_run_infinitely_table_without_hash_signs_is_read_and_the_doubled_row_left_out() -> None:
    ev = _load(INFINITE)
    assert ev.files[0].formats == ["perftest"] and ev.files[0].status == "read"
    level, outcome = heldout.imported(ev)
    assert level == "READY"
    assert heldout.above_info(outcome) == []
    (item,) = heldout.items(outcome, "evidence-rdma-perftest")
    assert "92.7 Gb/s average at 65536 B" in item
    assert "189.42" not in item
    (port,) = ev.hca_ports
    run = port["perftest"]
    assert [r["bw_average_gbps"] for r in run["rows"]] == [92.7, 92.7]
    assert [r["line"] for r in run["race_rows"]] == [5]
    assert run["race_rows"][0]["iterations"] == 1803183
    race = [m for line, m in _said(ev) if line == 5]
    assert len(race) == 1 and "068b205" in race[0] and "189.42 Gb/s" in race[0]


def test_run_infinitely_rows_steady_are_all_kept(tmp_path) -> None:
    # a healthy twin: no row about twice the others, each kept, the last row's figure the run's
    text = _text(INFINITE).replace("1803183", "881990").replace("189.42", "92.69")
    text = text.replace("0.361283  <--- unexpected", "0.176790")
    (port,), _ = rdma.parse_perftest(text)
    assert port.perftest is not None
    assert len(port.perftest.rows) == 3 and port.perftest.race_rows == []
    assert port.perftest.bw_average_gbps == 92.69
    level, _outcome = heldout.imported(_write(tmp_path, text))
    assert level == "READY"


def test_run_infinitely_doubled_row_needs_two_reports_before_it() -> None:
    # a sweep's or a single report's rows are no periodic reports: nothing left out
    lines = _text(INFINITE).splitlines()
    (port,), _ = rdma.parse_perftest("\n".join([*lines[:3], lines[4]]) + "\n")
    assert port.perftest is not None
    assert port.perftest.race_rows == [] and port.perftest.bw_average_gbps == 189.42


def test_run_infinitely_with_hash_signs_and_mib_units_doubled_row(tmp_path) -> None:
    # the same race under perftest's own header (RESULT_FMT, MiB/sec): the doubled row still out
    text = (
        " #bytes     #iterations    BW peak[MB/sec]    BW average[MB/sec]   MsgRate[Mpps]\n"
        "---------------------------------------------------------------------------------------\n"
        " 65536      441000           0.00                 5512.50            0.088200\n"
        " 65536      440800           0.00                 5510.00            0.088160\n"
        " 65536      441100           0.00                 5513.75            0.088220\n"
        " 65536      882500           0.00                 11031.25           0.176500\n"
    )
    (port,), _ = rdma.parse_perftest(text)
    assert port.perftest is not None
    assert [r["line"] for r in port.perftest.race_rows] == [6]
    assert port.perftest.bw_average_gbps == round(5513.75 * rdma.GBIT_PER_MIB, 3)


# --- perftest's " Bad wc status N" -------------------------------------------------------------


def test_bad_wc_status_5_is_a_perftest_failure_named_at_its_first_line() -> None:
    ev = _load(BAD_WC)
    assert ev.files[0].formats == ["perftest"]
    level, outcome = heldout.imported(ev)
    assert level == "NOT READY"
    assert heldout.above_info(outcome) == [("evidence-rdma-perftest-broke-off", "critical")]
    (item,) = heldout.items(outcome, "evidence-rdma-perftest-broke-off")
    assert "Bad wc status 5 (IBV_WC_WR_FLUSH_ERR, Work Request Flushed Error" in item
    assert item.endswith("line 1)")
    assert "Failed to close connection" not in item


def test_bad_wc_status_other_number_decoded(tmp_path) -> None:
    # another status (12, IBV_WC_RETRY_EXC_ERR) and rdma_read_keys' "-- status -- wr_id" form
    text = _text(BAD_WC).replace("Bad wc status 5", "Bad wc status -- 12 -- 3")
    ev = _write(tmp_path, text)
    level, outcome = heldout.imported(ev)
    assert level == "NOT READY"
    (item,) = heldout.items(outcome, "evidence-rdma-perftest-broke-off")
    assert (
        "Bad wc status -- 12 -- 3 (IBV_WC_RETRY_EXC_ERR, transport retry counter exceeded)" in item
    )
    assert rdma._wc_status_said(99).startswith("work completion status 99")
    assert len(rdma.WC_STATUS_WORDS) == len(rdma.IBV_WC_STATUS)


def test_bad_wc_status_under_the_command_is_that_runs(tmp_path) -> None:
    text = (
        "root@node2:~# ib_send_bw -d mlx5_3 -R 10.0.0.1\n"
        " Bad wc status 5\n"
        " Unable to write from socket/rdam_cm\n"
        "Failed to close connection between server and client\n"
    )
    (port,), _ = rdma.parse_perftest(text)
    assert (port.ca, port.port) == ("mlx5_3", 1)
    assert port.perftest is not None and port.perftest.failed is not None
    assert port.perftest.failed.startswith("Bad wc status 5 (IBV_WC_WR_FLUSH_ERR")
    assert port.perftest.failed_line == 2
    level, _outcome = heldout.imported(_write(tmp_path, text))
    assert level == "NOT READY"
