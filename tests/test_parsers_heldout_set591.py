"""Outputs of round AAAA's held-out set 591 that the advisor read one verdict step too mild before
this change (tests/data/evidence_heldout_63, sources in tests/data/SOURCES.md): a kernel log whose
Xid 13s on a GPU are followed by an Xid 109 (context switch timeout), which NVIDIA's Xid catalog
gives the immediate action RESET_GPU, said as a warning; and an ``nvidia-smi topo -p2p`` matrix
pasted after a ``topo -m`` one, whose pair without peer-to-peer (GNS) was not read at all."""

from __future__ import annotations

from functools import partial
from pathlib import Path

from tests import heldout
from tests.conftest import DATA

HELDOUT = DATA / "evidence_heldout_63"

XID109 = "dmesg_ctime_xid13_sm_warp_exception_then_xid109_ctx_switch_timeout_gpu_cb00_diff_quoted_gpud46.txt"
TOPO_P2P = (
    "nvidia_smi_topo_m_plus_topo_p2p_rw_2x_rtx5090_phb_gns_markdown_details_club3090_1229.txt"
)


_load = partial(heldout.load, HELDOUT)


_write = partial(heldout.load_copy, name="copy.txt")


# --- Xid 109 after Xid 13 on the same GPU -----------------------------------------------------


def test_an_xid_109_after_xid_13s_is_a_gpu_to_reset() -> None:
    ev = _load(XID109)
    assert ev.files[0].formats == ["log"]
    by_kind = {(f["kind"], f["code"]): f for f in ev.failures}
    # the catalog's RESET_GPU: a fault, the GPU not ready until it is reset
    fault = by_kind[("gpu_driver_fault", "109")]
    assert fault["line"] == 11
    assert fault["exception_type"].startswith("Xid 109 on PCI:0000:cb:00: Ch 00000008, errorString")
    assert "needs a reset" in fault["code_name"]
    # the Xid 13s (the catalog's RESTART_APP) stay the application's error, counted once
    app = by_kind[("gpu_driver_error", "13")]
    assert app["line"] == 8 and "(3 reports)" in app["exception_type"]
    level, outcome = heldout.imported(ev)
    assert level == "NOT READY"
    assert ("evidence-gpu-driver-fault", "critical") in heldout.above_info(outcome)
    (item,) = heldout.items(outcome, "evidence-gpu-driver-fault")
    assert "Xid 109 on PCI:0000:cb:00" in item and "line 11" in item
    # (only the 109 is the fault: the 13s and nvidia-peermem's line are not said as one)
    assert "Xid 13" not in item and "peermem" not in item


def test_an_xid_109_reads_alike_in_other_drivers_and_copies(tmp_path: Path) -> None:
    lines = [
        # journalctl -k with its host, a driver that names the channel in lower case
        "Oct 07 06:35:40 gpu-7 kernel: NVRM: Xid (PCI:0000:08:00): 109, pid=4242, name=python, "
        "channel 0x00000015, errorString CTX SWITCH TIMEOUT",
        # an older driver: no "PCI:" before the bus
        "[  812.114] NVRM: Xid (0000:3b:00): 109, pid=77, name=python3, Ch 00000010, "
        "errorString CTX SWITCH TIMEOUT, Info 0x1c030",
        # gpud's own event of it
        "XID 109(Context Switch Timeout Error) detected on PCI:0000:ae:00",
    ]
    for line in lines:
        ev = _write(tmp_path, line + "\n", name="kern.log")
        (fault,) = ev.failures
        assert (fault["kind"], fault["code"]) == ("gpu_driver_fault", "109"), line
        assert heldout.imported(ev)[0] == "NOT READY"


def test_xid_13_alone_stays_the_applications_warning(tmp_path: Path) -> None:
    ev = _write(
        tmp_path,
        "[Fri Aug 30 11:43:09 2024] NVRM: Xid (PCI:0000:cb:00): 13, pid='<unknown>', "
        "name=<unknown>, Graphics SM Warp Exception on (GPC 7, TPC 7, SM 0): Illegal Instruction "
        "Parameter\n",
        name="dmesg.txt",
    )
    (error,) = ev.failures
    assert (error["kind"], error["code"]) == ("gpu_driver_error", "13")
    assert heldout.imported(ev)[0] == "READY WITH WARNINGS"


# --- topo -p2p after topo -m ------------------------------------------------------------------


def test_a_p2p_matrix_after_topo_m_says_the_pair_without_peer_access() -> None:
    ev = _load(TOPO_P2P)
    assert ev.files[0].formats == ["nvidia_smi_topo", "nvidia_smi_p2p"]
    # topo -m read as before: the two GPUs through the host bridge, none of the p2p rows in it
    (topo,) = ev.topologies
    assert topo["devices"] == ["GPU0", "GPU1"] and topo["kinds"] == ["PHB"]
    assert topo["warnings"] == []
    (p2p,) = ev.p2p
    # (the summary's "(topo -p2p rw)" is no nvidia-smi command: what was asked is not known)
    assert (p2p["line"], p2p["query"], p2p["devices"]) == (21, None, ["GPU0", "GPU1"])
    assert [tuple(p) for p in p2p["not_ok"]] == [("GPU0", "GPU1", "GNS")]
    level, outcome = heldout.imported(ev)
    assert level == "READY WITH WARNINGS"
    assert heldout.above_info(outcome) == [("evidence-gpu-p2p-unavailable", "warning")]
    (item,) = heldout.items(outcome, "evidence-gpu-p2p-unavailable")
    assert item.startswith("GPU0-GPU1 GNS (") and item.endswith("line 21)")
    assert "P2P read" not in item and "P2P write" not in item


FOUR_GPUS = (
    "$ nvidia-smi topo -m\n"
    "\tGPU0\tGPU1\tGPU2\tGPU3\tCPU Affinity\tNUMA Affinity\n"
    "GPU0\t X \tNV12\tNV12\tNV12\t0-31\t0\n"
    "GPU1\tNV12\t X \tNV12\tNV12\t0-31\t0\n"
    "GPU2\tNV12\tNV12\t X \tNV12\t0-31\t0\n"
    "GPU3\tNV12\tNV12\tNV12\t X \t0-31\t0\n"
    "\n"
    "$ nvidia-smi topo -p2p r\n"
    " \tGPU0\tGPU1\tGPU2\tGPU3\t\n"
    " GPU0\tX\tOK\tOK\tOK\t\n"
    " GPU1\tOK\tX\tOK\tOK\t\n"
    " GPU2\tOK\tOK\tX\t{cell}\t\n"
    " GPU3\tOK\tOK\t{cell}\tX\t\n"
)


def test_four_gpus_without_legends_read_each_matrix_alone(tmp_path: Path) -> None:
    # no legend between the two blocks: the p2p rows are not read as more topo -m rows
    ev = _write(tmp_path, FOUR_GPUS.format(cell="OK"))
    assert ev.files[0].formats == ["nvidia_smi_topo", "nvidia_smi_p2p"]
    assert ev.files[0].status == "read" and ev.files[0].messages == []
    (topo,) = ev.topologies
    assert topo["kinds"] == ["NV12"] and topo["warnings"] == []
    (p2p,) = ev.p2p
    assert (p2p["query"], p2p["not_ok"]) == ("read", [])
    assert heldout.imported(ev)[0] == "READY"


def test_a_pair_disabled_by_regkey_and_a_quoted_copy_are_said(tmp_path: Path) -> None:
    # DR (disabled by regkey) is a status of newer drivers' legend
    ev = _write(tmp_path, FOUR_GPUS.format(cell="DR"))
    (p2p,) = ev.p2p
    assert [tuple(p) for p in p2p["not_ok"]] == [("GPU2", "GPU3", "DR")]
    level, outcome = heldout.imported(ev)
    assert level == "READY WITH WARNINGS"
    (item,) = heldout.items(outcome, "evidence-gpu-p2p-unavailable")
    assert item.startswith("P2P read: GPU2-GPU3 DR (")
    # the set's file quoted as a forum reply quotes it
    quoted = "".join(f"> {line}\n" for line in (HELDOUT / TOPO_P2P).read_text().splitlines())
    ev = _write(tmp_path, quoted, name="quoted.txt")
    (p2p,) = ev.p2p
    assert [tuple(p) for p in p2p["not_ok"]] == [("GPU0", "GPU1", "GNS")]
    assert heldout.imported(ev)[0] == "READY WITH WARNINGS"
