"""``advisor rules list | validate PATH... | explain RULE_ID``."""

from __future__ import annotations

import argparse
from pathlib import Path

from advisor import console
from advisor.rules import schema


def _rule_set(dirs: list[Path], builtin: bool) -> schema.RuleSet:
    paths = ([schema.builtin_dir()] if builtin else []) + dirs
    return schema.load_paths(paths)


def main(args: list[str]) -> int:
    parser = argparse.ArgumentParser(prog="advisor rules", description="inspect and check rules")
    sub = parser.add_subparsers(dest="command", required=True)
    helps = {
        "list": "every rule: id, severity, category, title",
        "explain": "one rule: condition, evidence, recommendations, reference",
    }
    for name, helptext in helps.items():
        p = sub.add_parser(name, help=helptext)
        if name == "explain":
            p.add_argument("rule_id")
        p.add_argument(
            "--dir",
            type=Path,
            action="append",
            default=[],
            help="extra rule directory or file (repeatable), as rules.dirs",
        )
        p.add_argument("--no-builtin", action="store_true", help="leave out the built-in rules")
    v = sub.add_parser("validate", help="validate rule files or directories (exit 2 on errors)")
    v.add_argument("paths", type=Path, nargs="+")
    ns = parser.parse_args(args)
    if ns.command == "validate":
        rule_set = schema.load_paths(ns.paths)
        console.out.print(
            f"[green]ok[/green]: {len(rule_set.rules)} rule(s) in {len(rule_set.files)} file(s)"
        )
        return 0
    rule_set = _rule_set(ns.dir, not ns.no_builtin)
    if ns.command == "list":
        rows = sorted(rule_set.rules, key=lambda r: (r.spec.category, r.id))
        width = max((len(r.id) for r in rows), default=2)
        console.plain(f"{'id':<{width}}  {'severity':<8}  {'category':<12}  title")
        for r in rows:
            console.plain(
                f"{r.id:<{width}}  {r.severity:<8}  {r.spec.category:<12}  {r.spec.title}"
            )
        console.plain(f"{len(rule_set.rules)} rules from {len(rule_set.files)} file(s)")
        return 0
    rule = rule_set.get(ns.rule_id)
    explain(rule)
    return 0


def explain(rule: schema.Rule) -> None:
    spec = rule.spec
    applies = spec.applies_to
    lines = [
        f"{spec.id}: {spec.title}",
        f"  severity:   {rule.severity}    category: {spec.category}    priority: {spec.priority}",
        "  applies to: "
        + (", ".join([*applies.backends, *applies.devices]) or "every backend and device"),
        f"  file:       {rule.source}",
    ]
    for name, expr in spec.let.items():
        lines.append(f"  let {name} = {' '.join(expr.split())}")
    lines.append(f"  condition:  {' '.join(spec.condition.split())}")
    lines.append("  evidence:   " + ", ".join(spec.evidence))
    lines.append(f"  message:    {' '.join(spec.message.split())}")
    if spec.items is not None:
        lines.append(f"  items:      each {spec.items.each}: {' '.join(spec.items.line.split())}")
    lines.append(
        "  imports:    "
        + (
            f"not applicable (needs {', '.join(rule.live_roots)}, which only a live run has)"
            if rule.live_roots
            else "applies"
        )
    )
    for rec in spec.recommendations:
        if rec.kind == "advice":
            lines.append(f"  advice:     {' '.join((rec.advice or '').split())}")
            continue
        what = "unset" if rec.unset else f"= {' '.join((rec.value or '').split())}"
        when = f"  (when {' '.join(rec.when.split())})" if rec.when else ""
        lines.append(f"  recommends: {rec.kind} {rec.name} {what}{when}")
    lines.append(f"  reference:  {spec.reference}")
    for line in lines:
        console.plain(line)
