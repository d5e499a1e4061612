"""The isolate stage: when a full-size stage failed, hung or ran slow, find the node, NIC or link.

It runs last, reads what the run's earlier stages found (``facts.json``, written as each stage
ended), and when one of them failed, timed out or measured an inter-node link far below the
others, re-runs a small job (barrier, known-value all_reduce, a timed all_reduce) on subsets of
the nodes chosen by :mod:`advisor.isolate.search`, each job with a short deadline. ``advisor
isolate RUN`` runs the same stage on a finished run.

A job is *failed* when the launcher says so (a rank failed, or the job passed its deadline) or
its sum is wrong; *slow* when its bus bandwidth is below ``slow_fraction`` of the best subset
measured in this isolation (a link degraded to a tenth of its rate makes every job it is in
slow); judged again after every round, since the best subset is only known as they come. Once a
job failed, slowness is no longer judged: the failure is what is being isolated.
"""

from __future__ import annotations

import statistics
import time
from dataclasses import asdict, dataclass, field
from typing import TYPE_CHECKING, Any

from advisor import console
from advisor.isolate.search import CONCLUSIONS, Search, Trial, job_budget
from advisor.paths import FACTS_FILE
from advisor.smoke import barrier_and_known_sum, local_address
from advisor.stages import Stage, StageConfig

if TYPE_CHECKING:
    from advisor.cluster import Cluster
    from advisor.driver import DriverContext
    from advisor.facts import Facts
    from advisor.results import Record
    from advisor.worker import RankContext

FAILED_STATUSES = ("failed", "timeout", "error")
NOT_TRIGGERS = ("preflight", "isolate")
"""Stages whose failure isolation cannot help with: preflight checks each host on its own (it
names the host already), and this stage itself."""


@dataclass(kw_only=True)
class IsolateConfig(StageConfig):
    """When and how to isolate a failing or slow node, NIC or link (``stages.isolate``)."""

    enabled: bool = False
    deadline_s: float = 900.0
    job_deadline_s: float = 45.0
    """Deadline of each isolation job, launch included: a subset that hangs is judged failed
    after this long, so keep it short but above a healthy job's start-up on the cluster."""
    probe_bytes: int = 16 * 2**20
    """Bytes of the timed all_reduce (large enough that bandwidth, not latency, decides)."""
    iters: int = 5
    """Timed all_reduce iterations per job (the median is kept)."""
    slow_fraction: float = 0.5
    """A job is slow below this fraction of the best bus bandwidth of the isolation's jobs; the
    connectivity trigger uses the same fraction of the inter-node median."""
    force: bool = False
    """Isolate even when no stage failed or ran slow (drills, ``advisor isolate --force``)."""

    def __post_init__(self) -> None:
        if self.job_deadline_s <= 0:
            raise ValueError("stages.isolate.job_deadline_s must be above 0 seconds.")
        if self.probe_bytes < 4:
            raise ValueError("stages.isolate.probe_bytes must be at least 4 (one float32).")
        if self.iters < 1:
            raise ValueError("stages.isolate.iters must be at least 1.")
        if not 0 < self.slow_fraction < 1:
            raise ValueError(
                f"stages.isolate.slow_fraction={self.slow_fraction} must be between 0 and 1 "
                "(0.5: a job at half the best bandwidth is slow)."
            )


@dataclass(kw_only=True)
class IsolateJobConfig:
    """What each rank of one isolation job runs."""

    nodes: list[int] = field(default_factory=list)
    """The run's node indices this job runs on, ascending."""
    probe_bytes: int = 16 * 2**20
    iters: int = 5


# --- rank side ------------------------------------------------------------------------------


def run_rank(ctx: RankContext, params: IsolateJobConfig) -> None:
    import torch

    from advisor import comm

    interface, address = local_address(ctx.cluster)
    ctx.record("address", interface=interface, address=address, run_node=_run_node(ctx, params))
    barrier_and_known_sum(ctx)
    with ctx.step("bandwidth") as m:
        buf = comm.ones(max(1, params.probe_bytes // 4), dtype=torch.float32)
        comm.all_reduce(buf)  # warm-up: connections and buffers are set up outside the timing
        ctx.sync()
        times = []
        for _ in range(params.iters):
            t0 = time.perf_counter()
            comm.all_reduce(buf)
            ctx.sync()
            times.append(time.perf_counter() - t0)
        m.update(time_s=statistics.median(times), bytes=buf.numel() * 4)


def _run_node(ctx: RankContext, params: IsolateJobConfig) -> int:
    return params.nodes[ctx.node] if ctx.node < len(params.nodes) else ctx.node


# --- advisor side ---------------------------------------------------------------------------


@dataclass(kw_only=True)
class IsolateJob:
    job: str
    round: int
    nodes: list[int]
    """The run's node indices."""
    node_names: list[str]
    verdict: str
    """ok, failed or slow (search.VERDICTS), as judged at the end of the isolation."""
    busbw_gbps: float | None = None
    """Bus bandwidth of the timed all_reduce (Gbit/s; the slowest rank's median time)."""
    duration_s: float = 0.0
    detail: str = ""
    """The launcher's reason (ranks, hosts) for a failed job; the bandwidth against the best
    for a slow one."""


@dataclass(kw_only=True)
class IsolateFacts:
    """Summary of the isolate stage."""

    ran: bool = False
    """True when isolation jobs ran."""
    note: str = ""
    """Why nothing ran (nothing failed, one node, a launcher that cannot start subsets)."""
    triggers: list[str] = field(default_factory=list)
    """What made the run isolate: failed stages, slow inter-node pairs."""
    forced: bool = False
    jobs: list[IsolateJob] = field(default_factory=list)
    """Every isolation job in order; ``round`` groups them."""
    job_budget: int = 0
    """2·log2(nodes) + 2: the most jobs the search plans for."""
    conclusion: str = ""
    """One of search.CONCLUSIONS ('' before the search ended)."""
    culprit_nodes: list[str] = field(default_factory=list)
    """Names of the node(s) whose presence makes a job fail (node, nodes), or whose set fails
    (link, pair, scale)."""
    link: list[str] = field(default_factory=list)
    """The two nodes of a bad link (conclusion link or pair)."""
    nics: dict[str, str] = field(default_factory=dict)
    """Per culprit node: the NIC its ranks' traffic left through (interface and address; on
    an Ascend node the device ports to check with hccn_tool)."""
    summary: str = ""
    """One sentence: what was found and how."""
    symptom: str = ""
    """failed when a culprit's jobs failed or hung, slow when they only ran slow ('' before a
    conclusion)."""

    @property
    def rounds(self) -> list[list[IsolateJob]]:
        out: dict[int, list[IsolateJob]] = {}
        for j in self.jobs:
            out.setdefault(j.round, []).append(j)
        return [out[k] for k in sorted(out)]


def triggers(facts: Facts | None, slow_fraction: float) -> list[str]:
    """What in the run's facts calls for isolation: a failed stage, a slow inter-node pair."""
    if facts is None:
        return []
    out = [
        f"stage {sf.name} {sf.status}: {sf.reason[:240]}"
        for sf in facts.stages.values()
        if sf.name not in NOT_TRIGGERS and sf.status in FAILED_STATUSES
    ]
    conn = facts.summary("connectivity")
    if conn is not None and facts.cluster.nodes > 1:
        inter = [p for p in conn.pairs if p.link == "inter" and p.bandwidth_gbps]
        if len(inter) >= 2:
            median = statistics.median(p.bandwidth_gbps for p in inter)
            out += [
                f"pair {p.src}–{p.dst} ({p.src_node}–{p.dst_node}) at "
                f"{p.bandwidth_gbps:.3g} Gbit/s, below {slow_fraction:g} × the inter-node "
                f"median {median:.3g} Gbit/s"
                for p in inter
                if p.bandwidth_gbps is not None and p.bandwidth_gbps < slow_fraction * median
            ]
    return out


def _run_facts(ctx: DriverContext) -> Facts | None:
    from advisor.facts import Facts

    path = ctx.run_dir / FACTS_FILE
    return Facts.read(path) if path.exists() else None


class _Judge:
    """Runs each round's jobs and judges every job so far against the best bandwidth."""

    def __init__(self, ctx: DriverContext, params: IsolateConfig) -> None:
        self.ctx = ctx
        self.params = params
        self.trials: list[tuple[Trial, IsolateJob]] = []
        self.round = 0

    def __call__(self, subsets: list[list[int]]) -> list[Trial]:
        self.round += 1
        fresh = []
        for nodes in subsets:
            fresh.append(self._one(nodes))
        self.judge()
        names = ", ".join(f"{'+'.join(j.node_names)}: {t.verdict}" for t, j in fresh)
        console.out.print(f"      round {self.round}: {names}")
        for _, job in fresh:
            self.ctx.record("job", **asdict(job))
        return [t for t, _ in fresh]

    def _one(self, nodes: list[int]) -> tuple[Trial, IsolateJob]:
        ctx, params = self.ctx, self.params
        name = f"j{len(self.trials) + 1}-n{'-'.join(map(str, nodes))}"
        outcome = ctx.launch(
            name,
            IsolateJobConfig(nodes=nodes, probe_bytes=params.probe_bytes, iters=params.iters),
            deadline_s=params.job_deadline_s,
            nodes=nodes,
        )
        measured = [
            r.metrics
            for r in ctx.records(name)
            if r.step == "bandwidth" and r.status == "ok" and "time_s" in r.metrics
        ]
        world = len(nodes) * ctx.cluster.devices_per_node
        busbw = None
        if outcome.status == "ok" and len(measured) == world and world > 1:
            # The slowest rank's time: a collective ends when its last rank does.
            slowest = max(measured, key=lambda m: float(m["time_s"]))
            algbw_gbps = int(slowest["bytes"]) * 8 / float(slowest["time_s"]) / 1e9
            busbw = algbw_gbps * 2 * (world - 1) / world  # all_reduce's bus factor
        failed = outcome.status != "ok" or busbw is None
        job = IsolateJob(
            job=name,
            round=self.round,
            nodes=nodes,
            node_names=[ctx.cluster.node_name(n) for n in nodes],
            verdict="failed" if failed else "ok",
            busbw_gbps=busbw,
            duration_s=outcome.duration_s,
            detail=(outcome.reason or f"job {outcome.status}")[:400] if failed else "",
        )
        trial = Trial(nodes=nodes, verdict=job.verdict, detail=job.detail)
        self.trials.append((trial, job))
        return trial, job

    def judge(self) -> None:
        judge([job for _, job in self.trials], self.params.slow_fraction)
        for trial, job in self.trials:
            trial.verdict, trial.detail = job.verdict, job.detail


def judge(jobs: list[IsolateJob], slow_fraction: float) -> None:
    """Judge every job so far (in place): failed stays failed; slow below ``slow_fraction`` of
    the best bus bandwidth, unless a job failed: a failure is the fault being isolated then,
    and a healthy subset that ran slow on a busy host (or beside a hung one) must not send the
    search after a second, imagined fault."""
    failed = any(job.busbw_gbps is None for job in jobs)
    best = max((j.busbw_gbps for j in jobs if j.busbw_gbps is not None), default=0.0)
    for job in jobs:
        if job.busbw_gbps is None:
            continue
        slow = not failed and job.busbw_gbps < slow_fraction * best
        job.verdict = "slow" if slow else "ok"
        job.detail = (
            f"{job.busbw_gbps:.3g} Gbit/s, {100 * job.busbw_gbps / best:.0f}% of the best subset "
            f"({best:.3g} Gbit/s)"
            if slow
            else ""
        )


def drive(ctx: DriverContext, params: IsolateConfig) -> None:
    cluster = ctx.cluster
    found = triggers(_run_facts(ctx), params.slow_fraction)
    if not found and not params.force:
        ctx.record(
            "skip", note="nothing to isolate: no stage failed and no inter-node pair ran slow"
        )
        return
    if cluster.nodes < 2:
        ctx.record("skip", note="one node: isolation compares subsets of nodes (two or more)")
        return
    if ctx.launcher.plan.one_per_node:
        ctx.record(
            "skip",
            note=(
                "one advisor per node (launcher=torchrun/env) cannot start jobs on chosen nodes: "
                "run `advisor isolate RUN launcher=ssh` (or slurm) from one host"
            ),
        )
        return
    ctx.record("trigger", triggers=found, forced=params.force, job_budget=job_budget(cluster.nodes))
    console.out.print(
        f"      isolating over {cluster.nodes} nodes (at most {job_budget(cluster.nodes)} jobs of "
        f"{params.job_deadline_s:.0f} s): {found[0] if found else 'forced'}"
    )
    judge = _Judge(ctx, params)
    # A slow trigger (or a drill) cannot trust a passing whole: its slowness only shows against
    # the subsets measured after it, so the search goes on to the halves.
    slow_only = not any(t.startswith("stage ") for t in found)
    search = Search(range(cluster.nodes), judge, expect_slow=slow_only)
    conclusion = search.run()
    ctx.record(
        "conclusion",
        kind=conclusion.kind,
        nodes=conclusion.nodes,
        detail=conclusion.detail,
        verdicts={j.job: [j.verdict, j.detail] for _, j in judge.trials},
    )


def summarize(records: list[Record], cluster: Cluster, params: Any) -> IsolateFacts:
    facts = IsolateFacts()
    final: dict[str, list[str]] = {}
    addresses: dict[int, set[str]] = {}
    device_ids: dict[int, set[int]] = {}
    for r in records:
        if r.rank < 0:
            m = r.metrics
            if r.step == "skip":
                facts.note = str(m.get("note", ""))
            elif r.step == "trigger":
                facts.triggers = [str(t) for t in m.get("triggers", [])]
                facts.forced = bool(m.get("forced", False))
                facts.job_budget = int(m.get("job_budget", 0))
            elif r.step == "job":
                facts.jobs.append(IsolateJob(**m))
            elif r.step == "conclusion":
                facts.conclusion = str(m.get("kind", ""))
                facts.culprit_nodes = [cluster.node_name(int(n)) for n in m.get("nodes", [])]
                final = {k: list(v) for k, v in m.get("verdicts", {}).items()}
                facts.summary = str(m.get("detail", ""))
        elif r.step == "address" and r.status == "ok":
            node = int(r.metrics.get("run_node", r.node))
            iface, addr = r.metrics.get("interface", ""), r.metrics.get("address", "")
            if iface or addr:
                addresses.setdefault(node, set()).add(f"{iface} {addr}".strip())
            device_ids.setdefault(node, set()).add(r.local_rank)
    for job in facts.jobs:
        if job.job in final:
            job.verdict, job.detail = final[job.job]
    facts.ran = bool(facts.jobs)
    if facts.conclusion and facts.conclusion not in CONCLUSIONS:
        facts.summary = f"unknown conclusion {facts.conclusion!r}; " + facts.summary
    culprits = [n for n in range(cluster.nodes) if cluster.node_name(n) in facts.culprit_nodes]
    if facts.conclusion in ("link", "pair"):
        facts.link = list(facts.culprit_nodes)
    for n in culprits:
        nics = sorted(addresses.get(n, set()))
        if cluster.device_type == "npu":
            ports = ", ".join(f"hccn_tool -i {d}" for d in sorted(device_ids.get(n, set())))
            nics.append(f"device ports: {ports or 'every device'} (-link -g, -net_health -g)")
        if not addresses.get(n):
            # No rank of the node got as far as naming its NIC (a node whose ports are blocked
            # never forms a process group): say what the run configured for it, as such.
            host = cluster.hosts[n] if n < len(cluster.hosts) else ""
            nic = cluster.interface or "the interface routing to the master"
            nics.insert(0, f"{nic} {host}".strip() + " (as configured: no rank of it started)")
        facts.nics[cluster.node_name(n)] = "; ".join(nics)
    bad = [j.verdict for j in facts.jobs if j.verdict != "ok"]
    facts.symptom = ("failed" if "failed" in bad else "slow") if bad else ""
    facts.summary = _sentence(facts) if facts.conclusion else facts.summary
    return facts


def _sentence(f: IsolateFacts) -> str:
    names = " and ".join(f.culprit_nodes)
    jobs = f"{len(f.jobs)} job(s) in {len(f.rounds)} round(s)"
    what = "run slow" if f.symptom == "slow" else "fail"
    return {
        "node": f"node {names} makes every job it is in {what} ({jobs})",
        "nodes": f"nodes {names} each make the jobs they are in {what} ({jobs})",
        "link": f"the link {' – '.join(f.link)} makes jobs {what}; each node passes with "
        f"others ({jobs})",
        "pair": f"{' – '.join(f.link)} fail together; no third node tells node from link ({jobs})",
        "scale": f"every small set passes; the fault needs {len(f.culprit_nodes)} nodes ({jobs})",
        "not_reproduced": f"the small job passed on every node together ({jobs})",
        "undetermined": f"no single node or link explains the failures ({jobs}): {names}",
    }.get(f.conclusion, f.conclusion)


STAGE = Stage(
    name="isolate",
    description="find the node, NIC or link behind a failed or slow stage (subset bisection)",
    config_type=IsolateConfig,
    job_config_type=IsolateJobConfig,
    run_rank=run_rank,
    drive=drive,
    summarize=summarize,
    facts_type=IsolateFacts,
)
