"""Preflight: the network checks on real sockets, host tools run as processes, and a real run
whose master refuses, whose HCCL port is taken and whose interface does not exist."""

from __future__ import annotations

import json
import os
import socket
import stat
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from advisor.probes import nics, preflight, tools
from tests.conftest import DATA, AdvisorResult, only_stages, run_advisor

# The module fixture's job runs once: these tests share one xdist worker (conftest.py).
pytestmark = pytest.mark.xdist_group("preflight")


def _closed_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@pytest.fixture
def listener() -> Iterator[socket.socket]:
    srv = socket.socket()
    srv.bind(("127.0.0.1", 0))
    srv.listen(8)
    yield srv
    srv.close()


def test_tcp_probe_tells_causes_apart(listener: socket.socket) -> None:
    ok = preflight.tcp_probe("127.0.0.1", listener.getsockname()[1], 2.0)
    assert ok["connected"] and ok["cause"] == "connected"

    refused = preflight.tcp_probe("127.0.0.1", _closed_port(), 2.0)
    assert not refused["connected"] and refused["cause"] == "refused"

    dns = preflight.tcp_probe("no-such-host.invalid", 80, 2.0)
    assert dns["cause"] == "dns"


def test_tcp_probe_times_out_within_its_deadline() -> None:
    # A listener that never accepts, with its one-slot backlog filled: the kernel drops further
    # SYNs, so a connect gets no answer at all (what a firewall that drops packets does).
    srv = socket.socket()
    srv.bind(("127.0.0.1", 0))
    srv.listen(0)
    port = srv.getsockname()[1]
    fillers = []
    for _ in range(3):
        c = socket.socket()
        c.settimeout(0.5)
        try:
            c.connect(("127.0.0.1", port))
        except TimeoutError:
            pass
        fillers.append(c)
    t0 = time.monotonic()
    res = preflight.tcp_probe("127.0.0.1", port, 1.0)
    elapsed = time.monotonic() - t0
    for c in [*fillers, srv]:
        c.close()
    assert res["cause"] == "timed_out"
    assert 0.9 <= elapsed < 3.0


def test_resolve_host() -> None:
    assert preflight.resolve_host("127.0.0.1", 2.0)["ok"]
    bad = preflight.resolve_host("no-such-host.invalid", 2.0)
    assert not bad["ok"] and "no-such-host.invalid" in bad["error"]


def test_port_busy_names_the_holder(listener: socket.socket) -> None:
    port = listener.getsockname()[1]
    holder = preflight.port_busy(port)
    assert holder is not None and holder["port"] == port
    if os.geteuid() == 0:  # other users' sockets are hidden from unprivileged users
        assert holder["pid"] == os.getpid()
    assert preflight.port_busy(_closed_port()) is None


def test_ifname_forms() -> None:
    here = [
        nics.Nic(name="lo", up=True, mtu=65536, speed_mbps=0, addresses=["127.0.0.1"]),
        nics.Nic(name="eth0", up=True, mtu=1500, speed_mbps=0, addresses=["10.0.0.2"]),
        nics.Nic(name="eth1", up=False, mtu=1500, speed_mbps=0, addresses=[]),
        nics.Nic(name="enp3", up=True, mtu=9000, speed_mbps=0, addresses=[]),
    ]
    check = nics.check_ifname
    assert sorted(check("HCCL_SOCKET_IFNAME", "eth,enp", here)["selected"]) == ["enp3", "eth0"]
    assert check("HCCL_SOCKET_IFNAME", "^eth", here)["selected"] == ["enp3"]
    assert check("HCCL_SOCKET_IFNAME", "=eth0", here)["selected"] == ["eth0"]
    assert check("HCCL_SOCKET_IFNAME", "^=eth0", here)["selected"] == ["enp3"]
    down = check("NCCL_SOCKET_IFNAME", "=eth1", here)
    assert not down["ok"] and "eth1, which is down" in down["problem"]
    missing = check("GLOO_SOCKET_IFNAME", "ib0", here)
    assert not missing["ok"] and "ib0" in missing["problem"] and "eth0" in missing["problem"]
    assert not check("HCCL_SOCKET_IFNAME", "ib", here)["ok"]
    assert nics.check_if_ip("10.0.0.2", here)["selected"] == ["eth0"]
    assert not nics.check_if_ip("10.9.9.9", here)["ok"]


def _script(path: Path, body: str) -> Path:
    path.write_text("#!/bin/sh\n" + body + "\n")
    path.chmod(path.stat().st_mode | stat.S_IXUSR)
    return path


def test_host_tool_output_parsed_kept_and_timeout_enforced(tmp_path: Path) -> None:
    # A stand-in npu-smi that prints the evidence parsers' 910B sample (tests/data/evidence).
    sample = DATA / "evidence" / "npu_smi_info_910b_wide.txt"
    tool = _script(tmp_path / "npu-smi", f"cat '{sample}'")
    res = tools.run_tool([str(tool), "info"], "npu_smi", "parse_info", 5.0)
    assert res["returncode"] == 0 and res["output"].startswith(sample.read_text()[:200])
    assert "parse_error" not in res, res.get("parse_error")
    assert res["parsed"]["chips"], "the parsed table lists the chips"

    garbled = _script(tmp_path / "npu-smi-bad", 'echo "not an npu-smi table"; echo "$@" >&2')
    res = tools.run_tool([str(garbled), "info"], "npu_smi", "parse_info", 5.0)
    assert "not an npu-smi table" in res["output"] and "info" in res["output"]  # with stderr
    # The table cannot be read: the parse error is recorded beside the raw output, not raised.
    assert res["parse_error"] and "parsed" not in res

    slow = _script(tmp_path / "hccn_tool", "sleep 5")
    t0 = time.monotonic()
    res = tools.run_tool([str(slow), "-i", "0", "-link", "-g"], "hccn_tool", "parse_link", 0.5)
    assert res["timed_out"] and time.monotonic() - t0 < 4


def test_tool_commands_found_on_path(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from advisor.cluster import ClusterConfig, resolve

    for name in ("npu-smi", "hccn_tool"):
        _script(tmp_path / name, "true")
    monkeypatch.setenv("PATH", str(tmp_path))
    cluster = resolve(ClusterConfig(nodes=1, devices_per_node=2), emulate=True)
    argvs = [" ".join(a) for a, _, _ in tools.tool_commands(cluster)]
    assert argvs[:2] == [f"{tmp_path}/npu-smi info", f"{tmp_path}/npu-smi info -t topo"]
    assert f"{tmp_path}/hccn_tool -i 0 -net_health -g" in argvs
    assert not any("nvidia-smi" in a for a in argvs)


def test_hccn_tool_is_found_in_the_drivers_tools_folder(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The driver installs hccn_tool in its tools folder; the /usr/bin link is often missing."""
    folder = tmp_path / "driver" / "tools"
    folder.mkdir(parents=True)
    _script(folder / "hccn_tool", "true")
    monkeypatch.setenv("PATH", str(tmp_path / "empty"))
    monkeypatch.setitem(tools.TOOL_DIRS, "hccn_tool", (str(folder),))
    assert tools.find_tool("hccn_tool") == str(folder / "hccn_tool")
    assert tools.find_tool("npu-smi") is None


def test_live_tool_outputs_are_judged_by_the_evidence_rules(tmp_path: Path) -> None:
    """What npu-smi and hccn_tool print during preflight reaches the same parsers and rules as
    an imported file: an unhealthy chip and a port whose link is down are findings."""
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    info = DATA / "evidence" / "npu_smi_info_910b_wide.txt"
    _script(bin_dir / "npu-smi", f"[ \"$*\" = info ] && cat '{info}'; true")
    _script(
        bin_dir / "hccn_tool",
        'if [ "$2" = 1 ] && [ "$3" = -link ]; then echo "link status: DOWN"; '
        'elif [ "$3" = -link ]; then echo "link status: UP"; fi',
    )
    res = run_advisor(
        ["emulate=true", *only_stages("preflight")],
        tmp_path / "run",
        env={"PATH": f"{bin_dir}:{os.environ['PATH']}"},
    )
    assert res.stage("preflight")["status"] == "ok", res.stdout + res.stderr
    evidence = res.facts["evidence"]
    assert {c["source"] for c in evidence["npu_chips"]} == {f"node0: {bin_dir}/npu-smi info"}
    ports = {p["device"]: p["link"] for p in evidence["npu_ports"]}
    assert ports[1] == "DOWN" and ports[0] == "UP"
    # a finding's text: its message and every item it lists
    findings = {
        f["rule_id"]: " ".join([f["message"], *f["items"]])
        for f in json.loads((tmp_path / "run" / "findings.json").read_text())["findings"]
    }
    assert "NPU 2 chip 0 (910B3" in findings["evidence-npu-chip-health"]
    assert "NPU 1 link DOWN (node0: hccn_tool" in findings["evidence-npu-port-down"]


@pytest.fixture(scope="module")
def broken(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[AdvisorResult, int, int]]:
    # Held bound but not listening for the whole run: a connect is refused, and no other
    # process (the other xdist worker's jobs) can start listening on it meanwhile.
    closed = socket.socket()
    closed.bind(("127.0.0.1", 0))
    master_port = closed.getsockname()[1]
    taken = socket.socket()
    taken.bind(("", 0))
    taken.listen(1)
    hccl_port = taken.getsockname()[1]
    started = time.monotonic()
    res = run_advisor(
        [
            "+cluster=2x2",
            "emulate=true",
            f"cluster.master_port={master_port}",
            "stages.preflight.master_check=listen",
            "stages.preflight.connect_timeout_s=2",
            "stages.preflight.hccl_ports=on",
            "stages.preflight.hccl_port_count=2",
            f"+env.HCCL_IF_BASE_PORT='{hccl_port}'",
            "cluster.interface=nosuchnic0",
        ],
        tmp_path_factory.mktemp("pre") / "run",
    )
    res.elapsed_s = time.monotonic() - started  # type: ignore[attr-defined]
    taken.close()
    closed.close()
    yield res, master_port, hccl_port


def test_refusing_master_fails_preflight_fast_and_skips_jobs(broken) -> None:
    res, master_port, _ = broken
    assert res.returncode == 1, res.stdout + res.stderr
    sf = res.stage("preflight")
    assert sf["status"] == "failed"
    assert (
        f"node node0: PreflightFailed: master 127.0.0.1:{master_port} (master) refused"
        in sf["reason"]
    )
    assert "node node1:" in sf["reason"]
    master = sf["data"]["nodes"]["node0"]["master"]
    assert master["cause"] == "refused" and master["elapsed_s"] < 2
    assert sf["duration_s"] < 10  # not a rendezvous timeout
    for name in ("smoke", "connectivity", "topology"):
        job = res.stage(name)
        assert job["status"] == "skipped" and "preflight failed" in job["reason"]
        assert job["duration_s"] == 0.0


def test_busy_hccl_port_and_missing_interface_are_named(broken) -> None:
    res, _, hccl_port = broken
    data = res.stage("preflight")["data"]
    node0 = data["nodes"]["node0"]
    assert node0["hccl_base_port"] == hccl_port
    assert [b["port"] for b in node0["ports_busy"]] == [hccl_port]
    # The emulated nodes share this host: its ports are checked once, on node 0.
    assert data["nodes"]["node1"]["ports_busy"] == []
    assert any(f"port {hccl_port} (HCCL_IF_BASE_PORT)" in b for b in data["blocking"])
    check = next(c for c in node0["ifname_checks"] if c["var"] == "GLOO_SOCKET_IFNAME")
    assert not check["ok"] and check["used_by_this_run"] and "nosuchnic0" in check["problem"]
    assert node0["route_nic"] == "lo" and any(n["name"] == "lo" for n in node0["nics"])


@pytest.mark.root
def test_checks_run_inside_the_nodes_network_namespace(tmp_path: Path) -> None:
    if os.geteuid() != 0:
        pytest.skip("needs root to create a network namespace")
    import subprocess

    import psutil

    host_nic = next((n for n in sorted(psutil.net_if_stats()) if n != "lo"), None)
    if host_nic is None:
        pytest.skip("this host has no interface besides lo")
    ns = f"advpf{os.getpid()}"
    subprocess.run(["ip", "netns", "add", ns], check=True)
    try:
        subprocess.run(["ip", "-n", ns, "link", "set", "lo", "up"], check=True)
        res = run_advisor(
            [
                f"launcher.netns=[{ns}]",
                f"cluster.interface={host_nic}",
                *only_stages("preflight"),
            ],
            tmp_path / "run",
        )
    finally:
        subprocess.run(["ip", "netns", "del", ns], check=False)
    sf = res.stage("preflight")
    assert sf["status"] == "failed", res.stdout + res.stderr
    (node,) = sf["data"]["nodes"].values()
    # The namespace has only its loopback: the host's interface is missing there, and named.
    assert [n["name"] for n in node["nics"]] == ["lo"]
    assert f"GLOO_SOCKET_IFNAME names {host_nic}, which this host does not have" in sf["reason"]


def test_gloo_bound_to_loopback_on_a_multi_node_job_blocks_preflight(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """With GLOO_SOCKET_IFNAME unset, gloo binds the host name's address: a name mapped to
    loopback (127.0.1.1 on Debian and Ubuntu) leaves every gloo group of a multi-node job (the
    side groups of hccl/nccl too) unreachable from the other nodes."""
    from advisor.cluster import ClusterConfig, resolve
    from advisor.context import HostContext

    monkeypatch.delenv("GLOO_SOCKET_IFNAME", raising=False)
    monkeypatch.setattr(socket, "gethostname", lambda: "localhost")
    # the second node is elsewhere (an address no interface of this host has)
    cluster = resolve(
        ClusterConfig(nodes=2, devices_per_node=1, device="cpu", hosts=["127.0.0.1", "192.0.2.7"]),
        emulate=False,
    )
    params = preflight.PreflightConfig(master_check="off", tools=False, dns_timeout_s=0.5)
    ctx = HostContext(stage="preflight", run_dir=tmp_path, cluster=cluster, node=0, params=params)
    with pytest.raises(preflight.PreflightFailed, match=r"resolves to 127\.0\.0\.1.*loopback"):
        preflight.check_node(ctx, params)
    gloo = preflight.gloo_bind_address(nics.list_nics(), 2.0)
    assert "cluster.interface" in gloo["problem"] and gloo["nic"] == "lo"
    # named interface: gloo binds it, nothing to check
    monkeypatch.setenv("GLOO_SOCKET_IFNAME", "lo")
    preflight.check_node(ctx, params)
