"""Facts → the view model of each report section (plain data plus inline SVG charts).

Each builder reads its stage's typed summary (``StageFacts.data``, validated when the facts were
read), which may be partial (a stage cut short); a stage with no summary shows that it has none,
and a stage this version does not know shows its raw data. Charts are made here so the template
only lays out tables and figures.
"""

from __future__ import annotations

import statistics
from collections import defaultdict
from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from functools import partial
from typing import TYPE_CHECKING, Any

from advisor.bench import load as ab_load
from advisor.evidence.load import shape_note
from advisor.report import charts

if TYPE_CHECKING:
    from advisor.bench.collectives import BenchFacts
    from advisor.facts import Facts, StageFacts
    from advisor.flight.model import FlightFacts
    from advisor.isolate.stage import IsolateFacts
    from advisor.probes.connectivity import ConnectivityFacts
    from advisor.probes.drift import DriftFacts
    from advisor.probes.preflight import PreflightFacts
    from advisor.probes.soak import SoakFacts
    from advisor.probes.subgroups import SubgroupsFacts
    from advisor.probes.timeouts import Distribution, TimeoutsFacts
    from advisor.probes.topology import TopologyFacts
    from advisor.smoke import SmokeFacts
    from advisor.sweep.stage import SweepFacts

STAGE_TITLES = {
    "preflight": "Preflight",
    "drift": "Drift between nodes",
    "smoke": "Smoke test",
    "topology": "Topology",
    "connectivity": "Connectivity",
    "timeouts": "Timeouts",
    "subgroups": "Subgroups",
    "bench": "Collectives",
    "sweep": "Sweeps",
    "soak": "Soak",
    "isolate": "Isolation",
}
"""Known stages, in execution order, with the section title the report gives them."""

MAX_TABLE_ROWS = 64
"""Long tables (ranks, pairs, results) show this many rows and say how many were left out."""


@dataclass(kw_only=True)
class Section:
    id: str
    """HTML id (``sec-<stage>``): the browser test and the table of contents use it."""
    title: str
    stage: StageFacts | None = None
    """The stage behind the section; None for sections built from the whole run (what-if)."""
    view: dict[str, Any] = field(default_factory=dict)
    """What the stage's template block renders (tables, SVG charts)."""
    notes: list[str] = field(default_factory=list)
    """Charts that could not be drawn and why (a report never fails on a chart)."""

    @property
    def problem_ranks(self) -> list[Any]:
        return self.stage.failed_ranks if self.stage else []

    @property
    def flight(self) -> dict[str, Any] | None:
        """The stage's flight-recorder analysis laid out (None when it has none)."""
        return flight_view(self.stage.flight) if self.stage and self.stage.flight else None


_STATE_CLASS = {"failed": "bad", "in_flight": "warn", "started": "warn"}


def _same_host(named: str, group: str) -> bool:
    """Whether a port's host is the group's (``hosts_of`` files a full name under the short one
    where the files name both)."""
    return named == group or ("." not in group and named.split(".", 1)[0] == group)


def evidence_view(facts: Facts) -> dict[str, Any] | None:
    """The imported files: each one's status and messages (the line that stopped it), how the
    cluster's shape was found or why there is none, and per host (or folder) what was read from
    it, with its npu-smi chips, hccn_tool port states and topology matrices; None when nothing
    was imported."""
    ev = facts.evidence
    if ev is None or not ev.files:
        return None
    files = [
        {
            "path": f.path,
            "status": f.status,
            "formats": f.formats,
            "messages": [
                f"line {m.line}: {m.message}" if m.line else m.message for m in f.messages
            ],
        }
        for f in ev.files
    ]
    groups = [dict(h) for h in ev.hosts]
    placed: set[str] = set()
    for g in groups:
        placed |= set(g["files"])
    # outputs not grouped by host (a live run's tool outputs): shown together
    rest = sorted(
        {
            x["source"]
            for x in [
                *ev.npu_chips,
                *ev.topologies,
                *ev.npu_ports,
                *ev.hca_ports,
                *ev.nvlinks,
                *ev.gpus,
            ]
            if x["source"] not in placed
        }
    )
    if rest:
        groups.append({"host": "other sources", "named": False, "files": rest})
    for g in groups:
        mine = set(g["files"])
        g["chips"] = [c for c in ev.npu_chips if c["source"] in mine]
        g["topologies"] = [t for t in ev.topologies if t["source"] in mine]
        g["ports"] = [p for p in ev.npu_ports if p["source"] in mine]
        # (a copy of several hosts' listings: each port under the host its prompt names)
        g["hcas"] = [
            p
            for p in ev.hca_ports
            if p["source"] in mine
            and (not g["named"] or not p.get("host") or _same_host(p["host"], g["host"]))
        ]
        g["nvlinks"] = [n for n in ev.nvlinks if n["source"] in mine]
        g["gpus"] = [n for n in ev.gpus if n["source"] in mine]
    note = shape_note(ev, facts.cluster) if facts.cluster.imported else ""
    return {"files": files, "hosts": groups, "shapes": ev.shapes, "note": note}


def flight_view(fl: FlightFacts) -> dict[str, Any]:
    """Culprits, and per diverging group a rank × collective grid of each rank's last entries
    (culprit rows marked, an entry a rank never made shown empty)."""
    culprit_ranks = {c.rank for c in fl.culprits}
    timelines = []
    for g in fl.groups:
        if g.seq is None and not any(c.rank in g.ranks for c in fl.culprits):
            continue
        seqs = sorted({c.seq for calls in g.last.values() for c in calls})
        rows = []
        for rank in sorted(int(r) for r in g.last):
            by_seq = {c.seq: c for c in g.last[str(rank)]}
            cells = [
                {
                    "text": by_seq[q].op if q in by_seq else "",
                    "title": (
                        f"{by_seq[q].op} #{q}: {by_seq[q].state}; sizes {by_seq[q].input_sizes} "
                        f"{', '.join(by_seq[q].input_dtypes)}"
                        if q in by_seq
                        else f"#{q}: never entered"
                    ),
                    "cls": _STATE_CLASS.get(by_seq[q].state, "")
                    if q in by_seq
                    else ("bad" if g.seq is not None and q >= g.seq else "muted"),
                }
                for q in seqs
            ]
            rows.append({"rank": rank, "culprit": rank in culprit_ranks, "cells": cells})
        timelines.append(
            {
                "group": g.group,
                "desc": g.desc,
                "seq": g.seq,
                "op": g.op,
                "seqs": seqs,
                "rows": rows[:MAX_TABLE_ROWS],
                "more": max(0, len(rows) - MAX_TABLE_ROWS),
            }
        )
    return {"facts": fl, "timelines": timelines}


def _chart(section: Section, key: str, draw: Callable[[], str]) -> None:
    try:
        svg = draw()
    except Exception as e:  # a chart bug must not cost the ops team the whole report
        section.notes.append(f"{key} chart could not be drawn: {type(e).__name__}: {e}")
        return
    if svg:
        section.view[key] = svg


def _node_starts(facts: Facts) -> list[int]:
    per = facts.cluster.devices_per_node
    return [n * per for n in range(facts.cluster.nodes)] if per else []


# ----------------------------------------------------------------------------- stages


def connectivity(facts: Facts, sec: Section, data: ConnectivityFacts) -> None:
    nominal = {name: link.nominal_gbps for name, link in facts.cluster.links.items()}
    sec.view["links"] = [
        {
            "link": name,
            "nominal_gbps": nominal.get(name),
            "median_gbps": s.median_gbps,
            "min_gbps": s.min_gbps,
            "count": s.count,
            "utilisation": s.median_gbps / nominal[name] if nominal.get(name) else None,
        }
        for name, s in data.links.items()
    ]
    sec.view["failed_pairs"] = data.failed_pairs[:MAX_TABLE_ROWS]
    measured = [p for p in data.pairs if p.ok and p.bandwidth_gbps]
    sec.view["slowest"] = sorted(measured, key=lambda p: p.bandwidth_gbps or 0.0)[:10]
    sec.view["pair_count"] = len(data.pairs)
    sec.view["nics"] = data.nics
    sec.view["mtu_by_node"] = data.mtu_by_node
    sec.view["mtu_mismatch"] = data.mtu_mismatch
    highest_rank = max((max(p.src, p.dst) for p in data.pairs), default=-1)
    world = max(facts.cluster.world_size, highest_rank + 1)
    if not data.pairs or world == 0:
        return
    failed_set = {(p.src, p.dst) for p in data.failed_pairs}
    failed_set |= {(p.src, p.dst) for p in data.pairs if not p.ok}
    if world <= charts.MAX_MATRIX_RANKS:
        values: list[list[float | None]] = [[None] * world for _ in range(world)]
        for p in data.pairs:
            if p.ok and p.bandwidth_gbps is not None:
                values[p.src][p.dst] = p.bandwidth_gbps
                if values[p.dst][p.src] is None:
                    values[p.dst][p.src] = p.bandwidth_gbps
        labels = [str(r) for r in range(world)]
        groups = _node_starts(facts)
        title = "Rank-pair bandwidth (Gbit/s); lines separate nodes"
        fails = sorted(failed_set)
    else:  # node-pair medians keep a large cluster's matrix legible and the file small
        # 0 ranks per node is an imported cluster's unknown shape: count each rank as a node
        per = max(1, facts.cluster.devices_per_node)
        nodes = (world + per - 1) // per
        cells: dict[tuple[int, int], list[float]] = defaultdict(list)
        for p in data.pairs:
            if p.ok and p.bandwidth_gbps is not None:
                a, b = p.src // per, p.dst // per
                cells[(a, b)].append(p.bandwidth_gbps)
                cells[(b, a)].append(p.bandwidth_gbps)
        values = [
            [statistics.median(cells[(a, b)]) if cells.get((a, b)) else None for b in range(nodes)]
            for a in range(nodes)
        ]
        labels = [f"node{n}" for n in range(nodes)]
        groups = []
        title = f"Node-pair median bandwidth (Gbit/s); {world} ranks are too many to draw per pair"
        fails = sorted({(a // per, b // per) for a, b in failed_set})
    _chart(
        sec,
        "matrix_svg",
        lambda: charts.pair_matrix(labels, values, fails, groups=groups, title=title),
    )


def timeouts(facts: Facts, sec: Section, data: TimeoutsFacts) -> None:
    # Each measured phase against the configured limit that fires first when it runs long.
    phases: list[tuple[str, Distribution | None, str, str]] = [
        ("rendezvous", data.rendezvous_s, "join_timeout_s", "join timeout"),
        ("init", data.init_s, "HCCL_CONNECT_TIMEOUT", "HCCL_CONNECT_TIMEOUT"),
        ("first collective", data.first_collective_s, "pg_timeout_s", "PG timeout"),
        ("barrier", data.barrier_s, "pg_timeout_s", "PG timeout"),
    ]
    rows = [
        charts.PhaseTiming(
            label=label,
            p50_s=dist.p50,
            p90_s=dist.p90,
            max_s=dist.max,
            limit_s=data.settings[limit].effective_s if limit in data.settings else None,
            limit_name=limit_name,
        )
        for label, dist, limit, limit_name in phases
        if dist is not None
    ]
    sec.view["phases"] = rows
    sec.view["settings"] = data.settings
    sec.view["stragglers"] = data.stragglers[:MAX_TABLE_ROWS]
    sec.view["hang"] = data.hang
    worst = sorted(data.barrier_skew_s.items(), key=lambda kv: -kv[1])[:5]
    sec.view["worst_skew"] = worst
    _chart(sec, "chart_svg", lambda: charts.timeouts_chart(rows))


def subgroups(facts: Facts, sec: Section, data: SubgroupsFacts) -> None:
    bad_dims = {e.dimension for e in data.errors}
    sec.view["declared"] = [
        {"name": name, "groups": groups, "bad": name in bad_dims}
        for name, groups in data.declared.items()
    ]
    sec.view["corrected"] = data.corrected
    sec.view["errors"] = data.errors
    sec.view["membership_ok"] = data.membership_ok
    sec.view["creation_mismatch_ranks"] = data.creation_mismatch_ranks
    sec.view["fingerprint_mismatch_ranks"] = data.fingerprint_mismatch_ranks


def topology(facts: Facts, sec: Section, data: TopologyFacts) -> None:
    sec.view["ranks"] = data.ranks[:MAX_TABLE_ROWS]
    sec.view["ranks_left_out"] = max(0, len(data.ranks) - MAX_TABLE_ROWS)
    sec.view["ranks_per_node"] = data.ranks_per_node
    sec.view["duplicates"] = data.duplicate_devices
    sec.view["shared_affinity"] = data.shared_affinity
    sec.view["islands"] = data.islands
    sec.view["slow_links"] = data.slow_links
    sec.view["errors"] = data.errors
    # where each rank ran: as the ranks reported it, else as the cluster placed them
    placements = [(r.rank, r.node, r.node_name) for r in data.ranks] or [
        (p.rank, p.node, p.node_name) for p in facts.cluster.ranks
    ]
    by_node: dict[int, list[int]] = defaultdict(list)
    names: dict[int, str] = {}
    for rank, node, node_name in placements:
        by_node[node].append(rank)
        names[node] = node_name or f"node{node}"
    if not by_node:
        return
    nodes = sorted(by_node)
    index = {n: i for i, n in enumerate(nodes)}
    node_of = {r: index[n] for n, rs in by_node.items() for r in rs}
    conn: ConnectivityFacts | None = facts.summary("connectivity")
    inter: dict[tuple[int, int], list[float]] = defaultdict(list)
    intra: dict[int, list[float]] = defaultdict(list)
    failed: list[tuple[int, int]] = []
    for p in conn.pairs if conn else []:
        if p.src not in node_of or p.dst not in node_of:
            continue
        if not p.ok:
            failed.append((p.src, p.dst))
            continue
        if p.bandwidth_gbps is None:
            continue
        na, nb = node_of[p.src], node_of[p.dst]
        if na == nb:
            intra[na].append(p.bandwidth_gbps)
        else:
            inter[(min(na, nb), max(na, nb))].append(p.bandwidth_gbps)
    slow = [(s.a, s.b, s.bandwidth_gbps) for s in data.slow_links]
    dup_ranks = [r for d in data.duplicate_devices for r in d["ranks"]]
    _chart(
        sec,
        "picture_svg",
        lambda: charts.topology_picture(
            [names[n] for n in nodes],
            [sorted(by_node[n]) for n in nodes],
            islands=data.islands,
            node_links_gbps={k: statistics.median(v) for k, v in inter.items()},
            intra_gbps={k: statistics.median(v) for k, v in intra.items()},
            slow_links=slow[:20],
            failed_links=failed[:20],
            duplicate_ranks=dup_ranks,
        ),
    )


def bench(facts: Facts, sec: Section, data: BenchFacts) -> None:
    nominal = data.bottleneck_gbps or 0.0
    by_op: dict[str, dict[str, list[tuple[float, float]]]] = defaultdict(lambda: defaultdict(list))
    for r in data.results:
        if r.bytes and r.busbw_gbps is not None:
            by_op[r.op][f"{r.algorithm} {r.dtype}".strip()].append((float(r.bytes), r.busbw_gbps))
    sec.view["op_charts"] = []
    for op in sorted(by_op):
        holder = Section(id="", title="")
        draw = partial(
            charts.busbw_chart,
            by_op[op],
            nominal_gbps=nominal,
            title=f"{op}: busbw against message size",
        )
        _chart(holder, "svg", draw)
        sec.notes.extend(holder.notes)
        if "svg" in holder.view:
            sec.view["op_charts"].append({"op": op, "svg": holder.view["svg"]})
    if data.utilisation_note:
        sec.notes.append(data.utilisation_note)
    sec.view["averages"] = [
        {"key": k, "avg_busbw_gbps": v, "utilisation": data.utilisation.get(k)}
        for k, v in sorted(data.avg_busbw_gbps.items())
    ]
    sec.view["bottleneck_gbps"] = nominal or None
    sec.view["best_algorithm"] = {
        op: dict(sorted(by_size.items(), key=lambda kv: int(kv[0])))
        for op, by_size in data.best_algorithm.items()
    }
    sec.view["bands"] = data.bands
    sec.view["model"] = data.model
    sec.view["wrong"] = [r for r in data.results if r.wrong][:MAX_TABLE_ROWS]
    sec.view["results"] = data.results[: MAX_TABLE_ROWS * 4]
    sec.view["results_left_out"] = max(0, len(data.results) - MAX_TABLE_ROWS * 4)
    if data.load:
        intensities, rows = ab_load.pivot(data.load)
        sec.view["load"] = {
            "intensities": intensities,
            "rows": rows[: MAX_TABLE_ROWS * 2],
            "left_out": max(0, len(rows) - MAX_TABLE_ROWS * 2),
            "matrix_size": data.load_matrix_size,
            "period_ms": data.load_period_ms,
            "max_slowdown": data.load_max_slowdown,
            "changed": [c for c in data.load_choices if c.changed][:MAX_TABLE_ROWS],
        }


def sweep(facts: Facts, sec: Section, data: SweepFacts) -> None:
    sec.view["auto_table"] = data.auto_table
    sec.view["auto_note"] = data.auto_note
    thr: dict[str, list[tuple[float, float]]] = defaultdict(list)
    share: dict[str, list[tuple[float, float]]] = defaultdict(list)
    for t in data.trials:
        if t.status != "ok":
            continue
        batch_size = float(t.config["batch_size"])
        label = f"{t.config['precision']} · {t.config['comm']}"
        if t.samples_per_s is not None:
            thr[label].append((batch_size, t.samples_per_s))
        if t.comm_share is not None:
            share[label].append((batch_size, t.comm_share * 100))
    _chart(
        sec,
        "throughput_svg",
        lambda: charts.lines_chart(
            thr,
            xlabel="batch size per rank",
            ylabel="samples/s",
            logx=True,
            title="Throughput against batch size (precision · comm)",
        ),
    )
    _chart(
        sec,
        "comm_share_svg",
        lambda: charts.lines_chart(
            share,
            xlabel="batch size per rank",
            ylabel="communication share of step (%)",
            logx=True,
            title="Communication share of a step",
        ),
    )
    eff = {
        "efficiency": [
            (float(s.world_size), s.efficiency * 100)
            for s in data.scaling
            if s.efficiency is not None
        ]
    }
    _chart(
        sec,
        "scaling_svg",
        lambda: charts.lines_chart(
            eff,
            xlabel="world size (ranks)",
            ylabel="scaling efficiency (%)",
            logx=True,
            title="Scaling efficiency against world size",
            hline=(100.0, "ideal"),
        ),
    )
    keys: list[str] = []
    for t in data.trials:
        keys += [k for k in t.config if k not in keys]
    sec.view["config_keys"] = keys
    sec.view["trials"] = data.trials[:MAX_TABLE_ROWS]
    sec.view["trials_left_out"] = max(0, len(data.trials) - MAX_TABLE_ROWS)
    sec.view["best"] = data.best
    sec.view["scaling"] = data.scaling
    sec.view["largest_bucket_bytes"] = data.largest_bucket_bytes


SOAK_X = "seconds since the soak began"


def soak(facts: Facts, sec: Section, data: SoakFacts) -> None:
    spans = [(s.t_start_s, s.t_start_s + s.duration_s) for s in data.stalls]
    gbps = {s.key: [(p.t_s, p.gbps) for p in s.points] for s in data.series}
    worst = {s.key: [(p.t_s, p.max_ms) for p in s.points] for s in data.series}
    draw_gbps = partial(
        charts.lines_chart,
        gbps,
        xlabel=SOAK_X,
        ylabel="Gbit/s (all_reduce: busbw; pair: each way)",
        title=f"bandwidth per {data.window_s:g} s window",
        spans=spans,
        span_label="stall",
    )
    _chart(sec, "gbps_svg", draw_gbps)
    draw_worst = partial(
        charts.lines_chart,
        worst,
        xlabel=SOAK_X,
        ylabel="slowest iteration (ms)",
        title="worst iteration per window",
        spans=spans,
        span_label="stall",
    )
    _chart(sec, "worst_svg", draw_worst)
    sec.view["summary"] = {
        "planned (s)": data.planned_s,
        "ran (s)": data.elapsed_s,
        "completed": data.completed,
        "iterations": data.iterations,
        "pairs": data.pairs,
        "all_reduce size": data.all_reduce_bytes,
        "pair message size": data.p2p_bytes,
    }
    sec.view["stalls"] = data.stalls[:MAX_TABLE_ROWS]
    sec.view["stalls_left_out"] = max(0, len(data.stalls) - MAX_TABLE_ROWS)
    sec.view["series"] = data.series[:MAX_TABLE_ROWS]
    sec.view["cv_max"] = data.cv_max
    sec.view["link_events"] = data.link_events[:MAX_TABLE_ROWS]
    sec.view["link_counters"] = data.link_counters[:MAX_TABLE_ROWS]
    sec.view["hccn_ports"] = data.hccn_ports[:MAX_TABLE_ROWS]
    sec.view["hccn_tool"] = data.hccn_tool


def preflight(facts: Facts, sec: Section, data: PreflightFacts) -> None:
    sec.view["nodes"] = data.nodes


def drift(facts: Facts, sec: Section, data: DriftFacts) -> None:
    sec.view["drift_findings"] = data.findings
    sec.view["drift_nodes"] = list(data.nodes)
    sec.view["missing_nodes"] = data.missing_nodes
    sec.view["rank_tables"] = [c for c in data.rank_tables if c.problem]
    sec.view["ignored"] = data.ignored
    sec.view["imported"] = data.imported
    sec.view["not_collected"] = data.not_collected


def smoke(facts: Facts, sec: Section, data: SmokeFacts) -> None:
    init = list(data.init_s.values())
    sec.view["summary"] = {
        "ranks reporting": data.ranks_reporting,
        "ranks initialised": data.ranks_initialised,
        "known-value all_reduce correct": data.all_reduce_ok,
        "init_process_group median (s)": round(statistics.median(init), 3) if init else None,
        "init_process_group max (s)": round(max(init), 3) if init else None,
    }


def isolate(facts: Facts, sec: Section, data: IsolateFacts) -> None:
    # The rounds drawn as a grid: one row per job, one column per node, each cell in the job
    # or not, coloured by the job's verdict.
    names: list[str] = []
    for job in data.jobs:
        names += [n for n in job.node_names if n not in names]
    sec.view["isolate"] = data
    sec.view["isolate_nodes"] = names
    sec.view["isolate_rows"] = [
        {"job": job, "cells": [n in job.node_names for n in names]} for job in data.jobs
    ]


BUILDERS: dict[str, Callable[[Facts, Section, Any], None]] = {
    "preflight": preflight,
    "drift": drift,
    "smoke": smoke,
    "topology": topology,
    "connectivity": connectivity,
    "timeouts": timeouts,
    "subgroups": subgroups,
    "bench": bench,
    "sweep": sweep,
    "soak": soak,
    "isolate": isolate,
}
"""The builder of each known stage's section; each takes the stage's ``facts_type``."""


def ordered_stages(facts: Facts) -> list[StageFacts]:
    """Stages in the order they ran (facts read back from JSON may be sorted by name)."""
    known = list(STAGE_TITLES)
    return sorted(
        facts.stages.values(),
        key=lambda s: (
            s.started_at or float("inf"),
            known.index(s.name) if s.name in known else 99,
        ),
    )


def build(facts: Facts) -> list[Section]:
    """One section per stage present in the facts, plus what-if when the benchmark predicted."""
    out: list[Section] = []
    for sf in ordered_stages(facts):
        sec = Section(id=f"sec-{sf.name}", title=STAGE_TITLES.get(sf.name, sf.name), stage=sf)
        out.append(sec)
        builder = BUILDERS.get(sf.name)
        if sf.data is None:
            continue  # the template says that the stage left no summary
        if builder is None:
            sec.view["raw"] = sf.data  # a stage this version does not know: its mapping as is
        else:
            try:
                builder(facts, sec, sf.data)
            except Exception as e:  # a builder bug: show the raw data rather than nothing
                sec.notes.append(f"section could not be laid out: {type(e).__name__}: {e}")
                sec.view = {"raw": asdict(sf.data)}
        if sf.name == "bench" and sf.data.whatif:
            out.append(
                Section(
                    id="sec-whatif",
                    title="What-if predictions",
                    view={"whatif": sf.data.whatif, "model": sf.data.model},
                )
            )
    return out


def not_run(facts: Facts) -> list[str]:
    """Known stages with no facts in this run (disabled by the profile, or never reached)."""
    return [STAGE_TITLES[n] for n in STAGE_TITLES if n not in facts.stages]
