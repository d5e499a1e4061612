"""Facts → the view model of each report section (plain data plus inline SVG charts).

Every stage's data may be partial (a stage cut short) or absent (not run, or a stage this version
does not know): each builder reads with defaults and draws only what is there. Charts are made
here so the template only lays out tables and figures.
"""

from __future__ import annotations

import statistics
from collections import defaultdict
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from functools import partial
from typing import TYPE_CHECKING, Any

from advisor.report import charts

if TYPE_CHECKING:
    from advisor.facts import Facts, StageFacts

STAGE_TITLES = {
    "preflight": "Preflight",
    "smoke": "Smoke test",
    "topology": "Topology",
    "connectivity": "Connectivity",
    "timeouts": "Timeouts",
    "subgroups": "Subgroups",
    "bench": "Collectives",
    "sweep": "Sweeps",
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


def _num(x: Any) -> float | None:
    try:
        return None if x is None else float(x)
    except (TypeError, ValueError):
        return None


def _chart(section: Section, key: str, draw: Callable[[], str]) -> None:
    try:
        svg = draw()
    except Exception as e:  # a chart bug must not cost the ops team the whole report
        section.notes.append(f"{key} chart could not be drawn: {type(e).__name__}: {e}")
        return
    if svg:
        section.view[key] = svg


def _node_starts(facts: Facts) -> list[int]:
    per = int(facts.cluster.get("devices_per_node") or 0)
    nodes = int(facts.cluster.get("nodes") or 0)
    return [n * per for n in range(nodes)] if per else []


# ----------------------------------------------------------------------------- stages


def connectivity(facts: Facts, sec: Section, data: Mapping[str, Any]) -> None:
    pairs = [p for p in data.get("pairs") or [] if isinstance(p, Mapping)]
    failed = [p for p in data.get("failed_pairs") or [] if isinstance(p, Mapping)]
    links = data.get("links") or {}
    nominal = {
        k: _num(v.get("nominal_gbps")) for k, v in (facts.cluster.get("links") or {}).items()
    }
    sec.view["links"] = [
        {
            "link": name,
            "nominal_gbps": nominal.get(name),
            "median_gbps": _num(v.get("median_gbps")),
            "min_gbps": _num(v.get("min_gbps")),
            "count": v.get("count"),
            "utilisation": (
                _num(v.get("median_gbps")) / nominal[name]  # type: ignore[operator]
                if nominal.get(name) and _num(v.get("median_gbps")) is not None
                else None
            ),
        }
        for name, v in links.items()
        if isinstance(v, Mapping)
    ]
    sec.view["failed_pairs"] = failed[:MAX_TABLE_ROWS]
    ok_pairs = [p for p in pairs if p.get("ok", True) and _num(p.get("bandwidth_gbps"))]
    sec.view["slowest"] = sorted(ok_pairs, key=lambda p: _num(p["bandwidth_gbps"]) or 0.0)[:10]
    sec.view["pair_count"] = len(pairs)
    sec.view["nics"] = data.get("nics") or {}
    sec.view["mtu_by_node"] = data.get("mtu_by_node") or {}
    sec.view["mtu_mismatch"] = bool(data.get("mtu_mismatch"))
    world = int(facts.cluster.get("world_size") or 0)
    ranks = {int(p["src"]) for p in pairs if "src" in p} | {
        int(p["dst"]) for p in pairs if "dst" in p
    }
    world = max(world, max(ranks, default=-1) + 1)
    if not pairs or world == 0:
        return
    failed_set = {(int(p["src"]), int(p["dst"])) for p in failed if "src" in p and "dst" in p}
    failed_set |= {(int(p["src"]), int(p["dst"])) for p in pairs if p.get("ok") is False}
    if world <= charts.MAX_MATRIX_RANKS:
        values: list[list[float | None]] = [[None] * world for _ in range(world)]
        for p in pairs:
            a, b, bw = int(p["src"]), int(p["dst"]), _num(p.get("bandwidth_gbps"))
            if p.get("ok", True) and bw is not None:
                values[a][b] = bw
                if values[b][a] is None:
                    values[b][a] = bw
        labels = [str(r) for r in range(world)]
        groups = _node_starts(facts)
        title = "Rank-pair bandwidth (Gbit/s); lines separate nodes"
        fails = sorted(failed_set)
    else:  # node-pair medians keep a large cluster's matrix legible and the file small
        per = int(facts.cluster.get("devices_per_node") or 1)
        nodes = (world + per - 1) // per
        cells: dict[tuple[int, int], list[float]] = defaultdict(list)
        for p in pairs:
            bw = _num(p.get("bandwidth_gbps"))
            if p.get("ok", True) and bw is not None:
                a, b = int(p["src"]) // per, int(p["dst"]) // per
                cells[(a, b)].append(bw)
                cells[(b, a)].append(bw)
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


_LIMIT_FOR_PHASE = {
    "rendezvous_s": ("join_timeout_s", "join timeout"),
    "init_s": ("HCCL_CONNECT_TIMEOUT", "HCCL_CONNECT_TIMEOUT"),
    "first_collective_s": ("pg_timeout_s", "PG timeout"),
    "barrier_s": ("pg_timeout_s", "PG timeout"),
}
"""Which configured limit each measured phase must stay under (the one that fires first)."""


def timeouts(facts: Facts, sec: Section, data: Mapping[str, Any]) -> None:
    settings = data.get("settings") or {}
    rows = []
    for phase, (limit_key, limit_name) in _LIMIT_FOR_PHASE.items():
        dist = data.get(phase)
        if not isinstance(dist, Mapping):
            continue
        if limit_key in settings and isinstance(settings[limit_key], Mapping):
            limit = _num(settings[limit_key].get("effective_s"))
        else:
            limit = _num(data.get(limit_key))
        mx = _num(dist.get("max"))
        rows.append(
            {
                "label": phase.removesuffix("_s").replace("_", " "),
                "p50": _num(dist.get("p50")),
                "p90": _num(dist.get("p90")),
                "max": mx,
                "limit_s": limit,
                "limit_name": limit_name,
                "headroom": (limit / mx) if limit and mx else None,
            }
        )
    sec.view["phases"] = rows
    sec.view["settings"] = {k: v for k, v in settings.items() if isinstance(v, Mapping)}
    sec.view["pg_timeout_s"] = _num(data.get("pg_timeout_s"))
    sec.view["join_timeout_s"] = _num(data.get("join_timeout_s"))
    sec.view["stragglers"] = list(data.get("stragglers") or [])[:MAX_TABLE_ROWS]
    sec.view["hang"] = data.get("hang") or None
    skew = data.get("barrier_skew_s") or {}
    if skew:
        worst = sorted(skew.items(), key=lambda kv: -(_num(kv[1]) or 0.0))[:5]
        sec.view["worst_skew"] = [(k, _num(v)) for k, v in worst]
    _chart(sec, "chart_svg", lambda: charts.timeouts_chart(rows))


def subgroups(facts: Facts, sec: Section, data: Mapping[str, Any]) -> None:
    errors = [e for e in data.get("errors") or [] if isinstance(e, Mapping)]
    bad_dims = {str(e.get("dimension")) for e in errors}
    sec.view["declared"] = [
        {"name": name, "groups": groups, "bad": name in bad_dims}
        for name, groups in (data.get("declared") or {}).items()
    ]
    sec.view["corrected"] = data.get("corrected") or {}
    sec.view["errors"] = errors
    sec.view["membership_ok"] = data.get("membership_ok")
    sec.view["creation_mismatch_ranks"] = data.get("creation_mismatch_ranks") or []
    sec.view["fingerprint_mismatch_ranks"] = data.get("fingerprint_mismatch_ranks") or []


def topology(facts: Facts, sec: Section, data: Mapping[str, Any]) -> None:
    ranks = [r for r in data.get("ranks") or [] if isinstance(r, Mapping)]
    sec.view["ranks"] = ranks[:MAX_TABLE_ROWS]
    sec.view["ranks_left_out"] = max(0, len(ranks) - MAX_TABLE_ROWS)
    sec.view["ranks_per_node"] = data.get("ranks_per_node") or {}
    sec.view["duplicates"] = data.get("duplicate_devices") or []
    sec.view["shared_affinity"] = data.get("shared_affinity") or []
    sec.view["islands"] = data.get("islands") or []
    sec.view["slow_links"] = data.get("slow_links") or []
    sec.view["errors"] = data.get("errors") or []
    placements = ranks or list(facts.cluster.get("ranks") or [])
    by_node: dict[int, list[int]] = defaultdict(list)
    names: dict[int, str] = {}
    for p in placements:
        if "rank" in p and "node" in p:
            by_node[int(p["node"])].append(int(p["rank"]))
            names[int(p["node"])] = str(p.get("node_name") or f"node{p['node']}")
    if not by_node:
        return
    nodes = sorted(by_node)
    index = {n: i for i, n in enumerate(nodes)}
    node_of = {r: index[n] for n, rs in by_node.items() for r in rs}
    conn = facts.stages.get("connectivity")
    pairs = (conn.data.get("pairs") or []) if conn else []
    inter: dict[tuple[int, int], list[float]] = defaultdict(list)
    intra: dict[int, list[float]] = defaultdict(list)
    failed: list[tuple[int, int]] = []
    for p in pairs:
        if not isinstance(p, Mapping) or "src" not in p or "dst" not in p:
            continue
        a, b = int(p["src"]), int(p["dst"])
        if a not in node_of or b not in node_of:
            continue
        if p.get("ok") is False:
            failed.append((a, b))
            continue
        bw = _num(p.get("bandwidth_gbps"))
        if bw is None:
            continue
        na, nb = node_of[a], node_of[b]
        if na == nb:
            intra[na].append(bw)
        else:
            inter[(min(na, nb), max(na, nb))].append(bw)
    slow = [
        (int(s["a"]), int(s["b"]), _num(s.get("bandwidth_gbps")) or 0.0)
        for s in sec.view["slow_links"]
        if isinstance(s, Mapping) and "a" in s and "b" in s
    ]
    dup_ranks = [
        r for d in sec.view["duplicates"] if isinstance(d, Mapping) for r in d.get("ranks") or []
    ]
    _chart(
        sec,
        "picture_svg",
        lambda: charts.topology_picture(
            [names[n] for n in nodes],
            [sorted(by_node[n]) for n in nodes],
            islands=[list(i) for i in sec.view["islands"]],
            node_links_gbps={k: statistics.median(v) for k, v in inter.items()},
            intra_gbps={k: statistics.median(v) for k, v in intra.items()},
            slow_links=slow[:20],
            failed_links=failed[:20],
            duplicate_ranks=dup_ranks,
        ),
    )


def bench(facts: Facts, sec: Section, data: Mapping[str, Any]) -> None:
    results = [r for r in data.get("results") or [] if isinstance(r, Mapping)]
    nominal = _num(data.get("bottleneck_gbps")) or 0.0
    by_op: dict[str, dict[str, list[tuple[float, float]]]] = defaultdict(lambda: defaultdict(list))
    for r in results:
        size, bw = _num(r.get("bytes")), _num(r.get("busbw_gbps"))
        if size and bw is not None:
            label = f"{r.get('algorithm', '?')} {r.get('dtype', '')}".strip()
            by_op[str(r.get("op", "?"))][label].append((size, bw))
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
    util = data.get("utilisation") or {}
    if data.get("utilisation_note"):
        sec.notes.append(str(data["utilisation_note"]))
    sec.view["averages"] = [
        {"key": k, "avg_busbw_gbps": _num(v), "utilisation": _num(util.get(k))}
        for k, v in sorted((data.get("avg_busbw_gbps") or {}).items())
    ]
    sec.view["bottleneck_gbps"] = nominal or None
    sec.view["best_algorithm"] = {
        op: dict(sorted(by_size.items(), key=lambda kv: _num(kv[0]) or 0.0))
        for op, by_size in (data.get("best_algorithm") or {}).items()
        if isinstance(by_size, Mapping)
    }
    sec.view["model"] = data.get("model") or {}
    sec.view["wrong"] = [r for r in results if r.get("wrong")][:MAX_TABLE_ROWS]
    sec.view["results"] = results[: MAX_TABLE_ROWS * 4]
    sec.view["results_left_out"] = max(0, len(results) - MAX_TABLE_ROWS * 4)


def sweep(facts: Facts, sec: Section, data: Mapping[str, Any]) -> None:
    trials = [t for t in data.get("trials") or [] if isinstance(t, Mapping)]
    thr: dict[str, list[tuple[float, float]]] = defaultdict(list)
    share: dict[str, list[tuple[float, float]]] = defaultdict(list)
    for t in trials:
        cfg = t.get("config") or {}
        bs, sps = _num(cfg.get("batch_size")), _num(t.get("samples_per_s"))
        if bs is None or t.get("status", "ok") != "ok":
            continue
        label = " · ".join(str(cfg[k]) for k in ("precision", "comm") if k in cfg) or "trials"
        if sps is not None:
            thr[label].append((bs, sps))
        cs = _num(t.get("comm_share"))
        if cs is not None:
            share[label].append((bs, cs * 100))
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
    scaling = [s for s in data.get("scaling") or [] if isinstance(s, Mapping)]
    eff = {
        "efficiency": [
            (_num(s.get("world_size")) or 0.0, (_num(s.get("efficiency")) or 0.0) * 100)
            for s in scaling
            if s.get("world_size") is not None and s.get("efficiency") is not None
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
    for t in trials:
        for k in t.get("config") or {}:
            if k not in keys:
                keys.append(k)
    sec.view["config_keys"] = keys
    sec.view["trials"] = trials[:MAX_TABLE_ROWS]
    sec.view["trials_left_out"] = max(0, len(trials) - MAX_TABLE_ROWS)
    sec.view["best"] = data.get("best") or {}
    sec.view["scaling"] = scaling
    sec.view["largest_bucket_bytes"] = data.get("largest_bucket_bytes")


def preflight(facts: Facts, sec: Section, data: Mapping[str, Any]) -> None:
    sec.view["nodes"] = {
        k: v for k, v in (data.get("nodes") or {}).items() if isinstance(v, Mapping)
    }


def smoke(facts: Facts, sec: Section, data: Mapping[str, Any]) -> None:
    init = {k: _num(v) for k, v in (data.get("init_s") or {}).items()}
    vals = [v for v in init.values() if v is not None]
    sec.view["summary"] = {
        "ranks reporting": data.get("ranks_reporting"),
        "ranks initialised": data.get("ranks_initialised"),
        "known-value all_reduce correct": data.get("all_reduce_ok"),
        "init_process_group median (s)": round(statistics.median(vals), 3) if vals else None,
        "init_process_group max (s)": round(max(vals), 3) if vals else None,
    }


BUILDERS: dict[str, Callable[[Facts, Section, Mapping[str, Any]], None]] = {
    "preflight": preflight,
    "smoke": smoke,
    "topology": topology,
    "connectivity": connectivity,
    "timeouts": timeouts,
    "subgroups": subgroups,
    "bench": bench,
    "sweep": sweep,
}


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
        builder = BUILDERS.get(sf.name)
        data = sf.data if isinstance(sf.data, Mapping) else {}
        if builder is None:
            sec.view["raw"] = data
        else:
            try:
                builder(facts, sec, data)
            except Exception as e:  # unexpected shape: show the raw data rather than nothing
                sec.notes.append(f"section could not be laid out: {type(e).__name__}: {e}")
                sec.view = {"raw": data}
        out.append(sec)
        if sf.name == "bench" and data.get("whatif"):
            out.append(
                Section(
                    id="sec-whatif",
                    title="What-if predictions",
                    view={
                        "whatif": [w for w in data["whatif"] if isinstance(w, Mapping)],
                        "model": data.get("model") or {},
                    },
                )
            )
    return out


def not_run(facts: Facts) -> list[str]:
    """Known stages with no facts in this run (disabled by the profile, or never reached)."""
    return [STAGE_TITLES[n] for n in STAGE_TITLES if n not in facts.stages]
