"""Outputs of round WWW's held-out set 568 that the advisor read wrong or not at all before this
change (tests/data/evidence_heldout_60, sources in tests/data/SOURCES.md): NVIDIA hosts' RDMA
tools (rdma link, ibstat, ibdev2netdev with qperf, a quoted perftest head)."""

from __future__ import annotations

import re
import time
from functools import partial

from advisor.evidence.command import cluster_from
from advisor.evidence.load import EvidenceFacts, load_text
from advisor.facts import Facts, RunInfo
from advisor.parsers import MARKED_PROMPT_HOST_RE, pingpong, rdma
from advisor.report import render
from advisor.verdict import verdict
from tests import heldout
from tests.conftest import DATA

HELDOUT = DATA / "evidence_heldout_60"

RDMA_LINK_READ_LAT = (
    "spiderpool_ib_sriov_pod_ib_read_lat_mlx5_5_roce_gid2_172_81_0_118_2b_typical_6_74us_"
    "libibverbs_stat_warnings_healthy.txt"
)
QPERF_TWO_HOSTS = (
    "linuxrdma_qperf_failure_ib2netdev_two_hosts_mlx5_1_ens261f1_down_qperf_rc_bw_modify_qp_rtr_"
    "einval.txt"
)
IBSTAT_FLATTENED = (
    "linuxrdma_ipoib_child_ibstat_flattened_no_indent_2x_mt4119_cx5_ib_active_rate40_fw16_27_"
    "2008_healthy.txt"
)
QUOTED_ZERO_GIDS = (
    "k8srdmasriov32_ib_write_bw_quoted_settings_mlx5_0_roce_gid_index0_both_gids_all_zero_"
    "addresses_redacted.txt"
)


_load = partial(heldout.load, HELDOUT)


def report_tables(ev: EvidenceFacts, css_class: str) -> str:
    """The report's tables of class ``css_class`` of an import of ``ev``, rendered in-process."""
    facts = Facts(
        run=RunInfo(run_id="import", run_dir="", command="advisor import", profile="import"),
        cluster=cluster_from(ev),
        evidence=ev,
    )
    html = render.render_report(facts, verdict(facts))
    return "".join(re.findall(rf'<table class="{css_class}">.*?</table>', html, re.S))


def _hcas_table(ev: EvidenceFacts) -> str:
    """The report's RDMA port table(s) of an import of ``ev``."""
    return report_tables(ev, "hcas")


def test_rdma_links_netdev_is_shown_without_a_state_it_does_not_give() -> None:
    ev = _load(RDMA_LINK_READ_LAT)
    (link,) = [p for p in ev.hca_ports if p["tool"] == "rdma link"]
    assert (link["ca"], link["netdev"], link["netdev_up"], link["line"]) == (
        "mlx5_5",
        "eth0",
        None,
        3,
    )
    table = _hcas_table(ev)
    assert "<td>eth0</td>" in table
    assert "eth0 (down)" not in table and "eth0 (up)" not in table
    assert not ev.failures


def test_qperfs_failed_rc_test_is_read_with_its_hosts() -> None:
    ev = _load(QPERF_TWO_HOSTS)
    (fail,) = ev.failures
    assert (fail["kind"], fail["line"], fail["host"], fail["library"]) == (
        "rdma_test_setup_failed",
        12,
        "rdmarhel0",
        "qperf",
    )
    assert fail["message"] == (
        "qperf rc_bw from rdmarhel0 to 173.168.100.103 (its server started on nstcloudcc1)"
    )
    assert fail["exception_type"] == "failed to modify QP to RTR: Invalid argument"
    (item,) = heldout.found(ev)["evidence-rdma-test-setup-failed"].items
    assert "failed to modify QP to RTR: Invalid argument" in item and "line 12" in item
    # the two hosts' ibdev2netdev listings told apart by their prompts
    assert {(p["line"], p["ca"], p["host"]) for p in ev.hca_ports} == {
        (2, "mlx5_0", "nstcloudcc1"),
        (3, "mlx5_1", "nstcloudcc1"),
        (6, "mlx5_0", "rdmarhel0"),
        (7, "mlx5_1", "rdmarhel0"),
    }
    assert [(h["host"], h["named"]) for h in ev.hosts] == [
        ("nstcloudcc1", True),
        ("rdmarhel0", True),
    ]
    table = _hcas_table(ev)
    # (each port once, under its own host)
    assert table.count("<td>ens261f") == 2 and table.count("<td>ens801f") == 2
    assert "<td>ens261f1 (down)</td>" in table


def test_a_qperf_result_is_said_and_a_socket_tests_error_is_no_rdma_failure() -> None:
    ev = load_text(
        "[u@a ~]$ qperf b tcp_bw rc_lat\ntcp_bw:\n    bw  =  1.19 GB/sec\nrc_lat:\n"
        "    latency  =  11.5 us\n",
        "qperf.txt",
    )
    assert "pingpong: qperf tcp_bw from a to b: bw = 1.19 GB/sec" in heldout.said(ev)
    assert "pingpong: qperf rc_lat from a to b: latency = 11.5 us" in heldout.said(ev)
    assert not ev.failures
    # (a socket test's error is its line as written, no RDMA test's failure)
    ev = load_text("$ qperf b tcp_bw\ntcp_bw:\nb: failed to connect\n", "qperf.txt")
    assert [(f["kind"], f["line"]) for f in ev.failures] == [("log_error", 3)]
    # an RDMA test's: read once, by qperf's reading
    ev = load_text("$ qperf b rc_bw\nrc_bw:\nfailed to post send\n", "qperf.txt")
    assert [(f["kind"], f["line"]) for f in ev.failures] == [("transfer_stalled", 3)]


def test_ibstats_prompt_names_the_host_and_a_cut_link_layer_is_said() -> None:
    ev = _load(IBSTAT_FLATTENED)
    assert [(p["ca"], p["host"], p["link_layer"]) for p in ev.hca_ports] == [
        ("mlx5_0", "ps401a-913.nst", "InfiniBand"),
        ("mlx5_1", "ps401a-913.nst", None),
    ]
    assert [(h["host"], h["named"]) for h in ev.hosts] == [("ps401a-913.nst", True)]
    assert (
        "rdma: mlx5_1 port 1: the copy ends before its Link layer line (ibstat prints it last "
        "in a port's block, as the other ports' show): its link layer is unknown"
    ) in heldout.said(ev)
    assert not ev.failures
    assert not [rule for rule in heldout.found(ev) if rule.startswith("evidence-")]


def test_a_perftest_head_quoted_in_part_and_its_all_zero_gids_are_read() -> None:
    ev = _load(QUOTED_ZERO_GIDS)
    (report,) = ev.files
    assert (report.status, report.formats) == ("read", ["perftest"])
    assert "read as a Markdown quote in part: '>' taken off 12 line(s)" in heldout.said(ev)
    (port,) = ev.hca_ports
    assert (port["ca"], port["link_layer"], port["active_mtu"]) == ("mlx5_0", "Ethernet", 1024)
    run = port["perftest"]
    assert (run["test"], run["gid_index"], run["empty_gids"], run["rows"]) == (
        "RDMA_Write BW",
        0,
        {"local": 16, "remote": 18},
        [],
    )
    (fail,) = ev.failures
    assert (fail["kind"], fail["line"], fail["library"]) == ("rdma_no_gid", 16, "perftest")
    assert fail["exception_type"].startswith(
        "mlx5_0 port 1 (RoCE, GID index 0): perftest RDMA_Write BW printed all-zero GIDs, its "
        "own (line 16) and the peer's (line 18)"
    )
    assert "evidence-rdma-no-gid" in heldout.found(ev)


def test_new_patterns_are_linear_on_a_long_line_and_many_blank_lines() -> None:
    patterns = [
        re.compile(pingpong.SIGNATURE, re.M),
        pingpong._QPERF_RESULT_RE,
        MARKED_PROMPT_HOST_RE,
        pingpong._QPERF_SETUP_ERROR_RE,
        rdma._IBSTAT_PORT_FIELD_RE,
        rdma._PERFTEST_GID_INDEX_RE,
    ]
    for text in (
        "rc_bw:\n" + " " * 100_000,
        "    bw  =  x" + " " * 100_000 + "y",
        "a@" + "b" * 100_000,
        "\n" * 100_000,
    ):
        # this process's CPU time: other jobs on a shared host do not count against it
        start = time.process_time()
        for p in patterns:
            p.search(text)
        pingpong.parse(text + "\nrc_bw:\n    bw  =  1 GB/sec\n")
        assert time.process_time() - start < 1.0
