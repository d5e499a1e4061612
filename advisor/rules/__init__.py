"""The rule engine: YAML rules over measured facts → findings, recommended environment and settings.

- ``schema``: rule files, validated (file, rule id and field named) before any rule runs;
- ``sandbox``: where conditions, computed values and message templates run;
- ``engine``: the evaluation context, findings, rules not evaluated, conflicts resolved by priority;
- ``findings``: the data shape of findings.json;
- ``outputs``: findings.json, recommended.env, launch.sh, settings.yaml;
- ``cli``: ``advisor rules list | validate | explain``.
"""

from __future__ import annotations

from dataclasses import asdict
from pathlib import Path
from typing import TYPE_CHECKING

from advisor.rules.config import RuleParams, RulesConfig
from advisor.rules.findings import RulesOutcome

if TYPE_CHECKING:
    from advisor.config import AdvisorConfig
    from advisor.facts import Facts

__all__ = ["RuleParams", "RulesConfig", "RulesOutcome", "check", "run"]


def check(cfg: RulesConfig) -> None:
    """Validate every rule file now (a bad file is a ConfigError before anything is measured)."""
    from advisor.rules import schema

    schema.load(cfg)


def run(facts: Facts, cfg: AdvisorConfig, run_dir: Path) -> RulesOutcome:
    """Evaluate the configured rules over ``facts`` and write the four outputs into ``run_dir``."""
    from advisor.rules import engine, outputs, schema

    rule_set = schema.load(cfg.rules)
    outcome = engine.evaluate(rule_set, facts, config=asdict(cfg), rules_cfg=cfg.rules)
    outputs.write(outcome, facts.cluster, facts.run.run_id, run_dir)
    return outcome
