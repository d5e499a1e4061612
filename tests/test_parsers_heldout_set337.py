"""Outputs of round U's held-out evaluation (sets 333-336) left unread after it, and what the
readers they led to must also hold (samples in tests/data/evidence_heldout_47, sources in
tests/data/SOURCES.md)."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from advisor.evidence.load import EvidenceFacts, load_paths
from advisor.parsers import rdma
from tests.conftest import DATA
from tests.rules_facts import finding_items

HELDOUT = DATA / "evidence_heldout_47"
RAS_JSON = HELDOUT / "ncclras_json_2_29_1_missing_rank1_unresponsive.json"
PERFTEST = HELDOUT / "dgxspark_guide_ib_write_bw_client1.txt"


def _load(path: Path) -> EvidenceFacts:
    return load_paths([path])


def _ras_rules(ev: EvidenceFacts) -> dict[str, list[str]]:
    return finding_items({"evidence.failures": ev.failures}, "nccl")


def _variant(
    tmp_path: Path, change: Callable[[dict[str, Any]], None], name: str = "ras.json"
) -> Path:
    """The RAS guide's JSON with ``change`` applied to its parsed form, written back."""
    data = json.loads(RAS_JSON.read_text())
    change(data)
    out = tmp_path / name
    out.write_text(json.dumps(data, indent=2))
    return out


def test_the_ras_clients_json_names_its_missing_rank() -> None:
    ev = _load(RAS_JSON)
    assert ev.files[0].status == "read"
    (missing,) = ev.failures
    assert (missing["kind"], missing["code"], missing["library"]) == (
        "nccl_ras",
        "INCOMPLETE",
        "NCCL RAS errors",
    )
    assert (missing["rank"], missing["host"], missing["pid"], missing["device"]) == (
        1,
        "172.16.64.245",
        1524345,
        1,
    )
    assert "unresponsive" in missing["message"] and missing["line"] == 41  # its "pid" line
    (item,) = _ras_rules(ev)["evidence-nccl-ras-error"]
    assert "rank 1 missing (unresponsive)" in item and "0xae94423cfbb2ef4a" in item


def test_ras_json_dead_failed_and_apart_ranks_are_each_said(tmp_path: Path) -> None:
    def change(data: dict[str, Any]) -> None:
        comm = data["communicators"][0]
        comm["missing_ranks"][0]["status"]["considered_dead"] = True
        comm["ranks"][0]["status"]["init_state"] = 3  # ncclInternalError
        comm["ranks"].append(
            {
                **comm["ranks"][0],
                "rank": 2,
                "pid": 1524346,
                "status": {"init_state": 0, "async_error": 6, "abort_flag": True},
                "collective_counts": {**comm["ranks"][0]["collective_counts"], "AllReduce": 5},
            }
        )
        data["ras"]["timeouts_count"] = 2

    ev = _load(_variant(tmp_path, change))
    said = {(e["code"], e["rank"], e["library"]) for e in ev.failures}
    assert said == {
        ("DEAD", 1, "NCCL RAS errors"),
        ("INIT", 0, "NCCL RAS errors"),
        ("ASYNC_ERROR", 2, "NCCL RAS errors"),
        ("ABORT", 2, "NCCL RAS errors"),
        ("MISMATCH", None, "NCCL RAS warnings"),
        ("TIMEOUT", None, "NCCL RAS warnings"),
    }
    messages = " / ".join(e["message"] for e in ev.failures)
    assert "ncclInternalError" in messages and "ncclRemoteError" in messages
    assert "different numbers of AllReduce" in messages
    rules = _ras_rules(ev)
    assert len(rules["evidence-nccl-ras-error"]) == 4
    assert len(rules["evidence-nccl-ras-warning"]) == 2


def test_ras_json_of_a_healthy_job_is_read_with_nothing_wrong(tmp_path: Path) -> None:
    def change(data: dict[str, Any]) -> None:
        comm = data["communicators"][0]
        comm["missing_ranks"], comm["missing_ranks_count"] = [], 0

    ev = _load(_variant(tmp_path, change))
    assert ev.files[0].status == "read" and ev.files[0].formats == ["log"]
    assert ev.failures == []


def test_a_json_file_of_another_program_is_not_taken_for_ras(tmp_path: Path) -> None:
    other = tmp_path / "metrics.json"
    other.write_text('{"nccl_version": "2.21.5", "runs": [{"size": 8, "busbw": 1.0}]}\n')
    ev = _load(other)
    assert ev.failures == [] and ev.files[0].status == "unknown"


@pytest.mark.parametrize(
    "name",
    [
        "ncclras_monitor_text_peer_dead_process_1524345_gpu1.txt",
        "ncclras_monitor_json_peer_dead_event.json",
    ],
)
def test_the_ras_monitors_dead_peer_is_an_error(name: str) -> None:
    ev = _load(HELDOUT / name)
    (dead,) = ev.failures
    assert (dead["code"], dead["library"], dead["host"], dead["pid"], dead["device"]) == (
        "PEER_DEAD",
        "NCCL RAS errors",
        "172.16.64.245",
        1524345,
        1,
    )
    assert dead["message"].startswith("[2025-12-19 13:07:07] PEER_DEAD")
    assert len(_ras_rules(ev)["evidence-nccl-ras-error"]) == 1


def test_the_ras_monitors_passing_troubles_are_warnings_and_its_comings_none(
    tmp_path: Path,
) -> None:
    # the events' names and details as src/ras/rasnet.cc and peers.cc give them
    log = tmp_path / "monitor.txt"
    log.write_text(
        "RAS Monitor Mode - watching for peer changes (Ctrl+C to exit)...\n"
        "[2025-12-19 13:06:40] PEER_NEW: Process 1524345 on node 172.16.64.245 managing GPU 1\n"
        "[2025-12-19 13:06:47] PEER_UNRESPONSIVE: 172.16.64.245<37191> peer not responding for"
        " 5s (connect timeout)\n"
        "[2025-12-19 13:07:07] PEER_TIMEOUT_DEAD: 172.16.64.245<37191> peer failed to respond"
        " for 60s, declaring dead\n"
    )
    ev = _load(log)
    assert [(e["code"], e["library"]) for e in ev.failures] == [
        ("PEER_UNRESPONSIVE", "NCCL RAS warnings"),
        ("PEER_TIMEOUT_DEAD", "NCCL RAS errors"),
    ]
    assert "172.16.64.245<37191>" in ev.failures[1]["message"]
    assert "declaring dead" in ev.failures[1]["message"]


def test_perftests_report_is_the_ports_measured_bandwidth() -> None:
    ev = _load(PERFTEST)
    assert ev.files[0].status == "read" and ev.files[0].formats == ["perftest"]
    (port,) = ev.hca_ports
    assert (port["ca"], port["port"], port["link_layer"], port["active_mtu"]) == (
        "rocep1s0f0",
        1,
        "Ethernet",
        1024,
    )
    run = port["perftest"]
    assert (run["test"], run["peer"], run["local"]) == (
        "RDMA_Write BW",
        "192.168.200.12",
        "192.168.200.13",
    )
    assert run["bw_average_gbps"] == 92.57 and len(run["rows"]) == 5  # --run_infinitely: 5 rows
    assert run["rows"][3]["bw_average_gbps"] == 92.56 and run["failed"] is None
    (item,) = finding_items({"evidence.hca_ports": ev.hca_ports}, "nccl")["evidence-rdma-perftest"]
    assert "RDMA_Write BW to 192.168.200.12: 92.57 Gb/s average at 65536 B" in item


def test_perftests_mib_report_and_its_failure_are_read() -> None:
    text = PERFTEST.read_text()
    # perftest without --report_gbits prints MiB/sec (MB/sec before its 2024 unit fix)
    mib = text.replace(
        "BW peak[Gb/sec]    BW average[Gb/sec]", "BW peak[MiB/sec]    BW average[MiB/sec]"
    )
    (port,), _ = rdma.parse_perftest(mib.replace(" 92.57 ", " 11034.50 ", 1))
    assert (
        port.perftest is not None and port.perftest.rows[0]["bw_average_gbps"] == 92.564
    )  # 11034.5 MiB/s
    # a client whose server never answered: the settings, then perftest's own failure line
    head = text.split(" local address:")[0]
    (port,), _ = rdma.parse_perftest(head + " Couldn't connect to 192.168.200.12:12000\n")
    assert (
        port.perftest is not None
        and port.perftest.failed == "Couldn't connect to 192.168.200.12:12000"
    )
    assert port.perftest.rows == [] and port.perftest.bw_average_gbps is None
    assert port.perftest.peer == "192.168.200.12"  # the command's server


def test_a_failed_or_slow_perftest_is_a_warning(tmp_path: Path) -> None:
    text = PERFTEST.read_text()
    head = text.split(" local address:")[0]
    slow = tmp_path / "slow.txt"
    slow.write_text(
        text.replace("-d rocep1s0f0", "-d rocep2s0f0")
        .replace("Device         : rocep1s0f0", "Device         : rocep2s0f0")
        .replace(" 92.5", " 42.5")
    )
    failed = tmp_path / "failed.txt"
    failed.write_text(
        head.replace("rocep1s0f0", "rocep3s0f0") + " Couldn't connect to 192.168.200.12:12000\n"
    )
    ev = load_paths([PERFTEST, slow, failed])
    rules = finding_items({"evidence.hca_ports": ev.hca_ports}, "nccl")
    (slow_item,) = rules["evidence-rdma-perftest-slow"]
    assert slow_item.startswith("rocep2s0f0 port 1: RDMA_Write BW to 192.168.200.12: 42.57 Gb/s")
    (failed_item,) = rules["evidence-rdma-perftest-failed"]
    assert failed_item.startswith(
        "rocep3s0f0 port 1: RDMA_Write BW to 192.168.200.12: Couldn't connect"
    )


def test_a_server_sides_output_without_its_command_says_the_port_is_assumed() -> None:
    body = PERFTEST.read_text().split("\n", 1)[1]  # the prompt and command left out
    (port,), warnings = rdma.parse_perftest(body)
    assert port.port == 1 and port.perftest is not None
    assert port.perftest.peer == "192.168.200.12"  # the remote GID's address
    assert any("port is taken as perftest's default 1" in w.message for w in warnings)


def test_the_server_is_the_word_no_option_takes() -> None:
    text = PERFTEST.read_text().replace(
        "ib_write_bw -d rocep1s0f0 -i 1 -p 12000 -F --report_gbits 192.168.200.12 --run_infinitely",
        "ib_write_bw -d rocep1s0f0 --ib-port=2 -x 3 node-b -F",
    )
    (port,), _ = rdma.parse_perftest(text)
    assert port.port == 2 and port.perftest is not None and port.perftest.peer == "node-b"


def test_dcgms_topology_sample_with_its_label_run_into_the_gpu_is_one_gpu() -> None:
    ev = _load(HELDOUT / "dcgm_go_sample_topology_1gpu_legend.txt")
    (topo,) = ev.topologies
    assert topo["devices"] == ["GPU0"] and topo["cpu_affinity"] == {"GPU0": "0-11"}
    assert topo["sys_pairs"] == [] and ev.files[0].status == "read"


def test_the_drivers_dma_copy_failure_logged_at_info_is_an_error() -> None:
    ev = _load(HELDOUT / "mindcluster_host_kernel_drv_pcie_dma_copy_failed.log")
    (fault,) = ev.failures
    assert (fault["kind"], fault["line"], fault["library"]) == (
        "npu_driver_error",
        2,
        "Ascend driver (drv_pcie)",
    )
    assert "DMA copy failed (drv_pcie, devdrv_init_dev_num" in fault["exception_type"]
    # the line before it, the same level, is the driver's start, no failure
    assert all(e["line"] != 1 for e in ev.failures)


def test_other_info_lines_of_the_driver_stay_unread(tmp_path: Path) -> None:
    log = tmp_path / "host_kernel.log"
    log.write_text(
        "[2025-04-16-03:08:13.704312] [ascend] [drv_pcie] [INFO] [devdrv_init_dev_num 2248]"
        " <systemd-udevd:4853:4853> Findout device. (index=7; device=d105; dev_num=0)\n"
        "[2025-04-16-03:08:13.704360] [ascend] [drv_pcie] [INFO] [devdrv_init_dev_num 2248]"
        " <systemd-udevd:4853:4853> copy failed count reset\n"
    )
    assert load_paths([log]).failures == []


def test_npu_smis_certificate_query_is_the_devices_certificate() -> None:
    ev = _load(HELDOUT / "npu_smi_info_t_tls_cert_i0_alarm_status0_ascend950_doc.txt")
    assert ev.files[0].status == "read"
    (port,) = ev.npu_ports
    (cert,) = port["tls_certs"]
    assert (cert["status"], cert["status_text"], cert["end_time"]) == (
        0,
        "not expired",
        "Mon Jul 30 12:09:19 2035",
    )
    assert port["tls_alarms"] == [] and port["device"] is None  # no command names it


def test_an_expired_certificate_of_a_named_device_is_warned_of(tmp_path: Path) -> None:
    answer = (HELDOUT / "npu_smi_info_t_tls_cert_i0_alarm_status0_ascend950_doc.txt").read_text()
    saved = tmp_path / "certs.txt"
    saved.write_text(
        "npu-smi info -t tls-cert -i 3\n"
        + answer.replace("Alarm status                   : 0", "Alarm status                   : 2")
    )
    ev = _load(saved)
    (port,) = ev.npu_ports
    assert port["device"] == 3 and port["tls_alarms"][0]["status_text"] == "expired"
    (item,) = finding_items({"evidence.npu_ports": ev.npu_ports}, "hccl")[
        "evidence-npu-tls-cert-expiry"
    ]
    assert "NPU 3" in item and "expired" in item


@pytest.mark.parametrize(
    ("name", "said"),
    [
        ("hccn_tool_g_process_i0_hccp_exist_ascend950_doc.txt", "runs its hccp_service process"),
        (
            "hccn_tool_show_list_i0_udma3_950.txt",
            "seg 4, jfs 0, jfr 2, jfc 4, jetty 2, jetty_group 0, rc 32",
        ),
        (
            "msnpureport_config_get_device0_log_levels_error_elided_driver_doc.txt",
            "device 0's configuration table (msnpureport or asys config --get)",
        ),
    ],
)
def test_ascend_answers_with_nothing_to_judge_are_read_as_notes(name: str, said: str) -> None:
    ev = _load(HELDOUT / name)
    assert ev.files[0].status == "read" and ev.files[0].formats == ["ascend_notes"]
    (note,) = ev.files[0].messages
    assert said in note.message and "not judged" in note.message
    # the log levels' ERROR is a setting: no failure is read
    assert ev.failures == [] and ev.npu_ports == []


def test_a_device_without_its_hccp_process_is_said_with_the_device_its_command_names(
    tmp_path: Path,
) -> None:
    saved = tmp_path / "process.txt"
    saved.write_text("hccn_tool -g -process -i 5\ndevice hccp process: not exist\n")
    (note,) = _load(saved).files[0].messages
    assert "device 5 does not run its hccp_service process ('not exist')" in note.message
