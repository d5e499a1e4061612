"""Each rank's outcome of a stage, from its records and the agents' failure summaries.

Progress is the number of steps a rank started: at a hang, the ranks behind the furthest one are
the culprits and the ones at the front are only waiting for them. A rank's own error, a rank
that died (torchrun's ChildFailedError summary names it and its exit code), one that never
started, and one stopped only because another failed are told apart, and the stage's reason names
the root causes first.
"""

from __future__ import annotations

import re
import signal

from advisor.cluster import Cluster
from advisor.facts import RankOutcome
from advisor.launch.supervise import AgentResult
from advisor.results import Record

_ROOT_CAUSE = re.compile(
    r"rank\s*:\s*(?P<rank>\d+)\s*\(local_rank:\s*(?P<local>\d+)\)\s*\n\s*exitcode\s*:\s*"
    r"(?P<code>-?\d+)",
)


def parse_agent_failures(text: str) -> dict[int, int]:
    """Ranks that failed on their own, with exit codes, from torchrun's ``ChildFailedError``.

    The summary lists the root cause and the other failures; ranks the agent itself ended with
    SIGTERM after the root cause are not failures of their own and are left out.
    """
    failures: dict[int, int] = {}
    root_at = text.find("Root Cause")
    for m in _ROOT_CAUSE.finditer(text):
        rank, code = int(m.group("rank")), int(m.group("code"))
        is_root = root_at != -1 and m.start() > root_at
        # -15: killed by SIGTERM; 143: a rank that caught it to dump its flight recorder first
        if code in (-signal.SIGTERM, 128 + signal.SIGTERM) and not is_root:
            continue
        failures.setdefault(rank, code)
    return failures


def diagnose(
    stage: str,
    cluster: Cluster,
    records: list[Record],
    agents: list[AgentResult],
    timed_out: bool,
) -> tuple[list[RankOutcome], str]:
    """Each rank's outcome from its records and the agents' failure summaries; plus a reason."""
    by_rank: dict[int, list[Record]] = {}
    for r in records:
        by_rank.setdefault(r.rank, []).append(r)
    agent_failures: dict[int, int] = {}
    for a in agents:
        if a.log_path.exists():
            agent_failures.update(
                parse_agent_failures(a.log_path.read_text(encoding="utf-8", errors="replace"))
            )
    first_failure = min(agent_failures, default=None) if agent_failures else None
    # Progress = steps started. At a hang, ranks behind the furthest one are the culprits; the
    # ones at the front are only waiting for them.
    unfinished = {
        p.rank: _started_count(by_rank.get(p.rank, []))
        for p in cluster.placements()
        if not any(r.step == "done" for r in by_rank.get(p.rank, []))
    }
    furthest = max(unfinished.values(), default=0)
    laggards = sorted(r for r, n in unfinished.items() if n < furthest)
    furthest_step = next(
        (
            _last_started(by_rank[r])
            for r, n in unfinished.items()
            if n == furthest and by_rank.get(r)
        ),
        "",
    )
    outcomes: list[RankOutcome] = []
    # Errors of ranks that failed waiting for a laggard: they often say who was missing.
    consequences: list[tuple[int, str]] = []
    for p in cluster.placements():
        recs = by_rank.get(p.rank, [])
        host = recs[-1].host if recs else (cluster.hosts[p.node] if cluster.hosts else "")
        node_name = recs[-1].node_name if recs else p.node_name
        last = recs[-1] if recs else None
        last_step = last.step if last else ""
        error = next((r for r in reversed(recs) if r.status == "error"), None)
        out = RankOutcome(
            rank=p.rank,
            node=recs[-1].node if recs else p.node,
            node_name=node_name,
            host=host,
            local_rank=p.local_rank,
            state="ok",
            last_step=last_step,
        )
        if any(r.step == "done" for r in recs):
            pass
        elif error is not None and laggards and p.rank not in laggards:
            # Its collective failed while waiting for ranks that never arrived: a consequence.
            out.state = "stopped"
            own_error = _first_line(str(error.metrics.get("error", "reported an error")), 160)
            out.reason = (
                f"waiting in step {_last_started(recs)!r} for rank(s) "
                f"{', '.join(str(r) for r in laggards[:8])}, then: {own_error}"
            )
            out.last_step = _last_started(recs)
            consequences.append((p.rank, own_error))
        elif error is not None:
            out.state = "error"
            out.reason = _first_line(str(error.metrics.get("error", "reported an error")))
            out.last_step = error.step if error.step != "error" else _last_started(recs)
        elif not recs:
            out.state = "not_started"
            out.reason = "never started (its node or process did not come up)"
        elif p.rank in agent_failures and (timed_out is False):
            out.state = "died"
            out.exit_code = agent_failures[p.rank]
            when = "during" if last is not None and last.status == "started" else "after"
            out.reason = f"process exited with code {out.exit_code} {when} step {last_step!r}"
        elif timed_out:
            started = _started_count(recs)
            if started < furthest:
                out.state = "hung"
                out.reason = (
                    f"never arrived at step {furthest_step!r} that other ranks reached "
                    f"(last step {last_step!r} {last.status if last else ''})"
                )
            elif laggards:
                out.state = "stopped"
                out.reason = (
                    f"waiting in step {_last_started(recs)!r} for rank(s) "
                    f"{', '.join(str(r) for r in laggards[:8])}"
                )
            else:
                out.state = "hung"
                out.reason = f"still in step {_last_started(recs)!r} at the deadline"
            out.last_step = _last_started(recs) or last_step
        elif p.rank in laggards:
            # Peers gave up waiting for it (their collectives timed out) before the deadline.
            out.state = "hung"
            out.reason = (
                f"never arrived at step {furthest_step!r} that other ranks reached "
                f"(last step {last_step!r} {last.status if last else ''})"
            )
        else:
            out.state = "stopped"
            out.reason = f"stopped by the agent during step {last_step!r} after another rank failed"
        outcomes.append(out)
    bad = [o for o in outcomes if o.state != "ok"]
    if not bad:
        return outcomes, ""
    # Root causes first: a rank that died or hung makes its peers raise errors of their own.
    order = {"died": 0, "hung": 1, "not_started": 2, "error": 3}
    culprits = (
        sorted((o for o in bad if o.state in order), key=lambda o: (order[o.state], o.rank)) or bad
    )
    parts = [f"rank {o.rank} on {_where(o)} {o.state}: {o.reason}" for o in culprits[:8]]
    if len(culprits) > 8:
        parts.append(f"... and {len(culprits) - 8} more")
    if consequences:
        rank, text = consequences[0]
        parts.append(f"rank {rank} reports: {text}")
    if first_failure is not None and not any(o.state == "died" for o in culprits):
        parts.append(f"torchrun reported rank {first_failure} failing first")
    prefix = f"{stage} timed out" if timed_out else f"{stage} failed"
    return outcomes, f"{prefix}: " + "; ".join(parts)


def _started_count(recs: list[Record]) -> int:
    return sum(1 for r in recs if r.status == "started")


def _last_started(recs: list[Record]) -> str:
    for r in reversed(recs):
        if r.status == "started":
            return r.step
    return recs[-1].step if recs else ""


def _where(o: RankOutcome) -> str:
    if not o.host or o.host == o.node_name:
        return o.node_name or o.host or "?"
    return f"{o.node_name} (host {o.host})"


def _first_line(text: str, limit: int = 240) -> str:
    line = text.strip().splitlines()[0] if text.strip() else text
    return line if len(line) <= limit else line[: limit - 3] + "..."


def external_status(
    tag: str, deadline_s: float, agents: list[AgentResult], timed_out: bool
) -> tuple[str, str]:
    """(status, reason) of a job running a foreign program: only the agents' exit codes tell."""
    failures: dict[int, int] = {}
    for a in agents:
        if a.log_path.exists():
            failures.update(
                parse_agent_failures(a.log_path.read_text(encoding="utf-8", errors="replace"))
            )
    if timed_out:
        return "timeout", f"{tag} was still running at its deadline ({deadline_s:.0f} s)"
    if failures or any(a.returncode not in (0, None) for a in agents):
        ranks = ", ".join(f"rank {r} exit code {c}" for r, c in sorted(failures.items()))
        codes = {a.node: a.returncode for a in agents}
        return "failed", f"{tag} failed: {ranks or f'agent exit codes {codes}'}"
    return "ok", ""
