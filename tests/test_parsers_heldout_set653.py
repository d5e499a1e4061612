"""Outputs of round KKKK's held-out evaluation (set 653, NVIDIA collective logs) that the advisor
read in part before this change (tests/data/evidence_heldout_71, sources in
tests/data/SOURCES.md): GPUDirect-TCPX's "rx rx ctrl timeout" slowness reports, read as NCCL
errors of one process (rank 0 from the device field, the local end taken for the peer); and the
SHARP plugin's "SHARP coll init error" that NCCL answered with "Cannot initialize CollNet, using
point-to-point network instead", made critical."""

from __future__ import annotations

from functools import partial
from pathlib import Path

from tests import heldout
from tests.conftest import DATA

HELDOUT = DATA / "evidence_heldout_71"

TCPX = "gpudirecttcpx_plugin_rx_ctrl_timeout_warn_gcp_a3_tcpx1.log"
SHARP = "nccl_sharp_plugin_coll_init_error_collnet_fallback_p2p_nccl1050_cut.log"


_load = partial(heldout.load, HELDOUT)


_write = partial(heldout.load_copy, name="copy.log")


_text = partial(heldout.text, HELDOUT)


# --- GPUDirect-TCPX's rx ctrl timeout ------------------------------------------------------------


def test_tcpx_rx_ctrl_timeouts_are_a_stall_warning_with_local_and_peer_ends() -> None:
    ev = _load(TCPX)
    assert ev.files[0].formats == ["log"]
    slow = [f for f in ev.failures if f["kind"] == "nccl_net_slow"]
    assert [f["line"] for f in slow] == [1, 3]
    assert not [f for f in ev.failures if f["kind"] == "nccl_warning"]
    first, second = slow
    # the "[0]" before line 1 is NCCL's device field, no rank; line 3 has none
    assert (first["rank"], first["device"], second["device"]) == (None, 0, None)
    # fdToString: LOCAL<port><-PEER<port>: the peer is the second address
    assert (first["ip"], first["remote_ip"], first["port"]) == ("172.16.0.11", "172.16.0.95", 46723)
    assert (second["ip"], second["remote_ip"], second["port"]) == (
        "172.16.0.49",
        "172.16.0.48",
        52929,
    )
    assert first["ran_for_ms"] == 10000
    assert "nic 0 (enp12s0, 172.16.0.11:39187)" in first["exception_type"]
    assert "7331502 polls" in first["exception_type"]
    assert "nic 1 (enp134s0, 172.16.0.49:45259)" in second["exception_type"]
    level, outcome = heldout.imported(ev)
    assert level == "READY WITH WARNINGS"
    assert heldout.above_info(outcome) == [("evidence-nccl-net-slow", "warning")]
    (finding,) = [f for f in outcome.findings if f.rule_id == "evidence-nccl-net-slow"]
    assert "2 slowness report(s) on 2 local address(es)" in finding.message
    items = heldout.items(outcome, "evidence-nccl-net-slow")
    assert items[0].startswith("a process, device 0: GPUDirect-TCPX's rx control message from ")
    assert "172.16.0.95:46723" in items[0]
    assert "rank" not in items[0]
    assert items[1].endswith(f"{TCPX}, line 3)")


def test_tcpx_report_with_nccl_prefix_names_host_pid_device(tmp_path: Path) -> None:
    # the same report with NCCL's whole debug prefix, another host, GPU and NIC: a tx side
    line = _text(TCPX).splitlines()[2]
    text = (
        "a3-node-7:4411:4502 [5] "
        + line.replace("nic 1, enp134s0", "nic 3, enp6s0").replace(
            "172.16.0.49<45259><-172.16.0.48<52929> rx rx", "10.1.2.3<40001>->10.1.2.9<40002> tx tx"
        )
        + "\n"
    )
    ev = _write(tmp_path, text)
    (slow,) = [f for f in ev.failures if f["kind"] == "nccl_net_slow"]
    assert (slow["host"], slow["pid"], slow["device"]) == ("a3-node-7", 4411, 5)
    assert (slow["ip"], slow["remote_ip"], slow["port"]) == ("10.1.2.3", "10.1.2.9", 40002)
    assert "tx control message to 10.1.2.9:40002 on nic 3 (enp6s0" in slow["exception_type"]
    level, outcome = heldout.imported(ev)
    assert level == "READY WITH WARNINGS"
    assert heldout.items(outcome, "evidence-nccl-net-slow")[0].startswith(
        "a3-node-7 pid 4411, device 5:"
    )


def test_tcpx_data_socket_recv_slowness_is_read_too(tmp_path: Path) -> None:
    # tracepoint.cc's send/recv report: a data socket that would block (EAGAIN), not an error
    text = (
        "[2] tcpxResult_t tcpxCommProgress(tcpxComm*):1231 NCCL WARN 0x1:0x2, nic 2, enp7s0, "
        "172.16.1.5<50000><-172.16.1.6<50001> rx recv timeout error 11, Resource temporarily "
        "unavailable: [0/524288]/524288 cnt 900, nanos 2000000000\n"
    )
    ev = _write(tmp_path, text)
    (slow,) = [f for f in ev.failures if f["kind"] == "nccl_net_slow"]
    assert (slow["device"], slow["rank"], slow["remote_ip"]) == (2, None, "172.16.1.6")
    assert "data socket recv with 172.16.1.6:50001" in slow["exception_type"]
    assert "after 2.0 s (900 polls)" in slow["exception_type"]
    level, _ = heldout.imported(ev)
    assert level == "READY WITH WARNINGS"


def test_tcpx_stall_beside_a_real_failure_keeps_the_failure(tmp_path: Path) -> None:
    # a plugin's error (its closed-connection WARN) after the stall is still an NCCL error
    text = _text(TCPX) + (
        "\n[0] tcpxResult_t tcpxCommProgress(tcpxComm*):1290 NCCL WARN Net : Connection closed "
        "by remote peer 172.16.0.11<39187><-172.16.0.95<46723> rx\n"
    )
    ev = _write(tmp_path, text)
    assert [f["kind"] for f in ev.failures if f["line"] in (1, 3)] == ["nccl_net_slow"] * 2
    level, outcome = heldout.imported(ev)
    assert level == "NOT READY"
    assert ("evidence-nccl-net-slow", "warning") in heldout.above_info(outcome)
    assert ("evidence-nccl-warning", "critical") in heldout.above_info(outcome)


def test_mpi_rank_tag_before_a_full_nccl_prefix_is_still_a_rank(tmp_path: Path) -> None:
    # MPICH's "-prepend-rank" before NCCL's whole prefix: the tag is a rank, the prefix's
    # "[1]" the device (the plugin-signature exception must not swallow it)
    text = (
        "[3] node1:100:200 [1] misc/socket.cc:71 NCCL WARN Call to connect returned Connection "
        "refused, retrying\n[3] node1:100:200 [1] misc/socket.cc:71 NCCL WARN Cuda failure "
        "101 'invalid device ordinal'\n"
    )
    ev = _write(tmp_path, text)
    warned = [f for f in ev.failures if f["library"] == "NCCL"]
    assert warned
    assert {f["rank"] for f in warned} == {3}


# --- SHARP's coll init error answered by NCCL's CollNet fallback ---------------------------------


def test_sharp_init_error_with_collnet_fallback_is_a_warning() -> None:
    ev = _load(SHARP)
    warned = [f for f in ev.failures if f["kind"] == "nccl_warning"]
    assert [(f["line"], f["host"], f["pid"], f["device"]) for f in warned] == [
        (1, "ib-vm-52", 1047884, 7),
        (15, "ib-vm-41", 1056918, 0),
    ]
    assert {f["exception_type"] for f in warned} == {"start-up fallback"}
    assert "Cannot create SHARP job(-11)" in warned[0]["message"]
    level, outcome = heldout.imported(ev)
    assert level == "READY WITH WARNINGS"
    assert heldout.above_info(outcome) == [("evidence-nccl-fallback-warning", "warning")]
    items = heldout.items(outcome, "evidence-nccl-fallback-warning")
    assert items[0].startswith("ib-vm-52 pid 1047884, device 7: NET/IB : SHARP coll init error")
    assert items[0].endswith(f"{SHARP}, line 1)")
    assert items[1].endswith(f"{SHARP}, line 15)")


def test_sharp_init_error_without_the_fallback_line_stays_critical(tmp_path: Path) -> None:
    # the log ends before NCCL says it went on point-to-point: nothing shows it went on
    text = "\n".join(_text(SHARP).splitlines()[:13]) + "\n"
    ev = _write(tmp_path, text)
    (warned,) = [f for f in ev.failures if f["kind"] == "nccl_warning"]
    # (no start-up fallback; read as the CollNet set-up it failed, set 659)
    assert warned["exception_type"].startswith("CollNet (SHARP) could not be set up")
    level, outcome = heldout.imported(ev)
    assert level == "NOT READY"
    assert ("evidence-nccl-warning", "critical") in heldout.above_info(outcome)


def test_sharp_group_create_failure_on_another_host_with_fallback(tmp_path: Path) -> None:
    # the plugin's other set-up WARN (sharp_coll_comm_init), another host and GPU
    text = (
        "gpu36:20775:20825 [3] sharp_plugin.c:354 NCCL WARN SHARP group create: Streaming Tree "
        "lock failed (-18)\n"
        "gpu36:20775:20807 [3] NCCL INFO transport.cc:327 -> 2\n"
        "gpu36:20772:20805 [0] transport.cc:384 NCCL WARN Cannot initialize CollNet, using "
        "point-to-point network instead\n"
    )
    ev = _write(tmp_path, text)
    warned = [f for f in ev.failures if f["kind"] == "nccl_warning"]
    assert [(f["line"], f["device"], f["exception_type"]) for f in warned] == [
        (1, 3, "start-up fallback"),
        (3, 0, "start-up fallback"),
    ]
    level, _ = heldout.imported(ev)
    assert level == "READY WITH WARNINGS"


def test_collnet_fallback_does_not_excuse_an_unrelated_error(tmp_path: Path) -> None:
    text = _text(SHARP) + (
        "ib-vm-52:1047884:1048148 [7] transport/p2p.cc:275 NCCL WARN Cuda failure 'out of memory'\n"
    )
    ev = _write(tmp_path, text)
    level, outcome = heldout.imported(ev)
    assert level == "NOT READY"
    items = heldout.items(outcome, "evidence-nccl-warning")
    assert "out of memory" in items[0]
    assert "(a start-up fallback: NCCL went on without it)" in items[1]
