"""``advisor run`` on the emulated multi-node lab: the real multi-node path and its faults.

Each test runs the real CLI against lab namespaces (2 nodes x 2 gloo ranks, one torchrun agent
per namespace, rendezvous over the lab addresses, GLOO_SOCKET_IFNAME=lab0) and checks what
facts.json says. Root only; each run is kept to the quick profile with small sizes.
"""

from __future__ import annotations

import shutil
import signal
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from advisor.lab import Lab, LinkShape
from advisor.stages import STAGE_MODULES
from tests.lab import (
    LabRun,
    kill_pid,
    lab_leak_check,
    make_lab,
    rank_pid,
    requires_lab,
    run_in_lab,
    when_step,
)

pytestmark = [pytest.mark.root, requires_lab]

# Deadlines: generous caps for healthy stages (a node's ranks import torch on a busy 2-core CI
# machine); the faults below end their stage well before them, through the process-group
# timeout or the agent noticing a failed peer.
DEADLINE_S = 180.0
FAULT_DEADLINE_S = 45.0
PG_TIMEOUT_S = 20.0
BLOCKED_DEADLINE_S = 10.0
"""The smoke stage whose rendezvous port is blocked: no rank starts anywhere, so the stage only
waits out this deadline; nothing in it needs time to show."""
BASE = [
    "+cluster=2x2",
    "profile=quick",
    f"pg_timeout_s={PG_TIMEOUT_S}",
    f"stages.smoke.deadline_s={DEADLINE_S}",
    f"stages.connectivity.deadline_s={DEADLINE_S}",
    "stages.connectivity.bandwidth_bytes=[1048576]",
    "stages.connectivity.pair_timeout_s=10",
]


def only(*stages: str) -> list[str]:
    """Overrides that enable just these stages (of those this branch has)."""
    return [f"stages.{s}.enabled={str(s in stages).lower()}" for s in STAGE_MODULES]


@pytest.fixture(scope="module", autouse=True)
def _no_leaks(lab_leak_check: None) -> None:
    """Pull the session-end leak check into every run of this module."""


def _assert_ranks(run: LabRun, stage: str, states: dict[int, set[str]]) -> dict[int, Any]:
    ranks = run.ranks(stage)
    for rank, allowed in states.items():
        assert ranks[rank]["state"] in allowed, (rank, ranks[rank], run.describe())
    return ranks


# ----------------------------------------------------------------------------- healthy lab


@pytest.fixture(scope="module")
def healthy(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Lab, LabRun]]:
    """One clean 2x2 run on a lab whose node links are shaped to 100 Mbit/s, through
    launcher=torchrun: one advisor per node, inside that node's namespace, sharing the run
    directory (the fault tests below use launcher=local with launcher.netns)."""
    with Lab(2, shape=LinkShape(rate_mbit=100)) as lab:
        run = run_in_lab(
            lab,
            [*BASE, *only("smoke", "connectivity")],
            tmp_path_factory.mktemp("lab") / "run",
            launcher="torchrun",
        )
        yield lab, run


def test_two_lab_nodes_with_distinct_addresses(healthy: tuple[Lab, LabRun]) -> None:
    lab, run = healthy
    assert run.returncodes == [0, 0], run.describe()
    for node in (0, 1):
        assert (run.run_dir / "logs" / "smoke" / f"node{node}.log").exists()
    facts = run.facts
    assert facts["cluster"]["nodes"] == 2
    assert facts["cluster"]["hosts"] == lab.addresses
    smoke = facts["stages"]["smoke"]
    assert smoke["status"] == "ok", run.describe()
    # Each rank reports the address of the NIC it really talked through: its node's lab address.
    addresses = smoke["data"]["addresses"]
    assert addresses == {
        "0": lab.address(0),
        "1": lab.address(0),
        "2": lab.address(1),
        "3": lab.address(1),
    }
    assert set(smoke["data"]["interfaces"].values()) == {"lab0"}
    assert smoke["data"]["all_reduce_ok"] is True
    assert facts["environment"]["variables"]["GLOO_SOCKET_IFNAME"] == "lab0"
    assert {r["node_name"] for r in smoke["ranks"]} == set(lab.addresses)


def test_inter_node_link_is_slower_than_intra_node(healthy: tuple[Lab, LabRun]) -> None:
    _, run = healthy
    conn = run.stage("connectivity")
    assert conn["status"] == "ok", run.describe()
    links = conn["data"]["links"]
    intra, inter = links["intra"]["median_gbps"], links["inter"]["median_gbps"]
    # The inter-node links are shaped to 0.1 Gbit/s; ranks of one node meet over loopback.
    assert inter <= 0.1 * 1.05, links
    assert intra > 2 * inter, links
    for pair in conn["data"]["pairs"]:
        if pair["link"] == "inter":
            assert pair["src_node"] != pair["dst_node"]


@pytest.mark.skipif(
    shutil.which("sshd") is None and not Path("/usr/sbin/sshd").exists(),
    reason="launcher=ssh needs Debian's openssh-server (sshd)",
)
def test_ssh_launcher_through_sshd_in_each_node(make_lab, tmp_path: Path) -> None:
    """launcher=ssh: the advisor, in node 0's namespace, starts each node's agent over ssh to a
    real sshd listening on that node's lab address."""
    lab = make_lab(2)
    lab.start_sshd()
    keys = list(Path(tempfile.gettempdir()).glob(f"adv-{lab.id}-ssh-*"))
    assert len(keys) == 1
    run = run_in_lab(lab, [*BASE, *only("smoke")], tmp_path / "run", launcher="ssh")
    assert run.returncodes == [0], run.describe()
    smoke = run.stage("smoke")
    assert smoke["status"] == "ok", run.describe()
    assert smoke["data"]["addresses"] == {
        "0": lab.address(0),
        "1": lab.address(0),
        "2": lab.address(1),
        "3": lab.address(1),
    }
    lab.down()
    assert not keys[0].exists(), "the lab's ssh keys go with it"


# ----------------------------------------------------------------------------- faults


def test_node_that_never_starts(make_lab, tmp_path: Path) -> None:
    """Node 1's agent never comes up: its ranks are named not_started, on its address."""
    lab = make_lab(2)
    run = run_in_lab(
        lab,
        [*BASE, *only("smoke"), f"stages.smoke.deadline_s={FAULT_DEADLINE_S}"],
        tmp_path / "run",
        absent_nodes=[1],
    )
    assert run.returncodes == [1], run.describe()
    smoke = run.stage("smoke")
    assert smoke["status"] in ("failed", "timeout"), run.describe()
    assert smoke["duration_s"] <= FAULT_DEADLINE_S + 15
    ranks = _assert_ranks(run, "smoke", {2: {"not_started"}, 3: {"not_started"}})
    assert ranks[2]["node_name"] == ranks[3]["node_name"] == lab.address(1)
    assert f"rank 2 on {lab.address(1)}" in smoke["reason"], smoke["reason"]
    assert all(ranks[r]["state"] != "ok" for r in (0, 1)), "node 0 cannot finish alone"


def test_master_port_blocked(make_lab, tmp_path: Path) -> None:
    """A firewall on node 0 drops the smoke stage's rendezvous port. Preflight names node 1 as
    unable to reach master:port (timed out); smoke, run anyway, ends at its deadline with node
    1's ranks never started; the next stage, on another port, runs and keeps its results."""
    lab = make_lab(2)
    base_port = 29500
    stages = ("preflight", "smoke", "connectivity")
    # Job stages meet at base + 100 * (index of the stage among those enabled).
    smoke_port = base_port + 100 * stages.index("smoke")
    lab.block_ports(0, smoke_port, smoke_port + 99)
    run = run_in_lab(
        lab,
        [
            *BASE,
            *only(*stages),
            f"cluster.master_port={base_port}",
            "stages.preflight.fail_fast=false",
            # The dropped port times out the same at 1 s as at the default 3 s.
            "stages.preflight.connect_timeout_s=1",
            f"stages.smoke.deadline_s={BLOCKED_DEADLINE_S}",
        ],
        tmp_path / "run",
    )
    pre = run.stage("preflight")
    assert pre["status"] == "failed", run.describe()
    node1 = pre["data"]["nodes"][lab.address(1)]
    assert node1["master"]["port"] == smoke_port and node1["master"]["cause"] == "timed_out"
    assert node1["master"]["addr"] == lab.address(0)
    assert pre["data"]["blocking"] and all(
        lab.address(1) in b and str(smoke_port) in b for b in pre["data"]["blocking"]
    ), pre["data"]["blocking"]
    assert not pre["data"]["nodes"][lab.address(0)]["blocking"]

    smoke = run.stage("smoke")
    assert smoke["status"] == "timeout", run.describe()
    assert smoke["duration_s"] <= BLOCKED_DEADLINE_S + 15
    # torchrun's static rendezvous holds node 0's agent until every node has joined, so no rank
    # starts anywhere; the reason names node 1's ranks on its address.
    ranks = _assert_ranks(run, "smoke", {r: {"not_started"} for r in range(4)})
    assert ranks[3]["node_name"] == lab.address(1)
    assert f"rank 3 on {lab.address(1)}" in smoke["reason"], smoke["reason"]
    conn = run.stage("connectivity")
    assert conn["status"] == "ok", run.describe()
    assert conn["data"]["links"]["inter"]["count"] >= 1


def test_rank_killed_mid_stage(make_lab, tmp_path: Path) -> None:
    """Rank 3's process is SIGKILLed in the middle of the smoke stage (after its barrier): it is
    named died, on node 1, at its last step; the next stage runs and keeps its results."""
    lab = make_lab(2)
    run_dir = tmp_path / "run"
    killed: list[int] = []

    def kill(record: dict[str, Any]) -> None:
        pid = rank_pid(run_dir, 3)
        assert pid is not None
        killed.append(pid)
        kill_pid(pid, signal.SIGKILL)

    # The slow fault holds rank 3 before its all_reduce (after the barrier) long enough for the
    # watcher, which strikes once rank 3 reaches the barrier, to find and kill it mid-stage.
    hold = "+faults=[{stage:smoke,rank:3,kind:slow,step:all_reduce,seconds:30}]"
    with when_step(run_dir, "smoke", kill, step="barrier", rank=3) as watch:
        run = run_in_lab(lab, [*BASE, *only("smoke", "connectivity"), hold], run_dir)
    assert watch.fired.is_set() and killed, run.describe()
    smoke = run.stage("smoke")
    assert smoke["status"] == "failed", run.describe()
    ranks = _assert_ranks(run, "smoke", {3: {"died"}})
    assert ranks[3]["exit_code"] == -signal.SIGKILL
    assert ranks[3]["node_name"] == lab.address(1)
    assert ranks[3]["last_step"] == "barrier"
    assert "rank 3" in smoke["reason"]
    assert smoke["duration_s"] <= DEADLINE_S
    assert run.stage("connectivity")["status"] == "ok", run.describe()


def test_link_down_mid_stage(make_lab, tmp_path: Path) -> None:
    """Node 1's cable is pulled as the connectivity stage starts measuring pairs: the smoke
    stage's results stay, the pairs crossing to node 1 are reported failed, the pairs inside a
    node are measured, and the stage ends within its deadline."""
    # A shaped link and more iterations keep each crossing pair busy for seconds: on an idle
    # veth the pairs finished within 0.1 s, before the cut (started when a rank reaches its first
    # pair) could land, and the stage ended ok.
    lab = make_lab(2, shape=LinkShape(rate_mbit=100))
    run_dir = tmp_path / "run"
    deadline = 120.0  # launch included: the ranks must come up before the link can fail them
    with when_step(run_dir, "connectivity", lambda r: lab.link_down(1), step="pair/") as watch:
        run = run_in_lab(
            lab,
            [
                *BASE,
                *only("smoke", "connectivity"),
                f"stages.connectivity.deadline_s={deadline}",
                "stages.connectivity.bandwidth_iters=20",
                # The crossing pairs fail by this timeout once the cable is out; the pairs that
                # must pass go over loopback in a fraction of a second.
                "stages.connectivity.pair_timeout_s=5",
            ],
            run_dir,
        )
    assert watch.fired.is_set(), run.describe()
    assert run.stage("smoke")["status"] == "ok", run.describe()
    assert run.stage("smoke")["data"]["all_reduce_ok"] is True
    conn = run.stage("connectivity")
    assert conn["status"] in ("failed", "timeout"), run.describe()
    assert conn["duration_s"] <= deadline + 15
    data = conn["data"]
    # The ring's pairs inside a node were measured; both pairs crossing to node 1 failed, named
    # as inter-node links with the peers' node addresses.
    measured = {(p["src"], p["dst"]) for p in data["pairs"] if p["ok"]}
    assert measured == {(0, 1), (2, 3)}, data["pairs"]
    failed = {(p["src"], p["dst"]): p for p in data["failed_pairs"]}
    assert set(failed) == {(0, 3), (1, 2)}, data["failed_pairs"]
    for p in failed.values():
        assert p["link"] == "inter" and p["dst_node"] == lab.address(1), p
        assert "Timed out" in p["error"] or "Connection" in p["error"], p
    assert lab.address(1) in conn["reason"]


@pytest.mark.alone  # rates measured against the shaped 400 and 100 Mbit/s
def test_degraded_link_is_named(make_lab, tmp_path: Path) -> None:
    """Four one-rank nodes, node 3 at a quarter of the others' rate: the pairs through node 3
    measure about a quarter of a healthy pair, and the topology probe names exactly those links,
    with both ends, as the slow ones."""
    lab = make_lab(4, shape=LinkShape(rate_mbit=400))
    lab.degrade(3, rate_factor=0.25)
    run = run_in_lab(
        lab,
        [
            *BASE,
            *only("connectivity", "topology"),
            "cluster.devices_per_node=1",
            "stages.connectivity.pairs=all",
            "stages.connectivity.bandwidth_bytes=[2097152]",
        ],
        tmp_path / "run",
    )
    conn = run.stage("connectivity")
    assert conn["status"] == "ok", run.describe()
    pairs = {frozenset((p["src"], p["dst"])): p["bandwidth_gbps"] for p in conn["data"]["pairs"]}
    assert len(pairs) == 6
    through_3 = {frozenset((a, 3)) for a in (0, 1, 2)}
    healthy = [bw for pair, bw in pairs.items() if pair not in through_3]
    for slow in through_3:
        assert pairs[slow] < 0.5 * min(healthy), pairs
    assert all(0.3 <= bw <= 0.4 * 1.05 for bw in healthy), pairs  # 400 Mbit/s shaped
    assert all(0.07 <= pairs[p] <= 0.1 * 1.05 for p in through_3), pairs  # 100 Mbit/s shaped
    topo = run.stage("topology")
    named = {frozenset((s["a"], s["b"])) for s in topo["data"]["slow_links"]}
    assert named == through_3, topo["data"]["slow_links"]
    for s in topo["data"]["slow_links"]:
        assert lab.address(3) in (s["a_node"], s["b_node"]) and s["link"] == "inter", s


__all__ = ["lab_leak_check", "make_lab"]
