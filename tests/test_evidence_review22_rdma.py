"""The twenty-second review's items on perftest's reader (advisor/parsers/rdma.py
``parse_perftest``), its rules (conf/rules/evidence.yaml) and hccn_tool's roce_test unit.

Samples are in tests/data/evidence_review22 (sources in tests/data/SOURCES.md). The inputs
written here are printed as perftest's source prints them (linux-rdma/perftest,
src/perftest_parameters.h: RESULT_FMT, RESULT_FMT_LAT, RESULT_FMT_LAT_DUR and their REPORT_FMT
rows; src/perftest_parameters.c ctx_print_test_info; the failure lines of
src/perftest_communication.c, perftest_resources.c and the tests' main()s)."""

from __future__ import annotations

from dataclasses import asdict
from pathlib import Path

import pytest

from advisor.evidence.load import load_paths
from advisor.parsers import rdma
from tests.conftest import DATA, run_advisor
from tests.rules_facts import finding_items, npu_port

HERE = DATA / "evidence_review22"
PR228 = HERE / "perftest_pr228_root_prompt_ib_write_bw_couldnt_connect_unable_to_open_fd.txt"
ISSUE132 = HERE / "perftest_issue132_root_prompt_ib_write_bw_a_report_gbits_mlx5_0_cut.txt"
NGC108 = (
    HERE / "ngc_multinode_perf_issue108_ib_write_bw_d30_bidirectional_taskset_background_cut.txt"
)
DGXSPARK = DATA / "evidence_heldout_47" / "dgxspark_guide_ib_write_bw_client1.txt"
ROCE_TEST = (
    DATA
    / "evidence_heldout_29"
    / "hccn_tool_roce_test_ib_send_bw_dev0_to_10_250_45_28_2mib_23365mbs.txt"
)

LINE = "-" * 87  # RESULT_LINE


def _settings(title: str, device: str = "mlx5_0") -> str:
    """ctx_print_test_info's block of a RoCE run, with both sides' GIDs (192.168.200.13 and .12)."""
    return (
        f"{LINE}\n"
        f"                    {title} Test\n"
        f" Dual-port       : OFF\t\tDevice         : {device}\n"
        " Number of qps   : 1\t\tTransport type : IB\n"
        " Connection type : RC\t\tUsing SRQ      : OFF\n"
        " TX depth        : 1\n"
        " Mtu             : 4096[B]\n"
        " Link type       : Ethernet\n"
        " GID index       : 3\n"
        " Max inline data : 220[B]\n"
        " rdma_cm QPs\t : OFF\n"
        " Data ex. method : Ethernet\n"
        f"{LINE}\n"
        " local address: LID 0000 QPN 0x0108 PSN 0x63ad7d\n"
        " GID: 00:00:00:00:00:00:00:00:00:00:255:255:192:168:200:13\n"
        " remote address: LID 0000 QPN 0x0076 PSN 0xf3810c\n"
        " GID: 00:00:00:00:00:00:00:00:00:00:255:255:192:168:200:12\n"
        f"{LINE}\n"
    )


def _messages(path: Path) -> list[str]:
    (report,) = load_paths([path]).files
    return [m.message for m in report.messages]


# --- 9: a command after a root prompt ("#") is read -------------------------------------------


def test_a_command_after_a_bracketed_root_prompt_is_read() -> None:
    ev = load_paths([ISSUE132])
    assert ev.files[0].status == "read" and ev.files[0].formats == ["perftest"]
    (port,) = ev.hca_ports
    run = port["perftest"]
    assert (port["ca"], port["port"], port["tool"]) == ("mlx5_0", 1, "perftest ib_write_bw")
    assert (run["test"], run["peer"]) == ("RDMA_Write BW", "node1")  # the command's server
    # ib_write_bw -a: 2, 4, 8 B read; the copy's last row is cut to three columns and left
    assert [r["bytes"] for r in run["rows"]] == [2, 4, 8] and run["bw_average_gbps"] == 0.17
    # the command is there: no "the command is not in the file" warning
    assert not any("command is not in the file" in m for m in _messages(ISSUE132))
    (item,) = finding_items({"evidence.hca_ports": ev.hca_ports}, "nccl")["evidence-rdma-perftest"]
    assert item.startswith("mlx5_0 port 1 (IB): RDMA_Write BW to node1: 0.17 Gb/s average at 8 B")


@pytest.mark.parametrize(
    "prompt",
    ["root@gpu-a:~# ", "[root@gpu-a ~]# ", "# ", "root@gpu-a:~# sudo ", "root@gpu-a:/opt# ./"],
)
def test_a_root_prompts_command_gives_the_device_port_and_peer(prompt: str) -> None:
    text = (
        f"{prompt}ib_write_bw -d mlx5_0 -i 2 -x 3 -s 65536 --report_gbits 10.0.0.2\n"
        + _settings("RDMA_Write BW")
        + " #bytes     #iterations    BW peak[Gb/sec]    BW average[Gb/sec]   MsgRate[Mpps]\n"
        + " 65536      5000             92.31              92.28  \t\t   0.176001\n"
    )
    (port,), warnings = rdma.parse_perftest(text)
    assert port.port == 2 and port.perftest is not None and port.perftest.peer == "10.0.0.2"
    assert warnings == []


def test_a_comment_that_names_the_tool_is_no_command() -> None:
    text = (
        "root@gpu-a:~# ib_write_bw -d mlx5_0 -i 2 10.0.0.2\n"
        "# then run ib_write_bw -d mlx5_0 -i 1 to 10.0.0.9 from the other host\n"
        + _settings("RDMA_Write BW")
    )
    (port,), _ = rdma.parse_perftest(text)
    assert port.port == 2 and port.perftest is not None and port.perftest.peer == "10.0.0.2"


# --- 10: only the perftest command's own words count -------------------------------------------


@pytest.mark.parametrize(
    "plumbing",
    [
        " | tee out.txt",
        " 2>&1 | tee -a ib_write_bw.log",
        " > ib_write_bw.txt",
        " >> results 2> errors",
        "; echo done",
        " && echo -i 2 ok",
        " &",
        "  # the client side",
    ],
)
def test_the_peer_and_port_are_the_commands_own_words(plumbing: str) -> None:
    text = f"user@gpu-a:~$ ib_write_bw -d mlx5_0 --report_gbits 10.0.0.2{plumbing}\n" + _settings(
        "RDMA_Write BW"
    )
    (port,), warnings = rdma.parse_perftest(text)
    assert port.perftest is not None and port.perftest.peer == "10.0.0.2"  # not the GID's .12
    assert port.port == 1 and warnings[0].message.endswith("(the copy ends before it?)")


def test_a_scripts_background_client_names_its_server() -> None:
    # ngc_rdma_test.sh's log: the server and client commands of two devices, each client sent
    # to the background ("... --out_json_file=/tmp/perftest_mlx5_3.json &"), then mlx5_3's run
    ev = load_paths([NGC108])
    (port,) = ev.hca_ports
    assert (port["ca"], port["port"]) == ("mlx5_3", 1)
    assert port["perftest"]["test"] == "RDMA_Write Bidirectional BW"
    assert port["perftest"]["peer"] == "clx-host-108"  # the client's server, not "&"


# --- 11: older latency reports, and -D --------------------------------------------------------

# perftest before commit 1ccb3fd (2016): RESULT_FMT_LAT and REPORT_FMT_LAT ended at t_typical
OLD_LAT_HEAD = " #bytes #iterations    t_min[usec]    t_max[usec]  t_typical[usec]"
OLD_LAT_ROW = " %-7lu %d          %-7.2f        %-7.2f      %-7.2f"
LAT_HEAD = (
    " #bytes #iterations    t_min[usec]    t_max[usec]  t_typical[usec]    t_avg[usec]    "
    "t_stdev[usec]   99% percentile[usec]   99.9% percentile[usec] "
)
LAT_ROW = " %-7lu %lu          %-7.2f        %-7.2f      %-7.2f  \t       %-7.2f     \t%-7.2f\t\t%-7.2f \t\t%-7.2f"
LAT_DUR_HEAD = " #bytes        #iterations       t_avg[usec]    tps average"
LAT_DUR_ROW = " %-7lu       %lu            %-7.2f        %-7.2f"
OLD_LAT_DUR_HEAD = " #bytes        #iterations       t_avg[usec]  \t"  # before 8e3996d (2016)
OLD_LAT_DUR_ROW = " %-7lu       %d            %-7.2f"
BW_HEAD = " #bytes     #iterations    BW peak[MiB/sec]    BW average[MiB/sec]   MsgRate[Mpps]"
BW_ROW = " %-7lu    %-10lu       %-7.2lf            %-7.2lf\t\t     %-7.6lf"


def _lat(head: str, rows: list[str], command: str = "ib_write_lat -d mlx5_0 10.0.0.2") -> str:
    return f"{command}\n" + _settings("RDMA_Write Latency") + f"{head}\n" + "\n".join(rows) + "\n"


def test_an_older_latency_report_is_its_typical_latency() -> None:
    text = _lat(OLD_LAT_HEAD, [OLD_LAT_ROW % (2, 1000, 0.87, 5.64, 0.89)])
    (port,), warnings = rdma.parse_perftest(text)
    run = port.perftest
    assert run is not None and warnings == []
    assert run.rows == [
        {"bytes": 2, "iterations": 1000, "t_min_us": 0.87, "t_max_us": 5.64, "t_typical_us": 0.89}
    ]
    assert (run.latency_typical_us, run.latency_avg_us) == (0.89, None)
    ev = [{"source": "lat.txt", **asdict(port)}]
    (item,) = finding_items({"evidence.hca_ports": ev}, "nccl")["evidence-rdma-perftest"]
    assert "RDMA_Write Latency to 10.0.0.2: 0.89 us typical (median) at 2 B" in item


def test_a_newer_latency_report_keeps_its_average_and_typical() -> None:
    row = LAT_ROW % (2, 1000, 0.87, 5.64, 0.89, 0.90, 0.05, 1.02, 5.64)
    (port,), _ = rdma.parse_perftest(_lat(LAT_HEAD, [row]))
    run = port.perftest
    assert run is not None and (run.latency_avg_us, run.latency_typical_us) == (0.9, 0.89)
    assert run.rows[0]["t_max_us"] == 5.64


def test_duration_mode_reports_are_read() -> None:
    # a latency test under -D: t_avg over the iterations the duration held (and tps, since 2016)
    for head, row, tps in (
        (LAT_DUR_HEAD, LAT_DUR_ROW % (2, 5303958, 0.94, 1060791.6), 1060791.6),
        (OLD_LAT_DUR_HEAD, OLD_LAT_DUR_ROW % (2, 5303958, 0.94), None),
    ):
        (port,), warnings = rdma.parse_perftest(_lat(head, [row], "ib_send_lat -d mlx5_0 -D 10 h2"))
        run = port.perftest
        assert run is not None and warnings == [] and run.latency_avg_us == 0.94
        expected = {"bytes": 2, "iterations": 5303958, "t_avg_us": 0.94}
        assert run.rows == [expected if tps is None else {**expected, "tps": tps}]
    # a bandwidth test under -D: RESULT_FMT's header, its peak not measured
    text = (
        "ib_write_bw -d mlx5_0 -D 10 10.0.0.2\n"
        " WARNING: BW peak won't be measured in this run.\n"
        + _settings("RDMA_Write BW")
        + f"{BW_HEAD}\n"
        + BW_ROW % (65536, 1718870, 0.0, 11034.5, 0.176552)
        + "\n"
        + f"{LINE}\n"
    )
    (port,), _ = rdma.parse_perftest(text)
    assert port.perftest is not None and port.perftest.bw_average_gbps == 92.564
    assert port.perftest.rows[0]["iterations"] == 1718870


# --- 12: perftest's failure lines, before or after its settings -------------------------------

FAILURES = [
    # (the line as perftest prints it, what the run's failure reads)
    (" Unable to find the Infiniband/RoCE device", "Unable to find the Infiniband/RoCE device"),
    ("IB device mlx5_9 not found", "IB device mlx5_9 not found"),
    ("No IB devices found", "No IB devices found"),
    (" Couldn't get context for the device", "Couldn't get context for the device"),
    (
        "Unable to open file descriptor for socket connection",
        "Unable to open file descriptor for socket connection",
    ),
    (" Unable to init the socket connection", "Unable to init the socket connection"),
    ("Couldn't connect to 10.0.0.2:18515", "Couldn't connect to 10.0.0.2:18515"),
    ("Couldn't listen to port 18515", "Couldn't listen to port 18515"),
    ("Failed to create QP.", "Failed to create QP."),
    ("Unable to create QP.", "Unable to create QP."),
    ("Couldn't allocate MR", "Couldn't allocate MR"),
    ("Couldn't allocate MR with error=12", "Couldn't allocate MR"),
    (" Couldn't create IB resources", "Couldn't create IB resources"),
    (
        " Failed to exchange data between server and clients",
        "Failed to exchange data between server and clients",
    ),
    (
        " Unable to Connect the HCA's through the link",
        "Unable to Connect the HCA's through the link",
    ),
    ("Failed to modify QP 1234 to RTR", "Failed to modify QP 1234 to RTR"),
    ("Failed to modify QP to RTS", "Failed to modify QP to RTS"),
    ("Couldn't post send ", "Couldn't post send"),
    (
        "Couldn't post send: qp 0 scnt=128 || err=12 tx_depth=128",
        "Couldn't post send",
    ),
    ("Problems with warm up", "Problems with warm up"),
    (" Completion with error at client", "Completion with error at client"),
    (
        " Failed to complete run_iter_bw function successfully",
        "Failed to complete run_iter_bw function successfully",
    ),
    (
        " Error occurred while running infinitely! aborting ...",
        "Error occurred while running infinitely! aborting ...",
    ),
]


@pytest.mark.parametrize(("printed", "failed"), FAILURES, ids=[f[1] for f in FAILURES])
def test_perftests_failure_lines_mark_the_run_failed(printed: str, failed: str) -> None:
    command = "root@gpu-a:~# ib_write_bw -d mlx5_1 -i 1 --report_gbits 10.0.0.2\n"
    # the run stopped before its settings (the device, the TCP exchange, the resources) ...
    (port,), warnings = rdma.parse_perftest(command + printed + "\n")
    assert (port.ca, port.port, port.line, port.tool) == ("mlx5_1", 1, 1, "perftest ib_write_bw")
    assert port.perftest is not None and port.perftest.failed == failed
    assert (port.perftest.test, port.perftest.peer) == ("ib_write_bw", "10.0.0.2")
    assert warnings == []
    # ... or after them (a completion error, a QP that would not connect)
    (port,), _ = rdma.parse_perftest(
        command + _settings("RDMA_Write BW", "mlx5_1") + printed + "\n"
    )
    assert port.perftest is not None and port.perftest.failed == failed


def test_a_client_that_could_not_connect_is_a_failed_run_on_import() -> None:
    ev = load_paths([PR228])
    assert ev.files[0].status == "read" and ev.files[0].formats == ["perftest"]
    (port,) = ev.hca_ports
    run = port["perftest"]
    assert (port["ca"], port["port"], run["peer"]) == ("rocep133s0f0", 1, "192.168.125.211")
    assert run["failed"] == "Couldn't connect to 192.168.125.211:18515" and run["rows"] == []
    (item,) = finding_items({"evidence.hca_ports": ev.hca_ports}, "nccl")[
        "evidence-rdma-perftest-failed"
    ]
    assert item.startswith(
        "rocep133s0f0: ib_write_bw to 192.168.125.211: Couldn't connect to 192.168.125.211:18515"
    )


def test_a_failure_without_a_device_names_none() -> None:
    (port,), _ = rdma.parse_perftest("$ ib_send_bw 10.0.0.2\nNo IB devices found\n")
    assert port.ca == rdma.NO_DEVICE and port.perftest is not None
    assert port.perftest.failed == "No IB devices found"


# --- 16: the slow rule compares like with like, and flags 0 -----------------------------------


def _variant(
    tmp_path: Path, name: str, device: str, title: str = "RDMA_Write", bw: str = ""
) -> Path:
    """The DGX Spark guide's run on another device, another test or another bandwidth."""
    text = (
        DGXSPARK.read_text()
        .replace("rocep1s0f0", device)
        .replace("RDMA_Write BW Test", f"{title} BW Test")
        .replace(
            "ib_write_bw",
            {"RDMA_Read": "ib_read_bw", "Send": "ib_send_bw"}.get(title, "ib_write_bw"),
        )
    )
    if bw:
        text = text.replace(" 92.57 ", f" {bw} ").replace(" 92.56 ", f" {bw} ")
    path = tmp_path / name
    path.write_text(text)
    return path


def _slow(paths: list[Path]) -> list[str]:
    ev = load_paths(paths)
    return finding_items({"evidence.hca_ports": ev.hca_ports}, "nccl").get(
        "evidence-rdma-perftest-slow", []
    )


def test_runs_of_unlike_sizes_or_tests_are_not_compared(tmp_path: Path) -> None:
    # 92.57 Gb/s at 65536 B beside ib_write_bw -a's 0.17 Gb/s at 8 B: no slow run
    assert _slow([DGXSPARK, ISSUE132]) == []
    # a read test at 40 Gb/s is no slower write: it stands alone of its kind
    read_a = _variant(tmp_path, "read_a.txt", "rocep2s0f0", "RDMA_Read", "40.50")
    assert _slow([DGXSPARK, read_a]) == []
    # a second read run at half that is slow against the first read, not the write
    read_b = _variant(tmp_path, "read_b.txt", "rocep3s0f0", "RDMA_Read", "20.25")
    (item,) = _slow([DGXSPARK, ISSUE132, read_a, read_b])
    assert item.startswith(
        "rocep3s0f0 port 1: RDMA_Read BW to 192.168.200.12: 20.25 Gb/s at 65536 B "
        "(best of its kind 40.5 Gb/s)"
    )


def test_a_run_that_measured_zero_is_slow(tmp_path: Path) -> None:
    zero = _variant(tmp_path, "zero.txt", "rocep2s0f0", bw="0.00")
    (item,) = _slow([DGXSPARK, zero])
    assert item.startswith(
        "rocep2s0f0 port 1: RDMA_Write BW to 192.168.200.12: 0.0 Gb/s at 65536 B "
        "(best of its kind 92.57 Gb/s)"
    )


# --- 19: an unknown TLS state is not "off" ------------------------------------------------------

_NEAR = {"name": "crl", "end_time": "Mon Mar  2 03:10:27 2026 GMT", "status": 1, "status_text": "near expiration"}  # fmt: skip


@pytest.mark.parametrize(
    ("tls", "shown"), [(None, "(TLS state not shown)"), (False, "(TLS off)"), (True, "(TLS on)")]
)
def test_the_certificate_alarm_says_the_tls_state_it_knows(tls: bool | None, shown: str) -> None:
    port = npu_port(tls_enabled=tls, tls_alarms=[_NEAR])
    (item,) = finding_items({"evidence.npu_ports": [port]}, "hccl")["evidence-npu-tls-cert-expiry"]
    assert f"NPU 0 {shown}: crl near expiration" in item


# --- 20: roce_test's figures are MiB/s ---------------------------------------------------------


def _roce(average_mib_s: float) -> dict[str, object]:
    return {"test": "ib_send_bw", "target": "10.0.0.9", "bytes": 2097152, "iterations": 1000,
            "bw_peak_mb_s": average_mib_s, "bw_average_mb_s": average_mib_s}  # fmt: skip


def test_roce_test_bandwidth_is_labelled_mib_s_in_the_rules() -> None:
    ports = [npu_port(roce_test=_roce(23365.5)), npu_port(device=1, roce_test=_roce(11000.0))]
    rules = finding_items({"evidence.npu_ports": ports}, "hccl")
    (slow,) = rules["evidence-npu-roce-test-slow"]
    assert "ib_send_bw 11000.0 MiB/s to 10.0.0.9" in slow
    assert all("ib_send_bw" not in i or "MiB/s" in i for i in rules["evidence-npu-port-state"])
    assert any("ib_send_bw 23365.5 MiB/s" in i for i in rules["evidence-npu-port-state"])


def test_the_report_labels_roce_test_mib_s_and_a_typical_latency(tmp_path: Path) -> None:
    lat = tmp_path / "ib_write_lat_old.txt"
    lat.write_text(_lat(OLD_LAT_HEAD, [OLD_LAT_ROW % (2, 1000, 0.87, 5.64, 0.89)]))
    out = tmp_path / "run"
    res = run_advisor(
        [str(ROCE_TEST), str(lat), "--out", str(out)], out, command="import", timeout_s=120
    )
    assert res.returncode == 0, res.stderr
    html = (out / "report.html").read_text()
    assert "<th>RoCE test (MiB/s)</th>" in html and "RoCE test (MB/s)" not in html
    hcas = html[html.index('<table class="hcas">') :]
    hcas = hcas[: hcas.index("</table>")]
    assert "<td>RDMA_Write Latency to 10.0.0.2: 0.89 us typical</td>" in hcas
