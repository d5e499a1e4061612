"""Outputs of round VVVV's held-out evaluation (set 718, network and node tool outputs) that the
advisor read wrong or in part before this change (tests/data/evidence_heldout_82, sources in
tests/data/SOURCES.md): a perftest post-list message-rate test whose Mpps went unsaid and whose
figure was cited at its device line; iperf3's ``-J`` output of a client that never connected (no
``connecting_to``, an ``"error"`` key) was no format the advisor knew; and sminfo and saquery run
by a user who may not open the umad device were read as an ibstat failure, nothing read."""

from __future__ import annotations

from functools import partial
from pathlib import Path

from advisor.parsers import iperf, rdma
from tests import heldout
from tests.conftest import DATA

HELDOUT = DATA / "evidence_heldout_82"

POST_LIST = "perftest_ib_write_bw_post_list_roce_ib0_8b_60s_0_48gbps_7_5mpps_message_rate_test_perftest273.txt"
IPERF_ERROR = "iperf3_3_0_11_json_unable_to_connect_no_route_to_host_vlan_3101_iperf545.json"
UMAD_DENIED = "sminfo_saquery_non_root_cant_open_umad_port_permission_denied_slimfly_cscs_notes.txt"

_write = partial(heldout.load_copy, name="copy.txt")
_load = partial(heldout.load, HELDOUT)
_text = partial(heldout.text, HELDOUT)


# --- perftest: a post-list message-rate test -------------------------------------------------


def test_a_post_list_test_says_its_message_rate_at_its_result_row() -> None:
    ev = _load(POST_LIST)
    assert ev.files[0].formats == ["perftest"] and ev.files[0].status == "read"
    level, outcome = heldout.imported(ev)
    assert level == "READY"
    assert heldout.above_info(outcome) == []  # 0.48 Gb/s at 8 B is no shortfall
    (item,) = heldout.items(outcome, "evidence-rdma-perftest")
    assert (
        "RDMA_Write Post List BW: 0.48 Gb/s average at 8 B, 7.498617 Mpps (its message rate)"
        in item
    )
    assert item.endswith("line 18)")  # the result row, not the device line (2)
    (port,) = ev.hca_ports
    assert port["perftest"]["msg_rate_mpps"] == 7.498617
    assert port["perftest"]["result_line"] == 18


def test_the_message_rate_is_the_last_rows_and_a_mb_report_keeps_it_in_mpps() -> None:
    text = _text(POST_LIST).replace(
        " 8          224958464        0.00               0.48   \t\t   7.498617\n",
        " 8          224958464        0.00               0.48   \t\t   7.498617\n"
        " 64         100000000        0.00               3.20   \t\t   6.250000\n",
    )
    assert text != _text(POST_LIST)
    ports, _ = rdma.parse_perftest(text)
    run = ports[0].perftest
    assert run is not None
    assert (run.msg_rate_mpps, run.result_line, run.bw_average_gbps) == (6.25, 19, 3.2)
    # MB/sec report (perftest's default): the bandwidth converted, the MsgRate column as printed
    mb = text.replace(
        "BW peak[Gb/sec]    BW average[Gb/sec]", "BW peak[MB/sec]    BW average[MB/sec]"
    )
    run = rdma.parse_perftest(mb)[0][0].perftest
    assert run is not None and run.msg_rate_mpps == 6.25


def test_a_latency_test_cites_its_row_and_says_no_rate(tmp_path: Path) -> None:
    text = (
        "                    RDMA_Read Latency Test\n"
        " Dual-port       : OFF\t\tDevice         : mlx5_1\n"
        " Number of qps   : 1\t\tTransport type : IB\n"
        "---------------------------------------------------------------------------------------\n"
        " #bytes #iterations    t_min[usec]    t_max[usec]  t_typical[usec]    t_avg[usec]"
        "    t_stdev[usec]   99% percentile[usec]   99.9% percentile[usec] \n"
        " 2       1000          1.75           4.10         1.79     \t       1.80        \t"
        "0.05   \t\t1.88    \t\t6.12   \n"
        "---------------------------------------------------------------------------------------\n"
    )
    ev = _write(tmp_path, text)
    _, outcome = heldout.imported(ev)
    (item,) = heldout.items(outcome, "evidence-rdma-perftest")
    assert "mlx5_1" in item and "1.8 us average at 2 B" in item and "Mpps" not in item
    assert item.endswith("line 6)")


# --- iperf3 -J: a client that never connected -------------------------------------------------


def test_iperf3_json_with_only_an_error_is_read_as_a_test_that_never_ran() -> None:
    ev = _load(IPERF_ERROR)
    assert ev.files[0].formats == ["iperf3"] and ev.files[0].status == "read"
    level, outcome = heldout.imported(ev)
    assert level == "NOT READY"
    assert heldout.above_info(outcome) == [("evidence-iperf3-unreached", "critical")]
    (item,) = heldout.items(outcome, "evidence-iperf3-unreached")
    assert "unable to connect to server: No route to host" in item
    assert "error - error -" not in item  # iperf3's own "error - " prefix said once
    assert "nothing was measured" in item and item.endswith("line 10)")
    assert "bits/sec" not in item and "Gbit" not in item
    (run,) = iperf.parse(_text(IPERF_ERROR))
    assert run.sender_bps is None and run.error_line == 10 and run.unreached


def test_iperf3_json_refused_is_a_failed_test_not_an_unreached_host(tmp_path: Path) -> None:
    text = _text(IPERF_ERROR).replace("No route to host", "Connection refused")
    ev = _write(tmp_path, text)
    _, outcome = heldout.imported(ev)
    # (a refused connection: the server's host answered, no iperf3 listened; the project's
    # iperf_failed rule, not the unreached one)
    assert [r for r, _ in heldout.above_info(outcome)] == ["evidence-iperf3-failed"]


def test_a_healthy_iperf3_json_beside_it_stays_read_and_ready(tmp_path: Path) -> None:
    healthy = """{
\t"start":\t{
\t\t"connected":\t[{
\t\t\t\t"socket":\t4,
\t\t\t\t"local_host":\t"10.0.0.2",
\t\t\t\t"local_port":\t50000,
\t\t\t\t"remote_host":\t"10.0.0.1",
\t\t\t\t"remote_port":\t5201
\t\t\t}],
\t\t"version":\t"iperf 3.0.11",
\t\t"connecting_to":\t{
\t\t\t"host":\t"10.0.0.1",
\t\t\t"port":\t5201
\t\t},
\t\t"test_start":\t{
\t\t\t"protocol":\t"TCP"
\t\t}
\t},
\t"intervals":\t[{
\t\t\t"sum":\t{
\t\t\t\t"seconds":\t1.0,
\t\t\t\t"bits_per_second":\t9.4e9
\t\t\t}
\t\t}],
\t"end":\t{
\t\t"sum_sent":\t{
\t\t\t"seconds":\t10.0,
\t\t\t"bits_per_second":\t9.41e9,
\t\t\t"retransmits":\t0
\t\t},
\t\t"sum_received":\t{
\t\t\t"seconds":\t10.0,
\t\t\t"bits_per_second":\t9.40e9
\t\t}
\t}
}
"""
    ev = _write(tmp_path, healthy)
    assert ev.files[0].formats == ["iperf3"] and ev.files[0].status == "read"
    level, outcome = heldout.imported(ev)
    assert level == "READY" and heldout.above_info(outcome) == []
    (run,) = iperf.parse(healthy)
    assert (run.sender_bps, run.receiver_bps, run.error) == (9.41e9, 9.40e9, "")
    # the same run without "connecting_to" (a server's -J) is still iperf3's
    server = healthy.replace(
        '\t\t"connecting_to":\t{\n\t\t\t"host":\t"10.0.0.1",\n\t\t\t"port":\t5201\n\t\t},\n', ""
    )
    assert '"connecting_to"' not in server
    (run,) = iperf.parse(server)
    assert run.sender_bps == 9.41e9


# --- sminfo / saquery: the umad port refused to the user ----------------------------------------


def test_sminfo_and_saquery_refused_the_umad_port_are_a_check_that_did_not_run() -> None:
    ev = _load(UMAD_DENIED)
    assert ev.files[0].formats == ["rdma"] and ev.files[0].status == "read"
    level, outcome = heldout.imported(ev)
    assert level == "READY WITH WARNINGS"
    # not "no subnet manager": the query never reached the fabric
    assert heldout.above_info(outcome) == [("evidence-mad-port-denied", "warning")]
    sminfo_item, saquery_item = heldout.items(outcome, "evidence-mad-port-denied")
    assert sminfo_item.startswith(
        "sminfo: sminfo failed: Failed to open '(null)' port '0' (line 3)"
    )
    assert "umad port" in sminfo_item and sminfo_item.endswith("line 2)")
    assert saquery_item.startswith(
        "saquery: saquery failed: Failed to bind to the SA: Permission denied (line 6)"
    )
    assert "Permission denied" in saquery_item and saquery_item.endswith("line 5)")
    assert not any("ibstat" in m.message for f in ev.files for m in f.messages)
    (finding,) = [f for f in outcome.findings if f.rule_id == "evidence-mad-port-denied"]
    assert "as root" in " ".join(r.why for r in finding.recommendations)


def test_another_user_and_host_read_the_same(tmp_path: Path) -> None:
    text = _text(UMAD_DENIED).replace("dphpc@slimflysmw", "alice@node17").replace("55250", "812")
    ev = _write(tmp_path, text)
    level, outcome = heldout.imported(ev)
    assert level == "READY WITH WARNINGS"
    assert [r for r, _ in heldout.above_info(outcome)] == ["evidence-mad-port-denied"]


def test_sminfo_alone_without_a_permission_word_stays_an_sminfo_failure(tmp_path: Path) -> None:
    text = "".join(_text(UMAD_DENIED).splitlines(keepends=True)[:3])
    ev = _write(tmp_path, text)
    _, outcome = heldout.imported(ev)
    assert [r for r, _ in heldout.above_info(outcome)] == ["evidence-sminfo-failed"]


def test_ibstats_own_panic_is_still_ibstats(tmp_path: Path) -> None:
    text = "ibpanic: [1400444] main: stat of IB device 'mlx5_8' failed: No such file or directory\n"
    ev = _write(tmp_path, text)
    # (only ibstat's two IBPANIC forms are ibstat's; saquery's above is not)
    assert [(e["kind"], e["library"]) for e in ev.failures] == [
        ("rdma_device_unreadable", "ibstat")
    ]


def test_a_root_sminfo_answer_stays_ready(tmp_path: Path) -> None:
    text = (
        "[root@slimflysmw benchmarks]# sminfo\n"
        "sminfo: sm lid 1 sm guid 0x248a0703005c1234, activity count 5016 priority 14 state 3 "
        "SMINFO_MASTER\n"
    )
    ev = _write(tmp_path, text)
    level, outcome = heldout.imported(ev)
    assert level == "READY" and heldout.above_info(outcome) == []
