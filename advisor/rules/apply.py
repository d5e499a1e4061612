"""The configured rules over a run: checked before anything is measured, applied after."""

from __future__ import annotations

from dataclasses import asdict
from pathlib import Path
from typing import TYPE_CHECKING, Any

from advisor.rules import engine, outputs, schema
from advisor.rules.config import RulesConfig
from advisor.rules.findings import RulesOutcome
from advisor.tuner import outputs as tuner_outputs

if TYPE_CHECKING:
    from advisor.config import AdvisorConfig
    from advisor.facts import Facts


def check(cfg: RulesConfig) -> None:
    """Validate every rule file now (a bad file is a ConfigError before anything is measured)."""
    schema.load(cfg)


def run(
    facts: Facts, cfg: AdvisorConfig, run_dir: Path, data: dict[str, Any] | None = None
) -> RulesOutcome:
    """Evaluate the configured rules over ``facts`` and write the four outputs into ``run_dir``.

    ``data``: ``facts.to_dict()`` when the caller has it (the rules read that form)."""
    rule_set = schema.load(cfg.rules)
    over = facts if data is None else data
    outcome = engine.evaluate(rule_set, over, config=asdict(cfg), rules_cfg=cfg.rules)
    outputs.write(outcome, facts.cluster, facts.run.run_id, run_dir)
    tuner_outputs.write(facts, run_dir)
    return outcome
