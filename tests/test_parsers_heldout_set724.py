"""Outputs of round WWWW's held-out evaluation (set 724, network and node tool outputs on GPU
clusters) that the advisor read wrong or in part before this change (tests/data/
evidence_heldout_83, sources in tests/data/SOURCES.md): multi-nic-cni's connection check table
(iperf3 between every two hosts' pods) was no format the advisor knew; a perftest run whose
device would not register its buffer ("Couldn't allocate MR") was only a warning and named a
port the copy never states; an ethtool -m decode whose DOM thresholds contradict themselves was
judged against them (power "over its high alarm" where the module's own high-alarm flags are
Off); and a show_gids table with no closing n_gids_found line was called cut though its last row
is whole."""

from __future__ import annotations

from functools import partial

from advisor.parsers import ethtool, iperf
from tests import heldout
from tests.conftest import DATA

HELDOUT = DATA / "evidence_heldout_83"

MULTINIC = "multinic_cni_connection_check_iperf3_gpu_dallas_worker_3_rfrs4_0_of_2_cut.txt"
MR = "ib_send_bw_rdma_cm_cxgb4_0_couldnt_allocate_mr_init_socket_failed_perftest26_cut.txt"
MODULE = "ethtool_m_bnxt_en_fs_sfp_10gsr85_garbled_dom_alarms_on_go_ethtool_metrics.txt"
GIDS = "show_gids_baidu_cce_a100_9_hca_mlx5_0_eth0_tcp_mlx5_1_8_roce_v2_gid3_healthy_cut.txt"
BAD = "gpu-dallas-d5l8c-worker-3-rfrs4"

_write = partial(heldout.load_copy, name="copy.txt")
_load = partial(heldout.load, HELDOUT)
_text = partial(heldout.text, HELDOUT)


# --- multi-nic-cni's connection check ------------------------------------------------------------


def test_the_connection_check_names_the_host_in_every_failed_pair() -> None:
    ev = _load(MULTINIC)
    assert ev.files[0].formats == ["multinic_check"] and ev.files[0].status == "read"
    level, outcome = heldout.imported(ev)
    assert level == "NOT READY"
    assert heldout.above_info(outcome) == [("evidence-multinic-connection-failed", "critical")]
    (item,) = heldout.items(outcome, "evidence-multinic-connection-failed")
    assert f"{BAD} (192.168.128.1, 192.168.192.1)" in item
    assert "5 pair(s) to it (lines 8, 14, 17, 24, 29)" in item
    assert "5 from it (lines 30-34)" in item and "0/2 connected, no bitrate" in item
    assert "line 8)" in item
    (note,) = [m for line, m in heldout.notes(ev) if line == 4]
    assert "multinic-sample: 6 host(s), 30 pair(s), 20 with every address connected, 10 not" in note
    assert "4.88-13.1 Gbit/s" in note


def test_the_connection_check_reads_each_pair_and_its_bitrates() -> None:
    (check,) = iperf.parse_connection_check(_text(MULTINIC))
    assert (check.network, check.line, len(check.pairs)) == ("multinic-sample", 4, 30)
    first = check.pairs[0]
    assert (first.line, first.connected, first.total) == (5, 2, 2)
    assert first.ips == ["192.168.0.2", "192.168.64.2"] and first.gbps == [8.8, 7.81]
    assert iperf.unconnected_host(check) == BAD


def test_another_host_failing_is_named_instead(tmp_path) -> None:
    # the same table with worker-3 healthy and worker-2-6dkfv the one no other reaches
    good = "[ 9.10Gbits/sec 9.20Gbits/sec]"
    lines = []
    for line in _text(MULTINIC).splitlines():
        if " 0/2 " in line:
            line = line.replace(" 0/2 ", " 2/2 ").replace("  []", f" {good}").rstrip()
            line = line.replace(" []", f" {good}")
        if "2/2" in line and "worker-2-6dkfv" in line:
            line = line.replace("2/2", "0/2").split("[ ")[0] + "[]"
        lines.append(line)
    ev = _write(tmp_path, "\n".join(lines) + "\n")
    level, outcome = heldout.imported(ev)
    assert level == "NOT READY"
    (item,) = heldout.items(outcome, "evidence-multinic-connection-failed")
    assert "gpu-dallas-d5l8c-worker-2-6dkfv (192.168.0.195, 192.168.64.195)" in item
    assert BAD not in item


def test_a_healthy_connection_check_stays_ready(tmp_path) -> None:
    text = (
        _text(MULTINIC).replace(" 0/2 ", " 2/2 ").replace(" []", " [ 9.10Gbits/sec 9.20Gbits/sec]")
    )
    ev = _write(tmp_path, text)
    level, outcome = heldout.imported(ev)
    assert level == "READY" and heldout.above_info(outcome) == []
    assert ev.files[0].status == "read"


def test_one_failed_pair_is_named_as_a_pair(tmp_path) -> None:
    # one pair short of one address: no host explains it alone, the pair is said
    text = (
        _text(MULTINIC).replace(" 0/2 ", " 2/2 ").replace(" []", " [ 9.10Gbits/sec 9.20Gbits/sec]")
    )
    text = text.replace(
        "gpu-dallas-d5l8c-worker-2-5477j gpu-dallas-d5l8c-worker-2-8wh6z  2/2             "
        "[192.168.1.3 192.168.65.3]     [ 10.7Gbits/sec 5.84Gbits/sec]",
        "gpu-dallas-d5l8c-worker-2-5477j gpu-dallas-d5l8c-worker-2-8wh6z  1/2             "
        "[192.168.1.3 192.168.65.3]     [ 10.7Gbits/sec]",
    )
    ev = _write(tmp_path, text)
    level, outcome = heldout.imported(ev)
    assert level == "NOT READY"
    (item,) = heldout.items(outcome, "evidence-multinic-connection-failed")
    assert "worker-2-5477j to gpu-dallas-d5l8c-worker-2-8wh6z" in item and "1/2 connected" in item
    assert "line 16)" in item


# --- perftest: the device would not register its buffer ------------------------------------------


def test_a_buffer_the_device_would_not_register_is_not_ready_and_names_no_port() -> None:
    ev = _load(MR)
    level, outcome = heldout.imported(ev)
    assert level == "NOT READY"
    assert ("evidence-rdma-perftest-mr-failed", "critical") in heldout.above_info(outcome)
    assert "evidence-rdma-perftest-failed" not in [r for r, _ in heldout.above_info(outcome)]
    (item,) = heldout.items(outcome, "evidence-rdma-perftest-mr-failed")
    assert item.startswith("cxgb4_0: ib_send_bw to 172.16.2.2: Couldn't allocate MR")
    assert "port" not in item.split(":")[0] and "line 2)" in item


def test_a_port_the_command_names_is_said(tmp_path) -> None:
    text = _text(MR).replace("-d cxgb4_0 ", "-d mlx5_2 -i 2 ")
    level, outcome = heldout.imported(_write(tmp_path, text))
    assert level == "NOT READY"
    (item,) = heldout.items(outcome, "evidence-rdma-perftest-mr-failed")
    assert item.startswith("mlx5_2 port 2: ib_send_bw to 172.16.2.2")


def test_another_failure_of_the_same_run_stays_a_warning(tmp_path) -> None:
    # the socket failure alone (no MR refused): the test's TCP exchange, a warning as before
    text = "\n".join(_text(MR).splitlines()[:1] + _text(MR).splitlines()[6:]) + "\n"
    level, outcome = heldout.imported(_write(tmp_path, text))
    assert level == "READY WITH WARNINGS"
    (item,) = heldout.items(outcome, "evidence-rdma-perftest-failed")
    assert item.startswith("cxgb4_0: ib_send_bw to 172.16.2.2: Unable to init the socket")


# --- ethtool -m: thresholds that contradict themselves -------------------------------------------


def test_garbled_dom_thresholds_are_said_and_the_modules_own_flag_is_a_warning() -> None:
    ev = _load(MODULE)
    level, outcome = heldout.imported(ev)
    assert level == "READY WITH WARNINGS"
    assert heldout.above_info(outcome) == [("evidence-nic-optical-power-warn", "warning")]
    (item,) = heldout.items(outcome, "evidence-nic-optical-power-warn")
    assert "Laser output power low alarm flag(s) On" in item and "line 33)" in item
    assert "high alarm 0.8224 mW, low alarm 0.8224 mW" in item and "over its high" not in item
    (note,) = heldout.said(ev)[:1]
    assert "its DOM thresholds unreadable" in note
    assert "temperature high alarm 3.02 C, low alarm 7.06 C" in note
    assert "past its low alarm" not in note


def test_sound_thresholds_are_still_compared(tmp_path) -> None:
    # the same module with a sane Tx/Rx alarm window and temperature thresholds: Tx 5.7 mW over
    # a 2 mW high alarm is an alarm (its high flag Off notwithstanding: the thresholds are sound)
    text = _text(MODULE)
    for key, value in (
        (
            "Laser output power high alarm threshold   : 0.8224 mW",
            "Laser output power high alarm threshold   : 2.0000 mW",
        ),
        (
            "Laser output power low alarm threshold    : 0.8224 mW",
            "Laser output power low alarm threshold    : 0.1000 mW",
        ),
        (
            "Laser rx power high alarm threshold       : 0.8224 mW",
            "Laser rx power high alarm threshold       : 3.0000 mW",
        ),
        (
            "Laser rx power low alarm threshold        : 0.8224 mW",
            "Laser rx power low alarm threshold        : 0.0500 mW",
        ),
        (
            "Module temperature high alarm threshold   : 3.02",
            "Module temperature high alarm threshold   : 90.02",
        ),
    ):
        assert key in text
        text = text.replace(key, value)
    (mod,) = ethtool.parse_module(text)
    assert ethtool.garbled_thresholds(mod) == {}
    level, outcome = heldout.imported(_write(tmp_path, text))
    assert level == "NOT READY"
    (item,) = heldout.items(outcome, "evidence-nic-optical-power-alarm")
    assert "over its high alarm threshold 2 mW" in item


def test_garbled_thresholds_without_a_power_flag_on_raise_nothing(tmp_path) -> None:
    text = _text(MODULE).replace(
        "Laser output power low alarm              : On",
        "Laser output power low alarm              : Off",
    )
    level, outcome = heldout.imported(_write(tmp_path, text))
    assert level == "READY" and heldout.above_info(outcome) == []


# --- show_gids: a table without its count line ---------------------------------------------------


def test_a_show_gids_table_whose_last_row_is_whole_is_read() -> None:
    ev = _load(GIDS)
    assert ev.files[0].status == "read"
    level, outcome = heldout.imported(ev)
    assert level == "READY" and heldout.above_info(outcome) == []
    assert (
        39,
        "show_gids: no n_gids_found line after its last row (line 39, whole): 36 GID row(s) read, "
        "the count line absent",
    ) in heldout.notes(ev)
    assert not any("copy ends before" in m for m in heldout.said(ev))


def test_a_show_gids_table_cut_inside_its_last_row_stays_partial(tmp_path) -> None:
    text = _text(GIDS).rstrip("\n")
    cut = text[: text.rfind("25.11.128.226")] + "\n"
    ev = _write(tmp_path, cut)
    assert ev.files[0].status == "partial"
    assert any("copy ends before its n_gids_found line" in m for m in heldout.said(ev))
