"""Outputs of round VVVV's held-out evaluation (set 719, NCCL logs) that the advisor read in part
before this change (tests/data/evidence_heldout_82, sources in tests/data/SOURCES.md): a Neuron
runtime test whose CCOM WARN lines (aws-ofi-nccl's "initialization failed", "is EFA enabled?")
and ``NRT:nrt_load_collectives failed to create global communicator`` were no NCCL shape the
advisor knew, only its first error line quoted as a warning; NCCL's ``Bootstrap : no socket
interface found`` was read without the ``NCCL_SOCKET_IFNAME=eno1`` its command line set; and an
IB error completion was read without the request it failed on (Send) and the HCA's vendor
error (81)."""

from __future__ import annotations

from functools import partial
from pathlib import Path

from advisor.evidence.load import EvidenceFacts
from tests import heldout
from tests.conftest import DATA

HELDOUT = DATA / "evidence_heldout_82"

NEURON = "neuron_nrt_ccom_aws_ofi_nccl_init_failed_efa_not_enabled_trn1_2node_allreduce_cut.log"
IFNAME = "nccl2_4_8_bootstrap_no_socket_interface_found_ifname_eno1_ddp_internal_error_cut.log"
IB = "nccl_net_ib_completion_error4_vendor_err81_send_peer_7_247_232_133_b200_single_line.log"

_write = partial(heldout.load_copy, name="copy.log")
_load = partial(heldout.load, HELDOUT)
_text = partial(heldout.text, HELDOUT)


# --- Neuron's CCOM: the global communicator never created ------------------------------------


def test_neuron_global_communicator_not_created_is_not_ready_with_the_plugins_lines() -> None:
    ev = _load(NEURON)
    assert ev.files[0].status == "read"
    level, outcome = heldout.imported(ev)
    assert level == "NOT READY"
    assert ("evidence-neuron-comm-init-failed", "critical") in heldout.above_info(outcome)
    (item,) = heldout.items(outcome, "evidence-neuron-comm-init-failed")
    assert item.startswith(
        "pid 102203 (global device 1 of 2), root communicator 172.31.63.174:62128: "
        "nrt_load_collectives failed to create the global communicator, after aws-ofi-nccl: "
        "NET/OFI aws-ofi-nccl initialization failed (line 14); CCOM: OFI plugin initNet() "
        "failed is EFA enabled? (line 15); "
    )
    assert "(line 17)" in item and item.endswith(", line 20)")
    (failed,) = [f for f in ev.failures if f["kind"] == "neuron_comm_init_failed"]
    assert failed["line"] == 20 and failed["rank"] == 1 and failed["rank_size"] == 2


def test_another_device_and_root_are_read_from_the_line(tmp_path: Path) -> None:
    text = (
        _text(NEURON)
        .replace(
            "global_device_id=1, global_device_count=2", "global_device_id=0, global_device_count=4"
        )
        .replace("172.31.63.174:62128", "10.0.0.9:45000")
        .replace("102203:102204", "7001:7002")
    )
    ev = _write(tmp_path, text)
    level, outcome = heldout.imported(ev)
    assert level == "NOT READY"
    (item,) = heldout.items(outcome, "evidence-neuron-comm-init-failed")
    assert item.startswith("pid 7001 (global device 0 of 4), root communicator 10.0.0.9:45000: ")


def test_the_plugins_warns_without_the_runtimes_failure_are_not_a_failure(tmp_path: Path) -> None:
    # a single-instance run prints aws-ofi-nccl's failed start too and goes on without EFA
    lines = _text(NEURON).splitlines(keepends=True)
    text = "".join(lines[:16]) + "test tests::test_instance_1 ... ok\n"
    ev = _write(tmp_path, text)
    level, outcome = heldout.imported(ev)
    assert level != "NOT READY"
    assert not [f for f in ev.failures if f["kind"] == "neuron_comm_init_failed"]
    assert "evidence-neuron-comm-init-failed" not in [r for r, _ in heldout.above_info(outcome)]


# --- NCCL's bootstrap: the interface NCCL_SOCKET_IFNAME named --------------------------------


def _bootstrap_item(ev: EvidenceFacts) -> str:
    level, outcome = heldout.imported(ev)
    assert level == "NOT READY"
    (item,) = [
        i for i in heldout.items(outcome, "evidence-nccl-warning") if "no socket interface" in i
    ]
    return item


def test_no_socket_interface_names_the_ifname_of_the_command_line() -> None:
    item = _bootstrap_item(_load(IFNAME))
    assert item.startswith("ubuntu pid 4775, device 0: Bootstrap : no socket interface found")
    assert "NCCL_SOCKET_IFNAME=eno1 (line 1) matched none of this host's interfaces" in item
    assert item.endswith(", line 4)")


def test_the_ifname_nccls_own_echo_gives_is_named(tmp_path: Path) -> None:
    lines = _text(IFNAME).splitlines(keepends=True)
    echo = "node7:4775:4775 [0] NCCL INFO NCCL_SOCKET_IFNAME set by environment to =ib0.\n"
    text = "python main.py --rank 1\n" + echo + "".join(lines[3:]).replace("ubuntu:", "node7:")
    item = _bootstrap_item(_write(tmp_path, text))
    assert item.startswith("node7 pid 4775, device 0: ")
    assert "NCCL_SOCKET_IFNAME==ib0 (line 2) matched none" in item


def test_without_an_ifname_the_warning_says_none_was_found(tmp_path: Path) -> None:
    text = _text(IFNAME).replace("NCCL_SOCKET_IFNAME=eno1 ", "")
    item = _bootstrap_item(_write(tmp_path, text))
    assert "NCCL_SOCKET_IFNAME=" not in item
    assert "found no interface with an IP address to listen on" in item


# --- NET/IB error completion: the request and the vendor error --------------------------------


def test_ib_completion_says_the_send_and_vendor_error() -> None:
    ev = _load(IB)
    level, outcome = heldout.imported(ev)
    assert level == "NOT READY"
    (item,) = heldout.items(outcome, "evidence-nccl-ib-completion-error")
    assert item.startswith(
        "A process: from peer 7.247.232.133, IBV_WC_LOC_PROT_ERR (4), on a Send, vendor err 81 ("
    )
    assert item.endswith(", line 1)")


def test_a_recv_of_another_host_and_newer_shape_is_said_as_written(tmp_path: Path) -> None:
    text = (
        "gpu-3:912:930 [5] transport/net_ib.cc:1696 NCCL WARN NET/IB : Got completion from "
        "peer 10.1.2.3<40512> with status=12 opcode=0 len=0 vendor err 129 (Recv) localGid "
        "::ffff:10.1.2.4 remoteGids::ffff:10.1.2.3 hca mlx5_3\n"
    )
    ev = _write(tmp_path, text)
    (item,) = heldout.items(heldout.imported(ev)[1], "evidence-nccl-ib-completion-error")
    assert item.startswith(
        "gpu-3 pid 912, device 5: from peer 10.1.2.3:40512, IBV_WC_RETRY_EXC_ERR (12), hca "
        "mlx5_3, on a Recv, vendor err 129 ("
    )


def test_a_completion_without_request_or_vendor_error_invents_neither(tmp_path: Path) -> None:
    text = "NCCL WARN NET/IB : Got completion with error 12, opcode 1, len 0\n"
    (item,) = heldout.items(
        heldout.imported(_write(tmp_path, text))[1], "evidence-nccl-ib-completion-error"
    )
    assert "on a " not in item and "vendor err" not in item
