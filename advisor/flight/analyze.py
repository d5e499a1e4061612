"""Compare every rank's flight-recorder buffer: the first collective where a group's ranks diverge.

Per process group, the members' entries are aligned by the group's collective sequence id from
the newest first entry any member still holds (a ring buffer forgets its oldest). At the first
id where the members disagree: members without it never entered it; members whose op, sizes or
dtype differ took another code path (one whose entry there is the others' next collective skipped
one); when all entered alike, the ones that never finished it point at the network or a peer.
The ranks' own group lists (and the groups each asked for) show a membership that differs.
"""

from __future__ import annotations

import ast
from collections import Counter
from collections.abc import Mapping, Sequence
from typing import Any

from advisor.flight.load import Dump
from advisor.flight.model import Culprit, FlightCall, FlightFacts, GroupDiagnosis

DEFAULT_GROUP = "0"
"""torch names the default process group ``0``."""
_UNFINISHED = ("in_flight", "started", "failed")
_ORDER = {"membership": 0, "mismatch": 1, "never_entered": 2, "not_completed": 3}


def analyze(
    dumps: Sequence[Dump],
    *,
    source: str,
    world: Sequence[int] = (),
    where: Mapping[int, tuple[str, str]] | None = None,
    timeline_entries: int = 8,
    dump_dir: str = "",
    problems: Sequence[str] = (),
) -> FlightFacts:
    """``world``: every rank of the job (members without a dump are named as missing);
    ``where``: rank → (node name, host)."""
    where = dict(where or {})
    for d in dumps:
        side_where = d.side.get("where")
        if d.rank not in where and isinstance(side_where, list) and len(side_where) == 2:
            where[d.rank] = (str(side_where[0]), str(side_where[1]))
    calls = {d.rank: _calls(d) for d in dumps}
    dumped = sorted(calls)
    all_ranks = sorted(set(world) | set(dumped))
    facts = FlightFacts(
        source=source,
        dump_dir=dump_dir,
        backend=next((d.backend for d in dumps if d.backend), ""),
        version=next((d.version for d in dumps if d.version), ""),
        ranks_dumped=dumped,
        ranks_missing=[r for r in all_ranks if r not in calls],
        problems=list(problems),
    )
    views = _membership_views(dumps, all_ranks)
    culprits: list[tuple[float, Culprit]] = []
    culprits += [(0.0, c) for c in _requested_mismatch(dumps)]
    names = sorted({g for per in calls.values() for g in per} | set(views), key=_group_order)
    for name in names:
        members, view_culprits = _members(name, views, calls)
        culprits += [(0.0, c) for c in view_culprits]
        diag, found = _diagnose(name, members, calls, dumps, timeline_entries)
        facts.groups.append(diag)
        culprits += found
    if not culprits:
        culprits += [(0.0, c) for c in _inside_culprits(dumps, views)]
    seen: set[tuple[int, str]] = set()
    for _, c in sorted(culprits, key=lambda tc: (_ORDER[tc[1].pattern], tc[0], tc[1].rank)):
        if (c.rank, c.pattern) in seen:
            continue
        seen.add((c.rank, c.pattern))
        c.node_name, c.host = where.get(c.rank, ("", ""))
        facts.culprits.append(c)
    facts.summary = _summary(facts)
    return facts


# ----------------------------------------------------------------------------- entries


def _op(entry: Mapping[str, Any]) -> str:
    name = str(entry.get("profiling_name") or "")
    if not name:
        # torch_npu leaves profiling_name empty for plain HCCL collectives; its analyzer reads
        # the op from the first frame instead
        frames = entry.get("frames") or []
        if frames and isinstance(frames[0], Mapping):
            name = str(frames[0].get("name") or "")
    return name.split(":", 1)[-1] or "?"


def _state(entry: Mapping[str, Any]) -> str:
    state = str(entry.get("state") or "")
    if state in ("completed", "started"):
        return state
    # gloo leaves every entry "scheduled" and only retires it when the work ends
    return "retired" if entry.get("retired") else "in_flight"


def _calls(d: Dump) -> dict[str, dict[int, FlightCall]]:
    """group name → seq → this rank's call (collectives only: p2p ops pair differently)."""
    out: dict[str, dict[int, FlightCall]] = {}
    for e in d.entries:
        if e.get("is_p2p"):
            continue
        pg = e.get("process_group") or (e.get("pg_id", ""), "")
        name = str(pg[0]) if isinstance(pg, list | tuple) and pg else str(e.get("pg_id", ""))
        seq = e.get("collective_seq_id")
        if not isinstance(seq, int) or seq <= 0:
            continue
        out.setdefault(name, {})[seq] = FlightCall(
            rank=d.rank,
            seq=seq,
            op=_op(e),
            input_sizes=[list(s) for s in e.get("input_sizes") or []],
            input_dtypes=[str(t) for t in e.get("input_dtypes") or []],
            output_sizes=[list(s) for s in e.get("output_sizes") or []],
            state=_state(e),
        )
    failed = d.side.get("failed")
    if isinstance(failed, Mapping):
        per = out.get(str(failed.get("group", "")), {})
        if per:
            last = per[max(per)]
            if last.state in ("retired", "in_flight"):
                last.state = "failed"
    return out


def _descs(dumps: Sequence[Dump]) -> dict[str, str]:
    descs: dict[str, str] = {}
    for d in dumps:
        for e in d.entries:
            pg = e.get("process_group")
            if isinstance(pg, list | tuple) and len(pg) == 2 and pg[1]:
                descs.setdefault(str(pg[0]), str(pg[1]))
    return descs


# ----------------------------------------------------------------------------- membership


def _parse_ranks(raw: Any) -> list[int] | None:
    if isinstance(raw, list):
        return sorted(int(r) for r in raw)
    if isinstance(raw, str) and raw.strip():
        try:
            value = ast.literal_eval(raw)
        except (ValueError, SyntaxError):
            return None
        if isinstance(value, list | tuple) and all(isinstance(r, int) for r in value):
            return sorted(value)
    return None


def _membership_views(
    dumps: Sequence[Dump], world: Sequence[int]
) -> dict[str, dict[int, list[int]]]:
    """group → rank → that rank's members of it (from pg_config, else the rank's own list)."""
    views: dict[str, dict[int, list[int]]] = {}
    for d in dumps:
        for key, cfg in d.pg_config.items():
            if not isinstance(cfg, Mapping):
                continue
            name = str(cfg.get("name", key))
            ranks = _parse_ranks(cfg.get("ranks"))
            if name and ranks:
                views.setdefault(name, {})[d.rank] = ranks
        groups = d.side.get("groups")
        if isinstance(groups, Mapping):
            for name, ranks in groups.items():
                parsed = _parse_ranks(ranks)
                if parsed:
                    views.setdefault(str(name), {})[d.rank] = parsed
    if world:
        views.setdefault(DEFAULT_GROUP, {})
    return views


def _members(
    name: str,
    views: Mapping[str, Mapping[int, list[int]]],
    calls: Mapping[int, Mapping[str, Any]],
) -> tuple[list[int], list[Culprit]]:
    view = views.get(name, {})
    if not view:
        held = sorted(r for r, per in calls.items() if name in per)
        if name == DEFAULT_GROUP:
            return sorted(calls), []
        return held, []
    common, _ = Counter(tuple(v) for v in view.values()).most_common(1)[0]
    members = list(common)
    culprits = [
        Culprit(
            rank=r,
            pattern="membership",
            detail=(
                f"holds group {name} with members {_ranks(v)}, while ranks "
                f"{_ranks(sorted(o for o, w in view.items() if tuple(w) == common))} hold it "
                f"with {_ranks(members)}"
            ),
        )
        for r, v in sorted(view.items())
        if tuple(v) != common
    ]
    return members, culprits


def _requested_mismatch(dumps: Sequence[Dump]) -> list[Culprit]:
    """Every rank calls new_group in the same order with the same ranks; one that asked for other
    members at the same call built a different layout (its group never forms)."""
    asked = {
        d.rank: [sorted(int(r) for r in req) for req in d.side.get("requested", [])]
        for d in dumps
        if isinstance(d.side.get("requested"), list)
    }
    if len(asked) < 2:
        return []
    out: list[Culprit] = []
    longest = max(len(v) for v in asked.values())
    for i in range(longest):
        at = {r: tuple(v[i]) for r, v in asked.items() if i < len(v)}
        if len(set(at.values())) <= 1:
            continue
        common, _ = Counter(at.values()).most_common(1)[0]
        for r, req in sorted(at.items()):
            if req != common:
                out.append(
                    Culprit(
                        rank=r,
                        pattern="membership",
                        detail=(
                            f"asked for subgroup #{i + 1} with ranks {_ranks(list(req))}, while "
                            f"the other ranks asked for {_ranks(list(common))}"
                        ),
                    )
                )
        break
    return out


# ----------------------------------------------------------------------------- divergence


def _fingerprint(c: FlightCall) -> tuple[str, str, str]:
    return (c.op, str(c.input_sizes), str(c.input_dtypes))


def _diagnose(
    name: str,
    members: list[int],
    calls: Mapping[int, Mapping[str, dict[int, FlightCall]]],
    dumps: Sequence[Dump],
    timeline_entries: int,
) -> tuple[GroupDiagnosis, list[tuple[float, Culprit]]]:
    diag = GroupDiagnosis(group=name, desc=_descs(dumps).get(name, ""), ranks=members)
    present = [r for r in members if r in calls]
    per = {r: calls[r].get(name, {}) for r in present}
    found: list[tuple[float, Culprit]] = []
    with_entries = [s for s in per.values() if s]
    if with_entries:
        lo = max(min(s) for s in with_entries)
        hi = max(max(s) for s in with_entries)
        for seq in range(lo, hi + 1):
            have = {r: s[seq] for r, s in per.items() if seq in s}
            if not have:
                continue
            lacking = [r for r in present if r not in have]
            common, _ = Counter(_fingerprint(c) for c in have.values()).most_common(1)[0]
            differ = [r for r, c in have.items() if _fingerprint(c) != common]
            unfinished = [r for r, c in have.items() if c.state in _UNFINISHED]
            if not (lacking or differ or unfinished):
                continue
            ref = next(c for c in have.values() if _fingerprint(c) == common)
            diag.seq, diag.op = seq, ref.op
            diag.input_sizes, diag.input_dtypes = ref.input_sizes, ref.input_dtypes
            label = f"{ref.op} #{seq} of group {_group_label(name, diag.desc)}"
            t = float(seq)
            for r in lacking:
                last = per[r].get(max(per[r])) if per[r] else None
                before = (
                    f"; its last there: {last.op} #{last.seq} ({last.state})"
                    if last
                    else ("; it entered no collective of this group")
                )
                found.append(
                    (
                        t,
                        Culprit(
                            rank=r,
                            pattern="never_entered",
                            detail=f"never entered {label} ({_shape(ref)}), which ranks "
                            f"{_ranks(sorted(have))} entered{before}",
                        ),
                    )
                )
            for r in differ:
                c = have[r]
                nxt = [s[seq + 1] for o, s in per.items() if o != r and seq + 1 in s]
                skipped = bool(nxt) and all(_fingerprint(c) == _fingerprint(n) for n in nxt)
                what = (
                    f"skipped {label}: its #{seq} is the others' next collective ({c.op})"
                    if skipped
                    else f"issued {c.op} ({_shape(c)}) as {label}, where the others issued "
                    f"{ref.op} ({_shape(ref)})"
                )
                found.append((t, Culprit(rank=r, pattern="mismatch", detail=what)))
            absent = [r for r in members if r not in calls]
            if lacking or differ or absent:
                # with a member's buffer gone (it died), an unfinished call is a wait for it
                diag.waiting = sorted(r for r in unfinished if r not in differ)
            else:
                for r in unfinished:
                    found.append(
                        (
                            t,
                            Culprit(
                                rank=r,
                                pattern="not_completed",
                                detail=f"entered {label} ({_shape(ref)}) with every other "
                                f"member and never finished it ({have[r].state})",
                            ),
                        )
                    )
            diag.never_entered, diag.mismatched = lacking, sorted(differ)
            diag.not_completed = [] if (lacking or differ or absent) else sorted(unfinished)
            break
    upto = (diag.seq + 2) if diag.seq is not None else None
    for r in present:
        seqs = sorted(s for s in per[r] if upto is None or s <= upto)
        diag.last[str(r)] = [per[r][s] for s in seqs[-timeline_entries:]]
    return diag, found


def _inside_culprits(
    dumps: Sequence[Dump], views: Mapping[str, Mapping[int, list[int]]]
) -> list[Culprit]:
    """When the recorder's entries agree, the call each rank was blocked in (the advisor's own
    note of it) can still part them: ranks inside a call whose other members were not."""
    inside: dict[int, tuple[str, str]] = {}
    for d in dumps:
        call = d.side.get("inside")
        if isinstance(call, Mapping):
            inside[d.rank] = (str(call.get("op", "")), str(call.get("group", "")))
    if not inside:
        return []
    (op, group), _ = Counter(inside.values()).most_common(1)[0]
    view = views.get(group, {})
    members = list(Counter(tuple(v) for v in view.values()).most_common(1)[0][0]) if view else []
    dumped = {d.rank for d in dumps}
    members = [r for r in (members or sorted(dumped)) if r in dumped]
    waiting = sorted(r for r, c in inside.items() if c == (op, group))
    label = _group_label(group, "")
    return [
        Culprit(
            rank=r,
            pattern="never_entered",
            detail=(
                f"never entered {op} of group {label}, in which ranks {_ranks(waiting)} waited "
                + (
                    f"(it was inside {inside[r][0]} of group {_group_label(inside[r][1], '')})"
                    if r in inside
                    else "(it was in no collective)"
                )
                + "; from each rank's own note of the call it was in: the recorder keeps no "
                "point-to-point op on gloo"
            ),
        )
        for r in members
        if inside.get(r) != (op, group)
    ]


# ----------------------------------------------------------------------------- words


def _group_order(name: str) -> tuple[int, str]:
    return (0, f"{int(name):09d}") if name.isdigit() else (1, name)


def _group_label(name: str, desc: str) -> str:
    if name == DEFAULT_GROUP:
        return "0 (default)"
    return f"{name} ({desc})" if desc and desc != "undefined" else name


def _shape(c: FlightCall) -> str:
    if not c.input_sizes:
        return "no tensors"
    sizes = ", ".join("x".join(str(n) for n in s) or "scalar" for s in c.input_sizes)
    dtypes = ", ".join(sorted(set(c.input_dtypes)))
    return f"sizes {sizes}, {dtypes}" if dtypes else f"sizes {sizes}"


def _ranks(ranks: Sequence[int]) -> str:
    """0-3, 5 for [0, 1, 2, 3, 5]."""
    out: list[str] = []
    rs = sorted(set(ranks))
    i = 0
    while i < len(rs):
        j = i
        while j + 1 < len(rs) and rs[j + 1] == rs[j] + 1:
            j += 1
        out.append(f"{rs[i]}-{rs[j]}" if j > i + 1 else ", ".join(str(r) for r in rs[i : j + 1]))
        i = j + 1
    return ", ".join(out) or "none"


def _summary(facts: FlightFacts) -> str:
    if not facts.culprits:
        waiting = next((g for g in facts.groups if g.waiting), None)
        if facts.ranks_missing and waiting is not None:
            return (
                f"flight recorder: ranks {_ranks(waiting.waiting)} were waiting in {waiting.op} "
                f"#{waiting.seq} of group {_group_label(waiting.group, waiting.desc)}; no dump "
                f"from rank(s) {_ranks(facts.ranks_missing)} (a rank that died takes its "
                "buffer with it)"
            )
        if facts.ranks_missing and facts.ranks_dumped:
            return (
                f"the recorder shows no divergence among ranks {_ranks(facts.ranks_dumped)}; "
                f"no dump from rank(s) {_ranks(facts.ranks_missing)}"
            )
        if facts.ranks_dumped and not facts.groups:
            return (
                "the dumps hold no collective: gloo process groups record from torch 2.8, nccl "
                "and hccl ones only with a buffer size set"
            )
        return "the recorder shows every group's ranks in step" if facts.ranks_dumped else ""
    c = facts.culprits[0]
    where = f" on {c.node_name}" if c.node_name else ""
    if c.host and c.host != c.node_name:
        where += f" (host {c.host})"
    more = len({x.rank for x in facts.culprits}) - 1
    tail = f"; {more} more rank(s) named" if more > 0 else ""
    return f"flight recorder: rank {c.rank}{where} {c.detail}{tail}"
