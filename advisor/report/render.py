"""Render report.html from facts (Jinja2, autoescaped: nothing from the cluster is trusted).

The page is self-contained (inline CSS, inline SVG charts, a few lines of inline JS for the copy
buttons) so it opens offline and can be attached to a ticket. Only SVG made by matplotlib is
inserted unescaped; matplotlib escapes the text it draws.
"""

from __future__ import annotations

import json
import shlex
from collections.abc import Mapping
from datetime import datetime, timezone
from pathlib import Path
from typing import TYPE_CHECKING, Any

from jinja2 import Environment, PackageLoader, Undefined, select_autoescape

from advisor.launch.commands import shell_line, torchrun_args
from advisor.report import sections
from advisor.rules.findings import SEVERITY_ORDER, Finding, Recommendation, RulesOutcome
from advisor.rules.outputs import (
    DEFAULT_MASTER_PORT,
    ENV_FILE,
    FINDINGS_FILE,
    LAUNCH_FILE,
    env_lines,
    has_shape,
)

if TYPE_CHECKING:
    from advisor.facts import Facts
    from advisor.verdict import Verdict

_ENV = Environment(
    loader=PackageLoader("advisor.report", "templates"),
    autoescape=select_autoescape(default=True, default_for_string=True),
    trim_blocks=True,
    lstrip_blocks=True,
)

MAX_REPORT_ITEMS = 200
"""Most items of one list (a finding's events, a file's messages) the report lists; a log of
50,000 events would otherwise make a report of tens of MB. findings.json and facts.json hold
every one, and the report says how many it left out."""

MAX_CONFIG_CHARS = 40_000
"""The composed config is shown in full up to this size (it is a few KB in practice)."""


def _when(ts: float | None) -> str:
    if not isinstance(ts, int | float) or not ts:
        return "?"
    return datetime.fromtimestamp(ts, tz=timezone.utc).strftime("%Y-%m-%d %H:%M:%S UTC")


def _fmt(x: Any, digits: int = 3) -> str:
    """A number to ``digits`` significant figures; anything else as text; None as a dash."""
    if x is None or x == "" or isinstance(x, Undefined):
        return "–"
    if isinstance(x, bool):
        return "yes" if x else "no"
    if isinstance(x, int):
        return str(x)
    if isinstance(x, float):
        if x != x or x in (float("inf"), float("-inf")):
            return str(x)
        return f"{x:,.0f}" if abs(x) >= min(1000, 10**digits) else f"{x:.{digits}g}"
    return str(x)


def _as_float(x: Any) -> float | None:
    if isinstance(x, bool | Undefined):
        return None
    try:
        return float(x)
    except (TypeError, ValueError):
        return None


def _pct(x: Any) -> str:
    v = _as_float(x)
    return _fmt(x) if v is None else f"{v * 100:.1f} %"


def _bytes(x: Any) -> str:
    n = _as_float(x)
    if n is None:
        return _fmt(x)
    for unit, size in (("GiB", 2**30), ("MiB", 2**20), ("KiB", 2**10)):
        if n >= size:
            return f"{n / size:g} {unit}"
    return f"{n:g} B"


def _ranks(xs: Any) -> str:
    """A rank list compactly: ``0-7, 9, 12-15``."""
    if isinstance(xs, Undefined) or xs is None:
        return ""
    try:
        vals = sorted({int(x) for x in xs})
    except (TypeError, ValueError):
        return str(xs)
    out: list[str] = []
    i = 0
    while i < len(vals):
        j = i
        while j + 1 < len(vals) and vals[j + 1] == vals[j] + 1:
            j += 1
        out.append(f"{vals[i]}-{vals[j]}" if j > i + 1 else ", ".join(map(str, vals[i : j + 1])))
        i = j + 1
    return ", ".join(out)


def _tojson(x: Any) -> str:
    if isinstance(x, Undefined):
        return ""
    return json.dumps(x, indent=1, sort_keys=True, default=str)


def _recommendation(r: Recommendation) -> str:
    """A recommendation as one line: ``export X=1  # why``, ``setting: value  # why``, advice."""
    if r.kind == "env":
        line = f"unset {r.name}" if r.unset else f"export {r.name}={shlex.quote(str(r.value))}"
    elif r.kind == "setting":
        line = f"{r.name}: {json.dumps(r.value, default=str)}"
    else:
        return r.why
    why = r.why
    if r.emulated:
        why = f"{why} [EMULATED: measured on this host's CPUs, not the cluster]".strip()
    return f"{line}  # {why}" if why else line


_ENV.globals["max_report_items"] = MAX_REPORT_ITEMS
_ENV.filters.update(
    when=_when,
    fmt=_fmt,
    pct=_pct,
    bytes=_bytes,
    ranks=_ranks,
    pretty=_tojson,
    recommendation=_recommendation,
)


def by_severity(findings: list[Finding]) -> list[Finding]:
    """Most severe first (unknown severities last), in the given order within a severity."""
    return sorted(findings, key=lambda f: SEVERITY_ORDER.get(f.severity, len(SEVERITY_ORDER)))


def default_launch_command(facts: Facts) -> str:
    """A torchrun line for the measured shape, when the rules gave no launch command."""
    c = facts.cluster
    # an emulated run's master is this host's loopback, no address for the real cluster
    master = "MASTER_HOST" if c.emulated else (c.master_addr or "MASTER_HOST")
    argv = [
        "torchrun",
        *torchrun_args(
            nodes=c.nodes,
            per_node=c.devices_per_node,
            node_rank="@NODE_RANK@",
            master_addr=master,
            master_port=c.master_port or DEFAULT_MASTER_PORT,
        ),
        "train.py",
    ]
    return shell_line(argv, ("NODE_RANK",))


def _env_block(env: Mapping[str, str]) -> str:
    return "\n".join(f"export {k}={shlex.quote(str(v))}" for k, v in sorted(env.items()))


def _read(path: Path, limit: int = MAX_CONFIG_CHARS) -> str:
    try:
        text = path.read_text(encoding="utf-8", errors="replace")
    except OSError:
        return ""
    return text if len(text) <= limit else text[:limit] + "\n… (truncated)"


def load_findings(run_dir: Path) -> RulesOutcome | None:
    """The rules' outcome written beside the report (``findings.json``); None when there is none.
    A findings.json that does not validate is a ConfigError naming the field."""
    path = run_dir / FINDINGS_FILE
    return RulesOutcome.read(path) if path.exists() else None


def render_report(
    facts: Facts,
    verdict: Verdict,
    *,
    findings: RulesOutcome | None = None,
    recommended_env: str | None = None,
    launch_command: str | None = None,
    config_yaml: str | None = None,
) -> str:
    """The report as an HTML string (see ``write_report``)."""
    ordered = by_severity(findings.findings) if findings else []
    if recommended_env is not None:
        env_block, env_source = recommended_env.strip(), "rules"
    elif findings is not None:
        env_block, env_source = "\n".join(env_lines(findings)), "rules"
    else:
        env_block, env_source = _env_block(facts.environment.variables), "run"
    counts: dict[str, int] = {}
    for f in ordered:
        counts[f.severity] = counts.get(f.severity, 0) + 1
    return _ENV.get_template("report.html.j2").render(
        facts=facts,
        verdict=verdict,
        findings=ordered,
        finding_counts=counts,
        rules=findings,
        sections=sections.build(facts),
        evidence=sections.evidence_view(facts),
        imported_flight=[
            sections.flight_view(f) for f in (facts.evidence.flight if facts.evidence else [])
        ],
        stages=sections.ordered_stages(facts),
        not_run=sections.not_run(facts),
        env_block=env_block,
        env_source=env_source,
        # an import whose files state no cluster shape has no launch command to offer
        launch_command=(launch_command or "").strip()
        or (default_launch_command(facts) if has_shape(facts.cluster) else ""),
        launch_from_rules=bool(launch_command),
        config_yaml=config_yaml or "",
        generated_at=_when(datetime.now(tz=timezone.utc).timestamp()),
    )


def write_report(
    facts: Facts,
    verdict: Verdict,
    path: Path,
    findings: RulesOutcome | None = None,
    *,
    recommended_env: str | None = None,
    launch_command: str | None = None,
    config_yaml: str | None = None,
) -> None:
    """Write ``report.html``.

    ``findings``: the rules' outcome; when None, ``findings.json`` beside ``path`` is read if
    present. Likewise ``recommended_env`` falls back to ``recommended.env``, ``launch_command``
    to ``launch.sh`` and ``config_yaml`` to ``.hydra/config.yaml`` in the run directory.
    """
    run_dir = path.parent
    if findings is None:
        findings = load_findings(run_dir)
    if recommended_env is None and (run_dir / ENV_FILE).exists():
        recommended_env = _read(run_dir / ENV_FILE)
    if launch_command is None and (run_dir / LAUNCH_FILE).exists():
        launch_command = _read(run_dir / LAUNCH_FILE)
    if config_yaml is None:
        config_yaml = _read(run_dir / ".hydra" / "config.yaml")
    html = render_report(
        facts,
        verdict,
        findings=findings,
        recommended_env=recommended_env,
        launch_command=launch_command,
        config_yaml=config_yaml,
    )
    tmp = path.with_suffix(".tmp")
    tmp.write_text(html, encoding="utf-8")
    tmp.replace(path)
