"""A folder of dumps → FlightFacts: the advisor's own comparison, and torch's analyzer beside it."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path

from advisor.flight import torch_analyzer
from advisor.flight.analyze import analyze
from advisor.flight.load import Dump, read_dir
from advisor.flight.model import FlightFacts


def examine(
    dumps: Sequence[Dump],
    *,
    source: str,
    world: Sequence[int] = (),
    where: Mapping[int, tuple[str, str]] | None = None,
    timeline_entries: int = 8,
    dump_dir: str = "",
    problems: Sequence[str] = (),
) -> FlightFacts:
    facts = analyze(
        dumps,
        source=source,
        world=world,
        where=where,
        timeline_entries=timeline_entries,
        dump_dir=dump_dir,
        problems=problems,
    )
    if not dumps:
        return facts
    verdict = torch_analyzer.run(list(dumps))
    if not verdict.ran:
        facts.analyzer = "advisor"
        facts.analyzer_note = (
            f"torch's flight-recorder analyzer could not read these dumps: {verdict.error}"
        )
        return facts
    if not verdict.failing:
        facts.analyzer = "advisor"
        facts.analyzer_note = (
            "torch's flight-recorder analyzer passed every collective (it matches ops and sizes, "
            "not whether a collective finished)"
        )
        return facts
    first = verdict.failing[0]
    named = set(first["missing_ranks"]) | set(first["mismatched_ranks"])
    # it also counts a peer left waiting (a state mismatch) among the mismatched: it agrees
    # when it names the advisor's first culprit
    agree = bool(facts.culprits) and facts.culprits[0].rank in named
    facts.analyzer = "torch" if agree else "advisor"
    what = first["mismatch"] or "missing ranks"
    facts.analyzer_note = (
        f"torch's flight-recorder analyzer: {first['op'] or '?'} #{first['seq']} in group "
        f"{first['desc'] or first['group']}: {what}"
        + (f", missing ranks {first['missing_ranks']}" if first["missing_ranks"] else "")
        + (f" ({first['culprit']})" if first["culprit"] else "")
        + ("" if facts.analyzer == "torch" else "; it names other ranks than the advisor")
    )
    return facts


def examine_dir(
    directory: Path,
    *,
    source: str,
    world: Sequence[int] = (),
    where: Mapping[int, tuple[str, str]] | None = None,
    timeline_entries: int = 8,
) -> FlightFacts:
    dumps, problems = read_dir(directory) if directory.is_dir() else ([], [])
    return examine(
        dumps,
        source=source,
        world=world,
        where=where,
        timeline_entries=timeline_entries,
        dump_dir=str(directory),
        problems=problems,
    )
