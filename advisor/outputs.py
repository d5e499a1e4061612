"""Everything written after measuring, all from the same facts: findings, verdict, report, exit code.

The rules turn the facts into findings and write findings.json, recommended.env, launch.sh and
settings.yaml; the verdict and the report are made from the same findings.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

from rich.markup import escape

from advisor import console
from advisor.facts import Facts
from advisor.report import render
from advisor.rules import apply
from advisor.rules import outputs as rule_outputs
from advisor.verdict import NOT_READY, READY, verdict

if TYPE_CHECKING:
    from advisor.config import AdvisorConfig


CONSOLE_ITEMS = 3
"""A finding's events printed under its verdict line; the report and findings.json hold all."""


def write_all(
    facts: Facts, cfg: AdvisorConfig, run_dir: Path, data: dict[str, Any] | None = None
) -> int:
    """Every output of ``facts`` into ``run_dir``; the exit code. ``data``: ``facts.to_dict()``
    when the caller has it."""
    # One conversion of the facts serves facts.json and the rules: an import of a large log
    # holds tens of thousands of events, and each conversion of them costs seconds.
    if data is None:
        data = facts.to_dict()
    facts.write(run_dir / "facts.json", data)
    outcome = apply.run(facts, cfg, run_dir, data)
    v = verdict(facts, outcome)
    report_path = run_dir / "report.html"
    render.write_report(facts, v, report_path, outcome)
    style = {READY: "green", NOT_READY: "red"}.get(v.level, "yellow")
    console.out.print(f"verdict: [bold {style}]{v.level}[/bold {style}]")
    items = {f"{f.rule_id}: {f.message}": f.items for f in outcome.findings}
    for reason in v.reasons:
        console.out.print(f"  - {escape(reason)}")
        listed = items.get(reason, [])
        for item in listed[:CONSOLE_ITEMS]:
            console.out.print(f"      {escape(item)}")
        if len(listed) > CONSOLE_ITEMS:
            console.out.print(f"      ... {len(listed) - CONSOLE_ITEMS} more in report.html")
    n = outcome.summary
    console.out.print(
        f"rules: {n['critical']} critical, {n['warning']} warning, {n['info']} info, "
        f"{n['passed']} passed, {n['not_evaluated']} not evaluated, "
        f"{n['skipped']} not applicable, {n['conflicts']} conflict(s); "
        + ", ".join(rule_outputs.file_names(facts.cluster))
    )
    console.plain(f"report: {report_path}")
    return v.exit_code
