"""Review 28 of the readers added for round TT (ip/ifconfig, Slurm's node and job states, iperf3
stalls, rank tables cut inside a value, colossalai run's older failure, torch's NCCL version):
each fault it found, on its input (tests/data/review28, described in tests/data/SOURCES.md)."""

from __future__ import annotations

from advisor.evidence.load import EvidenceFacts, load_paths
from advisor.parsers import netif, prechecks
from tests.conftest import DATA

REVIEW = DATA / "review28"


def _load(name: str) -> EvidenceFacts:
    return load_paths([REVIEW / name])


def _kinds(ev: EvidenceFacts) -> list[tuple[str, str | None]]:
    return [(f["kind"], f.get("host")) for f in ev.failures]


def test_a_later_listing_of_another_tool_or_host_does_not_hide_a_lost_carrier() -> None:
    # H1: ip -br addr (no flags) after ip link, and the same interface on another host
    assert _kinds(_load("ipboth.txt")) == [("link_carrier_lost", None)]
    assert _kinds(_load("twohosts.txt")) == [("link_carrier_lost", "node1")]


def test_bridges_with_no_port_are_no_lost_link() -> None:
    # H4: podman's, LXD's, kubenet's and a plain bridge, up with no port attached
    assert _load("ip1.txt").failures == []


def test_a_non_ascii_digit_in_ip_s_figures_is_skipped() -> None:
    # M6: "³".isdigit() is True; int("³") raised
    (eth0,) = netif.parse((REVIEW / "uni.txt").read_text())
    assert eth0.errors == {}


def test_sinfo_tables_without_a_state_are_not_read_as_unavailable_nodes() -> None:
    # H2: sinfo -s's NODES(A/I/O/T) column is no state
    assert _load("sinfo1.txt").failures == []


def test_sinfo_r_ends_at_the_next_prompt() -> None:
    # M1: the squeue after it is not its rows
    (gpu03,) = _load("sinfo2.txt").failures
    assert gpu03["message"] == (
        "node gpu03: down, drained or failing (sinfo -R lists no other); reason: Not responding"
    )


def test_a_partition_blocks_state_is_not_the_nodes() -> None:
    # M2: scontrol show partition's State=DOWN after an idle node
    assert _load("scontrol1.txt").failures == []


def test_scontrols_full_state_names() -> None:
    # M7: MAINTENANCE is maint; DRAIN beside MIXED or ALLOCATED is draining
    maint, drain = _load("scontrol2.txt").failures
    assert maint["message"] == (
        "node gpu02: IDLE+MAINTENANCE+RESERVED: in a maintenance reservation"
    )
    assert drain["message"].startswith(
        "node gpu03: MIXED+DRAIN: draining (finishes its jobs, takes no new one); reason: ECC"
    )
    assert (
        prechecks.node_state("ALLOCATED+DRAIN") == "draining (finishes its jobs, takes no new one)"
    )
    assert (
        prechecks.node_state("IDLE+DRAIN")
        == "drained (unavailable per the administrator's request)"
    )


def test_a_whole_rank_table_with_a_string_left_open_is_invalid_json() -> None:
    # H3: a string that runs over a line break is a broken table, not a cut copy
    ev = _load("rt1.json")
    assert ev.files[0].status == "unreadable"
    assert "not valid JSON" in ev.files[0].messages[0].message


def test_iperf3_json_intervals_that_moved_nothing_are_a_stall() -> None:
    # M3: -J's intervals carry their seconds
    (stall,) = _load("stall.json").failures
    assert stall["kind"] == "transfer_stalled"
    assert stall["exception_type"].startswith("3 interval(s) (3 s) moved no data")


def test_each_host_of_colossalai_runs_older_failure_is_named() -> None:
    # M4: one launcher_exit a host
    assert [(f["kind"], f["host"]) for f in _load("colo.log").failures] == [
        ("launcher_exit", "host1"),
        ("launcher_exit", "host2"),
    ]


def test_ncclS_version_wrapped_at_the_space_is_read() -> None:
    # L3
    ev = _load("ncclv.log")
    assert "log: NCCL 2.10.3 (torch's account of the failed call)" in [
        m.message for m in ev.files[0].messages
    ]
