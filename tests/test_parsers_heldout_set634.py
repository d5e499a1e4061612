"""Outputs of round HHHH's held-out evaluation (set 634, network and node tool outputs on GPU
clusters) that the advisor read in part or not at all before this change
(tests/data/evidence_heldout_68, sources in tests/data/SOURCES.md): three ib_write_bw copies that
end before any bandwidth figure (settings and GIDs only, or a row cut after #iterations) passed
as READY; an mlxconfig query carried in one JSON log field, its line breaks escaped, not read;
an mstconfig that could not open its NIC ("-E- Failed to open the device", exit status 3) read
as an unknown log with no error."""

from __future__ import annotations

import json
from functools import partial
from pathlib import Path

from tests import heldout
from tests.conftest import DATA

HELDOUT = DATA / "evidence_heldout_68"

ROW_CUT = "ib_write_bw_server_roce_mlx5_0_gid3_d10_row_65536_cut_no_bw_peak_perftest234.txt"
GIDS_ONLY = (
    "ib_write_bw_root_prompt_server_roce_mlx5_0_gid3_1MB_report_gbits_settings_and_gids_only_"
    "perftest240_cut.txt"
)
IBP5 = (
    "ib_write_bw_report_min_bw_ibp5_ib_lid_0x1907_to_0x1922_indented4_settings_only_"
    "perftest214_cut.txt"
)
MLXCONFIG_JSON = (
    "mlxconfig_q_cx6lx_mcx631102ac_0108_00_00_0_in_sriov_daemon_json_log_escaped_newlines_"
    "wrapped_sriovop968_cut.txt"
)
MSTCONFIG = (
    "mstconfig_q_cx6lx_0000_18_00_0_failed_to_open_device_exit3_sriov_daemon_glog_markdown_"
    "sriovop317.txt"
)


_load = partial(heldout.load, HELDOUT)
_text = partial(heldout.text, HELDOUT)


_write = partial(heldout.load_copy, name="copy.txt")


# --- perftest: a copy with no bandwidth figure --------------------------------------------------


def test_a_perftest_row_cut_after_its_iterations_is_no_result() -> None:
    ev = _load(ROW_CUT)
    (port,) = ev.hca_ports
    run = port["perftest"]
    assert (port["ca"], port["link_layer"], run["gid_index"], run["peer"]) == (
        "mlx5_0",
        "Ethernet",
        3,
        "10.255.255.4",
    )
    assert (run["rows"], run["failed"], run["cut_row_line"]) == ([], None, 26)
    said = heldout.said(ev)
    assert (
        "perftest: perftest on mlx5_0: its report row is cut after #bytes and #iterations, before "
        "its figures"
    ) in said
    assert not [m for m in said if "no report row" in m]
    level, outcome = heldout.imported(ev)
    assert level == "READY WITH WARNINGS"
    assert heldout.above_info(outcome) == [("evidence-rdma-perftest-no-result", "warning")]
    (item,) = heldout.items(outcome, "evidence-rdma-perftest-no-result")
    assert item.startswith(
        "mlx5_0 port 1 (Ethernet): RDMA_Write BW to 10.255.255.4: its report row cut after "
        "#bytes and #iterations, no figure ("
    )
    assert item.endswith(", line 26)")
    # (no figure is derived from the iterations: none is said)
    assert not [i for f in outcome.findings for i in map(str, f.items) if "Gb/s" in i]


def test_perftest_settings_and_gids_alone_are_no_result() -> None:
    for name, ca, link, peer, line in (
        (GIDS_ONLY, "mlx5_0", "Ethernet", "11.0.0.88", 8),
        (IBP5, "ibp5", "IB", None, 3),
    ):
        ev = _load(name)
        (port,) = ev.hca_ports
        run = port["perftest"]
        assert (port["ca"], port["link_layer"], run["peer"], run["rows"], run["failed"]) == (
            ca,
            link,
            peer,
            [],
            None,
        ), name
        assert run["cut_row_line"] is None
        level, outcome = heldout.imported(ev)
        assert level == "READY WITH WARNINGS", name
        assert heldout.above_info(outcome) == [("evidence-rdma-perftest-no-result", "warning")]
        (item,) = heldout.items(outcome, "evidence-rdma-perftest-no-result")
        assert item.startswith(f"{ca} port 1 ({link}): RDMA_Write BW")
        assert "no report row after its settings" in item
        assert item.endswith(f", line {line})"), name


def test_the_whole_row_of_the_same_run_is_a_result(tmp_path: Path) -> None:
    # (the row whole under a prompt, its MB/sec figures: read, and no warning of a missing result;
    # BW peak 0.00 as perftest prints it under -D)
    text = _text(ROW_CUT).replace(
        " 65536      664644", " 65536      664644         0.00               4356.55    0.069705"
    )
    ev = _write(tmp_path, "root@node1:~# ib_write_bw -D 10 -d mlx5_0\n" + text)
    run = ev.hca_ports[0]["perftest"]
    assert (len(run["rows"]), run["cut_row_line"]) == (1, None)
    level, outcome = heldout.imported(ev)
    assert level == "READY"
    assert "evidence-rdma-perftest-no-result" not in {f.rule_id for f in outcome.findings}


def test_a_cut_row_of_a_latency_test_is_no_result_too(tmp_path: Path) -> None:
    ev = _write(
        tmp_path,
        " ib_send_lat -d mlx5_1 10.0.0.2\n"
        "---------------------------------------------------------------------------------------\n"
        "                    Send Latency Test\n"
        " Dual-port       : OFF\t\tDevice         : mlx5_1\n"
        " Number of qps   : 1\t\tTransport type : IB\n"
        " Link type       : IB\n"
        "---------------------------------------------------------------------------------------\n"
        " #bytes #iterations    t_min[usec]    t_max[usec]  t_typical[usec]    t_avg[usec]\n"
        " 2       1000\n",
    )
    run = ev.hca_ports[0]["perftest"]
    assert (run["rows"], run["cut_row_line"]) == ([], 9)
    level, outcome = heldout.imported(ev)
    assert level == "READY WITH WARNINGS"
    assert heldout.above_info(outcome) == [("evidence-rdma-perftest-no-result", "warning")]


# --- mlxconfig query inside a JSON log field ----------------------------------------------------


def test_an_mlxconfig_query_in_a_json_log_field_is_read() -> None:
    ev = _load(MLXCONFIG_JSON)
    assert ev.files[0].formats == ["mlxconfig"]
    assert ev.failures == []
    said = heldout.said(ev)
    assert (
        "mlxconfig: mlxconfig query: ConnectX6LX (0108:00:00.0), 7 setting(s); firmware "
        "settings, not judged"
    ) in said
    assert (
        "2 line(s) carrying an output in one string, its line breaks escaped ('\\n'), read as "
        "the lines it holds: line numbers from there on count them"
    ) in said
    level, outcome = heldout.imported(ev)
    assert level == "READY"
    assert heldout.above_info(outcome) == []


def _query(roce: str) -> str:
    return (
        "\nDevice #1:\n----------\n\nDevice type:    ConnectX5       \nDevice:         "
        "0000:3b:00.0    \n\nConfigurations:                              Next Boot\n"
        "         SRIOV_EN                            True(1)         \n"
        "         NUM_OF_VFS                          8               \n"
        f"         ROCE_CONTROL                        {roce}  \n"
    )


def test_an_escaped_query_in_a_whole_daemon_log_reads_its_roce_setting(tmp_path: Path) -> None:
    # (the daemon's JSON logger, json.dumps: a structured line among plain glog lines)
    line = json.dumps({"level": "info", "msg": "RunCommand()", "output": _query("ROCE_DISABLE(1)")})
    ev = _write(
        tmp_path,
        "I1127 06:34:40.000001   1 daemon.go:120] starting config daemon\n"
        f"{line}\n"
        "I1127 06:34:42.000001   1 daemon.go:140] nodeState sync done\n",
    )
    assert "mlxconfig" in ev.files[0].formats
    (off,) = [e for e in ev.failures if e["kind"] == "nic_roce_disabled"]
    assert off["line"] == 12
    # the same value enabled: read, nothing to say
    line = json.dumps({"msg": "RunCommand()", "output": _query("ROCE_ENABLE(2)")})
    ev = _write(tmp_path, f"{line}\n")
    assert ev.files[0].formats == ["mlxconfig"]
    assert ev.failures == []


def test_an_error_message_with_a_few_escaped_breaks_is_left_as_it_is(tmp_path: Path) -> None:
    # (under ESCAPED_BREAKS_MIN escapes: a message's own, not an output carried whole)
    text = '{"level": "error", "msg": "RunCommand()", "output": "\\nDevice #1:\\n---\\n"}\n'
    ev = _write(tmp_path, text)
    assert not [m for m in heldout.said(ev) if "line breaks escaped" in m]


# --- mstconfig / mlxconfig: "-E-" ----------------------------------------------------------------


def test_mstconfig_that_could_not_open_the_device_is_a_failure() -> None:
    ev = _load(MSTCONFIG)
    assert ev.files[0].formats == ["mlxconfig"]
    (failure,) = ev.failures
    assert (failure["kind"], failure["code"], failure["line"], failure["exit_code"]) == (
        "nic_config_tool_error",
        "unopened",
        3,
        3,
    )
    assert failure["exception_type"] == (
        "mstconfig -d 0000:18:00.0: Failed to open the device (exit status 3)"
    )
    level, outcome = heldout.imported(ev)
    assert level == "NOT READY"
    assert heldout.above_info(outcome) == [("evidence-nic-config-tool-unopened", "critical")]
    (item,) = heldout.items(outcome, "evidence-nic-config-tool-unopened")
    assert item.startswith("mstconfig -d 0000:18:00.0: Failed to open the device (exit status 3)")
    assert item.endswith(", line 3)")


def test_mlxconfig_at_a_prompt_that_could_not_open_the_device(tmp_path: Path) -> None:
    # (MFT's mlxconfig, the -E- line right under the command, no exit status logged)
    ev = _write(
        tmp_path,
        "[root@gpu-07 ~]# mlxconfig -d /dev/mst/mt4125_pciconf0 query\n"
        "-E- Failed to open the device\n",
    )
    (failure,) = ev.failures
    assert (failure["code"], failure["exit_code"], failure["exception_type"]) == (
        "unopened",
        None,
        "mlxconfig -d /dev/mst/mt4125_pciconf0: Failed to open the device",
    )
    assert heldout.imported(ev)[0] == "NOT READY"


def test_another_mlxconfig_error_is_a_warning(tmp_path: Path) -> None:
    ev = _write(
        tmp_path,
        "$ sudo mlxconfig -d 4b:00.0 -y set FOO_BAR=1\n-E- Unknown Parameter: FOO_BAR\n",
    )
    (failure,) = ev.failures
    assert (failure["code"], failure["exception_type"]) == (
        "error",
        "mlxconfig -d 4b:00.0: Unknown Parameter: FOO_BAR",
    )
    level, outcome = heldout.imported(ev)
    assert level == "READY WITH WARNINGS"
    assert heldout.above_info(outcome) == [("evidence-nic-config-tool-error", "warning")]


def test_an_error_line_far_below_the_command_is_not_its(tmp_path: Path) -> None:
    ev = _write(
        tmp_path,
        "$ mlxconfig -d 4b:00.0 q\n"
        + _query("ROCE_ENABLE(2)")
        + "\n$ ibdiagnet\n-E- Discovery failed\n",
    )
    assert not [e for e in ev.failures if e["kind"] == "nic_config_tool_error"]
