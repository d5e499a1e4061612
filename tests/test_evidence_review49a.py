"""Review 49 of round DDDD (sets 607-612) and review 48's mends, faults 1, 2, 8, 10 and 11: an
iperf3 server's error on a connection before any test, then a test it measured; perftest's
CPU-clock warning over a figure that fills no rate the import gives its port; PFC pause frames
few against the packets received; nvidia-smi -L grep'd for every GPU's line, and cut before a
whole listing; a grep'd mlxconfig query of two nodes whose pdsh rows interleave: each on its
input (tests/data/review49, described in tests/data/SOURCES.md)."""

from __future__ import annotations

from advisor.evidence.load import EvidenceFacts, load_paths, load_text
from advisor.parsers import ethtool, iperf, nvidia_smi, rdma
from tests import heldout
from tests.conftest import DATA

REVIEW = DATA / "review49"


def _load(name: str) -> EvidenceFacts:
    return load_paths([REVIEW / name])


# --- 1. iperf3: a server's error before any test, then a test it measured ---------------------

IPERF3 = "iperf3_server_tcp_healthcheck_unable_to_receive_params_then_successful_test.txt"


def test_a_servers_error_before_a_test_it_then_measured_is_a_note() -> None:
    ev = _load(IPERF3)
    assert ev.failures == []  # (no iperf_exchange_failed, no iperf_failed)
    assert heldout.rules_verdict(ev) == "READY"
    notes = dict(heldout.notes(ev))
    # the error names no peer: 10.0.0.2 is the next connection's, the measured test's
    assert "unable to receive parameters from client" in notes[4]
    assert "10.0.0.2" not in notes[4] and "nothing was measured" not in notes[4]
    assert "peer the copy does not name" in notes[4] and "measured the test at line 6" in notes[4]
    assert "10.0.0.1 from 10.0.0.2:50514" in notes[6] and "receiver 23.5 Gbit/s" in notes[6]
    # (a server prints the summary line of the direction it measured alone: not a cut copy)
    assert "ends before the test's summary" not in notes[6]
    failed, measured = iperf.parse((REVIEW / IPERF3).read_text())
    assert (failed.before_accept, failed.remote, failed.error_line) == (True, "", 4)
    assert (measured.remote, measured.error, measured.cut) == ("10.0.0.2", "", False)


def test_a_servers_error_with_no_test_after_it_reads_as_before() -> None:
    # set 610's real sample: no test measured after the error, still an exchange that failed
    ev = load_paths(
        [
            DATA / "evidence_heldout_66" / "iperf3_server_docker_compose_prefixed_unable_to_"
            "receive_parameters_from_client_client_exited_code_1_s2n_quic.txt"
        ]
    )
    (fail,) = ev.failures
    assert (fail["kind"], fail["line"]) == ("iperf_exchange_failed", 2)
    assert heldout.rules_verdict(ev) == "NOT READY"
    # the same error before a test on a version that reads the cookie first (iperf3 3.18:
    # "unable to receive cookie at server"), then a test measured: a note
    text = (REVIEW / IPERF3).read_text()
    cookie = text.replace("receive parameters from client", "receive cookie at server")
    assert load_text(cookie, "iperf3.txt").failures == []


# --- 2. perftest: the CPU-clock warning and the port's rate ------------------------------------

PERFTEST = "ib_write_bw_roce_deepops_100g_nic_cpu_freq_warning_45gbps_read_as_50g_line_rate.txt"
IBSTAT = (
    "$ ibstat mlx5_0\nCA 'mlx5_0'\n\tPort 1:\n\t\tState: Active\n\t\tRate: {rate}\n"
    "\t\tLink layer: Ethernet\n"
)


def test_a_figure_with_no_port_rate_beside_it_keeps_the_cpu_clock_warning() -> None:
    ev = _load(PERFTEST)
    (run,) = [p["perftest"] for p in ev.hca_ports if p["perftest"]]
    assert (run["bw_average_gbps"], run["at_line_rate_gbps"]) == (45.1, None)
    found = heldout.found(ev, "nccl")
    assert found["evidence-rdma-perftest-cpu-clock"].severity == "warning"
    assert "evidence-rdma-perftest-cpu-clock-at-rate" not in found  # (no "of a 50 Gb/s link")
    assert heldout.rules_verdict(ev) == "READY WITH WARNINGS"
    # the DeepOps run it came from, alone, keeps the warning too: perftest prints no port rate
    deepops = load_paths(
        [
            DATA / "review48" / "ib_write_bw_roce_deepops_doc_cpu_freq_warning_92_40gbps_of_100g_"
            "healthy.txt"
        ]
    )
    assert heldout.found(deepops, "nccl")["evidence-rdma-perftest-cpu-clock"].severity == "warning"


def test_the_ports_rate_from_ibstat_decides_whether_the_figure_fills_it() -> None:
    text = (REVIEW / PERFTEST).read_text()
    # a 100G port at 45 Gb/s: half its rate, the warning stands
    ev = load_text(IBSTAT.format(rate=100) + text, "ib_write_bw.txt")
    assert heldout.found(ev, "nccl")["evidence-rdma-perftest-cpu-clock"].severity == "warning"
    # a 50G port at 45 Gb/s: filled, a note
    ev = load_text(IBSTAT.format(rate=50) + text, "ib_write_bw.txt")
    found = heldout.found(ev, "nccl")
    assert "evidence-rdma-perftest-cpu-clock" not in found
    assert "of its port's 50.0 Gb/s" in str(found["evidence-rdma-perftest-cpu-clock-at-rate"].items)
    assert rdma.line_rate_reached(45.1, 50) and not rdma.line_rate_reached(45.1, 100)
    assert not rdma.line_rate_reached(45.1, None)


# --- 8. ethtool -S: PFC pause frames against the packets received ------------------------------

ETHTOOL = (
    "ethtool_S_grep_phy_pause_cx6dx_100g_roce_pfc_prio3_48k_pauses_of_98e9_packets_no_discards.txt"
)


def test_pfc_pauses_few_against_the_packets_received_are_a_note() -> None:
    ev = _load(ETHTOOL)
    assert ev.failures == []
    assert heldout.rules_verdict(ev) == "READY"
    (note,) = [m for _, m in heldout.notes(ev)]
    assert "tx_pause_ctrl_phy 48213: pause frames sent since the driver started, 4.9e-07 a " in note
    assert "flow control at work" in note and "held back" not in note
    (block,) = ethtool.parse((REVIEW / ETHTOOL).read_text())
    assert ethtool.congestion_said(block) == []
    # the same pauses against a thousandth of the traffic: past PAUSES_SENT_SHARE, a warning
    text = (REVIEW / ETHTOOL).read_text().replace("98765432109", "98765432")
    (pauses,) = load_text(text, "ethtool.txt").failures
    assert (pauses["kind"], pauses["line"]) == ("nic_counters_warn", 7)
    assert ", 0.00049 a packet received: " in pauses["exception_type"]


def test_pauses_with_no_packet_count_in_the_copy_read_as_before() -> None:
    # set 610's real sample: a grep for pause and pci counters alone, no packet count
    ev = load_paths(
        [
            DATA / "evidence_heldout_66" / "ethtool_S_grep_pause_pci_mlx5_cx4lx_25g_tx_pause_"
            "ctrl_phy_1266552_tx_pci_signal_integrity_3_chinese_label.txt"
        ]
    )
    pauses, pcie = ev.failures
    assert (pauses["kind"], pauses["line"], pcie["line"]) == ("nic_counters_warn", 6, 8)
    assert "the copy holds no count of the packets received" in pauses["exception_type"]
    assert heldout.rules_verdict(ev) == "READY WITH WARNINGS"
    found = heldout.found(ev, "nccl")["evidence-nic-counters-warn"]
    assert "throughput is held back" not in found.message


# --- 10. nvidia-smi -L: a grep keeping every GPU, a cut listing before a whole one ------------


def _inventory(ev: EvidenceFacts) -> list[tuple[int, str]]:
    return [(n, m) for n, m in heldout.notes(ev) if "nvidia-smi -L" in m and "GPU(s)" in m]


def test_a_grep_keeping_every_gpus_line_is_the_hosts_count() -> None:
    ev = _load("nvidia_smi_L_grep_uuid_prefix_all_8_gpus_kept.txt")
    ((line, note),) = _inventory(ev)
    assert line == 2 and "8 GPU(s)" in note and "GPU 0, 1, 2, 3, 4, 5, 6, 7" in note
    assert "not the host's count" not in note and "GPUs the filter dropped" not in note
    assert "which keeps every GPU's line: MIG devices' lines, if any, may not be shown" in note
    assert heldout.rules_verdict(ev) == "READY"
    # other greps that keep every line, or every GPU's; one naming a model keeps its own
    listing = (REVIEW / "nvidia_smi_L_grep_uuid_prefix_all_8_gpus_kept.txt").read_text()
    for grep, said in (
        ("grep UUID", ""),
        ("grep -i 'uuid: gpu-'", "which keeps every GPU's line"),
        ("grep -v MIG", "which keeps every GPU's line"),
        ("grep -e GPU- -e MIG-", ""),
        ("grep -E 'GPU-|MIG-'", "GPUs the filter dropped"),  # (a quoted "|": not read)
        ("grep A100", "GPUs the filter dropped are not shown"),
        ("grep -v A100", "GPUs the filter dropped are not shown"),
        ("grep 'GPU [0-3]'", "GPUs the filter dropped are not shown"),
    ):
        ((_, note),) = _inventory(load_text(listing.replace("grep GPU-", grep), "L.txt"))
        assert said in note if said else note.endswith("GPU 0, 1, 2, 3, 4, 5, 6, 7"), grep


def test_a_cut_listing_before_a_whole_one_says_no_cut() -> None:
    ev = _load("nvidia_smi_L_head_n2_then_full_listing_8_gpus.txt")
    (first, again) = _inventory(ev)
    assert first == (
        2,
        "nvidia_smi_list: nvidia-smi -L: 8 GPU(s) (NVIDIA A100-SXM4-80GB): GPU 0, 1, 2, 3, 4, 5, 6, 7",
    )
    # (the later listing is the fuller one: no "the same 2 GPU(s), not more")
    assert again[0] == 5 and "the 2 GPU(s) listed above" in again[1]
    assert "6 more it did not list: GPU 2, 3, 4, 5, 6, 7" in again[1] and "not more" not in again[1]
    gpus = nvidia_smi.parse_list(
        (REVIEW / "nvidia_smi_L_head_n2_then_full_listing_8_gpus.txt").read_text()
    )
    assert [(g.gpu, g.listing) for g in gpus] == [(0, 0), (1, 0)] + [(n, 1) for n in range(2, 8)]
    # the cut listing alone, and after the whole one: said cut only where no listing is whole
    text = (REVIEW / "nvidia_smi_L_head_n2_then_full_listing_8_gpus.txt").read_text()
    head, whole = text.split("user@dgx01$ nvidia-smi -L\n")
    ((_, note),) = _inventory(load_text(head, "L.txt"))
    assert "('nvidia-smi -L | head -n2' keeps its first 2 lines): GPUs after GPU 1" in note
    ((_, note), _) = _inventory(load_text(f"user@dgx01$ nvidia-smi -L\n{whole}{head}", "L.txt"))
    assert "not the host's count" not in note


def test_the_head_n10_sample_the_variants_came_from_reads_as_before() -> None:
    ev = load_paths(
        [
            DATA
            / "evidence_heldout_66"
            / "nvidia_smi_L_head_n10_dgx_a100_mig_all_balanced_cut_2_of_8_gpus.txt"
        ]
    )
    ((line, note),) = _inventory(ev)
    assert line == 2 and note.endswith(
        "('nvidia-smi -L | head -n10' keeps its first 10 lines): GPUs after GPU 1, if any, are "
        "not shown, so this is not the host's count"
    )


# --- 11. mlxconfig under pdsh: two nodes' rows interleaved ------------------------------------

MLXCONFIG = "mstconfig_q_grep_roce_linktype_pdsh_two_nodes_interleaved_node1_disabled.txt"


def test_interleaved_pdsh_rows_are_one_device_a_node() -> None:
    ev = _load(MLXCONFIG)
    (off,) = [e for e in ev.failures if e["kind"] == "nic_roce_disabled"]
    assert off["line"] == 5
    assert off["exception_type"] == (
        "node1: 4b:00.0 (its type not in the copy): ROCE_CONTROL ROCE_DISABLE(1)"
    )
    assert "a device named above the copy" not in str(ev.failures)
    blocks = rdma.parse_mlxconfig_blocks((REVIEW / MLXCONFIG).read_text())
    assert [(b.host, b.path, sorted(b.settings), b.roce_disabled()) for b in blocks] == [
        ("node1", "4b:00.0", ["LINK_TYPE_P1", "ROCE_CONTROL"], True),
        ("node2", "4b:00.0", ["LINK_TYPE_P1", "ROCE_CONTROL"], False),
    ]
    assert heldout.rules_verdict(ev) == "NOT READY"


def test_a_nodes_setting_seen_again_is_its_next_device() -> None:
    # two devices a node, rows interleaved: a setting a node's open block holds opens its next
    text = (
        "# pdsh -w node[1-2] 'mstconfig -d 4b:00.0 q | grep ROCE_CONTROL; "
        "mstconfig -d 4b:00.1 q | grep ROCE_CONTROL'\n"
        "node1:         ROCE_CONTROL                                ROCE_ENABLE(2)\n"
        "node2:         ROCE_CONTROL                                ROCE_ENABLE(2)\n"
        "node1:         ROCE_CONTROL                                ROCE_DISABLE(1)\n"
        "node2:         ROCE_CONTROL                                ROCE_ENABLE(2)\n"
    )
    blocks = rdma.parse_mlxconfig_blocks(text)
    assert [(b.host, b.path, b.roce_disabled()) for b in blocks] == [
        ("node1", "4b:00.0", False),
        ("node2", "4b:00.0", False),
        ("node1", "4b:00.1", True),
        ("node2", "4b:00.1", False),
    ]
    # the review 48 sample it came from, node by node, reads as before
    ev = load_paths(
        [DATA / "review48" / "mstconfig_q_grep_roce_control_pdsh_two_nodes_node1_disabled.txt"]
    )
    (off,) = [e for e in ev.failures if e["kind"] == "nic_roce_disabled"]
    assert off["line"] == 2 and off["exception_type"].startswith("node1: 4b:00.0 ")
