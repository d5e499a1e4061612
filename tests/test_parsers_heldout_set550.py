"""Outputs of round TTT's held-out evaluation (set 550) that the advisor read wrong or not at all
before this change (tests/data/evidence_heldout_59, sources in tests/data/SOURCES.md)."""

from __future__ import annotations

from advisor.parsers import rdma
from tests import heldout
from tests.test_parsers_heldout_set453 import _load

MAGNATE3_SMINFO = (
    "magnate3_ibstat_mlx5_5_cx6_hdr_initializing_lid65535_sminfo_master_ibhosts_client_register"
    "_failed.txt"
)
GENIE_SIMBA = (
    "genie_simba_ibstat_cx7_ib_200_broadcom_roceo1_active_roceo2_down_disabled_rdma_link_opensm.txt"
)

_IBSTAT_MLX5_0_DOWN = (
    "CA 'mlx5_0'\n"
    "        CA type: MT4123\n"
    "        Number of ports: 1\n"
    "        Firmware version: 20.31.1014\n"
    "        Port 1:\n"
    "                State: Down\n"
    "                Physical state: Disabled\n"
    "                Rate: 10\n"
    "                Link layer: Ethernet\n"
)
_RDMA_LINK_MLX5_0_DOWN = "link mlx5_0/1 state DOWN physical_state DISABLED netdev ens1f0\n"


def test_sminfos_master_and_ibhosts_mad_port_failure_are_read_beside_the_initializing_port() -> (
    None
):
    ev = _load(MAGNATE3_SMINFO)
    (f,) = ev.files
    assert f.status == "read" and f.formats == ["rdma"]
    # the ibstat port is read as before: Initializing, LinkUp, no SM has configured it
    (port,) = ev.hca_ports
    assert (
        port["ca"],
        port["state"],
        port["physical_state"],
        port["sm_lid"],
        port["link_layer"],
        port["state_line"],
    ) == ("mlx5_5", "Initializing", "LinkUp", 0, "InfiniBand", 9)
    notes = {m.line: m.message for m in f.messages}
    # sminfo (line 19): an SM master at lid 4, which the port that knows SM lid 0 was not
    # configured by (sminfo asks the SM its own port knows: another port's)
    assert notes[19].startswith(
        "rdma: sminfo: the subnet manager at lid 4 (guid 0x8c0eb0300f6fc26, priority 15, "
        "activity count 5568705) is the master (SMINFO_MASTER): a subnet manager runs on the "
        "fabric sminfo's port is on (line 19); mlx5_5 port 1 (Initializing, line 9) reports SM "
        "lid 0: sminfo, given no LID, asks the SM its own port knows, so its answer came "
        "through another port, and that SM has not configured it"
    )
    # ibhosts' ibnetdiscover (lines 21-23): the MAD port not opened, the umad client for class 1
    # refused though ib_umad is loaded (the umad devices listed on line 26); no fabric read
    said = notes[21]
    assert said.startswith(
        "rdma: ibnetdiscover failed: discover failed (line 23): libibnetdisc could not open its "
        "MAD port (line 22: none named, the default), as libibmad could not register for "
        "management class 1 (subnet management by LID, the port's QP0) (line 21): ib_umad is "
        "loaded and the umad device opened"
    )
    assert "6 umad device(s) listed on line 26" in said
    assert "but the kernel refused the agent on that port" in said
    assert said.endswith("; the fabric was not discovered: none of its nodes or links is read here")
    assert len(f.messages) == 2
    # the finding on the port: one port, cited at its state's line; the only port listed, so
    # set 580's critical (no active port on the host) carries it
    assert "evidence-hca-port-not-active" not in heldout.found(ev)
    (item,) = heldout.found(ev)["evidence-hca-host-no-active-port"].items
    assert item.startswith(
        "mlx5_5 port 1: Initializing (physical state LinkUp), InfiniBand, SM lid 0: no subnet "
        "manager has configured it ("
    )
    assert item.endswith(", line 9)")


def test_a_umad_port_that_would_not_open_is_said_as_such() -> None:
    # libibmad's other word (rpc.c mad_rpc_open_port: umad_open_port failed) and sminfo's exit
    # (sminfo.c: IBEXIT("Failed to open '%s' port '%d'")): no fabric discovery in question
    text = (
        _IBSTAT_MLX5_0_DOWN
        + "ibwarn: [2201] mad_rpc_open_port: can't open UMAD port ((null):0)\n"
        + "sminfo: iberror: failed: Failed to open '(null)' port '0'\n"
    )
    ports, warnings = rdma.parse(text)
    assert [(p.ca, p.state) for p in ports] == [("mlx5_0", "Down")]
    (note,) = [w for w in warnings if "umad" in w.message]
    assert (note.line, note.skipped) == (10, False)
    assert note.message == (
        "sminfo failed: Failed to open '(null)' port '0' (line 11): libibmad could not open the "
        "umad port (none named, the default) (line 10): ib_umad not loaded, no permission on "
        "/dev/infiniband/umad*, or no InfiniBand port to use"
    )


def test_ibstat_and_rdma_link_listing_one_port_are_one_port() -> None:
    ev = _load(GENIE_SIMBA)
    (f,) = ev.files
    assert f.status == "read" and f.formats == ["rdma"]
    got = [
        (p["ca"], p["tool"], p["state"], p["physical_state"], p["link_layer"], p["netdev"])
        for p in ev.hca_ports
    ]
    # genie's ibstat (lines 13-63) and rdma link (65-67), simba's ibstat (69-85) and rdma link
    # (87): four ports, each once, ibstat's reading with rdma link's netdev
    assert got == [
        ("ibp23s0", "ibstat", "Active", "LinkUp", "InfiniBand", None),
        ("roceo1", "ibstat", "Active", "LinkUp", "Ethernet", "eno1np0"),
        ("roceo2", "ibstat", "Down", "Disabled", "Ethernet", "eno2np1"),
        ("ibp111s0", "ibstat", "Active", "LinkUp", "InfiniBand", None),
    ]
    assert (
        "rdma: ibstat and rdma link both list ibp23s0 port 1, roceo1 port 1, roceo2 port 1, "
        "ibp111s0 port 1: each port read once, with the fields of both" in heldout.said(ev)
    )
    # one port down, not two: cited at ibstat's state line (55)
    finding = heldout.found(ev)["evidence-hca-port-not-active"]
    assert finding.message.startswith("1 RDMA NIC port(s) are not active")
    (item,) = finding.items
    assert item.startswith(
        "roceo2 port 1: Down (physical state Disabled), Ethernet, netdev eno2np1 ("
    )
    assert item.endswith(", line 55)")


def test_rdma_link_before_ibstat_keeps_ibstats_port() -> None:
    ports, warnings = rdma.parse(_RDMA_LINK_MLX5_0_DOWN + _IBSTAT_MLX5_0_DOWN)
    (port,) = ports
    assert (port.tool, port.line, port.state_line, port.netdev, port.firmware) == (
        "ibstat",
        6,
        7,
        "ens1f0",
        "20.31.1014",
    )
    assert any("ibstat and rdma link both list mlx5_0 port 1" in w.message for w in warnings)


def test_two_hosts_listings_of_one_port_name_are_not_merged() -> None:
    # another host's prompt, or a heading naming another host, stands between them: two ports
    for first, second in (
        ("root@node1:~# ibstat\n", "root@node2:~# rdma link\n"),
        ("## node01\n", "## node02\n"),
        ("=== gpu-3 ===\n", "=== gpu-4 ===\n"),
        ("[node1]\n", "[node2]\n"),
        ("Server Genie(native)\n", "Server Simba(native)\n"),
        ("# server\n", "# client\n"),
    ):
        ports, _ = rdma.parse(first + _IBSTAT_MLX5_0_DOWN + second + _RDMA_LINK_MLX5_0_DOWN)
        assert [p.tool for p in ports] == ["ibstat", "rdma link"], first
    # one host's (its prompt again, a heading naming a command or a device): one port
    for first, second in (
        ("root@node1:~# ibstat\n", "root@node1:~# rdma link\n"),
        ("## ibstat\n", "## rdma link\n"),
        ("node1:\n", "mlx5_0:\n"),
    ):
        ports, _ = rdma.parse(first + _IBSTAT_MLX5_0_DOWN + second + _RDMA_LINK_MLX5_0_DOWN)
        assert [(p.tool, p.netdev) for p in ports] == [("ibstat", "ens1f0")], first
    # two listings that disagree on the port's state (run at different times) stay apart
    ports, _ = rdma.parse(
        _IBSTAT_MLX5_0_DOWN + "link mlx5_0/1 state ACTIVE physical_state LINK_UP netdev ens1f0\n"
    )
    assert [p.tool for p in ports] == ["ibstat", "rdma link"]
