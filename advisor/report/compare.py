"""``advisor compare RUN_A RUN_B``: what moved between two runs (after a change, a new driver ...).

Both runs' facts are reduced to the same flat set of headline metrics (each with its unit and
which direction is better); a metric that got worse by more than the threshold (relative) is a
regression. Stage outcomes and findings that appeared or disappeared are listed too. Writes
``compare.json`` and a self-contained ``compare.html``.
"""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass, field
from datetime import datetime, timezone
from pathlib import Path
from typing import TYPE_CHECKING, Any

from advisor.errors import ConfigError
from advisor.facts import Facts
from advisor.paths import missing_path
from advisor.report import render
from advisor.rules.findings import Finding
from advisor.verdict import NOT_READY, READY, WARNINGS, verdict

if TYPE_CHECKING:
    from advisor.bench.collectives import BenchFacts
    from advisor.probes.connectivity import ConnectivityFacts
    from advisor.probes.subgroups import SubgroupsFacts
    from advisor.probes.timeouts import TimeoutsFacts
    from advisor.probes.topology import TopologyFacts
    from advisor.smoke import SmokeFacts
    from advisor.sweep.stage import SweepFacts

HIGHER, LOWER = "higher", "lower"
_STATUS_ORDER = ("regression", "improvement", "new", "gone", "changed", "same")
_STAGE_RANK = {"ok": 0, "skipped": 1, "failed": 2, "timeout": 2, "error": 2}


@dataclass(kw_only=True)
class Metric:
    name: str
    """Stable key, e.g. ``connectivity.inter.median_gbps``."""
    value: float
    unit: str
    better: str | None
    """``higher``, ``lower``, or None when neither direction is a regression (durations)."""


@dataclass(kw_only=True)
class MetricDelta:
    name: str
    unit: str
    better: str | None
    a: float | None
    b: float | None
    delta: float | None = None
    relative: float | None = None
    """(b - a) / |a|; None when a is 0 or either side is missing."""
    status: str = "same"
    """regression, improvement, same, changed (no better direction), new or gone."""


@dataclass(kw_only=True)
class RunSummary:
    run_id: str
    path: str
    cluster: str
    shape: str
    """``nodes x devices_per_node``: counts scale with it, so a shape change explains deltas."""
    emulated: bool
    started_at: float
    verdict: str
    stages: dict[str, str] = field(default_factory=dict)


@dataclass(kw_only=True)
class Comparison:
    a: RunSummary
    b: RunSummary
    threshold: float
    metrics: list[MetricDelta]
    stage_changes: list[dict[str, str]]
    findings_appeared: list[dict[str, Any]]
    findings_disappeared: list[dict[str, Any]]
    findings_persisted: list[dict[str, Any]]

    @property
    def same_shape(self) -> bool:
        return self.a.shape == self.b.shape

    @property
    def regressions(self) -> list[MetricDelta]:
        return [m for m in self.metrics if m.status == "regression"]

    @property
    def worse_stages(self) -> list[dict[str, str]]:
        return [s for s in self.stage_changes if s["status"] == "regression"]

    @property
    def regressed(self) -> bool:
        return bool(self.regressions or self.worse_stages)

    def to_dict(self) -> dict[str, Any]:
        d = asdict(self)
        d["regression_count"] = len(self.regressions) + len(self.worse_stages)
        d["same_shape"] = self.same_shape
        return d


def metrics(facts: Facts) -> dict[str, Metric]:
    """The headline numbers of a run, flat, each with its unit and better direction."""
    out: dict[str, Metric] = {}

    def put(name: str, value: float | None, unit: str, better: str | None) -> None:
        if value is not None:
            out[name] = Metric(name=name, value=float(value), unit=unit, better=better)

    put("run.duration_s", facts.run.duration_s, "s", None)
    for name, sf in facts.stages.items():
        put(f"{name}.duration_s", sf.duration_s, "s", None)
        put(f"{name}.ranks_not_ok", len(sf.failed_ranks), "ranks", LOWER)
    smoke: SmokeFacts | None = facts.summary("smoke")
    if smoke is not None:
        put("smoke.ranks_initialised", smoke.ranks_initialised, "ranks", HIGHER)
    conn: ConnectivityFacts | None = facts.summary("connectivity")
    if conn is not None:
        for link, summary in conn.links.items():
            put(f"connectivity.{link}.median_gbps", summary.median_gbps, "Gbit/s", HIGHER)
            put(f"connectivity.{link}.min_gbps", summary.min_gbps, "Gbit/s", HIGHER)
        put("connectivity.failed_pairs", len(conn.failed_pairs), "pairs", LOWER)
    tmo: TimeoutsFacts | None = facts.summary("timeouts")
    if tmo is not None:
        phases = {
            "rendezvous": tmo.rendezvous_s,
            "init": tmo.init_s,
            "first_collective": tmo.first_collective_s,
            "barrier": tmo.barrier_s,
        }
        for phase, dist in phases.items():
            if dist is not None:
                put(f"timeouts.{phase}.p90_s", dist.p90, "s", LOWER)
                put(f"timeouts.{phase}.max_s", dist.max, "s", LOWER)
        put("timeouts.stragglers", len(tmo.stragglers), "ranks", LOWER)
    sub: SubgroupsFacts | None = facts.summary("subgroups")
    if sub is not None:
        put("subgroups.errors", len(sub.errors), "errors", LOWER)
    topo: TopologyFacts | None = facts.summary("topology")
    if topo is not None:
        # A healthy cluster has one island per node; more means a device or link splits a node.
        extra = max(0, len(topo.islands) - facts.cluster.nodes)
        put("topology.extra_islands", extra, "islands", LOWER)
        put("topology.slow_links", len(topo.slow_links), "links", LOWER)
        put("topology.duplicate_devices", len(topo.duplicate_devices), "devices", LOWER)
    bench: BenchFacts | None = facts.summary("bench")
    if bench is not None:
        for key, gbps in bench.avg_busbw_gbps.items():
            put(f"bench.{key}.avg_busbw_gbps", gbps, "Gbit/s", HIGHER)
        for key, fraction in bench.utilisation.items():
            put(f"bench.{key}.utilisation", fraction, "fraction", HIGHER)
        wrong = sum(r.wrong for r in bench.results if r.wrong is not None)
        put("bench.wrong_elements", wrong, "elements", LOWER)
    sweep: SweepFacts | None = facts.summary("sweep")
    if sweep is not None:
        for objective, entry in sweep.best.items():
            put(f"sweep.best.{objective}.samples_per_s", entry.samples_per_s, "samples/s", HIGHER)
        for point in sweep.scaling:
            put(
                f"sweep.scaling.{point.world_size}.efficiency", point.efficiency, "fraction", HIGHER
            )
        failed = sum(t.status != "ok" for t in sweep.trials)
        put("sweep.failed_trials", failed, "trials", LOWER)
    return out


def _delta(name: str, a: Metric | None, b: Metric | None, threshold: float) -> MetricDelta:
    ref = b or a
    assert ref is not None
    d = MetricDelta(
        name=name,
        unit=ref.unit,
        better=ref.better,
        a=a.value if a else None,
        b=b.value if b else None,
    )
    if a is None:
        d.status = "new"
        return d
    if b is None:
        d.status = "gone"
        return d
    d.delta = b.value - a.value
    if a.value != 0:
        d.relative = d.delta / abs(a.value)
    if d.delta == 0:
        return d
    if ref.better is None:
        d.status = "changed"
        return d
    worse = d.delta < 0 if ref.better == HIGHER else d.delta > 0
    # A count that was 0 (no failed pairs) and now is not has no relative change: any is news.
    moved = d.relative is None or abs(d.relative) > threshold
    if moved:
        d.status = "regression" if worse else "improvement"
    return d


def load_run(path: Path) -> tuple[Facts, Path | None]:
    """A run directory (its facts.json) or a facts.json file; clear errors otherwise."""
    if path.is_dir():
        facts_path = path / "facts.json"
        if not facts_path.exists():
            raise ConfigError(
                f"{path} has no facts.json: pass a run directory printed by `advisor run` "
                f"(or run `advisor report {path}` to rebuild it from stored results)."
            )
        run_dir: Path | None = path
    elif path.is_file():
        facts_path, run_dir = path, path.parent
    else:
        raise ConfigError(missing_path(path, "run", "pass a run directory or a facts.json file."))
    try:
        return Facts.read(facts_path), run_dir
    except OSError as e:
        raise ConfigError(f"cannot read {facts_path}: {e}") from e


def _summary(facts: Facts, path: Path, findings: list[Finding]) -> RunSummary:
    # the rule of advisor.verdict: failed stages or critical findings, then warnings
    level = verdict(facts).level
    severities = {f.severity for f in findings}
    if "critical" in severities:
        level = NOT_READY
    elif level == READY and "warning" in severities:
        level = WARNINGS
    c = facts.cluster
    return RunSummary(
        run_id=facts.run.run_id,
        path=str(path),
        cluster=f"{c.name} ({c.nodes}x{c.devices_per_node}, {c.backend})",
        shape=f"{c.nodes}x{c.devices_per_node}",
        emulated=facts.run.emulated,
        started_at=facts.run.started_at,
        verdict=level,
        stages={n: sf.status for n, sf in facts.stages.items()},
    )


def _findings_of(run_dir: Path | None) -> list[Finding]:
    outcome = render.load_findings(run_dir) if run_dir is not None else None
    return render.by_severity(outcome.findings) if outcome else []


def compare(path_a: Path, path_b: Path, *, threshold: float = 0.1) -> Comparison:
    if not threshold > 0:
        raise ConfigError(f"--threshold must be a positive fraction (0.1 = 10 %), got {threshold}.")
    facts_a, dir_a = load_run(path_a)
    facts_b, dir_b = load_run(path_b)
    fa, fb = _findings_of(dir_a), _findings_of(dir_b)
    ma, mb = metrics(facts_a), metrics(facts_b)
    rows = [_delta(n, ma.get(n), mb.get(n), threshold) for n in sorted(set(ma) | set(mb))]
    rows.sort(key=lambda r: _STATUS_ORDER.index(r.status))  # stable: by name within a status
    stage_changes = []
    for name in sorted(set(facts_a.stages) | set(facts_b.stages)):
        sa = facts_a.stages[name].status if name in facts_a.stages else "absent"
        sb = facts_b.stages[name].status if name in facts_b.stages else "absent"
        if sa == sb:
            continue
        ra, rb = _STAGE_RANK.get(sa, 1), _STAGE_RANK.get(sb, 1)
        status = "regression" if rb > ra else ("improvement" if rb < ra else "changed")
        if "absent" in (sa, sb):  # a stage the other run's profile did not plan: not a verdict
            status = "changed"
        reason = facts_b.stages[name].reason if name in facts_b.stages else ""
        stage_changes.append({"stage": name, "a": sa, "b": sb, "status": status, "reason": reason})
    ka = {(f.rule_id, f.title): f for f in fa}
    kb = {(f.rule_id, f.title): f for f in fb}
    return Comparison(
        a=_summary(facts_a, path_a, fa),
        b=_summary(facts_b, path_b, fb),
        threshold=threshold,
        metrics=rows,
        stage_changes=stage_changes,
        findings_appeared=[asdict(f) for k, f in kb.items() if k not in ka],
        findings_disappeared=[asdict(f) for k, f in ka.items() if k not in kb],
        findings_persisted=[asdict(f) for k, f in kb.items() if k in ka],
    )


def write(comparison: Comparison, out_dir: Path) -> tuple[Path, Path]:
    """Write compare.json and compare.html into ``out_dir``; returns both paths."""
    out_dir.mkdir(parents=True, exist_ok=True)
    json_path, html_path = out_dir / "compare.json", out_dir / "compare.html"
    json_path.write_text(
        json.dumps(comparison.to_dict(), indent=2, sort_keys=True, default=str), encoding="utf-8"
    )
    html = render._ENV.get_template("compare.html.j2").render(
        c=comparison,
        generated_at=datetime.now(tz=timezone.utc).strftime("%Y-%m-%d %H:%M:%S UTC"),
    )
    html_path.write_text(html, encoding="utf-8")
    return json_path, html_path
