"""The readiness verdict: one rule, read by the run's exit code, its report and ``advisor compare``.

NOT READY when a stage failed, timed out or could not run, or a critical finding fired; READY WITH
WARNINGS when a warning fired, or a critical or warning rule over facts the run has could not be
decided (its expression failed or the rule sandbox refused it); READY otherwise. The exit code is
1 only for NOT READY.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from advisor.facts import Facts
    from advisor.rules.findings import RulesOutcome

READY = "READY"
WARNINGS = "READY WITH WARNINGS"
NOT_READY = "NOT READY"

BAD_STAGE_STATUSES = ("failed", "timeout", "error")
"""A stage that ended so makes the cluster NOT READY ('skipped' alone does not: its reason is the
stage that did)."""


@dataclass(kw_only=True)
class Verdict:
    level: str
    """READY, READY WITH WARNINGS or NOT READY."""
    reasons: list[str] = field(default_factory=list)

    @property
    def exit_code(self) -> int:
        return 1 if self.level == NOT_READY else 0


def verdict(facts: Facts, findings: RulesOutcome | None = None) -> Verdict:
    """The verdict of these facts and the findings the rules made of them."""
    reasons = [
        sf.reason or f"stage {name} {sf.status}"
        for name, sf in facts.stages.items()
        if sf.status in BAD_STAGE_STATUSES
    ]
    found = findings.findings if findings else []
    critical = [f"{f.rule_id}: {f.message}" for f in found if f.severity == "critical"]
    warnings = [f"{f.rule_id}: {f.message}" for f in found if f.severity == "warning"]
    if reasons or critical:
        return Verdict(level=NOT_READY, reasons=[*reasons, *critical])
    # A check that could not be decided is not a pass: its facts are there (a missing fact is a
    # stage or input not collected, said apart in the report), but the rule failed or the sandbox
    # refused it, so what it guards is not shown ready.
    undecided = [
        f"{n.rule_id}: {n.title}: not decided ({n.reason})"
        for n in (findings.not_evaluated if findings else [])
        if n.severity in ("critical", "warning") and not n.reason.startswith("missing fact")
    ]
    if warnings or undecided:
        return Verdict(level=WARNINGS, reasons=[*warnings, *undecided])
    return Verdict(level=READY)
