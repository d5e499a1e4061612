"""The emulated multi-node lab itself: namespaces, links, shaping, fault plumbing, teardown.

These need root (CI runs as root) and skip with the reason otherwise. The advisor runs in the
lab are in ``test_lab_runs.py``.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from advisor.errors import ConfigError
from advisor.lab import Lab, LinkShape, list_labs
from advisor.lab.netns import lab_namespaces, sh, state_dir
from tests.lab import REPO, lab_leak_check, make_lab, requires_lab

pytestmark = [pytest.mark.root, requires_lab]


@pytest.fixture(scope="module", autouse=True)
def _no_leaks(lab_leak_check: None) -> None:
    """Pull the session-end leak check into every run of this module."""


def _tcp_reachable(lab: Lab, src: int, dst: int, port: int, timeout_s: float = 2.0) -> bool:
    """Whether node ``src`` can open a TCP connection to node ``dst`` (a listener runs there)."""
    server = subprocess.Popen(
        lab.exec_argv(
            dst,
            [
                sys.executable,
                "-c",
                "import socket,sys;s=socket.socket();"
                "s.setsockopt(socket.SOL_SOCKET,socket.SO_REUSEADDR,1);"
                f"s.bind(('{lab.address(dst)}',{port}));s.listen();print('ready',flush=True);"
                "c,_=s.accept();c.close()",
            ],
        ),
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert server.stdout is not None and server.stdout.readline().strip() == "ready"
        client = subprocess.run(
            lab.exec_argv(
                src,
                [
                    sys.executable,
                    "-c",
                    f"import socket;socket.create_connection(('{lab.address(dst)}',{port}),"
                    f"timeout={timeout_s}).close()",
                ],
            ),
            capture_output=True,
            check=False,
        )
        return client.returncode == 0
    finally:
        server.kill()
        server.wait()


def test_nodes_have_own_addresses_loopback_and_shaped_links(make_lab) -> None:
    lab = make_lab(2, shape=LinkShape(rate_mbit=200), node_shapes={1: LinkShape(rate_mbit=50)})
    assert lab.addresses[0] != lab.addresses[1]
    assert all(a.startswith("10.213.") for a in lab.addresses)
    assert set(lab_namespaces(lab.id)) == {*lab.namespaces, lab.bridge_ns}
    for n in range(2):
        addrs = sh(lab.exec_argv(n, ["ip", "-o", "-4", "addr", "show"]))
        assert f"inet {lab.address(n)}/24" in addrs and "lab0" in addrs
        assert "inet 127.0.0.1/8" in addrs
        lo = sh(lab.exec_argv(n, ["ip", "-o", "link", "show", "lo"]))
        assert "UP" in lo
    # Both directions of each node link carry the node's rate.
    for n, rate in ((0, "200Mbit"), (1, "50Mbit")):
        node_side = sh(["tc", "-n", lab.ns(n), "class", "show", "dev", "lab0"])
        switch_side = sh(["tc", "-n", lab.bridge_ns, "class", "show", "dev", f"v{n}"])
        assert f"rate {rate}" in node_side and f"rate {rate}" in switch_side
    assert _tcp_reachable(lab, 0, 1, 40001)
    assert _tcp_reachable(lab, 1, 0, 40002)


def test_fault_helpers_cut_and_restore_traffic(make_lab) -> None:
    lab = make_lab(2, shape=LinkShape(rate_mbit=400))
    lab.block_ports(0, 40010, 40019)
    assert not _tcp_reachable(lab, 1, 0, 40011, timeout_s=1.0)
    assert _tcp_reachable(lab, 1, 0, 40020), "only the blocked range is dropped"
    lab.unblock_ports(0)
    assert _tcp_reachable(lab, 1, 0, 40011)

    lab.link_down(1)
    assert not _tcp_reachable(lab, 0, 1, 40030, timeout_s=1.0)
    lab.link_up(1)
    assert _tcp_reachable(lab, 0, 1, 40031, timeout_s=5.0)

    degraded = lab.degrade(1, rate_factor=0.25, loss_pct=1.0)
    assert degraded.rate_mbit == 100 and degraded.loss_pct == 1.0
    assert "rate 100Mbit" in sh(["tc", "-n", lab.ns(1), "class", "show", "dev", "lab0"])
    assert "rate 400Mbit" in sh(["tc", "-n", lab.ns(0), "class", "show", "dev", "lab0"])
    if not lab.has_netem:
        rules = sh(lab.exec_argv(1, ["iptables", "-S", "adv-loss"]))
        assert rules.count("--probability 0.0099") == 2, rules
    state = json.loads((state_dir() / f"{lab.id}.json").read_text())
    assert state["shapes"]["1"]["rate_mbit"] == 100


def test_bad_shapes_and_nodes_are_named() -> None:
    with pytest.raises(ConfigError, match="loss_pct"):
        LinkShape(loss_pct=100)
    with pytest.raises(ConfigError, match="jitter_ms needs delay_ms"):
        LinkShape(jitter_ms=1)
    with pytest.raises(ConfigError, match="node_shapes"):
        Lab(2, node_shapes={5: LinkShape()})
    with Lab(2) as lab:
        with pytest.raises(ConfigError, match="unshaped link"):
            lab.degrade(0)
        with pytest.raises(ConfigError, match=r"lab node 2 is outside 0\.\.1"):
            lab.link_down(2)


_OWNER = """
import os, signal, sys, time
from advisor.lab import Lab
lab = Lab(2).up()
print(lab.id, flush=True)
if sys.argv[1] == "crash":
    os.kill(os.getpid(), signal.SIGKILL)  # no teardown of any kind runs
time.sleep(60)
"""


def _owner(mode: str) -> tuple[subprocess.Popen[str], str]:
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    proc = subprocess.Popen(
        [sys.executable, "-c", _OWNER, mode], stdout=subprocess.PIPE, text=True, env=env
    )
    assert proc.stdout is not None
    lab_id = proc.stdout.readline().strip()
    assert lab_id, "the lab owner did not start"
    return proc, lab_id


def test_sigterm_tears_the_lab_down() -> None:
    proc, lab_id = _owner("sleep")
    assert lab_namespaces(lab_id)
    proc.send_signal(signal.SIGTERM)
    assert proc.wait(timeout=30) == -signal.SIGTERM
    assert lab_namespaces(lab_id) == []
    assert not (state_dir() / f"{lab_id}.json").exists()


def test_crashed_lab_is_cleaned_by_the_next_one() -> None:
    proc, lab_id = _owner("crash")
    proc.wait(timeout=30)
    assert len(lab_namespaces(lab_id)) == 3, "a SIGKILLed owner leaves its lab behind"
    with Lab(1) as lab:
        assert lab_namespaces(lab_id) == []
        assert lab_id not in {s.id for s in list_labs()}
        assert lab_namespaces(lab.id)


def test_cli_up_status_run_down(tmp_path: Path) -> None:
    env = {**os.environ, "PYTHONPATH": str(REPO)}

    def cli(*args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [sys.executable, "-m", "advisor", "lab", *args],
            capture_output=True,
            text=True,
            env=env,
            timeout=120,
        )

    up = cli("up", "--nodes", "2", "--rate-mbit", "300")
    assert up.returncode == 0, up.stderr
    lab_id = up.stdout.split()[1]
    try:
        assert "cluster.interface=lab0" in up.stdout
        status = cli("status")
        assert f"lab {lab_id} (persistent): 2 nodes" in status.stdout
        assert "rate_mbit=300" in status.stdout
        # A persistent lab survives other labs' stale cleanup.
        with Lab(1):
            assert len(lab_namespaces(lab_id)) == 3
    finally:
        down = cli("down", lab_id)
    assert down.returncode == 0, down.stderr
    assert lab_namespaces(lab_id) == []
    assert "no lab 'nope'" in cli("run", "--lab", "nope").stderr
    assert cli("down").returncode == 2


__all__ = ["lab_leak_check", "make_lab"]
