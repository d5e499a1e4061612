"""The soak stage's analysis on records: stalls merged across ranks and named with the link whose
carrier changed, a stall that never ended, the windowed series and their spread, counters after
against before, the hccn_tool -link_stat parser on its documented output, and the settings."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from advisor.cluster import ClusterConfig, resolve
from advisor.errors import ConfigError
from advisor.facts import ClusterFacts, Facts, RunInfo, StageFacts
from advisor.parsers.hccn_tool import parse_link_stat
from advisor.probes.soak import SoakConfig, read_net_counters, summarize
from advisor.report import sections
from advisor.results import Record
from tests.conftest import DATA

T0 = 1_000_000.0
CLUSTER = resolve(ClusterConfig(name="2x2", nodes=2, devices_per_node=2), emulate=True)
PARAMS = SoakConfig(enabled=True, duration_s=30, deadline_s=210, window_s=1, poll_s=0.5)


def rec(rank: int, step: str, at_s: float = 0.0, **metrics: Any) -> Record:
    node = rank // 2
    return Record(
        stage="soak",
        rank=rank,
        node=node,
        node_name=f"node{node}",
        host=f"host{node}",
        local_rank=rank % 2,
        step=step,
        metrics=metrics,
        t_wall_s=T0 + at_s,
    )


def start(rank: int) -> list[Record]:
    return [
        rec(rank, "setup", nic="eth1"),
        rec(rank, "begin", t0_wall_s=T0, duration_s=30.0),
    ]


def window(rank: int, t_end_s: float, **series: tuple[float, float]) -> Record:
    """series: key -> (gbps, max_s)."""
    return rec(
        rank,
        "window",
        t_end_s,
        t_start_s=t_end_s - 1,
        t_end_s=t_end_s,
        iteration=int(t_end_s * 100),
        series={
            k: {"n": 100, "median_s": 0.002, "max_s": mx, "gbps": g}
            for k, (g, mx) in series.items()
        },
    )


def test_overlapping_slow_iterations_of_all_ranks_are_one_stall_named_with_the_flapping_link() -> (
    None
):
    records = [r for rank in range(4) for r in start(rank)]
    # every rank waits in the same all_reduce; rank 2 also in the pair after it
    for rank, (t, d) in enumerate([(12.3, 4.1), (12.31, 4.08), (12.35, 4.0), (12.32, 4.09)]):
        records.append(rec(rank, "stall", t + d, op="all_reduce", iteration=900, t_start_s=t,
                           duration_s=d, median_s=0.002, bound_s=1.0, peers=[]))  # fmt: skip
    records.append(rec(2, "stall", 17.0, op="p2p/1-2", iteration=901, t_start_s=16.36,
                       duration_s=1.2, median_s=0.001, bound_s=1.0, peers=[1]))  # fmt: skip
    # a later, separate stall of one pair with no link event: its ranks' interfaces are suspects
    records.append(rec(0, "stall", 25.0, op="p2p/0-1", iteration=2000, t_start_s=23.0,
                       duration_s=2.0, median_s=0.001, bound_s=1.0, peers=[1]))  # fmt: skip
    records += [
        rec(2, "link_event", 12.6, interface="eth1", t_s=12.6, operstate="down", was="up"),
        rec(2, "link_event", 15.1, interface="eth1", t_s=15.1, operstate="up", was="down"),
    ]
    facts = summarize(records, CLUSTER, PARAMS)
    first, second = facts.stalls
    assert first.t_start_s == pytest.approx(12.3)
    assert first.duration_s == pytest.approx(17.56 - 12.3)  # through the pair's stall after it
    assert first.ops == ["all_reduce", "p2p/1-2"] and first.ranks == [0, 1, 2, 3]
    assert first.links == ["node1/eth1"] and first.suspects == []
    assert first.text.startswith("stall at t=12.3 s lasting 5.3 s in all_reduce, p2p/1-2")
    assert "link: node1/eth1" in first.text
    assert (second.t_start_s, second.duration_s, second.ranks) == (23.0, 2.0, [0, 1])
    assert second.links == [] and second.suspects == ["node0/eth1"]
    assert "links in use: node0/eth1" in second.text
    assert [(e.node, e.interface, e.operstate) for e in facts.link_events] == [
        ("node1", "eth1", "down"),
        ("node1", "eth1", "up"),
    ]


def test_a_stall_that_never_ended_is_named_from_the_watcher_record() -> None:
    """The deadline stopped the job while rank 1 was blocked: no closing stall record, no end."""
    records = [*start(0), *start(1)]
    records += [window(0, t, all_reduce=(10.0, 0.003)) for t in (1.0, 2.0, 3.0)]
    records.append(rec(1, "stall_open", 5.0, op="all_reduce", iteration=310, t_start_s=3.2,
                       waited_s=1.1, bound_s=1.0))  # fmt: skip
    # a stall_open closed later by its stall record is not a second stall
    records.append(rec(0, "stall_open", 1.8, op="all_reduce", iteration=150, t_start_s=1.5,
                       waited_s=1.1, bound_s=1.0))  # fmt: skip
    records.append(rec(0, "stall", 1.9, op="all_reduce", iteration=150, t_start_s=1.5,
                       duration_s=1.4, median_s=0.002, bound_s=1.0, peers=[]))  # fmt: skip
    records.append(rec(1, "window", 9.0, t_start_s=0, t_end_s=3.0, iteration=300, series={}))
    facts = summarize(records, CLUSTER, PARAMS)
    assert not facts.completed and facts.elapsed_s == 3.0
    closed, open_ = facts.stalls
    assert (closed.t_start_s, closed.ongoing) == (1.5, False)
    assert open_.ongoing and open_.t_start_s == 3.2
    assert open_.duration_s == pytest.approx(9.0 - 3.2)  # until rank 1's last record
    assert "no progress for 5.8 s (still blocked)" in open_.text


def test_series_per_operation_and_their_spread() -> None:
    records = [*start(0), *start(1), *start(2)]
    steady = [(10.0, 0.003), (10.2, 0.003), (9.8, 0.004), (10.0, 0.003)]
    swinging = [(5.0, 0.01), (1.0, 0.2), (5.0, 0.01), (1.0, 0.3)]
    for i, (s, w) in enumerate(zip(steady, swinging, strict=True), start=1):
        records.append(window(0, float(i), **{"all_reduce": s, "p2p/0-3": w}))
        # the same operations as a higher rank saw them are not a second series
        records.append(window(2, float(i), **{"all_reduce": (1.0, 9.0)}))
    facts = summarize(records, CLUSTER, PARAMS)
    ar, p2p = facts.series
    assert (ar.key, ar.rank, ar.nodes) == ("all_reduce", 0, ["node0", "node1"])
    assert [p.t_s for p in ar.points] == [1.0, 2.0, 3.0, 4.0]
    assert ar.mean_gbps == pytest.approx(10.0) and ar.cv < 0.02
    assert (p2p.key, p2p.nodes) == ("p2p/0-3", ["node0", "node1"])
    assert p2p.min_gbps == 1.0 and p2p.max_ms == pytest.approx(300.0)
    assert p2p.cv == pytest.approx(0.77, abs=0.01)
    assert facts.high_variance == ["p2p/0-3 cv 0.77"]


def _net(changes: int, downs: int | None, **stats: int) -> dict[str, Any]:
    entry: dict[str, Any] = {"operstate": "up", "carrier_changes": changes, "statistics": stats}
    if downs is not None:
        entry["carrier_down_count"] = downs
    return entry


def test_counters_after_against_before() -> None:
    before = {
        "eth1": _net(2, 1, rx_errors=0, tx_dropped=3, rx_bytes=10),
        "eth2": _net(5, None, rx_crc_errors=7),
        "eth3": _net(0, 0, rx_bytes=1),
    }
    after = {
        "eth1": _net(6, 3, rx_errors=2, tx_dropped=3, rx_bytes=99999),
        "eth2": _net(9, None, rx_crc_errors=7),
        "eth3": _net(0, 0, rx_bytes=5000),
    }
    hccn_before = {"status": "read", "ports": {"0": {"stat": {"roce_qp_status_err_num": 0,
                   "nic_tx_all_pkg_num": 5}, "link_up_count": 2, "link_down_count": 1}}}  # fmt: skip
    hccn_after = {"status": "read", "ports": {"0": {"stat": {"roce_qp_status_err_num": 3,
                  "nic_tx_all_pkg_num": 900}, "link_up_count": 3, "link_down_count": 2}}}  # fmt: skip
    records = [
        rec(2, "counters", 0.0, when="before", net=before, hccn=hccn_before),
        rec(2, "counters", 31.0, when="after", net=after, hccn=hccn_after),
        rec(0, "counters", 0.0, when="before", net={}, hccn={"status": "not present", "ports": {}}),
    ]
    facts = summarize(records, CLUSTER, PARAMS)
    by_iface = {c.interface: c for c in facts.link_counters}
    assert set(by_iface) == {"eth1", "eth2"}  # eth3 only carried traffic
    assert (by_iface["eth1"].carrier_changes, by_iface["eth1"].flaps) == (4, 2)
    assert by_iface["eth1"].errors == {"rx_errors": 2}
    assert by_iface["eth2"].flaps == 2  # no carrier_down_count (kernel < 4.16): half the changes
    assert facts.flapping_links == [
        "node1/eth1 (2 flaps)",
        "node1/eth2 (2 flaps)",
        "node1/npu0 (1 flaps)",
    ]
    assert facts.counter_errors == [
        "node1/eth1 rx_errors +2",
        "node1/npu0 roce_qp_status_err_num +3",
    ]
    assert facts.hccn_tool == {"node0": "not present", "node1": "read"}
    (port,) = facts.hccn_ports
    assert (port.device, port.link_down, port.link_up) == (0, 1, 1)


def test_read_net_counters_reads_a_sysfs_tree(tmp_path: Path) -> None:
    dev = tmp_path / "eth0"
    (dev / "statistics").mkdir(parents=True)
    (dev / "operstate").write_text("up\n")
    (dev / "carrier_changes").write_text("4\n")
    (dev / "statistics" / "rx_errors").write_text("7\n")
    (tmp_path / "lo").mkdir()
    assert read_net_counters(tmp_path) == {
        "eth0": {"operstate": "up", "carrier_changes": 4, "statistics": {"rx_errors": 7}}
    }


def test_link_stat_parser_reads_the_documented_output() -> None:
    ls = parse_link_stat((DATA / "evidence" / "hccn_link_stat.txt").read_text())
    assert (ls.up_count, ls.down_count) == (2, 1)
    assert ls.changes[:2] == [
        ("Sun Oct  5 10:13:51 2025", "UP"),
        ("Sun Oct  5 10:13:50 2025", "DOWN"),
    ]
    assert len(ls.changes) == 3


@pytest.mark.parametrize(
    ("overrides", "says"),
    [
        ({"pairs": "star"}, "stages.soak.pairs='star'"),
        ({"duration_s": 600}, "set stages.soak.deadline_s=780"),
        ({"stall_factor": 1.0}, "stall_factor must exceed 1"),
        ({"all_reduce_bytes": 2}, "all_reduce_bytes must be at least 4"),
    ],
)
def test_bad_settings_name_the_key_and_the_fix(overrides: dict[str, Any], says: str) -> None:
    with pytest.raises(ConfigError, match=says.replace("(", r"\(").replace(".", r"\.")):
        SoakConfig(**overrides)


def test_report_section_draws_the_time_series_with_the_stalls() -> None:
    records = [*start(0), *start(1)]
    records += [window(0, float(t), all_reduce=(10.0 - (t == 5), 0.003)) for t in range(1, 9)]
    records.append(rec(0, "stall", 6.0, op="all_reduce", iteration=5, t_start_s=4.2,
                       duration_s=1.5, median_s=0.002, bound_s=1.0, peers=[]))  # fmt: skip
    data = summarize(records, CLUSTER, PARAMS)
    facts = Facts(
        run=RunInfo(run_id="t", run_dir="", command="advisor run"),
        cluster=ClusterFacts.of(CLUSTER),
        stages={"soak": StageFacts(name="soak", status="ok", data=data)},
    )
    # through JSON and back, as the report reads a run
    facts = Facts.from_dict(facts.to_dict())
    (sec,) = sections.build(facts)
    assert sec.title == "Soak" and not sec.notes
    assert sec.view["gbps_svg"].lstrip().startswith("<svg") and "stall" in sec.view["gbps_svg"]
    assert "worst_svg" in sec.view and sec.view["stalls"][0].t_start_s == 4.2
