"""Outputs of round UUU's held-out evaluation (set 556) that the advisor read wrong or not at all
before this change (tests/data/evidence_heldout_59, sources in tests/data/SOURCES.md)."""

from __future__ import annotations

import re
import time

from advisor.parsers import dcgm, rdma
from tests import heldout
from tests.test_parsers_heldout_set453 import HELDOUT, _load

FLINT_MLXCONFIG = (
    "terrence_pve_cx4_flint_query_fw12_28_2006_mlxconfig_eth_sriov_8vfs_ethtool_100g_rsfec_link_yes"
    ".txt"
)
GB10_GIDS = (
    "gb10_cx7_rdma_link_2_active_2_down_disabled_ibdev2netdev_show_gids_12_ib_write_bw_roce_92_57gbps"
    ".txt"
)
DCGM93_STATS = (
    "dcgm93_a100_mig_nvidia_smi_dcgmi_discovery_c_16_instances_group_gpu_ci_3_stats_j_0_processes"
    "_na_overall_healthy.txt"
)
IBQUERYERRORS = (
    "linuxrdma_opensm_err3120_sminfo_timeouts_ibqueryerrors_sx6036_linkdowned_xmitdiscards_4_bad"
    "_nodes.txt"
)
DCGM314_MISMATCH = (
    "dcgm314_dcgmi_health_set_a_api_version_mismatch_4_7_0_hostengine_version_mismatch_p100"
    "_discovery_1gpu.txt"
)
DCGM132_PROFILING = (
    "dcgm132_dcgmi_dmon_e_1001_error_33_module_not_loaded_modules_l_profiling_failed_to_load.txt"
)


def _text(name: str) -> str:
    return (HELDOUT / name).read_text(encoding="utf-8")


def test_mlxconfig_query_with_name_and_description_lines_and_flint_query_are_read() -> None:
    ev = _load(FLINT_MLXCONFIG)
    (f,) = ev.files
    assert f.status == "read" and "mlxconfig" in f.formats and "ethtool_settings" in f.formats
    said = heldout.said(ev)
    assert (
        "mlxconfig: mlxconfig query: ConnectX4 (/dev/mst/mt4115_pciconf0), 3 setting(s): "
        "LINK_TYPE_P1 ETH(2), SRIOV_EN True(1), NUM_OF_VFS 8; firmware settings, not judged"
    ) in said
    assert (
        "mlxconfig: flint query: firmware 12.28.2006 of 15.9.2020, PSID LNV2180110032, image FS3; "
        "not judged"
    ) in said
    assert [m.line for m in f.messages if m.message.startswith("mlxconfig:")] == [2, 19]
    assert not ev.failures


def test_masked_show_gids_rows_are_counted_and_marked_masked() -> None:
    gids, found, _ = rdma.parse_show_gids(_text(GB10_GIDS))
    assert found == 12 and len(gids) == 12
    own = [g for g in gids if g.ca == "rocep1s0f0"]
    assert [g.index for g in own] == [0, 1, 2, 3]
    assert [g.masked for g in own] == [True, True, False, False]
    ev = _load(GB10_GIDS)
    said = heldout.said(ev)
    assert any(
        m.startswith("show_gids: rocep1s0f0 port 1 (enp1s0f0np0): 4 GID(s)")
        and m.endswith("RoCEv2 index 3 192.168.100.10")
        for m in said
    )
    assert not any("2 GID(s); RoCEv2" in m for m in said)


def test_dcgmi_stats_job_summary_is_not_a_health_check_and_discovery_c_is_read() -> None:
    text = _text(DCGM93_STATS)
    assert not re.search(dcgm.HEALTH_SIGNATURE, text, re.M)
    ev = _load(DCGM93_STATS)
    assert not [d for d in ev.dcgm_diags if d["tool"] == "dcgmi health"]
    said = heldout.said(ev)
    assert (
        "dcgmi_discovery: dcgmi discovery -c: 4 GPU(s) with 16 GPU instance(s) and 16 compute "
        "instance(s) (MIG): GPU 0 4 GI / 4 CI, GPU 1 4 GI / 4 CI, GPU 2 4 GI / 4 CI, "
        "GPU 3 4 GI / 4 CI; a listing, not judged"
    ) in said
    (note,) = dcgm.stats_notes(text)
    assert note.line == 119
    assert note.message.startswith(
        "dcgmi stats -j (job 952404): job summary: No. of Processes 0; Total Execution Time (sec) "
        "6391.9; Energy Consumed (Joules) Not Specified; Power Usage (Watts) Avg: N/A, Max: N/A, "
        "Min: N/A; Max GPU Memory Used (bytes) 0; Double Bit ECC Errors Not Specified; "
        "Critical XID Errors 0; "
        "Overall Health Healthy"
    )
    # (review 61c: the job's stats, its Overall Health Healthy: no check failed or warned)
    assert note.message.endswith("the job's stats")
    assert dcgm.stats_read(text)[1] == []
    assert re.search(dcgm.STATS_SIGNATURE, text, re.M)


def test_a_health_report_overall_row_without_its_title_is_still_read() -> None:
    text = "+====+\n| Overall Health | Warning |\n"
    report, _ = dcgm.parse_health(text)
    assert [(c.name, c.result) for c in report.checks] == [("Overall Health", "Warn")]
    assert re.search(dcgm.HEALTH_SIGNATURE, "| Overall Health | Healthy |\n", re.M)


def test_ibqueryerrors_port_counters_and_summary_are_read() -> None:
    text = "\n".join(
        line.removeprefix(">").removeprefix(" ") for line in _text(IBQUERYERRORS).splitlines()
    )
    assert re.search(rdma.IBQUERYERRORS_SIGNATURE, text, re.M)
    ports, summary = rdma.parse_ibqueryerrors(text)
    assert summary == (40, 4, 4, 43, 14)
    switch = [p for p in ports if p.node == "MF0;ys23ib4:SX6036/U1"]
    assert [p.port for p in switch] == ["ALL", "0", "1", "2", "3", "4", "5", "6", "7", "8"]
    assert switch[0].counters["LinkDownedCounter"] == 48
    assert switch[0].counters["PortXmitDiscards"] == 15854
    assert {p.port for p in switch if p.counters.get("SymbolErrorCounter") == 65535} == {"5", "7"}
    notes = rdma.ibqueryerrors_notes(text)
    (sx,) = [n for n in notes if "SX6036" in n.message]
    assert "LinkDownedCounter 48" in sx.message and "PortXmitDiscards 15854" in sx.message
    assert "port 5: SymbolErrorCounter 65535 (its ceiling: it stopped counting)" in sx.message
    assert notes[-1].message == (
        "ibqueryerrors summary: 4 of 4 node(s) bad, 14 of 43 port(s) with errors beyond threshold"
    )
    (server,) = [n for n in notes if n.message.startswith("ibqueryerrors server mlx4_0")]
    assert "no error counter, congestion only" in server.message


def test_dcgmi_health_api_version_mismatch_is_dcgms_own_failure_not_a_gpu_fault() -> None:
    ev = _load(DCGM314_MISMATCH)
    (f,) = ev.files
    assert "dcgmi_health" in f.formats
    (diag,) = [d for d in ev.dcgm_diags if d["tool"] == "dcgmi health"]
    assert not diag["failed"]  # no GPU check failed
    unmet = diag["precondition_failed"]
    assert [(c["name"], c["line"]) for c in unmet] == [
        ("Health watches (set)", 2),
        ("Health watches (get)", 5),
    ]
    assert "API version mismatch" in unmet[0]["summary"]
    assert "version mismatch 2002028 != 300202c for module 0" in unmet[0]["summary"]
    assert "not a GPU fault" in unmet[0]["summary"]


def test_dcgmi_dmon_watch_error_says_the_profiling_module_failed_to_load() -> None:
    text = _text(DCGM132_PROFILING)
    assert re.search(dcgm.DMON_SIGNATURE, text, re.M)
    assert [(no, name) for no, name, state in dcgm.modules(text) if state == "Failed to load"] == [
        (19, "Profiling")
    ]
    failure = dcgm.dmon_failure(text)
    assert failure is not None and failure[0] == 3
    assert (
        "Result -33: This request is serviced by a module of DCGM that is not currently loaded"
        in failure[1]
    )
    assert "Profiling failed to load (line 19)" in failure[1]
    assert failure[1].endswith("DCGM's own failure, not a GPU fault")
    ev = _load(DCGM132_PROFILING)
    assert any("DCGM's profiling module did not load" in m for m in heldout.said(ev))
    # no GPU fault, but the watch asked for never ran: a warning since set 639
    assert [(f["kind"], f["code"]) for f in ev.failures] == [("dcgm_watch_refused", "-33")]


def test_new_patterns_are_linear_on_a_long_line_and_many_blank_lines() -> None:
    long_line = "| " + "x " * 50_000
    blanks = "\n" * 100_000
    patterns = [
        rdma.MLXCONFIG_SIGNATURE,
        rdma.IBQUERYERRORS_SIGNATURE,
        dcgm.HEALTH_SIGNATURE,
        dcgm.STATS_SIGNATURE,
        dcgm.DMON_SIGNATURE,
        dcgm.DISCOVERY_SIGNATURE,
    ]
    for text in (long_line, blanks, 'Errors for "' + "a" * 100_000):
        # this process's CPU time: other jobs on a shared host do not count against it
        start = time.process_time()
        for p in patterns:
            re.search(p, text, re.M)
        rdma.parse_show_gids(text + "\nn_gids_found=0\n")
        dcgm.dmon_failure(text)
        dcgm.stats_notes(
            text + "\nSuccessfully retrieved statistics for job: 1.\n| No. of Processes | 0 |\n"
        )
        assert time.process_time() - start < 2.0
