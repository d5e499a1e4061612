"""Helpers the held-out evaluation's test modules share (tests/test_parsers_heldout_set*.py and
tests/test_evidence_review*.py): the verdict and findings ``advisor import`` gives a set of
files, one copy of an output loaded from tmp_path, and the views of an import the tests assert
on. Each set's module keeps only its own files' names and readings."""

from __future__ import annotations

from dataclasses import asdict
from pathlib import Path

from advisor.config import AdvisorConfig
from advisor.evidence.command import add_imported_stages, cluster_from
from advisor.evidence.load import EvidenceFacts, load_paths
from advisor.facts import Facts, RunInfo
from advisor.plain import to_plain
from advisor.rules import engine, schema
from advisor.rules.findings import RulesOutcome
from advisor.verdict import verdict
from tests.rules_facts import builtin_findings


def load(folder: Path, name: str) -> EvidenceFacts:
    """Import one real output of a held-out set (bind ``folder`` with functools.partial)."""
    return load_paths([folder / name])


def text(folder: Path, name: str) -> str:
    """One real output's text, for variants built from it in tmp_path."""
    return (folder / name).read_text()


def imported(ev: EvidenceFacts) -> tuple[str, RulesOutcome]:
    """The verdict and findings `advisor import` gives ``ev``: its facts, the configured rules."""
    facts = Facts(
        run=RunInfo(run_id="import", run_dir="", command="advisor import", profile="import"),
        cluster=cluster_from(ev),
        evidence=ev,
    )
    add_imported_stages(facts)
    cfg = AdvisorConfig()
    outcome = engine.evaluate(
        schema.load(cfg.rules), facts.to_dict(), config=asdict(cfg), rules_cfg=cfg.rules
    )
    return verdict(facts, outcome).level, outcome


def load_copy(tmp_path: Path, text: str, name: str) -> EvidenceFacts:
    """Load one copy of an output written to tmp_path under name (each set's module binds its
    own default name with functools.partial)."""
    path = tmp_path / name
    path.write_text(text)
    return load_paths([path])


def above_info(outcome: RulesOutcome) -> list[tuple[str, str]]:
    """(rule id, severity) of each finding that is more than a note, in the outcome's order."""
    return [(f.rule_id, f.severity) for f in outcome.findings if f.severity != "info"]


def items(outcome: RulesOutcome, rule_id: str) -> list[str]:
    """The items of the one finding of ``rule_id`` (fails where it is not exactly one)."""
    (finding,) = [f for f in outcome.findings if f.rule_id == rule_id]
    return [str(item) for item in finding.items]


def finding(outcome: RulesOutcome, rule_id: str) -> tuple[str, list[str]]:
    """The message and items of the one finding of ``rule_id``."""
    (found,) = [f for f in outcome.findings if f.rule_id == rule_id]
    return found.message, [str(item) for item in found.items]


def said(ev: EvidenceFacts) -> list[str]:
    """What the import says of its files (each file's messages, in order)."""
    return [m.message for f in ev.files for m in f.messages]


def notes(ev: EvidenceFacts) -> list[tuple[int, str]]:
    """The files' messages with their line numbers."""
    return [(m.line, m.message) for f in ev.files for m in f.messages]


def found(ev: EvidenceFacts, backend: str = "nccl") -> dict[str, object]:
    """The built-in rules' findings on an import's failures, ports and timelines (the rules
    alone, without the import's stages: quicker than ``imported`` where only they matter)."""
    return builtin_findings(
        {
            "evidence.failures": ev.failures,
            "evidence.gpus": ev.gpus,
            "evidence.hca_ports": ev.hca_ports,
            "evidence.timelines": [to_plain(t) for t in ev.timelines],
        },
        backend,
    )


def rules_verdict(ev: EvidenceFacts, backend: str = "nccl") -> str:
    """The verdict the built-in rules give an import's facts (on ``backend``'s cluster)."""
    severities = {f.severity for f in found(ev, backend).values()}  # type: ignore[attr-defined]
    if "critical" in severities:
        return "NOT READY"
    return "READY WITH WARNINGS" if "warning" in severities else "READY"
