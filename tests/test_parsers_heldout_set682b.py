"""Outputs of round PPPP's held-out evaluation (set 682, network and node tool outputs on GPU
clusters, part b) that the advisor read wrong before this change (tests/data/evidence_heldout_76,
sources in tests/data/SOURCES.md): infiniband-diags' ``sminfo`` (the master subnet manager at
lid 37, state 3 SMINFO_MASTER) and ``smpquery ND -L 37`` (that LID's node, b1nstcx02 HCA-1) were
no format the advisor knew, so a healthy copy was "unknown"; sminfo's failures (its
``iberror: failed:`` exit) copied alone were unknown too, and now say no subnet manager answered."""

from __future__ import annotations

from functools import partial

from advisor.evidence.load import EvidenceFacts, load_paths
from advisor.parsers import rdma
from tests import heldout
from tests.conftest import DATA

HELDOUT = DATA / "evidence_heldout_76"

SMINFO = "sminfo_master_sm_lid37_priority14_state3_then_smpquery_nd_b1nstcx02_hca1_healthy_cut.txt"

_write = partial(heldout.load_copy, name="copy.txt")


_text = partial(heldout.text, HELDOUT)


def _said(ev: EvidenceFacts) -> list[tuple[int | None, str]]:
    return [(m.line, m.message) for f in ev.files for m in f.messages]


def test_sminfos_master_and_smpquerys_node_are_read_ready() -> None:
    ev = load_paths([HELDOUT / SMINFO])
    (f,) = ev.files
    assert f.status == "read" and f.formats == ["rdma"]
    # no port is made up from the SM's answer
    assert ev.hca_ports == [] and ev.failures == []
    # sminfo (line 2): lid 37, its guid, priority 14, state 3 = SMINFO_MASTER; smpquery ND -L 37
    # (line 5) names that LID's node
    assert _said(ev) == [
        (
            2,
            "rdma: sminfo: the subnet manager at lid 37 (guid 0x7cfe90030016aef1, priority 14, "
            "activity count 4484381) is the master (SMINFO_MASTER): a subnet manager runs on the "
            "fabric sminfo's port is on (line 2); smpquery ND names lid 37's node: b1nstcx02 "
            "HCA-1 (line 5)",
        )
    ]
    level, outcome = heldout.imported(ev)
    assert level == "READY" and heldout.above_info(outcome) == []


def test_a_standby_sm_on_another_lid_and_a_node_of_another_lid_are_said_apart(tmp_path) -> None:
    # another LID and state (2, SMINFO_STANDBY, as sminfo.c's statestr names it); the smpquery
    # asks another LID, given with nodedesc's long name: not tied to the SM
    text = (
        _text(SMINFO)
        .replace("sm lid 37", "sm lid 5")
        .replace("state 3 SMINFO_MASTER", "state 2 SMINFO_STANDBY")
        .replace("smpquery ND -L 37", "smpquery nodedesc 12")
        .replace("b1nstcx02 HCA-1", "gpu-node07 mlx5_0")
    )
    ev = _write(tmp_path, text)
    said = dict(_said(ev))
    assert said[2].startswith("rdma: sminfo: the subnet manager at lid 5 (guid 0x7cfe90030016aef1")
    assert "is a standby (SMINFO_STANDBY): the master is another (line 2)" in said[2]
    assert "smpquery" not in said[2]
    # (the dots pad the name to 32 columns, smpquery.c node_desc: the name itself is read)
    assert said[5] == "rdma: smpquery ND: the node at lid 12 is gpu-node07 mlx5_0 (line 5)"
    level, _ = heldout.imported(ev)
    assert level == "READY"


def test_smpquery_nd_dest_reads_the_destination_past_flags() -> None:
    assert rdma._smpquery_nd_dest("ND -L 37") == "lid 37"
    assert rdma._smpquery_nd_dest("-C mlx5_1 -P 1 ND 4") == "lid 4"
    assert rdma._smpquery_nd_dest("-G NodeDesc 0x7cfe90030016aef0") == "guid 0x7cfe90030016aef0"
    assert rdma._smpquery_nd_dest("PI 37 1") is None
    assert rdma._smpquery_nd_dest("ND") is None


def test_sminfos_query_failure_alone_is_a_warning_not_ready(tmp_path) -> None:
    # sminfo.c: IBEXIT("query") where the SMInfo query to the SM's LID gets nothing back; the
    # ibwarn above is libibmad rpc.c's "_do_madrpc failed; dport (%s)"
    text = (
        "$ sminfo\n"
        "ibwarn: [3312] mad_rpc: _do_madrpc failed; dport (Lid 0)\n"
        "sminfo: iberror: failed: query\n"
    )
    ev = _write(tmp_path, text)
    (f,) = ev.files
    assert f.status == "read" and f.formats == ["rdma"]
    (event,) = ev.failures
    assert (event["kind"], event["line"]) == ("sminfo_failed", 3)
    assert event["exception_type"].startswith("sminfo's SMInfo query got no answer")
    level, outcome = heldout.imported(ev)
    assert level == "READY WITH WARNINGS"
    assert heldout.above_info(outcome) == [("evidence-sminfo-failed", "warning")]


def test_sminfo_that_could_not_open_its_port_is_said_as_such(tmp_path) -> None:
    # the form a pasted session shows (libibmad's "can't open UMAD port", then sminfo.c's
    # IBEXIT("Failed to open '%s' port '%d'"))
    text = (
        "[user@host ~]$ sminfo\n"
        "ibwarn: [55188] mad_rpc_open_port: can't open UMAD port ((null):0)\n"
        "sminfo: iberror: failed: Failed to open '(null)' port '0'\n"
    )
    ev = _write(tmp_path, text)
    (event,) = ev.failures
    assert event["kind"] == "sminfo_failed" and event["line"] == 2
    assert event["exception_type"] == (
        "sminfo could not open its MAD port: no subnet manager was asked"
    )
    assert "ib_umad not loaded" in event["message"]
    level, _ = heldout.imported(ev)
    assert level == "READY WITH WARNINGS"


def test_a_node_description_without_its_smpquery_command_is_not_taken(tmp_path) -> None:
    # the signature wants smpquery's command above the answer: a bare dotted line is no format
    ev = _write(tmp_path, "Node Description:.................b1nstcx02 HCA-1\n")
    assert ev.files[0].status != "read"
