"""Evaluate rules over facts: findings, rules not evaluated (and why), resolved recommendations.

Rules see a context with ``cluster``, ``run``, ``environment`` (``env`` is short for
``environment.variables``, the effective environment of the jobs), ``stages`` (name → stage facts
with status and reason), each stage's data under the stage's own name (``connectivity.pairs``,
``bench.results`` ...), ``evidence`` (imported facts), ``params`` (``rules.params`` thresholds)
and ``config`` (the run's configuration, e.g. ``config.pg_timeout_s``).
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Mapping
from dataclasses import asdict
from typing import Any

from jinja2.exceptions import SecurityError, UndefinedError

from advisor import stages
from advisor.backends import CHIPS, chip_generation
from advisor.facts import Facts
from advisor.rules import sandbox
from advisor.rules.config import RulesConfig
from advisor.rules.findings import (
    EMULATED_NOTE,
    SEVERITY_ORDER,
    Conflict,
    Finding,
    NotEvaluated,
    Recommendation,
    Resolved,
    RulesOutcome,
    Skipped,
)
from advisor.rules.schema import CONTEXT_ROOTS, ITEM_NAME, LIVE_ROOTS, Rule, RuleSet

BACKEND_OF_DEVICE = {"npu": "hccl", "cuda": "nccl", "cpu": "gloo"}
MAX_EVIDENCE_ITEMS = 20


def _plain(value: Any) -> Any:
    return json.loads(json.dumps(value, default=str))


def build_context(
    facts: Facts | dict[str, Any],
    config: dict[str, Any] | None = None,
    rules_cfg: RulesConfig | None = None,
) -> dict[str, Any]:
    """The names a rule sees, each wrapped so that a missing fact names its path."""
    # The facts' JSON form, wrapped once: each root below is a part of it (its paths start at
    # the root's name), not a second copy of tens of thousands of imported events.
    data = sandbox.wrap_json(facts.to_dict() if isinstance(facts, Facts) else facts, "")

    def part(name: str, empty: Any) -> Any:
        return data.get(name) or sandbox.wrap(empty, name)

    params = asdict(rules_cfg.params) if rules_cfg else asdict(RulesConfig().params)
    environment = part("environment", {})
    ctx: dict[str, Any] = {}
    stages = part("stages", {})
    for name, sf in stages.items():
        if name not in CONTEXT_ROOTS and isinstance(sf, dict):
            ctx[name] = sandbox.wrap(sf.get("data") or {}, name)
    ctx.update(
        chip=npu_chip(data, params),
        cluster=part("cluster", {}),
        run=part("run", {}),
        environment=environment,
        env=sandbox.wrap(environment.get("variables") or {}, "env"),
        stages=stages,
        launches=part("launches", []),
        flight=sandbox.wrap(flight_view(data), "flight"),
        evidence=part("evidence", {}),
        params=sandbox.wrap(params, "params"),
        config=sandbox.wrap(_plain(config or {}), "config"),
    )
    # Inputs this run never collected: a rule over them does not apply (it is listed as such),
    # unlike a fact missing from an input that was collected, which leaves it not evaluated.
    # Only known names: a misspelt stage in a rule stays "not evaluated" and visible.
    for name in known_stages():
        if name not in ctx and name not in stages:
            ctx[name] = sandbox.NotCollected(
                hint=f"needs stage {name!r}, which this run did not include "
                f"(stages.{name}.enabled=true)"
            )
    if (data.get("cluster") or {}).get("imported"):
        # Files do not say which variables, time-outs or launches the job ran with: nothing
        # stands in for them (no defaults), so what reads them does not apply to an import.
        for root, what in LIVE_ROOTS.items():
            ctx[root] = sandbox.NotCollected(hint=import_hint(root, what))
    if not data.get("evidence"):
        ctx["evidence"] = sandbox.NotCollected(
            hint="needs imported evidence, none in this run (advisor run evidence=[FILES], or "
            "advisor import FILES)"
        )
    return ctx


def import_hint(root: str, what: str) -> str:
    """Why a rule reading ``root`` does not apply to an import."""
    return f"not applicable to an import: needs {root} ({what}), which no imported file gives"


def flight_view(data: dict[str, Any]) -> dict[str, Any]:
    """``flight``: every flight-recorder analysis of the run (its failed stages') and of imported
    dumps as ``diagnoses``, and all their ``culprits`` in one list, each with its ``source``."""
    diagnoses = [
        sf["flight"]
        for sf in (data.get("stages") or {}).values()
        if isinstance(sf, dict) and sf.get("flight")
    ]
    diagnoses += list((data.get("evidence") or {}).get("flight") or [])
    culprits = [{**c, "source": d.get("source", "")} for d in diagnoses for c in d["culprits"]]
    return {"diagnoses": diagnoses, "culprits": culprits}


def npu_chip(data: dict[str, Any], params: dict[str, Any]) -> str:
    """The Ascend generation whose HCCL rules apply ('' when unknown): ``rules.params.npu_chip``,
    else the cluster's (declared, or read from the device), else the first chip npu-smi named
    (live in preflight, or imported)."""
    given = str(params.get("npu_chip") or "")
    if given:
        return given if given in CHIPS else chip_generation(given)
    chip = str((data.get("cluster") or {}).get("chip") or "")
    if chip:
        return chip
    for row in (data.get("evidence") or {}).get("npu_chips") or []:
        generation = chip_generation(str(row.get("name", "")))
        if generation:
            return generation
    return ""


def known_stages() -> list[str]:
    return stages.names()


def applies(rule: Rule, cluster: dict[str, Any]) -> str:
    """Empty when the rule applies; else why not."""
    want = rule.spec.applies_to
    backend = cluster.get("backend", "")
    declared = cluster.get("declared_device", "") or cluster.get("device_type", "")
    backends = {backend, BACKEND_OF_DEVICE.get(declared, "")}
    devices = {cluster.get("device_type", ""), declared}
    if want.backends and not backends & set(want.backends):
        return f"applies to backends {', '.join(want.backends)}; this run: {backend}"
    if want.devices and not devices & set(want.devices):
        return f"applies to devices {', '.join(want.devices)}; this run: {declared}"
    if cluster.get("imported") and rule.live_roots:
        return "; ".join(import_hint(root, LIVE_ROOTS[root]) for root in rule.live_roots)
    if want.emulated is False and cluster.get("emulated"):
        return (
            "judges measured performance, and this run's figures are emulated (this host's CPUs "
            "standing in for the cluster): run on the cluster itself to judge them"
        )
    return ""


def read_path(ctx: dict[str, Any], path: str) -> tuple[bool, Any]:
    """(found, value) for a dotted evidence path such as ``timeouts.init_s.max`` or ``a.b[0]``."""
    value: Any = ctx
    for part in re.findall(r"[^.\[\]]+|\[\d+\]", path):
        if part.startswith("["):
            index = int(part[1:-1])
            if not isinstance(value, list) or index >= len(value):
                return False, None
            value = value[index]
        elif isinstance(value, dict) and part in value:
            value = value[part]
        else:
            return False, None
    return True, _plain(_compact(value))


def _compact(value: Any) -> Any:
    """Evidence stays readable: long lists, at any depth (a failure timeline's 50,000 entries),
    keep their first items and say how many there were."""
    if isinstance(value, Mapping):
        return {k: _compact(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        head = [_compact(v) for v in value[:MAX_EVIDENCE_ITEMS]]
        if len(value) > MAX_EVIDENCE_ITEMS:
            head.append(f"... {len(value) - MAX_EVIDENCE_ITEMS} more")
        return head
    return value


def env_value(value: Any) -> str:
    """An environment variable's text: 1/0 for booleans, integers without '.0'."""
    if isinstance(value, bool):
        return "1" if value else "0"
    if isinstance(value, float) and math.isfinite(value) and value.is_integer():
        return str(int(value))
    if value is None:
        raise ValueError("the value is none")
    return str(value)


def _items(rule: Rule, local: dict[str, Any], notes: list[str]) -> list[str]:
    """Every event the rule lists, one line each (none when it lists none). An item whose line
    cannot be rendered (a field it reads is None in this one) is listed as such, with a note:
    the others, and the finding, stand."""
    if rule.items_each is None:
        return []
    lines = []
    for number, item in enumerate(sandbox.evaluate(rule.items_each, local), start=1):
        try:
            lines.append(sandbox.render(rule.items_line, {**local, ITEM_NAME: item}))
        except (sandbox.InputNotCollected, SecurityError):
            raise
        except Exception as e:
            lines.append(f"(item {number} could not be written: {type(e).__name__}: {e})")
            notes.append(f"item {number} not rendered: {type(e).__name__}: {e}")
    return lines


def _run_rule(rule: Rule, ctx: dict[str, Any], emulated: bool) -> tuple[str, Any]:
    """("finding", Finding) | ("passed", None) | ("not_evaluated" | "not_applicable", reason).

    ``emulated``: the run's figures are emulated; a measured rule's finding and
    recommendations say so."""
    spec = rule.spec
    local = dict(ctx)
    try:
        for name, expr in rule.let.items():
            try:
                local[name] = sandbox.wrap(sandbox.evaluate(expr, local), name)
            except sandbox.InputNotCollected as e:
                # Only what uses this name needs the input: a recommendation, say, while the
                # finding itself stands on what was collected.
                local[name] = sandbox.NotCollected(hint=str(e))
        holds = bool(sandbox.evaluate(rule.condition, local))
        if not holds:
            return "passed", None
    except sandbox.InputNotCollected as e:
        return "not_applicable", str(e)
    except UndefinedError as e:
        # an input this run never collected (a stage not run, nothing imported of it) comes
        # first: the fact missing after it matters only once that input is there
        uncollected = next(
            (v for n in rule.let if isinstance(v := local.get(n), sandbox.NotCollected)), None
        )
        if uncollected is not None:
            return "not_applicable", uncollected.reason
        return "not_evaluated", f"missing fact: {e}"
    except SecurityError as e:
        return "not_evaluated", f"refused by the rule sandbox: {e}"
    except Exception as e:
        return "not_evaluated", f"expression failed: {type(e).__name__}: {e}"
    # the condition holds: a message or an item that cannot be written does not silence the
    # finding (a field one event lacks would otherwise turn a failure into READY)
    notes: list[str] = []
    try:
        message = sandbox.render(rule.message, local)
    except sandbox.InputNotCollected as e:
        return "not_applicable", str(e)
    except SecurityError as e:  # a rule past the sandbox's limits is refused, never trusted
        return "not_evaluated", f"refused by the rule sandbox: {e}"
    except Exception as e:
        message = f"{spec.title} (the rule's message could not be written: {type(e).__name__}: {e})"
        notes.append(f"message not rendered: {type(e).__name__}: {e}")
    try:
        items = _items(rule, local, notes)
    except sandbox.InputNotCollected as e:
        return "not_applicable", str(e)
    except SecurityError as e:
        return "not_evaluated", f"refused by the rule sandbox: {e}"
    except Exception as e:
        items = []
        notes.append(f"items not listed: {type(e).__name__}: {e}")
    finding = Finding(
        rule_id=spec.id,
        title=spec.title,
        category=spec.category,
        severity=rule.severity,
        priority=spec.priority,
        message=message,
        reference=spec.reference,
        source=rule.source,
        emulated=emulated and spec.measured,
        items=items,
        notes=notes,
    )
    if finding.emulated:
        finding.message = f"{finding.message} ({EMULATED_NOTE}.)"
    for path in spec.evidence:
        found, read = read_path(local, path)
        if found:
            finding.evidence[path] = read
        else:
            finding.missing_evidence.append(path)
    for compiled in rule.recommendations:
        rec = compiled.spec
        try:
            if compiled.when is not None and not sandbox.evaluate(compiled.when, local):
                continue
            why = sandbox.render(compiled.text, local)
            value: Any = None
            if compiled.value is not None:
                raw = sandbox.evaluate(compiled.value, local)
                value = env_value(raw) if rec.kind == "env" else _plain(raw)
        except (UndefinedError, SecurityError, ValueError, TypeError, ArithmeticError) as e:
            finding.notes.append(f"recommendation {rec.kind} {rec.name or ''} not computed: {e}")
            continue
        finding.recommendations.append(
            Recommendation(
                kind=rec.kind,
                name=rec.name,
                value=value,
                unset=rec.unset,
                why=why,
                rule_id=spec.id,
                priority=spec.priority,
                severity=rule.severity,
                emulated=finding.emulated,
            )
        )
    return "finding", finding


def evaluate(
    rule_set: RuleSet,
    facts: Facts | dict[str, Any],
    *,
    config: dict[str, Any] | None = None,
    rules_cfg: RulesConfig | None = None,
) -> RulesOutcome:
    """Every rule over the facts; never raises for a rule's own failure (it is reported)."""
    ctx = build_context(facts, config, rules_cfg)
    cluster = _plain(ctx["cluster"])
    out = RulesOutcome(rule_files=list(rule_set.files))
    out.skipped += [
        Skipped(rule_id=r, reason="disabled in rules.disabled") for r in rule_set.disabled
    ]
    for rule in rule_set.rules:
        why_not = applies(rule, cluster)
        if why_not:
            out.skipped.append(Skipped(rule_id=rule.id, reason=why_not))
            continue
        outcome, payload = _run_rule(rule, ctx, bool(cluster.get("emulated")))
        if outcome == "finding":
            out.findings.append(payload)
        elif outcome == "passed":
            out.passed.append(rule.id)
        elif outcome == "not_applicable":
            out.skipped.append(Skipped(rule_id=rule.id, reason=payload))
        else:
            out.not_evaluated.append(
                NotEvaluated(
                    rule_id=rule.id,
                    title=rule.spec.title,
                    category=rule.spec.category,
                    severity=rule.severity,
                    reason=payload,
                )
            )
    out.findings.sort(key=lambda f: (SEVERITY_ORDER[f.severity], -f.priority, f.rule_id))
    resolve(out)
    return out


def _rank(rec: Recommendation) -> tuple[int, int, str]:
    return (-rec.priority, SEVERITY_ORDER[rec.severity], rec.rule_id)


def _key(rec: Recommendation) -> str:
    return json.dumps([rec.value, rec.unset], sort_keys=True, default=str)


def resolve(out: RulesOutcome) -> None:
    """One value per variable and setting: the highest priority wins; disagreements are kept as
    conflicts. Ties go to the more severe rule, then the rule id, and say so."""
    groups: dict[tuple[str, str], list[Recommendation]] = {}
    for finding in out.findings:
        for rec in finding.recommendations:
            if rec.kind == "advice":
                out.advice.append(rec)
            else:
                groups.setdefault((rec.kind, rec.name), []).append(rec)
    for (kind, name), recs in sorted(groups.items()):
        recs.sort(key=_rank)
        chosen = recs[0]
        agreeing = [r for r in recs if _key(r) == _key(chosen)]
        overruled = [r for r in recs if _key(r) != _key(chosen)]
        resolved = Resolved(
            kind=kind,
            name=name,
            value=chosen.value,
            unset=chosen.unset,
            rule_ids=[r.rule_id for r in agreeing],
            why=[r.why for r in agreeing],
            emulated=chosen.emulated,
        )
        (out.env if kind == "env" else out.settings).append(resolved)
        if overruled:
            top = overruled[0]
            if top.priority < chosen.priority:
                how = f"{chosen.rule_id} has priority {chosen.priority}, above " + ", ".join(
                    f"{r.rule_id} ({r.priority})" for r in overruled
                )
            else:
                how = (
                    f"equal priority {chosen.priority}: decided by severity, then rule id "
                    f"({chosen.rule_id} over {top.rule_id}); give the rules different priorities"
                )
            out.conflicts.append(
                Conflict(kind=kind, name=name, chosen=chosen, overruled=overruled, resolution=how)
            )
