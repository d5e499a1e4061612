"""What the rules concluded: the data shape of ``findings.json`` (read by the report, too).

``RulesOutcome.read(run_dir / "findings.json")`` gives the typed model back.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pydantic import ConfigDict, TypeAdapter, ValidationError

from advisor.errors import ConfigError, invalid_file, validation_problems
from advisor.plain import dumps_indented, to_plain

FINDINGS_SCHEMA_VERSION = 1
SEVERITY_ORDER = {"critical": 0, "warning": 1, "info": 2}
EMULATED_NOTE = (
    "EMULATED: drawn from figures measured on this host's CPUs standing in for the cluster; "
    "re-measure on the cluster before relying on it"
)
"""The mark every recommendation drawn from an emulated measurement carries."""


@dataclass(kw_only=True)
class Recommendation:
    """One thing a rule asks for."""

    kind: str
    """env (an environment variable), setting (a job setting) or advice (words)."""
    name: str
    """Variable or setting name; empty for advice."""
    value: Any = None
    """For env: the value as a string; for a setting: any JSON value; None when unset/advice."""
    unset: bool = False
    """For env: remove the variable."""
    why: str = ""
    """The reason (or, for advice, the advice itself)."""
    rule_id: str
    priority: int
    severity: str
    emulated: bool = False
    """Drawn from a figure measured on an emulated cluster: not advice for the real one until
    measured there."""


@dataclass(kw_only=True)
class Finding:
    """A rule whose condition held."""

    rule_id: str
    title: str
    category: str
    severity: str
    priority: int
    message: str
    reference: str
    evidence: dict[str, Any] = field(default_factory=dict)
    """Fact path → the value read (the paths the rule declares)."""
    missing_evidence: list[str] = field(default_factory=list)
    """Declared paths this run has no fact for."""
    recommendations: list[Recommendation] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    """Recommendations that could not be computed, and why."""
    source: str = ""
    """Rule file."""
    emulated: bool = False
    """Its recommendations come from figures measured on an emulated cluster."""
    items: list[str] = field(default_factory=list)
    """Every event the finding lists, one line each (the rule's ``items``), none left out."""


@dataclass(kw_only=True)
class NotEvaluated:
    """A rule that could not be decided: a fact it reads is missing, or its expression failed."""

    rule_id: str
    title: str
    category: str
    severity: str
    reason: str


@dataclass(kw_only=True)
class Skipped:
    """A rule that does not apply to this run (other backend or device, or its input — a stage or
    a kind of evidence — was not collected) or is disabled."""

    rule_id: str
    reason: str


@dataclass(kw_only=True)
class Conflict:
    """Rules recommending different values for one variable or setting; priority decided."""

    kind: str
    """env or setting."""
    name: str
    chosen: Recommendation
    overruled: list[Recommendation]
    resolution: str
    """How it was decided, in words."""


@dataclass(kw_only=True)
class Resolved:
    """The value that goes into recommended.env / settings.yaml after conflicts are resolved."""

    kind: str
    name: str
    value: Any = None
    unset: bool = False
    rule_ids: list[str] = field(default_factory=list)
    """Every rule asking for exactly this (the chosen one first)."""
    why: list[str] = field(default_factory=list)
    emulated: bool = False
    """The chosen value comes from a figure measured on an emulated cluster."""


@dataclass(kw_only=True)
class RulesOutcome:
    # A findings.json key that is no field here (renamed, misspelt) is an error, not dropped.
    __pydantic_config__ = ConfigDict(extra="forbid")

    schema_version: int = FINDINGS_SCHEMA_VERSION
    rule_files: list[str] = field(default_factory=list)
    findings: list[Finding] = field(default_factory=list)
    """Ordered by severity (critical first), then priority (highest first), then id."""
    not_evaluated: list[NotEvaluated] = field(default_factory=list)
    skipped: list[Skipped] = field(default_factory=list)
    passed: list[str] = field(default_factory=list)
    """Ids of rules evaluated whose condition did not hold."""
    conflicts: list[Conflict] = field(default_factory=list)
    env: list[Resolved] = field(default_factory=list)
    settings: list[Resolved] = field(default_factory=list)
    advice: list[Recommendation] = field(default_factory=list)

    def count(self, severity: str) -> int:
        return sum(1 for f in self.findings if f.severity == severity)

    @property
    def summary(self) -> dict[str, int]:
        return {
            "critical": self.count("critical"),
            "warning": self.count("warning"),
            "info": self.count("info"),
            "passed": len(self.passed),
            "not_evaluated": len(self.not_evaluated),
            "skipped": len(self.skipped),
            "conflicts": len(self.conflicts),
        }

    def to_dict(self) -> dict[str, Any]:
        return {**to_plain(self), "summary": self.summary}

    def write(self, path: Path) -> None:
        path.write_text(dumps_indented(self.to_dict(), default=str), encoding="utf-8")

    @classmethod
    def from_dict(cls, d: dict[str, Any], *, source: str = "findings") -> RulesOutcome:
        """The outcome from its JSON form (``summary`` is derived, so not read back); a
        ConfigError naming ``source`` and the path of every field that does not fit."""
        try:
            return _ADAPTER.validate_python({k: v for k, v in d.items() if k != "summary"})
        except ValidationError as e:
            raise invalid_file(
                validation_problems(source, e),
                f"Fix: {source} must be findings.json as the rule engine writes it: write it "
                "again with `advisor report RUN_DIR`.",
            ) from e

    @classmethod
    def read(cls, path: Path) -> RulesOutcome:
        """``findings.json`` at ``path``, validated (see ``from_dict``)."""
        try:
            d = json.loads(path.read_text(encoding="utf-8"))
        except ValueError as e:
            raise ConfigError(
                f"{path}: not JSON ({e}): write it again with `advisor report RUN_DIR`."
            ) from e
        if not isinstance(d, dict):
            raise ConfigError(
                f"{path}: not a findings object: write it again with `advisor report RUN_DIR`."
            )
        return cls.from_dict(d, source=str(path))


_ADAPTER = TypeAdapter(RulesOutcome)
