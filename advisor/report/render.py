"""Render report.html from facts (Jinja2, autoescaped: nothing from the cluster is trusted).

The page is self-contained (inline CSS, inline SVG charts, a few lines of inline JS for the copy
buttons) so it opens offline and can be attached to a ticket. Only SVG made by matplotlib is
inserted unescaped; matplotlib escapes the text it draws.
"""

from __future__ import annotations

import json
import shlex
from collections.abc import Mapping
from dataclasses import dataclass, field, is_dataclass
from datetime import datetime, timezone
from pathlib import Path
from typing import TYPE_CHECKING, Any

from jinja2 import Environment, PackageLoader, Undefined, select_autoescape

from advisor.report import sections
from advisor.rules.findings import EMULATED_NOTE

if TYPE_CHECKING:
    from advisor.facts import Facts
    from advisor.outputs import Verdict

_ENV = Environment(
    loader=PackageLoader("advisor.report", "templates"),
    autoescape=select_autoescape(default=True, default_for_string=True),
    trim_blocks=True,
    lstrip_blocks=True,
)

SEVERITY_ORDER = ("critical", "error", "warning", "info")
"""Findings are listed most severe first; unknown severities come last."""

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


_ENV.filters.update(when=_when, fmt=_fmt, pct=_pct, bytes=_bytes, ranks=_ranks, pretty=_tojson)


@dataclass(kw_only=True)
class FindingView:
    """A finding as the report shows it, whatever shape the rule engine gave it."""

    id: str
    severity: str
    title: str
    message: str = ""
    evidence: list[str] = field(default_factory=list)
    fix: str = ""
    env: dict[str, str] = field(default_factory=dict)
    recommendations: list[str] = field(default_factory=list)
    """What the rule asks for, one line each (``export X=1``, ``setting: value``, advice)."""
    missing: list[str] = field(default_factory=list)
    """Evidence the rule declares but this run has no fact for."""
    notes: list[str] = field(default_factory=list)
    reference: str = ""
    """Where the rule's threshold or advice comes from (documentation), as text."""


def _get(obj: Any, *names: str, default: Any = None) -> Any:
    for n in names:
        v = obj.get(n) if isinstance(obj, Mapping) else getattr(obj, n, None)
        if v not in (None, "", [], {}):
            return v
    return default


def _evidence_lines(ev: Any) -> list[str]:
    if ev is None:
        return []
    if isinstance(ev, str):
        return [ev]
    if isinstance(ev, Mapping):
        return [f"{k}: {v}" for k, v in ev.items()]
    if isinstance(ev, list | tuple):
        return [e if isinstance(e, str) else json.dumps(e, default=str) for e in ev]
    return [str(ev)]


def _recommendation_line(r: Any) -> str:
    if not isinstance(r, Mapping):
        return str(r)
    kind, name, value, why = r.get("kind"), r.get("name"), r.get("value"), r.get("why") or ""
    if kind == "env":
        line = f"unset {name}" if r.get("unset") else f"export {name}={shlex.quote(str(value))}"
    elif kind == "setting":
        line = f"{name}: {json.dumps(value, default=str)}"
    else:
        return str(why)
    if r.get("emulated"):
        why = f"{why} [EMULATED: measured on this host's CPUs, not the cluster]".strip()
    return f"{line}  # {why}" if why else line


def finding_views(findings: Any) -> list[FindingView]:
    """Normalise findings (dataclasses or mappings; a list or ``{"findings": [...]}``)."""
    if findings is None:
        return []
    if isinstance(findings, Mapping):
        findings = findings.get("findings") or []
    out = []
    for i, f in enumerate(findings):
        if is_dataclass(f) and not isinstance(f, type):
            f = {k: getattr(f, k) for k in f.__dataclass_fields__}
        env = _get(f, "env", "recommended_env", "environment", default={})
        out.append(
            FindingView(
                id=str(_get(f, "id", "rule", "rule_id", "name", default=f"finding-{i + 1}")),
                severity=str(_get(f, "severity", "level", default="info")).lower(),
                title=str(_get(f, "title", "summary", "message", default="")),
                message=str(_get(f, "message", "detail", "description", default="")),
                evidence=_evidence_lines(_get(f, "evidence", "facts")),
                fix=str(_get(f, "fix", "remedy", "recommendation", default="")),
                env={str(k): str(v) for k, v in env.items()} if isinstance(env, Mapping) else {},
                recommendations=[
                    _recommendation_line(r) for r in _get(f, "recommendations", default=[])
                ],
                missing=[str(m) for m in _get(f, "missing_evidence", default=[])],
                notes=[str(n) for n in _get(f, "notes", default=[])],
                reference=str(_get(f, "reference", default="")),
            )
        )
        if out[-1].message == out[-1].title:
            out[-1].message = ""
    rank = {s: i for i, s in enumerate(SEVERITY_ORDER)}
    return sorted(out, key=lambda f: rank.get(f.severity, len(SEVERITY_ORDER)))


def default_launch_command(facts: Facts) -> str:
    """A torchrun line for the measured shape, when the rules gave no launch command."""
    c = facts.cluster
    master = "MASTER_HOST" if c.get("emulated") else (c.get("master_addr") or "MASTER_HOST")
    port = c.get("master_port") or 29500
    return shlex.join(
        [
            "torchrun",
            f"--nnodes={c.get('nodes', 1)}",
            f"--nproc-per-node={c.get('devices_per_node', 1)}",
            "--node-rank=$NODE_RANK",
            f"--master-addr={master}",
            f"--master-port={port}",
            "train.py",
        ]
    ).replace("'--node-rank=$NODE_RANK'", "--node-rank=$NODE_RANK")


def _env_block(env: Mapping[str, str]) -> str:
    return "\n".join(f"export {k}={shlex.quote(str(v))}" for k, v in sorted(env.items()))


def _read(path: Path, limit: int = MAX_CONFIG_CHARS) -> str:
    try:
        text = path.read_text(encoding="utf-8", errors="replace")
    except OSError:
        return ""
    return text if len(text) <= limit else text[:limit] + "\n… (truncated)"


def _load_findings(run_dir: Path) -> Any:
    path = run_dir / "findings.json"
    if not path.exists():
        return None
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None


def render_report(
    facts: Facts,
    verdict: Verdict,
    *,
    findings: Any = None,
    recommended_env: Mapping[str, str] | str | None = None,
    launch_command: str | None = None,
    config_yaml: str | None = None,
) -> str:
    """The report as an HTML string (see ``write_report``)."""
    views = finding_views(findings)
    rules = findings if isinstance(findings, Mapping) else {}
    if recommended_env is None and isinstance(rules.get("env"), list):
        recommended_env = "\n".join(
            ("# " + EMULATED_NOTE + "\n" if e.get("emulated") else "")
            + (
                f"unset {e['name']}"
                if e.get("unset")
                else f"export {e['name']}={shlex.quote(str(e.get('value')))}"
            )
            for e in rules["env"]
            if isinstance(e, Mapping) and e.get("name")
        )
    if isinstance(recommended_env, str):
        env_block = recommended_env.strip()
        env_source = "rules"
    else:
        env = dict(recommended_env or {})
        for f in views:
            env.update(f.env)
        env_source = "rules" if env else "run"
        if not env:
            env = dict(facts.environment.variables)
        env_block = _env_block(env)
    counts: dict[str, int] = {}
    for f in views:
        counts[f.severity] = counts.get(f.severity, 0) + 1
    return _ENV.get_template("report.html.j2").render(
        facts=facts,
        verdict=verdict,
        findings=views,
        finding_counts=counts,
        findings_given=findings is not None,
        rules={
            "settings": [x for x in rules.get("settings") or [] if isinstance(x, Mapping)],
            "conflicts": [x for x in rules.get("conflicts") or [] if isinstance(x, Mapping)],
            "not_evaluated": [
                x for x in rules.get("not_evaluated") or [] if isinstance(x, Mapping)
            ],
            "passed": len(rules.get("passed") or []),
            "skipped": len(rules.get("skipped") or []),
        },
        sections=sections.build(facts),
        stages=sections.ordered_stages(facts),
        not_run=sections.not_run(facts),
        env_block=env_block,
        env_source=env_source,
        launch_command=(launch_command or "").strip() or default_launch_command(facts),
        launch_from_rules=bool(launch_command),
        config_yaml=config_yaml or "",
        generated_at=_when(datetime.now(tz=timezone.utc).timestamp()),
    )


def write_report(
    facts: Facts,
    verdict: Verdict,
    path: Path,
    findings: Any = None,
    *,
    recommended_env: Mapping[str, str] | str | None = None,
    launch_command: str | None = None,
    config_yaml: str | None = None,
) -> None:
    """Write ``report.html``.

    ``findings``: the rule engine's findings (list of mappings or dataclasses, or a mapping with
    ``findings``); when None, ``findings.json`` beside ``path`` is read if present. Likewise
    ``recommended_env`` falls back to ``recommended.env``, ``launch_command`` to ``launch.sh``
    and ``config_yaml`` to ``.hydra/config.yaml`` in the run directory.
    """
    run_dir = path.parent
    if findings is None:
        findings = _load_findings(run_dir)
    if recommended_env is None and (run_dir / "recommended.env").exists():
        recommended_env = _read(run_dir / "recommended.env")
    if launch_command is None and (run_dir / "launch.sh").exists():
        launch_command = _read(run_dir / "launch.sh")
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
