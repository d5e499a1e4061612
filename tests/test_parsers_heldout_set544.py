"""Outputs of round SSS's held-out evaluation (set 544) that the advisor read wrong or not at all
before this change (tests/data/evidence_heldout_59, sources in tests/data/SOURCES.md)."""

from __future__ import annotations

from advisor.parsers import dcgm, rdma
from tests import heldout
from tests.rules_facts import builtin_findings
from tests.test_parsers_heldout_set453 import HELDOUT, _load

BOXED = "ibstat_ibv_devinfo_mlx4_0_cx3_port1_ib_active_40_port2_eth_down_disabled_boxchars.txt"
DCGM94 = "dcgm94_dcgmi_diag_r3_mig_incompatible_group_empty_minus35_nvidia_smi_L_a100_mig.txt"
SRIOVDP590 = "sriovdp590_ib_write_bw_vf_couldnt_allocate_mr_failed_create_ib_resources.txt"
METAOE86 = "metaoe86_softroce_arria10_lsmod_rxe_cfg_no_rmtu_ibv_devices_empty.txt"
SRIOVOP267 = (
    "sriovop267_ib_write_bw_R_segfault_librdmacm_dmesg_ibstat_vf_mlx5_8_node_guid_zero_down.txt"
)


def test_an_ibstat_block_behind_a_pane_border_is_read_with_the_devinfo_beside_it() -> None:
    ev = _load(BOXED)
    assert ev.files[0].status == "read" and ev.files[0].formats == ["rdma"]
    # ibstat (lines 1-28, each behind tmux's "│") and ibv_devinfo (lines 31-58) list the same two
    # ports: each read once, ibstat's rate and physical state with ibv_devinfo's MTU
    got = [
        (
            p["tool"],
            p["port"],
            p["state"],
            p["physical_state"],
            p["rate_gbps"],
            p["link_layer"],
            p["active_mtu"],
            p["sm_lid"],
        )
        for p in ev.hca_ports
    ]
    assert got == [
        ("ibstat", 1, "Active", "LinkUp", 40.0, "InfiniBand", 4096, 12),
        ("ibstat", 2, "Down", "Disabled", 10.0, "Ethernet", 1024, 0),
    ]
    assert {(p["ca"], p["ca_type"], p["firmware"]) for p in ev.hca_ports} == {
        ("mlx4_0", "MT4099", "2.42.5000")
    }
    said = heldout.said(ev)
    assert (
        "rdma: a terminal pane's border ('│') taken off 28 line(s) before reading (lines 1-28)"
        in said
    )
    assert not [m for m in ev.files[0].messages if "unread" in m.message or "not read" in m.message]
    # the down port's item cites its state's line (ibstat's "State: Down", line 20)
    (item,) = heldout.found(ev)["evidence-hca-port-not-active"].items
    assert item.startswith("mlx4_0 port 2: Down (physical state Disabled), Ethernet (")
    assert item.endswith(", line 20)")


def test_dcgmis_empty_group_error_is_a_run_that_did_not_start() -> None:
    ev = _load(DCGM94)
    # three dcgmi diag commands (lines 1, 12, 14): two refused on MIG, one returned -35
    runs = ev.dcgm_diags
    assert [(d["line"], d["level"]) for d in runs] == [(2, "3"), (13, "3"), (15, "3")]
    assert all(d["failed"] == [] and not d["hardware_run"] for d in runs)
    (check,) = runs[1]["precondition_failed"]
    assert (check["name"], check["result"], check["line"]) == (
        "Diagnostic run (group 1)",
        "Fail",
        13,
    )
    assert check["details"] == [
        "dcgmi: unable to complete the diagnostic, return -35: The specified group is empty, and "
        "this operation is incompatible with an empty group (the diagnostic did not run to its "
        "results: no GPU was tested)"
    ]
    finding = builtin_findings({"evidence.dcgm_diags": runs}, "nccl")[
        "evidence-dcgm-diag-precondition"
    ]
    assert finding.message.startswith("3 dcgmi diag run(s) failed a Deployment check")
    assert any("return -35" in i and i.endswith("line 13)") for i in finding.items)


def test_dcgmis_run_error_reads_its_code_and_its_system_errors() -> None:
    text = (
        "$ dcgmi diag -i 0,1 -r 2\n"
        "Error: Unable to complete diagnostic for entities 0,1. Return: (-30) : DCGM GPU "
        "Diagnostic returned an error\n"
        "Error: Cannot load plugins.\n"
    )
    (run,), _ = dcgm.parse(text)
    (check,) = run.checks
    assert (run.level, check.name, check.section) == (
        "2",
        "Diagnostic run (entities 0,1)",
        "Deployment",
    )
    assert check.details == [
        "dcgmi: unable to complete the diagnostic, return -30: DCGM GPU Diagnostic returned an "
        "error",
        "Error: Cannot load plugins. (the diagnostic did not run to its results: no GPU was tested)",
    ]


def test_perftests_own_memory_region_errors_are_its_set_up_failure() -> None:
    ev = _load(SRIOVDP590)
    assert ev.files[0].formats == ["perftest"] and ev.files[0].status == "read"
    assert not ev.failures  # (no unknown program's log)
    (port,) = ev.hca_ports
    assert (port["ca"], port["line"]) == (rdma.NO_DEVICE, 1)
    assert port["perftest"]["failed"] == "Couldn't allocate MR"
    (item,) = heldout.found(ev)["evidence-rdma-perftest-mr-failed"].items
    assert item.startswith("(device not named): perftest: Couldn't allocate MR (")
    assert item.endswith("line 1)")
    assert "evidence-log-error" not in heldout.found(ev)


def test_an_empty_ibv_devices_beside_rdma_rxe_and_rxe_cfg_says_no_rdma_device() -> None:
    text = (HELDOUT / METAOE86).read_text()
    (eth0,) = rdma.parse_rxe_cfg_status(text)
    assert (eth0.line, eth0.name, eth0.link, eth0.driver, eth0.mtu, eth0.ipv4) == (
        13,
        "eth0",
        "yes",
        "st_gmac",
        1500,
        "10.0.1.25",
    )
    assert eth0.rdev is None and eth0.rmtu is None  # (no Speed either: read by column)
    line, said = rdma.no_rdma_device(text) or (0, "")
    assert line == 16
    assert said.startswith("ibv_devices listed no RDMA device (its header, no row under it): ")
    assert (
        "rdma_rxe is loaded (lsmod, line 3) but rxe_cfg status shows no rxe device on eth0 (line 13)"
        in said
    )
    assert [n.message for n in rdma.rxe_cfg_notes(text)] == [
        "rxe_cfg status: eth0 (st_gmac, link yes, MTU 1500, 10.0.1.25): no rxe (Soft-RoCE) "
        "device bound to it"
    ]
    # a listing with a device is no such reading
    assert rdma.no_rdma_device(text + "    rxe0                02005efffe010119\n") is None


def test_an_empty_ibv_devices_file_is_read_as_no_rdma_device() -> None:
    ev = _load(METAOE86)
    assert ev.files[0].status == "read"
    (failure,) = ev.failures
    assert (failure["kind"], failure["line"]) == ("rdma_no_device", 16)
    assert "rxe_cfg status shows no rxe device on eth0" in failure["exception_type"]
    assert "evidence-rdma-no-device" in heldout.found(ev)


def test_a_perftest_crash_in_librdmacm_and_a_vfs_zero_node_guid_are_read() -> None:
    ev = _load(SRIOVOP267)
    assert ev.files[0].formats == ["rdma", "perftest"]
    (vf,) = [p for p in ev.hca_ports if p["tool"] == "ibstat"]
    assert (vf["ca"], vf["state"], vf["link_layer"], vf["guid_zero"]) == (
        "mlx5_8",
        "Down",
        "Ethernet",
        True,
    )
    (crashed,) = [p for p in ev.hca_ports if p["perftest"]]
    run = crashed["perftest"]
    assert (crashed["ca"], crashed["line"], run["test"], run["peer"]) == (
        "mlx5_0",
        3,
        "ib_write_bw",
        "192.168.102.10",
    )
    assert run["failed"].startswith(
        "the process crashed (line 4): Segmentation fault (core dumped) (the shell's report of "
        "its signal); the kernel's log (line 6): ib_write_bw[46826] segfault at address 0 (a null "
        "pointer) in librdmacm.so.1.3.37.0 (librdmacm"
    )
    found = heldout.found(ev)
    (item,) = found["evidence-rdma-perftest-failed"].items
    assert item.startswith("mlx5_0 port 1: ib_write_bw to 192.168.102.10: the process crashed")
    (port,) = found["evidence-hca-port-not-active"].items
    assert port.startswith(
        "mlx5_8 port 1: Down (physical state Disabled), Ethernet, node GUID all zeros (none "
        "assigned: an SR-IOV virtual function's"
    )
    assert port.endswith(", line 17)")


def test_a_kernel_segfault_line_alone_is_a_crashed_run() -> None:
    text = (
        "[ 6587.951447] ib_send_lat[9]: segfault at 7f00 ip 00007f3c957ef3b0 sp 00007fff4e973b10 "
        "error 6 in libibverbs.so.1.14.40.0[7f3c957e9000+15000]\n"
    )
    (port,), _ = rdma.parse_perftest(text)
    assert (port.ca, port.line, port.tool) == (rdma.NO_DEVICE, 1, "perftest ib_send_lat")
    assert port.perftest is not None
    assert port.perftest.failed == (
        "the process crashed: the kernel's log (line 1): ib_send_lat[9] segfault at address "
        "0x7f00 in libibverbs.so.1.14.40.0"
    )
