"""Render report.html from facts (Jinja2, autoescaped: nothing from the cluster is trusted)."""

from __future__ import annotations

from datetime import datetime, timezone
from pathlib import Path
from typing import TYPE_CHECKING, Any

from jinja2 import Environment, PackageLoader, select_autoescape

if TYPE_CHECKING:
    from advisor.facts import Facts
    from advisor.outputs import Verdict

_ENV = Environment(
    loader=PackageLoader("advisor.report", "templates"),
    autoescape=select_autoescape(default=True, default_for_string=True),
    trim_blocks=True,
    lstrip_blocks=True,
)


def _when(ts: float) -> str:
    return (
        datetime.fromtimestamp(ts, tz=timezone.utc).strftime("%Y-%m-%d %H:%M:%S UTC") if ts else "?"
    )


_ENV.filters["when"] = _when


def write_report(facts: Facts, verdict: Verdict, path: Path, findings: Any = None) -> None:
    """Write report.html; ``findings`` is findings.json's mapping (``RulesOutcome.to_dict()``)."""
    html = _ENV.get_template("report.html.j2").render(
        facts=facts, verdict=verdict, findings=findings or {}
    )
    path.write_text(html, encoding="utf-8")
