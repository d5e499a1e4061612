"""Output of round JJJJ's held-out evaluation (set 647, NVIDIA collective logs) that the advisor
read in part before this change (tests/data/evidence_heldout_70, sources in
tests/data/SOURCES.md): NCCL 2.29.2 on one host, two ranks with P2P and SHM turned off by the
environment, whose first send fails on an address of family 1 (AF_UNIX) with ncclInternalError.
Its culprit line was right, but the cause said was "the nodes run different NCCL versions", a
warning said the collectives between hosts ran over TCP (NCCL's "nNodes 2" taken for two hosts,
where with P2P and SHM off it counts each GPU of one host as a node), and NET/IB's
relaxed-ordering flag "[RO]" was said as the device it uses."""

from __future__ import annotations

from functools import partial
from pathlib import Path

from advisor.evidence.load import EvidenceFacts
from tests import heldout
from tests.conftest import DATA

HELDOUT = DATA / "evidence_heldout_70"

AF_UNIX_LOG = "nccl_2_29_2_socket_only_ungrouped_sendrecv_internal_error_af_unix_nccl2057.log"


_load = partial(heldout.load, HELDOUT)


_write = partial(heldout.load_copy, name="copy.log")


def _text() -> str:
    return (HELDOUT / AF_UNIX_LOG).read_text()


def _kinds(ev: EvidenceFacts) -> list[tuple[str, int]]:
    return [(f["kind"], f["line"]) for f in ev.failures]


# --- the real file --------------------------------------------------------------------------


def test_the_af_unix_address_is_the_failure_with_no_version_skew_invented() -> None:
    ev = _load(AF_UNIX_LOG)
    assert ev.files[0].formats == ["log"]
    # the socket warning between hosts is gone: the WARN of line 46 is the one failure
    assert _kinds(ev) == [("nccl_warning", 46)]
    (warn,) = ev.failures
    assert (warn["rank"], warn["host"], warn["device"], warn["pid"]) == (
        0,
        "VM-16-64-ubuntu",
        0,
        28471,
    )
    assert "3 = ncclInternalError" in warn["message"]
    said = warn["exception_type"]
    assert "local Unix-domain address (family 1, AF_UNIX; line 46)" in said
    assert "ncclGroupStart and ncclGroupEnd" in said
    # one NCCL build in the log (lines 7-8): nothing of versions differing between nodes
    assert "NCCL versions" not in said and "version" not in said
    level, outcome = heldout.imported(ev)
    assert level == "NOT READY"
    assert heldout.above_info(outcome) == [("evidence-nccl-warning", "critical")]
    (item,) = heldout.items(outcome, "evidence-nccl-warning")
    assert item.startswith("VM-16-64-ubuntu pid 28471 (rank 0), device 0: ncclSocketInit")
    assert "line 46)" in item


def test_sockets_chosen_by_turning_p2p_and_shm_off_are_a_note_not_a_warning() -> None:
    ev = _load(AF_UNIX_LOG)
    said = [m.removeprefix("log: ") for m in heldout.said(ev)]
    (note,) = [m for m in said if "NCCL_P2P_DISABLE=1 and NCCL_SHM_DISABLE=1 (set by" in m]
    assert note.startswith("VM-16-64-ubuntu: ")
    assert "no channel in the log crosses hosts" in note
    (nodes,) = [m for m in said if " node(s), 1 on each" in m]
    assert "NCCL's nodes, not necessarily hosts" in nodes
    _, outcome = heldout.imported(ev)
    assert "evidence-nccl-socket-network" not in {f.rule_id for f in outcome.findings}


def test_net_ibs_relaxed_ordering_flag_alone_is_no_device() -> None:
    said = [m.removeprefix("log: ") for m in heldout.said(_load(AF_UNIX_LOG))]
    assert "VM-16-64-ubuntu: NCCL's NET/IB uses [RO]" not in said
    assert (
        "VM-16-64-ubuntu: NCCL's NET/IB took no device (its '[RO]' is the relaxed-ordering flag, "
        "not a device)"
    ) in said
    # the socket interface NCCL took is still said as its own
    assert "VM-16-64-ubuntu: NCCL's NET/Socket uses [0]eth0:172.17.16.64<0>" in said


# --- variants built from the real text ------------------------------------------------------


def test_the_other_rank_on_another_gpu_names_its_own_rank_and_device(tmp_path: Path) -> None:
    # rank 1's process of the same run: its own pid, GPU 1, rank 1 in the Init lines
    text = (
        _text()
        .replace("VM-16-64-ubuntu:28471:", "VM-16-64-ubuntu:28472:")
        .replace(":28472:28471 [0]", ":28472:28472 [1]")
        .replace("28472:28499 [0]", "28472:28499 [1]")
        .replace("28472:28502 [0]", "28472:28502 [1]")
        .replace("28472:28503 [0]", "28472:28503 [1]")
        .replace("rank 0 nranks 2 cudaDev 0 nvmlDev 0", "rank 1 nranks 2 cudaDev 1 nvmlDev 1")
        .replace(
            "rank 0 nRanks 2 nNodes 2 localRanks 1 localRank 0",
            "rank 1 nRanks 2 nNodes 2 localRanks 1 localRank 0",
        )
        .replace("[Rank 0]", "[Rank 1]")
        .replace("ncclCommInitRank: rank 0", "ncclCommInitRank: rank 1")
    )
    ev = _write(tmp_path, text)
    assert _kinds(ev) == [("nccl_warning", 46)]
    (warn,) = ev.failures
    assert (warn["rank"], warn["device"], warn["pid"]) == (1, 1, 28472)
    assert "AF_UNIX" in warn["exception_type"]
    level, outcome = heldout.imported(ev)
    assert level == "NOT READY"
    assert heldout.above_info(outcome) == [("evidence-nccl-warning", "critical")]


def test_the_run_cut_before_its_send_stays_ready(tmp_path: Path) -> None:
    # the healthy twin: the same set-up, Init COMPLETE, no send yet
    text = "".join(_text().splitlines(keepends=True)[:44])
    ev = _write(tmp_path, text)
    assert ev.failures == []
    level, outcome = heldout.imported(ev)
    assert level == "READY"
    assert heldout.above_info(outcome) == []
    assert any("NCCL_SHM_DISABLE=1 (set by the environment)" in m for m in heldout.said(ev))


def test_nnodes_2_with_p2p_and_shm_on_still_spans_hosts(tmp_path: Path) -> None:
    # the same rank's lines without the two settings: NCCL's "nNodes 2" is then a second host,
    # reached over TCP, and the socket warning stays
    text = "".join(
        line
        for line in _text().splitlines(keepends=True)
        if "_DISABLE set by environment" not in line
    ).replace("NCCL_P2P_DISABLE=1 NCCL_SHM_DISABLE=1 ", "")
    ev = _write(tmp_path, text)
    kinds = _kinds(ev)
    assert ("nccl_socket_network", 12) in kinds and ("nccl_warning", 44) in kinds
    (net,) = [f for f in ev.failures if f["kind"] == "nccl_socket_network"]
    assert "its communicator spans 2 node(s) (NCCL's 'nRanks 2 nNodes 2')" in net["exception_type"]
    _, outcome = heldout.imported(ev)
    assert ("evidence-nccl-socket-network", "warning") in heldout.above_info(outcome)
    said = [m.removeprefix("log: ") for m in heldout.said(ev)]
    assert "a communicator of 2 rank(s) on 2 node(s), 1 on each (this log: rank(s) 0)" in said


def test_two_hosts_lines_with_p2p_and_shm_off_still_cross_hosts(tmp_path: Path) -> None:
    # P2P and SHM off, but a second host's process in the same log: its channels do cross hosts
    head = "".join(_text().splitlines(keepends=True)[:44])
    other = (
        head.replace("VM-16-64-ubuntu:28471:28471 [0]", "VM-16-65-ubuntu:3301:3301 [1]")
        .replace("VM-16-64-ubuntu:28471:", "VM-16-65-ubuntu:3301:")
        .replace("172.17.16.64<0>", "172.17.16.65<0>")
    )
    other = "".join(line for line in other.splitlines(keepends=True) if "VM-16-65" in line)
    ev = _write(tmp_path, head + other)
    assert {f["host"] for f in ev.failures if f["kind"] == "nccl_socket_network"} == {
        "VM-16-64-ubuntu",
        "VM-16-65-ubuntu",
    }
    _, outcome = heldout.imported(ev)
    assert ("evidence-nccl-socket-network", "warning") in heldout.above_info(outcome)


def test_an_address_of_family_0_keeps_its_own_reading(tmp_path: Path) -> None:
    # family 0 is an address never filled in: the AF_UNIX reading is for family 1 alone
    text = _text().replace("with family 1 is neither", "with family 0 is neither")
    ev = _write(tmp_path, text)
    (warn,) = [f for f in ev.failures if f["kind"] == "nccl_warning"]
    assert (
        "peer address of family 0 (line 46): an address never filled in" in warn["exception_type"]
    )
    assert "AF_UNIX" not in warn["exception_type"]
