"""Review 63 (part b) of sets 687 and 688, review 62b's 7402e16 and 8ebb3a8's ip link rule, its
faults 1-5: a dual-port ConnectX card's unused second port beside its port that is up; one iperf
2 -P stream's server report with no measure beside a clean one; ibnetdiscover port GUIDs masked
with "X"; dcgm-exporter and nvidia-smi -mig copies behind pdsh's "host: "; an nvsm pdsh copy with
pdsh's own "ssh exited" line: each on its input (tests/data/review63, described in
tests/data/SOURCES.md)."""

from __future__ import annotations

from functools import partial
from pathlib import Path

from advisor.evidence.load import EvidenceFacts, load_paths
from advisor.parsers import pdsh_by_host, pdsh_own_lines
from tests import heldout
from tests.conftest import DATA

REVIEW = DATA / "review63"
REVIEW62 = DATA / "review62"
HELDOUT76 = DATA / "evidence_heldout_76"
HELDOUT77 = DATA / "evidence_heldout_77"

_write = partial(heldout.load_copy, name="copy.txt")


def _load(name: str, where: Path = REVIEW) -> EvidenceFacts:
    return load_paths([where / name])


def _notes(ev: EvidenceFacts) -> list[tuple[int | None, str]]:
    """Each file's notes, without the name of the format the loader puts first ("nvsm: ")."""
    return [(m.line, m.message.split(": ", 1)[1]) for f in ev.files for m in f.messages]


def _kinds(ev: EvidenceFacts, kind: str) -> list[dict[str, object]]:
    return [f for f in ev.failures if f["kind"] == kind]


# --- 1. ip link: a card's unused second port beside its port that is up ------------------------

SIBLING_UNUSED = "ip_link_gpu_node03_connectx_ens13f0np0_up_sibling_ens13f1np1_never_brought_up.txt"
IP_LINK_682 = (
    "ip_link_show_pve_after_reboot_connectx6_eth_mode_5_mlx5_ports_state_down_noop_not_up_"
    "nycprodpve01_cut.txt"
)


def test_an_unused_port_whose_card_has_its_other_port_up_is_said_not_warned() -> None:
    ev = _load(SIBLING_UNUSED)
    assert _kinds(ev, "nic_port_admin_down") == []
    level, outcome = heldout.imported(ev)
    assert (level, heldout.above_info(outcome)) == ("READY", [])
    ((_, note),) = _notes(ev)
    assert (
        "gpu-node03: ens13f1np1 (mtu 1500): administratively down (the card's other port "
        "ens13f0np0 is up" in note
    )
    # the set 682 file it was cut from (five ports down, none up) is still warned, each port
    real = _load(IP_LINK_682, HELDOUT76)
    assert len(_kinds(real, "nic_port_admin_down")) == 5
    assert heldout.imported(real)[0] == "READY WITH WARNINGS"


def test_a_card_with_both_ports_down_or_the_up_port_on_another_card_is_warned(
    tmp_path: Path,
) -> None:
    text = (REVIEW / SIBLING_UNUSED).read_text()
    both_down = text.replace(
        "ens13f0np0: <BROADCAST,MULTICAST,UP,LOWER_UP> mtu 9000 qdisc mq state UP",
        "ens13f0np0: <BROADCAST,MULTICAST> mtu 9000 qdisc noop state DOWN",
    )
    assert both_down != text
    ev = _write(tmp_path, both_down)
    assert [f["message"] for f in _kinds(ev, "nic_port_admin_down")] == [
        "ens13f0np0",
        "ens13f1np1",
    ]
    # the port that is up on another card (another slot): the down port's own card has none up
    other_card = text.replace("ens13f0np0", "ens14f0np0").replace("enp15s0f0np0", "enp16s0f0np0")
    ev = _write(tmp_path, other_card)
    ((down,),) = [_kinds(ev, "nic_port_admin_down")]
    assert (down["message"], down["line"], down["host"]) == ("ens13f1np1", 10, "gpu-node03")
    assert heldout.above_info(heldout.imported(ev)[1]) == [
        ("evidence-nic-port-admin-down", "warning")
    ]
    # the sibling brought up but without a link (no LOWER_UP) does not carry the traffic
    no_link = text.replace(
        "<BROADCAST,MULTICAST,UP,LOWER_UP> mtu 9000 qdisc mq state UP",
        "<NO-CARRIER,BROADCAST,MULTICAST,UP> mtu 9000 qdisc mq state DOWN",
    )
    ev = _write(tmp_path, no_link)
    assert [f["message"] for f in _kinds(ev, "nic_port_admin_down")] == ["ens13f1np1"]


# --- 2. iperf 2 -P: one stream's server report with no measure ---------------------------------

IPERF_P2 = "iperf2_2_1_udp_p2_stream1_server_report_nan_stream2_0_of_850331_lost.txt"
IPERF_NAN_682 = (
    "iperf2_2_1_udp_b2g_client_2_15gbits_server_report_0_bytes_nan_lost_4294966296_of_0_inf_"
    "two_runs_nfqlb_cut.txt"
)


def test_one_stream_report_without_a_measure_is_warned_and_the_sums_said_as_the_others() -> None:
    ev = _load(IPERF_P2)
    level, outcome = heldout.imported(ev)
    assert level == "READY WITH WARNINGS"
    assert heldout.above_info(outcome) == [("evidence-iperf-server-report-invalid", "warning")]
    ((bad),) = _kinds(ev, "iperf_server_report_invalid")
    assert bad["line"] == 16
    assert bad["message"] == "iperf 2 client 172.17.0.3 to 172.17.0.1:5001: stream 1"
    assert "-nan bits/sec" in str(bad["exception_type"])
    ((_, note),) = _notes(ev)
    assert "the server's reports of 1 of its 2 streams" in note
    assert (
        "0 of 850331 datagrams lost (0 %) (of the 1 stream(s) whose server report holds a "
        "measure)" in note
    )
    assert "stream 1's server report (line 16) holds no measure" in note
    # the real file (no -P: the row the run's only report) still warned at both runs
    real = _load(IPERF_NAN_682, HELDOUT76)
    assert [b["line"] for b in _kinds(real, "iperf_server_report_invalid")] == [16, 34]


def test_both_stream_reports_clean_or_both_without_a_measure(tmp_path: Path) -> None:
    text = (REVIEW / IPERF_P2).read_text()
    clean = text.replace(
        "[  1] 0.00-0.00 sec  0.000 Bytes  -nan bits/sec  131.072 ms 4294966296/0 (inf%)",
        "[  1] 0.00-10.00 sec  1.16 GBytes  1.00 Gbits/sec   0.012 ms 0/850340 (0%)",
    )
    assert clean != text
    ev = _write(tmp_path, clean)
    assert _kinds(ev, "iperf_server_report_invalid") == []
    ((_, note),) = _notes(ev)
    assert "the server's reports of its 2 streams" in note and "of the 1 stream" not in note
    assert "0 of 1700671 datagrams lost" in note
    # both without a measure: one finding for the run, as before
    both = text.replace(
        "[  2] 0.00-10.00 sec  1.16 GBytes  1.00 Gbits/sec   0.011 ms 0/850331 (0%)",
        "[  2] 0.00-0.00 sec  0.000 Bytes  -nan bits/sec  131.072 ms 4294966296/0 (inf%)",
    )
    ev = _write(tmp_path, both)
    assert len(_kinds(ev, "iperf_server_report_invalid")) == 1


# --- 3. ibnetdiscover: port GUIDs masked with X ------------------------------------------------

IBNET_X = "ibnetdiscover_qm9700_ndr200_port_guids_masked_b83f_xxxx.txt"
IBNET_688 = "ibnetdiscover_qm9700_ndr200_cx7_tj01_h20_node139_redacted_omitted_ibperftest_cut.txt"


def _ibnet_note(ev: EvidenceFacts) -> str:
    ((_, note),) = _notes(ev)
    return note


def test_guids_masked_with_x_read_as_the_redacted_copy() -> None:
    ev = _load(IBNET_X)
    assert ev.files[0].status == "read" and ev.files[0].formats == ["rdma"]
    assert heldout.imported(ev)[0] == "READY"
    note = _ibnet_note(ev)
    assert "ibnetdiscover: 1 node(s) with 5 connected port(s)" in note
    assert "leaves the rest out at line 17" in note
    real = _load(IBNET_688, HELDOUT77)
    assert _ibnet_note(real) == note.replace(str(REVIEW / IBNET_X), str(HELDOUT77 / IBNET_688))


def test_guids_masked_with_stars_or_lower_x_read_too(tmp_path: Path) -> None:
    text = (REVIEW / IBNET_X).read_text()
    assert "(b83fXXXXXXXXXXXX)" in text
    for mask in ("(b83f************)", "(b83fxxxxxxxxxxxx)", "(****)"):
        ev = _write(tmp_path, text.replace("(b83fXXXXXXXXXXXX)", mask))
        assert "1 node(s) with 5 connected port(s)" in _ibnet_note(ev), mask


# --- 4. dcgm-exporter and nvidia-smi -mig behind pdsh ------------------------------------------

EXPORTER_PDSH = "dcgm_exporter_gb200_nvlink_recovery_pdsh_node_a_node_b_two_gpus_each.txt"
EXPORTER_687 = "dcgm_exporter_gb200_nvlink_link_recovery_successful_events_all_zero_4gpu_dcgmexporter581_cut.txt"
MIG_PDSH = "nvidia_smi_mig_enable_pending_pdsh_gpu01_gpu02.txt"
MIG_687 = (
    "nvidia_smi_mig_enable_pending_enable_not_supported_reboot_needed_seansiddens_mps_test.txt"
)


def test_exporter_behind_pdsh_is_read_per_host() -> None:
    ev = _load(EXPORTER_PDSH)
    assert ev.files[0].formats == ["dcgm_exporter"]
    assert sorted((g["host"], g["gpu"]) for g in ev.gpus) == [
        ("node-a", 0),
        ("node-a", 1),
        ("node-b", 0),
        ("node-b", 1),
    ]
    assert heldout.imported(ev)[0] == "READY"
    real = _load(EXPORTER_687, HELDOUT77)
    assert real.files[0].formats == ["dcgm_exporter"] and len(real.gpus) == 4


def test_exporter_behind_pdsh_without_hostname_labels_takes_pdsh_host(tmp_path: Path) -> None:
    text = (REVIEW / EXPORTER_PDSH).read_text()
    bare = text.replace(',Hostname="node-a"', "").replace(',Hostname="node-b"', "")
    assert "Hostname" not in bare
    ev = _write(tmp_path, bare)
    assert sorted((g["host"], g["gpu"]) for g in ev.gpus) == [
        ("node-a", 0),
        ("node-a", 1),
        ("node-b", 0),
        ("node-b", 1),
    ]


def test_mig_pending_behind_pdsh_is_one_note_per_host() -> None:
    ev = _load(MIG_PDSH)
    assert ev.files[0].formats == ["nvidia_smi_mig_pending"]
    notes = [(line, m) for line, m in _notes(ev)]
    assert [line for line, _ in notes] == [2, 5]
    assert notes[0][1].startswith("gpu01: nvidia-smi -mig: MIG enable pending on GPU")
    assert notes[1][1].startswith("gpu02: nvidia-smi -mig: MIG enable pending on GPU")
    assert heldout.imported(ev)[0] == "READY"
    real = _load(MIG_687, HELDOUT77)
    ((_, said),) = _notes(real)
    assert said.startswith("nvidia-smi -mig: MIG enable pending on GPU")


def test_mig_pending_behind_one_host_and_a_root_prompt(tmp_path: Path) -> None:
    text = (REVIEW / MIG_PDSH).read_text()
    one = "\n".join(line for line in text.splitlines() if not line.startswith("gpu02")).replace(
        "$ pdsh", "[root@head ~]# pdsh"
    )
    ev = _write(tmp_path, one)
    assert [m.split(":", 1)[0] for _, m in _notes(ev)] == ["gpu01"]


# --- 5. nvsm behind pdsh, with pdsh's own line about an unreachable host ------------------------

NVSM_W1 = "nvsm_show_health_pdsh_nx_w0_unhealthy_then_pdsh_nx_w1_ssh_exit_255.txt"
NVSM_W0_W3 = "nvsm_show_health_pdsh_nx_w0_nx_w3_then_pdsh_nx_w1_ssh_exit_255.txt"
NVSM_62 = "nvsm_show_health_nic_35_00_0_unhealthy_pdsh_prefix_nx_w0.txt"


def _nvsm_said(ev: EvidenceFacts) -> list[str]:
    return [m for _, m in _notes(ev)]


def test_pdsh_own_line_leaves_the_per_host_reading_and_names_the_host() -> None:
    ev = _load(NVSM_W1)
    said = _nvsm_said(ev)
    assert said[0] == (
        "nvsm show health 23.12.01 on nx-w0: 199 healthy, 1 unhealthy of 200 checks; "
        "Overall system status is unhealthy (line 299)"
    )
    assert (
        said[1]
        == "pdsh: nx-w1: ssh exited with exit code 255: no nvsm output from nx-w1 in the copy"
    )
    assert not any("no overall status" in m for m in said)
    assert all("nx-w0: Expected" not in str(f["exception_type"]) for f in ev.failures)
    assert heldout.imported(ev)[0] == "NOT READY"
    # review 62's copy it was made from (without the pdsh line) reads the same health
    real = _nvsm_said(_load(NVSM_62, REVIEW62))
    assert real == said[:1]


def test_two_hosts_and_the_pdsh_line_read_as_without_it() -> None:
    said = _nvsm_said(_load(NVSM_W0_W3))
    assert [m.split(":", 1)[0] for m in said] == [
        "nvsm show health 23.12.01 on nx-w0",
        "nvsm show health 23.12.01 on nx-w3",
        "pdsh",
    ]
    assert "(line 299)" in said[0] and "(line 613)" in said[1]


def test_pdsh_by_host_sets_pdsh_lines_aside_and_keeps_line_numbers() -> None:
    text = "a1: x\npdsh@head: b2: connect: Connection refused\na1: y\n"
    assert pdsh_by_host(text) == [("a1", "x\n\ny\n")]
    assert pdsh_own_lines(text) == [(2, "b2", "connect: Connection refused")]
    # a line with no prefix that is not pdsh's own still undoes the split
    assert pdsh_by_host("a1: x\nplain line\n") == [(None, "a1: x\nplain line\n")]
