"""The ranks' failure logs as one timeline: who failed first, who failed only because of it.

Each rank's first failure event (an HCCL/CANN error code, a watchdog time-out, an elastic
failure) is put on one clock. A rank whose event says it was waiting for another (EI0006 "Remote
Rank did not send the data in time", a watchdog dump signal "from rank N", a process the agent
ended with SIGTERM after another failed) is a consequence; the earliest of the others is the
first to fail. The spread between the first and the last rank's error is compared with the
time-out those ranks were waiting under: EI0006's own text asks whether the earliest and latest
errors are further apart than the connect time-out (HCCL_CONNECT_TIMEOUT, 120 s by default per
the CANN HCCL environment-variable reference); for NCCL it is the watchdog's time-out.
"""

from __future__ import annotations

import re
import signal
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from advisor.parsers.logs import HCCL_CONNECT_TIMEOUT_DEFAULT_S, NOTICE_KINDS

ONE_INCIDENT_S = 6 * 3600.0
"""Failures further apart than this are not one incident (logs of different jobs or days)."""
_FROM_RANK = re.compile(r"from rank (\d+)")
_REMOTE_WAIT = re.compile(r"Remote Rank did not send|remote rank.*(?:stuck|did not)", re.I)


@dataclass(kw_only=True)
class TimelineEntry:
    rank: int
    host: str = ""
    time_s: float | None = None
    offset_s: float | None = None
    """Seconds after the first rank's failure (None without a time stamp)."""
    kind: str
    code: str = ""
    source: str
    line: int
    role: str
    """first (the earliest failure of its own), own (failed on its own, later), consequence
    (failed because another rank did), behind (never reached the collective the others timed
    out in), unknown (no time stamp to place it)."""
    why: str = ""
    message: str = ""
    signalled_by: int | None = None
    """The rank whose time-out signal this rank dumped on (torch's "Received a dump signal due to
    a collective timeout from rank N"): that rank had timed out by then."""


@dataclass(kw_only=True)
class FailureTimeline:
    ranks: int
    entries: list[TimelineEntry] = field(default_factory=list)
    """One per rank (its first failure), in time order; ranks without a time stamp last."""
    first_rank: int | None = None
    spread_s: float | None = None
    """Between the first and the last rank's first failure (ranks with time stamps only)."""
    limit_s: float | None = None
    limit_name: str = ""
    """The time-out the spread is judged against (HCCL_CONNECT_TIMEOUT, the watchdog's)."""
    beyond_limit: bool = False
    consequences: list[int] = field(default_factory=list)
    all_waiting: bool = False
    """Every rank's error says it waited for another (EI0006 on all): none failed on its own, the
    case EI0006's text describes (compare the spread with the connect time-out)."""
    one_collective: bool = False
    """Every rank's failures are watchdog time-outs of one collective (one SeqNum of one group):
    each waited out its own time-out for a rank whose work never completed, so none is blamed,
    and the watchdog's time-out, not the connect time-out, is the limit."""
    behind: list[int] = field(default_factory=list)
    """Ranks that never reached the collective the others timed out in (they fail last, when
    the others' time-out reaches them, and are where to look)."""
    lagging_seq: int | None = None
    """Where every failure is a watchdog time-out of one length, stamped together, in one group at
    two or more SeqNums: the lowest SeqNum, whose ranks (``behind``) never completed a collective
    the others had; the others timed out later, waiting for them. Who timed out first then says
    nothing: each waited out the same time-out."""
    signalled_first: int | None = None
    """A rank whose time-out signal another rank received before any rank's own failure in the
    files: it timed out first (its own log is not among them, or was stamped later), and is
    ``first_rank``."""
    signal_line: tuple[str, int] | None = None
    """Where that signal was received first: (source, line)."""
    summary: str = ""
    unstamped: list[int] = field(default_factory=list)
    """Ranks whose own failure (not one that only followed another's) carries no time stamp: with
    any, which rank failed first cannot be told, and ``first_rank`` stays None."""
    tied: list[int] = field(default_factory=list)
    """Ranks whose own failures share the earliest time stamp with no root cause among them
    (torch elastic stamps to the second): which failed first cannot be told, and ``first_rank``
    stays None."""
    shared_addresses: dict[str, list[int]] = field(default_factory=dict)
    """Own addresses (``ip``) that two or more ranks report and that a rank also waited on as its
    peer's address (``remote_ip``): ranks on different nodes that all carry one address (every
    container on Docker's default bridge is 172.17.0.x) cannot reach each other by it."""
    seq_spread: dict[int, list[int]] = field(default_factory=dict)
    """SeqNum → the ranks whose watchdog time-out is at it, where ranks of one named group timed
    out at different SeqNums (torch counts a group's collectives per rank: a rank further on
    finished collectives the others are still in, which needs them all unless they called
    different ones): the ranks at the lowest are the ones to read first."""
    mismatched_ops: dict[str, list[int]] = field(default_factory=dict)
    """Collective → the ranks that failed in it, where ranks of one group failed at the same
    point in different collectives (watchdog time-outs of one SeqNum, HCCL execution time-outs
    of one group): they did not issue the same collectives in the same order."""
    unnamed_seq_spread: dict[int, list[int]] = field(default_factory=dict)
    """As ``seq_spread``, from watchdog time-outs in a log that names no process group at all
    (older torch prints none): one group's ranks out of step only if they are of one group,
    which the log cannot say; ``unnamed_seq_ops`` gives each SeqNum's collective(s)."""
    unnamed_seq_ops: dict[int, list[str]] = field(default_factory=dict)
    unnamed_mismatch: dict[str, list[int]] = field(default_factory=dict)
    """As ``mismatched_ops``, from watchdog time-outs of one SeqNum in a log that names no
    process group at all (older torch prints none): the ranks are of one group only if that
    group is the one the log holds, which the log cannot say."""


def build(
    failures: Sequence[Mapping[str, Any]], env: Mapping[str, str] | None = None
) -> FailureTimeline | None:
    """The timeline of the ranks named in ``failures`` (evidence events); None for fewer than two
    ranks (one rank's log is its own story)."""
    by_rank: dict[int, list[Mapping[str, Any]]] = {}
    for e in failures:
        # a store that timed out or went away is an echo of another rank's failure (its host
        # exited), and a connect NCCL still retries is no failure yet: never a rank's own first
        # error
        # (settings and notices are no failure; a duplicated rank's number is not one process)
        if e.get("rank") is None or e.get("kind") in (
            "store_timeout",
            "store_lost",
            "nccl_connect_retry",
            "duplicate_rank",
            *NOTICE_KINDS,
        ):
            continue
        by_rank.setdefault(int(e["rank"]), []).append(e)
    if len(by_rank) < 2:
        return None
    seqs = [
        int(e["seq"])
        for e in failures
        if e.get("kind") in ("watchdog_timeout", "watchdog_failure") and e.get("seq")
    ]
    timed_out_seq = min(seqs) if seqs else None
    entries = []
    for rank, events in by_rank.items():
        stamped = [e for e in events if e.get("time_s") is not None]
        first = min(stamped, key=lambda e: e["time_s"]) if stamped else events[0]
        if stamped and float(first["time_s"]).is_integer():
            # a stamp to the second only ("2025-12-29-13:22:36" on torch_npu's ERR line) says
            # nothing of where in that second: a finer stamp of the same second places the rank
            finer = [
                e
                for e in stamped
                if int(e["time_s"]) == int(first["time_s"]) and not float(e["time_s"]).is_integer()
            ]
            first = min(finer, key=lambda e: e["time_s"]) if finer else first
        role, why = _role(events, timed_out_seq)
        signalled = (
            int(m.group(1))
            if first.get("kind") == "watchdog_progress"
            and (m := _FROM_RANK.search(str(first.get("message") or "")))
            else None
        )
        entries.append(
            TimelineEntry(
                rank=rank,
                host=str(first.get("host") or ""),
                time_s=first.get("time_s"),
                kind=str(first.get("kind", "")),
                code=str(first.get("code") or ""),
                source=str(first.get("source", "")),
                line=int(first.get("line", 0)),
                role=role,
                why=why,
                message=str(first.get("message") or "")[:240],
                signalled_by=signalled,
            )
        )
    # torch elastic stamps its failures to the second: at a tie, its own "Root Cause (first
    # observed failure)" is the first, not whichever entry the summary lists first
    roots = {r for r, evs in by_rank.items() if any(e.get("root_cause") for e in evs)}
    timed = sorted(
        (x for x in entries if x.time_s is not None),
        key=lambda x: (x.time_s or 0.0, x.rank not in roots),
    )
    untimed = [x for x in entries if x.time_s is None]
    tl = FailureTimeline(
        ranks=len(entries), entries=[*timed, *sorted(untimed, key=lambda x: x.rank)]
    )
    tl.shared_addresses = _shared_addresses(by_rank)
    tl.mismatched_ops = _mismatched_ops(failures)
    timeouts = [e for e in failures if e.get("kind") == "watchdog_timeout"]
    named = {str(e["group"]) for e in failures if e.get("group")}
    if not tl.mismatched_ops and (
        not named
        # (one group named by some ranks' lines, "[PG 0 Rank 3] Timeout at NCCL work: 4084",
        # and none by the others': they may be of it, which the log cannot say)
        or (len(named) == 1 and any(not e.get("group") for e in timeouts))
    ):
        tl.unnamed_mismatch = _mismatched_ops(
            [{**e, "group": "(not named)"} for e in failures if e.get("kind") == "watchdog_timeout"]
        )
    tl.seq_spread = _seq_spread(failures)
    if not tl.seq_spread and not any(e.get("group") for e in failures):
        unnamed = [
            {**e, "group": "(not named)"} for e in failures if e.get("kind") == "watchdog_timeout"
        ]
        rank_seqs: dict[int, set[int]] = {}
        for e in unnamed:
            if e.get("rank") is not None and e.get("seq") is not None:
                rank_seqs.setdefault(int(e["rank"]), set()).add(int(e["seq"]))
        # (a rank timed out at two SeqNums: the log holds more than one group's count, and
        # which of them the others' belong to it cannot say)
        if all(len(at) == 1 for at in rank_seqs.values()):
            tl.unnamed_seq_spread = _seq_spread(unnamed)
        for seq in tl.unnamed_seq_spread:
            tl.unnamed_seq_ops[seq] = sorted(
                {str(e.get("op")) for e in unnamed if e.get("seq") == seq and e.get("op")}
            )
    if timed:
        t0 = timed[0].time_s or 0.0
        for x in timed:
            x.offset_s = round((x.time_s or 0.0) - t0, 3)
        tl.spread_s = round((timed[-1].time_s or 0.0) - t0, 3)
        if tl.spread_s > ONE_INCIDENT_S:
            tl.seq_spread = {}  # failures days apart: not one count of one job's collectives
            tl.summary = (
                f"{tl.ranks} ranks' failures are {_duration(tl.spread_s)} apart: not one incident "
                "(logs of different jobs or days); import one job's logs together to order them"
            )
            return tl
        own = [x for x in timed if x.role == "own"]
        tl.one_collective = _one_collective_timed_out(by_rank)
        # (the watchdogs' failure lines alone do not say a rank waited: they saw one failure)
        seen_together = tl.one_collective and not any(
            e.get("kind") == "watchdog_timeout" for e in failures
        )
        tl.all_waiting = (not own and all(x.role == "consequence" for x in entries)) or (
            tl.one_collective and not seen_together
        )
        # a rank's own failure printed without a time (nccl-tests' "Test NCCL failure" beside
        # NCCL's stamped WARN lines) may have come first: the stamped ones cannot be put before it
        tl.unstamped = sorted(x.rank for x in untimed if x.role == "own")
        leaders = [x for x in own if _same_moment(x.time_s, own[0].time_s)] if own else []
        if seen_together:
            leaders = own
        elif own:
            # the same failure in the same words on several ranks within a blink (gloo's mesh
            # that two ranks failed to connect, 25 us apart): one failure they met together,
            # not one rank's that the other followed
            echo = [
                x
                for x in own
                if x.kind == own[0].kind
                and x.message.split("]", 1)[-1] == own[0].message.split("]", 1)[-1]
                and x.time_s is not None
                and own[0].time_s is not None
                and x.time_s - own[0].time_s < SAME_AT_ONCE_S
            ]
            if len(echo) > len(leaders):
                leaders = echo
        if len(leaders) > 1 and not any(x.rank in roots for x in leaders):
            tl.tied = sorted(x.rank for x in leaders)
        lagging = _lagging(failures, tl.seq_spread, own)
        # watchdog time-outs of one length at several SeqNums of a group the log does not name,
        # all within seconds: each fired when its own wait ran out, so the first to fire is not
        # the first that failed, and which rank is behind the log cannot say
        unordered = _lagging(failures, tl.unnamed_seq_spread, own) is not None
        if lagging is not None:
            seq, ranks = lagging
            tl.lagging_seq = seq
            for x in entries:
                if x.rank in ranks:
                    x.role = "behind"
                    x.why = f"timed out in SeqNum {seq}, a collective the other ranks had completed"
                elif x.role == "own":
                    x.role = "consequence"
                    x.why = "timed out in a later collective, waiting for the ranks behind"
            tl.first_rank = min(ranks)
        elif not tl.unstamped and not tl.tied and not unordered:
            if (early := _signalled_before(timed, own)) is not None:
                # torch's heartbeat monitor logs "Received a dump signal due to a collective
                # timeout from rank N" once rank N's watchdog timed out and signalled the others
                # through the store (ProcessGroupNCCL::HeartbeatMonitor,
                # getNCCLWatchdogTimeoutErrorMsg): rank N had timed out before this rank's
                # stamp, so before every own failure stamped later
                tl.first_rank = tl.signalled_first = early.signalled_by
                tl.signal_line = (early.source, early.line)
            else:
                if own and not tl.one_collective:
                    own[0].role = "first"  # (one collective's time-outs: the first only waited)
                tl.first_rank = (own or timed)[0].rank
    for x in untimed:
        x.role = "unknown" if x.role == "own" else x.role
    tl.consequences = sorted(x.rank for x in entries if x.role == "consequence")
    tl.behind = sorted(x.rank for x in entries if x.role == "behind")
    tl.limit_s, tl.limit_name = _limit(failures, env or {})
    if tl.one_collective:
        # every rank waited out the watchdog's own time-out in one collective: that time-out,
        # not the link set-up's, is what their spread is measured against
        waited = [e["timeout_ms"] for e in failures if e.get("timeout_ms")]
        tl.limit_s = max(waited) / 1000 if waited else None
        tl.limit_name = "the watchdog's time-out"
    if tl.spread_s is not None and tl.limit_s is not None:
        tl.beyond_limit = tl.spread_s > tl.limit_s
    tl.summary = _summary(tl)
    return tl


def _signalled_before(
    timed: Sequence[TimelineEntry], own: Sequence[TimelineEntry]
) -> TimelineEntry | None:
    """The first entry that dumped on another rank's time-out signal stamped before every own
    failure (a rank's failure that was not another's echo), where that rank's own failure is not
    stamped before it; None where an own failure came first or at the same moment."""
    for x in timed:
        if x.signalled_by is None or x.time_s is None:
            continue
        if own and (own[0].time_s is None or not x.time_s < own[0].time_s):
            return None
        if _same_moment(x.time_s, own[0].time_s if own else None):
            return None
        return x
    return None


def _same_moment(a: float | None, b: float | None) -> bool:
    """Two stamps that cannot be ordered: equal, or in one second where either is stamped to the
    second only (a whole-second stamp says nothing of where in its second it fell)."""
    if a is None or b is None:
        return a == b
    if a == b:
        return True
    return int(a) == int(b) and (float(a).is_integer() or float(b).is_integer())


SAME_AT_ONCE_S = 0.01
"""How close the same failure, in the same words, on several ranks must stand to be one they met
together (a connect that failed for all of them), not one that spread from the first."""
SAME_FAILURE_S = 1.0
"""How close the watchdogs' "failure detected ... at work N" lines of one work must stand to be
one failure every rank saw (a watchdog polls its work about once a second): a rank seconds
ahead of the others may be the one that failed."""
SAME_WAIT_S = 10.0
"""How much earlier than the first time-out a rank's "failed or timed out" line may stand and
still be one of the same waits (the watchdogs of one collective fire within seconds)."""

POINT_TO_POINT_OPS = {"send", "recv", "coalesced"}
"""Not one collective of every rank: a send waits in its pair's recv (the two differ by design),
torch numbers point-to-point work apart from collectives, and a coalesced work is a batch of
operations of either kind."""


def _mismatched_ops(failures: Sequence[Mapping[str, Any]]) -> dict[str, list[int]]:
    """The first point (a group's SeqNum of a watchdog time-out; a group of an HCCL execution
    time-out, EI0002) where different ranks failed in different collectives (another op, or the
    same op of a fixed size with another element count): collective → ranks. Only where the
    group is named (older torch prints no group: time-outs of two groups can share a SeqNum,
    and a subgroup whose members' ranks start at 0 numbers them as the world does) and no rank
    stands in two of them."""
    points: dict[tuple[str, str], dict[int, tuple[str, int | None]]] = {}
    for e in failures:
        op = str(e.get("op") or "")
        if e.get("rank") is None or not op or op in POINT_TO_POINT_OPS:
            continue
        group = e.get("group")
        if not group:
            continue
        if e.get("kind") == "watchdog_timeout" and e.get("seq") is not None:
            point = (str(group), f"seq {e['seq']}")
        elif e.get("kind") == "hccl_error" and e.get("code") == "EI0002":
            # every rank of a group executes its collectives in one order: two ranks timed out
            # in different ones were never in the same collective
            point = (str(group), "exec")
        else:
            continue
        numel = e.get("numel")
        ranks = points.setdefault(point, {})
        if int(e["rank"]) in ranks and ranks[int(e["rank"])] != (op, numel):
            ranks[int(e["rank"])] = ("", None)  # a rank in two of them: not one point
        else:
            ranks.setdefault(int(e["rank"]), (op, int(numel) if numel is not None else None))
    for by_rank in points.values():
        if any(not op for op, _ in by_rank.values()):
            continue
        ops = {op for op, _ in by_rank.values()}
        sizes = {(op, n) for op, n in by_rank.values() if n is not None}
        if len(ops) > 1:
            label = {rank: op for rank, (op, _) in by_rank.items()}
        elif ops <= SAME_SIZE_OPS and len(sizes) > 1 and len(sizes) == len({*by_rank.values()}):
            # one op, other element counts: each rank's n-th collective was another one
            label = {rank: f"{op} of {n} element(s)" for rank, (op, n) in by_rank.items()}
        else:
            continue
        out: dict[str, list[int]] = {}
        for rank, name in sorted(label.items()):
            out.setdefault(name, []).append(rank)
        return dict(sorted(out.items()))
    return {}


SAME_SIZE_OPS = frozenset({"all_reduce", "broadcast", "reduce", "all_gather", "reduce_scatter"})
"""Collectives whose every rank passes the same element count (NumelIn is the rank's own input:
an all_to_all's uneven splits, a gather's or scatter's root, differ by design)."""


_GROUP_RANK_RE = re.compile(r"\[Rank (\d+)\] Watchdog caught")
"""The rank within its group a watchdog time-out names (the launcher's tag gives the global
one)."""


def _lagging(
    failures: Sequence[Mapping[str, Any]],
    spread: dict[int, list[int]],
    own: Sequence[TimelineEntry],
) -> tuple[int, list[int]] | None:
    """The lowest SeqNum and its ranks, where every rank's own failure is a watchdog time-out of
    one length, all stamped within SAME_WAIT_S of each other, at two or more SeqNums of one group
    (``spread``): the others waited on them. None otherwise."""
    if len(spread) < 2 or not own:
        return None
    if {x.rank for x in own} - {r for ranks in spread.values() for r in ranks}:
        return None  # a rank failed on its own outside the group: the spread is not the story
    # (settings and notices are no failure: the recorder's "FlightRecorder is disabled" beside)
    kinds = {e.get("kind") for e in failures if e.get("rank") is not None} - NOTICE_KINDS
    if kinds - {"watchdog_timeout", "watchdog_progress", "watchdog_failure"}:
        return None  # another failure (an exception, a device fault) may be the cause
    waited = {e.get("timeout_ms") for e in failures if e.get("kind") == "watchdog_timeout"}
    stamps = [x.time_s for x in own if x.time_s is not None]
    if len(waited) != 1 or None in waited or len(stamps) != len(own):
        return None
    if max(stamps) - min(stamps) > SAME_WAIT_S:
        return None
    seq = min(spread)
    return seq, spread[seq]


def _seq_spread(failures: Sequence[Mapping[str, Any]]) -> dict[int, list[int]]:
    """The SeqNums of one named group's watchdog time-outs → their ranks, where there are two or
    more SeqNums (a rank counted once, at its lowest); empty otherwise."""
    groups: dict[str, dict[int, int]] = {}
    local: dict[str, dict[int, int]] = {}
    for e in failures:
        if e.get("kind") != "watchdog_timeout" or e.get("rank") is None or e.get("seq") is None:
            continue
        if not e.get("group"):
            continue  # older torch prints no group: two groups' SeqNums are not one count
        if str(e.get("op") or "") in POINT_TO_POINT_OPS:
            continue  # torch counts point-to-point work apart from collectives
        ranks = groups.setdefault(str(e["group"]), {})
        rank, seq = int(e["rank"]), int(e["seq"])
        ranks[rank] = min(seq, ranks.get(rank, seq))
        if m := _GROUP_RANK_RE.search(str(e.get("message") or "")):
            local.setdefault(str(e["group"]), {})[rank] = int(m.group(1))
    for name, ranks in groups.items():
        # two processes that are the same rank of "their" group (torch's "[Rank 1]") are in two
        # groups that only share an id (groups a rank creates alone are numbered on that rank)
        mine = local.get(name, {})
        if len(set(mine.values())) < len(mine):
            continue
        if len(set(ranks.values())) > 1:
            spread: dict[int, list[int]] = {}
            for rank, seq in sorted(ranks.items()):
                spread.setdefault(seq, []).append(rank)
            return dict(sorted(spread.items()))
    return {}


def _shared_addresses(by_rank: Mapping[int, Sequence[Mapping[str, Any]]]) -> dict[str, list[int]]:
    owners: dict[str, set[int]] = {}
    wanted: set[str] = set()
    for rank, events in by_rank.items():
        for e in events:
            if e.get("ip"):
                owners.setdefault(str(e["ip"]), set()).add(rank)
            if e.get("remote_ip"):
                wanted.add(str(e["remote_ip"]))
    return {ip: sorted(r) for ip, r in sorted(owners.items()) if len(r) > 1 and ip in wanted}


def _one_collective_timed_out(by_rank: Mapping[int, Sequence[Mapping[str, Any]]]) -> bool:
    """Every rank's failures are watchdog time-outs of one collective (one SeqNum, one group):
    each waited in it for a rank that never joined, and the one that timed out first only
    entered it first (its watchdog counts from its own start), so none is the cause."""
    events = [e for evs in by_rank.values() for e in evs]
    # (a rank's "Some NCCL operations have failed or timed out" at the same work, its time-out
    # line not kept, is the same wait when it came with the others' time-outs, not before them;
    # a line that names no group is of the one the others name)
    timeouts = [e for e in events if e.get("kind") == "watchdog_timeout"]
    if any(e.get("kind") not in ("watchdog_timeout", "watchdog_failure") for e in events):
        return False
    if not timeouts:
        # only the watchdogs' "failure detected ... at work N" lines: one work of one group that
        # every rank's own watchdog found failed within seconds of the others is one failure
        # they all saw (its cause another rank's, or the network's), not one rank's first
        times = [e["time_s"] for e in events if e.get("time_s") is not None]
        return (
            len(times) == len(events)
            and max(times) - min(times) <= SAME_FAILURE_S
            and len({e.get("seq") for e in events}) == 1
            and events[0].get("seq") is not None
            and len({e.get("group") for e in events}) == 1
        )
    stamped = [e["time_s"] for e in timeouts if e.get("time_s") is not None]
    for e in events:
        if e.get("kind") == "watchdog_failure":
            if stamped and (e.get("time_s") is None or e["time_s"] < min(stamped) - SAME_WAIT_S):
                return False  # its own failure, before the others' time-outs: it may be the cause
    # (a watchdog's take-down that names no work, "[Rank 2] To avoid data inconsistency, we are
    # taking the entire process down.", stamped with the others' time-outs, is of their wait:
    # the collective they timed out in had been stuck for its whole time-out before it)
    named = [e for e in events if e.get("kind") == "watchdog_timeout" or e.get("seq") is not None]
    return (
        len({e.get("seq") for e in named}) == 1
        and named[0].get("seq") is not None
        and len({e.get("group") for e in events if e.get("group") is not None}) <= 1
    )


def _role(events: Sequence[Mapping[str, Any]], timed_out_seq: int | None) -> tuple[str, str]:
    for e in events:
        message = str(e.get("message") or "")
        if e.get("kind") == "watchdog_failure":
            # ProcessGroupNCCL logs "detected by watchdog at work: N" only for its own failed
            # work (inside ``if (work.exception())``), never on a peer's dump signal
            work = f"work {e['seq']}" if e.get("seq") is not None else "a collective"
            return "own", f"its own watchdog found {work} failed (error or time-out)"
        if e.get("kind") == "watchdog_progress":
            behind = (
                timed_out_seq is not None
                and e.get("last_enqueued") is not None
                and int(e["last_enqueued"]) < timed_out_seq
            )
            if behind:
                # it failed last, only when the others' time-out reached it, yet it is the rank
                # that never called the collective they waited in
                return "behind", (
                    f"never reached SeqNum {timed_out_seq} that the others timed out in (last "
                    f"enqueued {e['last_enqueued']})"
                )
            m = _FROM_RANK.search(message)
            return "consequence", "dumped on another rank's time-out signal" + (
                f" (rank {m.group(1)})" if m else ""
            )
        if e.get("culprit_ip"):
            # HCCL's heartbeat blames a device: this rank reported another's fault
            return "consequence", (
                f"HCCL's heartbeat blames device {e.get('culprit_device')} of {e['culprit_ip']}"
            )
        if e.get("kind") == "hccl_link_timeout":
            # HCCL's socket table: this rank's end timed out waiting for the peer's connection
            # (a cut plog keeps only the "wait socket establish timeout" line: no peer named)
            peer = e.get("remote_rank")
            return "consequence", (
                f"waited for rank {peer} to connect" if peer is not None else "waited for its links"
            )
        if e.get("kind") == "hccl_error" and _REMOTE_WAIT.search(message):
            peer = e.get("remote_rank")
            return "consequence", (
                f"waited for rank {peer}" if peer is not None else "waited for a remote rank"
            ) + f" ({e.get('code') or 'HCCL'})"
        if e.get("kind") == "gloo_error" and "by peer" in str(e.get("exception_type") or ""):
            # gloo's TCP pair read end-of-stream or a reset: the process at the other end ended
            return (
                "consequence",
                f"its peer {e.get('remote_ip')}:{e.get('port')} closed the connection",
            )
        if (
            e.get("kind") == "elastic_failure"
            and not e.get("root_cause")
            and e.get("exit_code") in (-signal.SIGTERM, 128 + signal.SIGTERM)
        ):
            return "consequence", "ended by its agent (SIGTERM) after another rank failed"
    return "own", ""


def _limit(
    failures: Sequence[Mapping[str, Any]], env: Mapping[str, str]
) -> tuple[float | None, str]:
    hccl = any(e.get("kind") == "hccl_error" or e.get("library") == "HCCL" for e in failures)
    if hccl:
        raw = env.get("HCCL_CONNECT_TIMEOUT")
        stated = [
            e["timeout_ms"] / 1000
            for e in failures
            if e.get("kind") == "hccl_error" and e.get("timeout_ms")
        ]
        if raw and raw.isdigit():
            return float(raw), "HCCL_CONNECT_TIMEOUT"
        if stated:
            return max(stated), "the HCCL time-out the logs state"
        return HCCL_CONNECT_TIMEOUT_DEFAULT_S, "HCCL_CONNECT_TIMEOUT (default)"
    watchdog = [
        e["timeout_ms"] / 1000
        for e in failures
        if e.get("kind") == "watchdog_timeout" and e.get("timeout_ms")
    ]
    if watchdog:
        return max(watchdog), "the process-group (watchdog) time-out"
    return None, ""


def _summary(tl: FailureTimeline) -> str:
    if tl.first_rank is None and tl.unstamped:
        return (
            f"{tl.ranks} ranks failed; rank(s) {', '.join(map(str, tl.unstamped))} printed "
            "their own failure with no time stamp, so which rank failed first cannot be told"
        )
    if tl.first_rank is None and tl.tied and tl.one_collective:
        return (
            f"rank(s) {', '.join(map(str, tl.tied))} found the same work failed within "
            f"{SAME_FAILURE_S:g} s of each other: one failure every rank saw, not one rank's "
            "first; its cause is in a record these lines do not hold"
        )
    if tl.first_rank is None and tl.tied:
        return (
            f"{tl.ranks} ranks failed; rank(s) {', '.join(map(str, tl.tied))} failed at the same "
            "time stamp and none is named the root cause, so which failed first cannot be told"
        )
    if tl.first_rank is None:
        return f"{tl.ranks} ranks failed; the logs carry no time stamps to order them"
    if tl.signalled_first is not None:
        source, line = tl.signal_line or ("", 0)
        signalled = next(
            x for x in tl.entries if x.signalled_by == tl.signalled_first and x.line == line
        )
        own = [x for x in tl.entries if x.role == "own" and x.time_s is not None]
        text = (
            f"rank {tl.signalled_first} failed first: rank {signalled.rank} received its "
            f"collective time-out signal ({source} line {line})"
        )
        if own and own[0].time_s is not None and signalled.time_s is not None:
            gap_s = round(own[0].time_s - signalled.time_s, 3)
            text += (
                f", {_duration(gap_s)} before rank {own[0].rank}'s own failure "
                f"({own[0].code or own[0].kind.replace('_', ' ')}, line {own[0].line})"
            )
        if tl.signalled_first not in {x.rank for x in tl.entries}:
            text += f"; rank {tl.signalled_first}'s own log is not among the files"
        if tl.consequences:
            text += (
                f"; rank(s) {', '.join(map(str, tl.consequences))} failed only because another did"
            )
        if tl.spread_s is not None:
            text += f"; the first and last errors are {_duration(tl.spread_s)} apart"
        return text
    if tl.lagging_seq is not None:
        later = sorted(x.rank for x in tl.entries if x.role == "consequence")
        return (
            f"rank(s) {', '.join(map(str, tl.behind))} timed out in SeqNum {tl.lagging_seq}, "
            f"which rank(s) {', '.join(map(str, later))} had completed (they timed out in a "
            "later collective, waiting for them): look at the ranks behind first; every rank "
            "waited out the same watchdog time-out, so which timed out first says nothing"
        )
    first = next(x for x in tl.entries if x.rank == tl.first_rank)
    where = f" on {first.host}" if first.host else ""
    what = first.code or first.kind.replace("_", " ")
    if tl.all_waiting:
        last = next(x for x in reversed(tl.entries) if x.time_s is not None)
        text = (
            f"every rank's error says it waited for another ({what}): rank {tl.first_rank} "
            f"reported first ({first.source} line {first.line}), rank {last.rank} last"
        )
    else:
        text = (
            f"rank {tl.first_rank}{where} failed first ({what}, {first.source} line {first.line})"
        )
    if tl.consequences and not tl.all_waiting:
        text += f"; rank(s) {', '.join(map(str, tl.consequences))} failed only because another did"
    if tl.behind:
        text += (
            f"; rank(s) {', '.join(map(str, tl.behind))} never reached the collective the "
            "others timed out in: look there first"
        )
    if tl.spread_s is not None:
        text += f"; the first and last errors are {_duration(tl.spread_s)} apart"
        if tl.limit_s is not None:
            rel = "more" if tl.beyond_limit else "less"
            text += f", {rel} than {tl.limit_name} ({_duration(tl.limit_s)})"
    return text


def _duration(seconds: float) -> str:
    if seconds < 120:
        return f"{seconds:.3g} s"
    if seconds < 7200:
        return f"{seconds / 60:.3g} min"
    return f"{seconds / 3600:.3g} h"
