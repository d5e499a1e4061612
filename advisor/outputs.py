"""Everything written after measuring, all from the same facts: verdict, report, exit code."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from rich.markup import escape

from advisor import console
from advisor.facts import Facts

if TYPE_CHECKING:
    from advisor.config import AdvisorConfig

READY = "READY"
WARNINGS = "READY WITH WARNINGS"
NOT_READY = "NOT READY"


@dataclass(kw_only=True)
class Verdict:
    level: str
    """READY, READY WITH WARNINGS or NOT READY."""
    reasons: list[str] = field(default_factory=list)

    @property
    def exit_code(self) -> int:
        return 1 if self.level == NOT_READY else 0


def verdict(facts: Facts) -> Verdict:
    """NOT READY when a stage failed, timed out or could not run."""
    reasons = [
        sf.reason or f"stage {name} {sf.status}"
        for name, sf in facts.stages.items()
        if sf.status in ("failed", "timeout", "error")
    ]
    if reasons:
        return Verdict(level=NOT_READY, reasons=reasons)
    return Verdict(level=READY)


def write_all(facts: Facts, cfg: AdvisorConfig, run_dir: Path) -> int:
    from advisor.report import render

    facts.write(run_dir / "facts.json")
    v = verdict(facts)
    report_path = run_dir / "report.html"
    render.write_report(facts, v, report_path)
    style = {"READY": "green", NOT_READY: "red"}.get(v.level, "yellow")
    console.out.print(f"verdict: [bold {style}]{v.level}[/bold {style}]")
    for reason in v.reasons:
        console.out.print(f"  - {escape(reason)}")
    console.plain(f"report: {report_path}")
    return v.exit_code
