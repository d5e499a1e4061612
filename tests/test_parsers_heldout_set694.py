"""Outputs of round RRRR's held-out evaluation (set 694, network and node tool outputs on GPU
clusters) that the advisor read wrong or in part before this change
(tests/data/evidence_heldout_78, sources in tests/data/SOURCES.md): OSCAR's cexec run of
ibv_devinfo and sminfo left its per-node headers ("--------- n01---------") unread and every
sminfo answer unsaid (each wrapped after "priority 0" by the mail); a perftest completion with
error copied alone (status 11, IBV_WC_REM_OP_ERR, 0 of 128 completed) was a warning, as a run
that failed to start, though perftest prints it only once the queue pairs had connected; and a
``grep pause`` of a sosreport's ``ethtool -S eth1`` (no ``NIC statistics:`` head) was no format
the advisor knew, its 95331 pause frames received unsaid."""

from __future__ import annotations

from functools import partial

from advisor.evidence.load import EvidenceFacts
from advisor.parsers import ethtool, rdma
from tests import heldout
from tests.conftest import DATA

HELDOUT = DATA / "evidence_heldout_78"

CEXEC = "ibv_devinfo_sminfo_oscar_cexec_mthca0_n01_n04_sm_master_lid2_healthy_ompi7361_cut.txt"
PERFTEST = (
    "perftest_soft_roce_rxe_completion_with_error_at_client_failed_status_11_rem_op_err_scnt128_"
    "ccnt0_lxc_notes.txt"
)
PAUSE = "ethtool_S_eth1_grep_pause_sosreport_rx_pause_frames_95331_xsos112.txt"

_write = partial(heldout.load_copy, name="copy.txt")
_load = partial(heldout.load, HELDOUT)
_text = partial(heldout.text, HELDOUT)


def _said(ev: EvidenceFacts) -> list[tuple[int | None, str]]:
    return [(m.line, m.message) for f in ev.files for m in f.messages]


# --- cexec: ibv_devinfo on n01, sminfo on n01..n04 ---------------------------------------------


def test_cexecs_node_headers_and_each_nodes_wrapped_sminfo_are_read() -> None:
    ev = _load(CEXEC)
    assert ev.files[0].formats == ["rdma"] and ev.files[0].status == "read"
    (port,) = ev.hca_ports
    assert (port["ca"], port["port"], port["state"], port["host"]) == (
        "mthca0",
        1,
        "PORT_ACTIVE",
        "n01",
    )
    said = _said(ev)
    assert [line for line, _ in said] == [28, 31, 34, 37]
    for (line, note), (host, count) in zip(
        said, (("n01", 6881), ("n02", 6882), ("n03", 6883), ("n04", 6884)), strict=True
    ):
        assert note.startswith(
            f"rdma: {host}: sminfo: the subnet manager at lid 2 (guid 0x2c90200259201, priority "
            f"0, activity count {count}) is the master (SMINFO_MASTER)"
        )
        assert note.endswith(f"(line {line})")
    level, outcome = heldout.imported(ev)
    assert level == "READY"
    assert heldout.above_info(outcome) == []


def test_another_cluster_s_nodes_and_a_standby_sm_are_read_alike(tmp_path) -> None:
    text = (
        _text(CEXEC)
        .replace("n0", "gpu-node1")
        .replace("state 3 SMINFO_MASTER", "state 2 SMINFO_STANDBY")
    )
    ev = _write(tmp_path, text)
    assert ev.hca_ports[0]["host"] == "gpu-node11"
    notes = [note for _, note in _said(ev)]
    assert [n.split(":")[1].strip() for n in notes] == [f"gpu-node1{i}" for i in range(1, 5)]
    assert all("a standby (SMINFO_STANDBY)" in n for n in notes)


def test_sminfo_on_one_line_and_a_host_without_a_header_stay_as_before(tmp_path) -> None:
    ev = _write(
        tmp_path,
        "sminfo: sm lid 2 sm guid 0x2c90200259201, activity count 6881 priority 0 state 3 "
        "SMINFO_MASTER\n",
    )
    (note,) = [note for _, note in _said(ev)]
    assert note.startswith("rdma: sminfo: the subnet manager at lid 2")
    # (a rule of dashes with no host in it names none)
    assert rdma._DASHED_HOST_HEADER_RE.match("------------------------") is None
    assert rdma._DASHED_HOST_HEADER_RE.match("--------- n01---------")["host"] == "n01"


# --- perftest: a completion with error copied alone ----------------------------------------------


def test_a_completion_error_alone_is_an_rdma_test_that_broke_off() -> None:
    ev = _load(PERFTEST)
    (port,) = ev.hca_ports
    run = port["perftest"]
    assert (port["ca"], run["rows"], run["broke_off"], run["failed_line"]) == (
        rdma.NO_DEVICE,
        [],
        True,
        1,
    )
    assert run["failed"] == (
        "Completion with error at client (IBV_WC_REM_OP_ERR, vendor syndrome 0x0), 0 of 128 work "
        "requests completed"
    )
    level, outcome = heldout.imported(ev)
    assert level == "NOT READY"
    assert heldout.above_info(outcome) == [("evidence-rdma-perftest-broke-off", "critical")]
    (item,) = heldout.items(outcome, "evidence-rdma-perftest-broke-off")
    assert item.startswith("(device and port not named): perftest: Completion with error at client")
    assert item.endswith(", line 1)")


def test_a_servers_completion_error_under_its_command_broke_off_too(tmp_path) -> None:
    ev = _write(
        tmp_path,
        "$ ib_send_bw -d rxe0 -F\n"
        " Completion with error at server\n"
        " Failed status 12: wr_id 0 syndrom 0x81\n"
        " rcnt=0\n",
    )
    (port,) = ev.hca_ports
    assert port["perftest"]["broke_off"] is True
    assert "IBV_WC_RETRY_EXC_ERR" in port["perftest"]["failed"]
    assert heldout.imported(ev)[0] == "NOT READY"


def test_a_failure_to_connect_stays_a_warning(tmp_path) -> None:
    # (no QP ever connected: the test's TCP exchange, not the RDMA path)
    ev = _write(tmp_path, "$ ib_write_bw -d mlx5_0 10.0.0.2\nCouldn't connect to 10.0.0.2:18515\n")
    assert ev.hca_ports[0]["perftest"]["broke_off"] is False
    level, outcome = heldout.imported(ev)
    assert level == "READY WITH WARNINGS"
    assert heldout.above_info(outcome) == [("evidence-rdma-perftest-failed", "warning")]


# --- ethtool -S | grep pause, sosreport's copy -------------------------------------------------


def test_a_grep_of_sosreports_ethtool_s_is_read_and_its_pauses_received_warned() -> None:
    ev = _load(PAUSE)
    assert ev.files[0].formats == ["ethtool_stats"] and ev.files[0].status == "read"
    level, outcome = heldout.imported(ev)
    assert level == "READY WITH WARNINGS"
    assert heldout.above_info(outcome) == [("evidence-nic-counters-warn", "warning")]
    (item,) = heldout.items(outcome, "evidence-nic-counters-warn")
    assert item.startswith(
        "rx_pause_frames 95331: eth1: pause frames the port received since its driver started"
    )
    assert item.endswith(", line 2)")
    # (nothing lost is invented: the copy holds no error, drop or discard counter)
    assert "evidence-nic-rx-discards" not in str(outcome.findings)


def test_a_piped_grep_of_another_port_and_few_pauses(tmp_path) -> None:
    text = _text(PAUSE).replace(
        "$ grep pause sos_commands/networking/ethtool_-S_eth1", "# ethtool -S ens2f1 | grep pause"
    )
    ev = _write(tmp_path, text)
    (item,) = heldout.items(heldout.imported(ev)[1], "evidence-nic-counters-warn")
    assert item.startswith("rx_pause_frames 95331: ens2f1: ")
    # a healthy twin: a few pauses, a burst's, stay READY
    ev = _write(tmp_path, text.replace("95331", "953"))
    assert ev.files[0].status == "read"
    assert heldout.imported(ev)[0] == "READY"


def test_pauses_received_are_weighed_against_the_packets_sent() -> None:
    (stats,) = ethtool.parse(
        "NIC statistics:\n     tx_packets: 9000000000\n     rx_pause_frames: 95331\n"
    )
    # (1.1e-5 a packet sent: flow control at work, under PAUSES_SENT_SHARE)
    assert ethtool.congestion_said(stats) == []
    (stats,) = ethtool.parse(
        "NIC statistics:\n     tx_packets: 9000000\n     rx_pause_frames: 95331\n"
    )
    ((counter, value, what),) = ethtool.congestion_said(stats)
    assert (counter, value) == ("rx_pause_frames", 95331)
    assert "0.011 a packet sent" in what
