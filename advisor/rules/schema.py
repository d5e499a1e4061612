"""Rule files: their schema, validation and loading.

A rule file is YAML with one key, ``rules``, a list of rules::

    rules:
      - id: hccl-rdma-tc
        title: HCCL_RDMA_TC must be a multiple of 4 in 0–255
        category: environment
        applies_to: {backends: [hccl]}
        let: {tc: "as_int(env.HCCL_RDMA_TC)"}
        condition: "'HCCL_RDMA_TC' in env and (tc is none or tc % 4 != 0 or not 0 <= tc <= 255)"
        severity: warning
        message: "HCCL_RDMA_TC={{ env.HCCL_RDMA_TC }} is not a multiple of 4 in 0–255"
        recommendations:
          - {env: HCCL_RDMA_TC, value: "132 if tc is none else clamp(round_down(tc, 4), 0, 252)"}
        priority: 50
        reference: "CANN HCCL environment variables: HCCL_RDMA_TC"
        evidence: [env.HCCL_RDMA_TC]

Every file is validated before any rule runs, and every error names the file, the rule id and
the field; all errors of all files are reported together as one ``ConfigError``.
"""

from __future__ import annotations

import difflib
import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

import yaml
from jinja2.exceptions import TemplateError
from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator, model_validator

from advisor.errors import ConfigError
from advisor.paths import conf_dir, missing_path, symlink_loop
from advisor.rules import sandbox
from advisor.rules.config import RulesConfig

CATEGORIES = (
    "connectivity",
    "timeouts",
    "subgroups",
    "topology",
    "bandwidth",
    "training",
    "environment",
)
BACKENDS = ("hccl", "nccl", "gloo")
DEVICES = ("npu", "cuda", "cpu")
CONTEXT_ROOTS = (
    "cluster", "run", "environment", "env", "stages", "evidence", "params", "config", "chip",
    "launches", "flight",
)  # fmt: skip
"""Names every rule sees besides each stage's data under the stage's name."""
LIVE_ROOTS = {
    "environment": "the jobs' environment (variables and the files they name)",
    "env": "the jobs' environment variables",
    "config": "the run's configuration (process-group and join time-outs)",
    "launches": "the launches of a live run",
}
"""Fact roots only a live run collects, with what each holds. An import has none of them (files
do not say which variables or time-outs the job ran with), so a rule whose expressions read one
does not apply to an import; which roots a rule reads is found in its expressions at load."""
ITEM_NAME = "item"
"""The name a rule's ``items.line`` template reads each listed event under."""

_ID = re.compile(r"^[a-z0-9][a-z0-9_.-]*$")
_ENV_NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")
_SETTING_NAME = re.compile(r"^[a-z_][a-z0-9_.]*$")
_PATH = re.compile(r"^[A-Za-z_][A-Za-z0-9_-]*(\.[A-Za-z0-9_*-]+|\[\d+\])*$")


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class AppliesTo(_Strict):
    """Backends and devices a rule applies to (empty: all). Matches the backend the job ran
    with or the one the declared device implies, so an emulated npu cluster gets hccl advice."""

    backends: list[Literal["hccl", "nccl", "gloo"]] = Field(default_factory=list)
    devices: list[Literal["npu", "cuda", "cpu"]] = Field(default_factory=list)
    emulated: bool | None = None
    """false: only on a real cluster. A rule that judges measured performance (bandwidth,
    throughput, efficiency, communication share) does not apply to an emulated run, whose figures
    are this host's CPUs, not the cluster's; null: every run."""


class RecommendationSpec(_Strict):
    """One recommendation: an environment variable, a job setting, or advice in words."""

    env: str | None = None
    """Environment variable to set (``value``) or unset (``unset: true``)."""
    setting: str | None = None
    """Job setting written to settings.yaml (batch_size, precision, comm_hook, bucket_cap_mb ...)."""
    advice: str | None = None
    """Advice in words (a message template), for what no variable or setting expresses."""
    value: str | None = None
    """Expression computing the value from facts (for env and setting)."""
    unset: bool = False
    """For env: recommend removing the variable."""
    why: str = ""
    """Why (a message template); defaults to the rule's title."""
    when: str | None = None
    """Expression: recommend this only when it holds (e.g. only when the value is valid)."""

    @model_validator(mode="after")
    def _one_kind(self) -> RecommendationSpec:
        kinds = [k for k in ("env", "setting", "advice") if getattr(self, k) is not None]
        if len(kinds) != 1:
            raise ValueError("give exactly one of env, setting, advice")
        if self.env is not None:
            if not _ENV_NAME.match(self.env):
                raise ValueError(f"env {self.env!r} is not an environment variable name")
            if (self.value is None) == (not self.unset):
                raise ValueError(f"env {self.env}: give either value or unset: true")
        if self.setting is not None:
            if not _SETTING_NAME.match(self.setting):
                raise ValueError(f"setting {self.setting!r} must be lower_snake_case")
            if self.value is None or self.unset:
                raise ValueError(f"setting {self.setting}: give a value (and no unset)")
        if self.advice is not None and (self.value is not None or self.unset):
            raise ValueError("advice takes no value or unset")
        return self

    @property
    def kind(self) -> str:
        return (
            "env" if self.env is not None else "setting" if self.setting is not None else "advice"
        )

    @property
    def name(self) -> str:
        return self.env or self.setting or ""


class ItemsSpec(_Strict):
    """A finding's list of events: an expression giving the list, a template for one line."""

    each: str = Field(min_length=1)
    """Expression: the list (e.g. ``hits``, a ``let`` name)."""
    line: str = Field(min_length=1)
    """Template of one item's line; the item is ``item`` (``Rank {{ item.rank }} ...``)."""


class RuleSpec(_Strict):
    """A rule as written in a rule file."""

    id: str
    title: str = Field(min_length=1)
    category: Literal[
        "connectivity", "timeouts", "subgroups", "topology", "bandwidth", "training", "environment"
    ]
    applies_to: AppliesTo = Field(default_factory=AppliesTo)
    let: dict[str, str] = Field(default_factory=dict)
    """Named values computed in order before the condition (usable in everything after)."""
    condition: str = Field(min_length=1)
    severity: Literal["critical", "warning", "info"]
    message: str = Field(min_length=1)
    recommendations: list[RecommendationSpec] = Field(default_factory=list)
    priority: int = Field(default=50, ge=0, le=100)
    """Decides between rules recommending different values for one variable or setting."""
    reference: str = Field(min_length=1)
    evidence: list[str] = Field(min_length=1)
    """Fact paths the rule reads, recorded with their values in each finding."""
    measured: bool = False
    """The rule's recommendations come from measured performance (the sweep's fastest setting,
    the benchmark's fastest algorithm): on an emulated run they are marked as emulated in
    findings.json, recommended.env, launch.sh, settings.yaml and the report."""
    items: ItemsSpec | None = None
    """The events a finding lists, every one of them (the report folds a long list, never cuts
    it): the message says what they mean, the items say where each one is."""

    @field_validator("id")
    @classmethod
    def _id(cls, v: str) -> str:
        if not _ID.match(v):
            raise ValueError(f"{v!r} must be lower-case letters, digits, '-', '_' or '.'")
        return v

    @field_validator("let")
    @classmethod
    def _let(cls, v: dict[str, str]) -> dict[str, str]:
        for name in v:
            if not name.isidentifier() or name.startswith("_"):
                raise ValueError(f"let name {name!r} must be an identifier not starting with _")
            if name in CONTEXT_ROOTS:
                raise ValueError(f"let name {name!r} would hide the fact root of that name")
        return v

    @field_validator("evidence")
    @classmethod
    def _evidence(cls, v: list[str]) -> list[str]:
        for path in v:
            if not _PATH.match(path):
                raise ValueError(f"evidence path {path!r} must be dotted names like env.HCCL_X")
        return v


@dataclass(kw_only=True)
class CompiledRecommendation:
    spec: RecommendationSpec
    value: Callable[..., Any] | None
    """Compiled value expression (None for unset and advice)."""
    text: Any
    """Compiled why (or advice) template."""
    when: Callable[..., Any] | None = None


@dataclass(kw_only=True)
class Rule:
    """A validated rule with its expressions compiled in the sandbox."""

    spec: RuleSpec
    source: str
    """File it came from."""
    severity: str
    """The rule's severity after ``rules.severity`` overrides."""
    let: dict[str, Callable[..., Any]]
    condition: Callable[..., Any]
    message: Any
    recommendations: list[CompiledRecommendation] = field(default_factory=list)
    reads: frozenset[str] = frozenset()
    """Names the rule's expressions and templates read besides its ``let`` names: the fact roots
    and stages it needs (an import lacks LIVE_ROOTS)."""
    items_each: Callable[..., Any] | None = None
    items_line: Any = None
    """Compiled ``items`` (None when the rule lists no events)."""
    needs: frozenset[str] = frozenset()
    """What deciding the finding reads: the names its condition, message and items read,
    through the ``let`` names they use (a recommendation's own reads are not among them: a
    recommendation that cannot be computed is left out with a note, the finding stays)."""

    @property
    def live_roots(self) -> list[str]:
        """The LIVE_ROOTS deciding this rule needs (an import cannot give them)."""
        return sorted(self.needs & set(LIVE_ROOTS))

    @property
    def id(self) -> str:
        return self.spec.id


@dataclass(kw_only=True)
class RuleSet:
    rules: list[Rule]
    files: list[str]
    disabled: list[str] = field(default_factory=list)

    def get(self, rule_id: str) -> Rule:
        for r in self.rules:
            if r.id == rule_id:
                return r
        ids = [r.id for r in self.rules]
        close = difflib.get_close_matches(rule_id, ids, n=1)
        hint = f" (did you mean {close[0]!r}?)" if close else ""
        raise ConfigError(f"no rule {rule_id!r}{hint}; `advisor rules list` shows them all.")


def builtin_dir() -> Path:
    return conf_dir() / "rules"


def rule_files(paths: Iterable[Path]) -> list[Path]:
    """Files named by ``paths`` (a directory contributes its ``*.yaml`` and ``*.yml``, sorted)."""
    out: list[Path] = []
    for p in paths:
        if p.is_dir():
            out += sorted([*p.glob("*.yaml"), *p.glob("*.yml")])
        elif p.is_file():
            out.append(p)
        else:
            raise ConfigError(missing_path(p, "rule path", "give a rule file or directory."))
    return out


def _compile(
    rule_id: str, where: str, fieldname: str, source: str, kind: str, errors: list[str]
) -> Any:
    try:
        if kind == "expression":
            return sandbox.compile_expression(source)
        return sandbox.compile_template(source)
    except (TemplateError, ValueError) as e:
        errors.append(f"{where}: rule {rule_id}: field {fieldname}: {_first_line(e)}")
        return None


def _first_line(e: Exception) -> str:
    text = str(e).strip() or type(e).__name__
    return text.splitlines()[0] if isinstance(e, TemplateError) else text


def compile_rule(
    spec: RuleSpec, where: str, errors: list[str], severity: str | None = None
) -> Rule | None:
    """Compile a validated spec; appends problems to ``errors`` and returns None on any."""
    before = len(errors)
    let = {
        name: _compile(spec.id, where, f"let.{name}", expr, "expression", errors)
        for name, expr in spec.let.items()
    }
    condition = _compile(spec.id, where, "condition", spec.condition, "expression", errors)
    message = _compile(spec.id, where, "message", spec.message, "template", errors)
    recs = []
    for i, rec in enumerate(spec.recommendations):
        prefix = f"recommendations[{i}]"
        value = (
            _compile(spec.id, where, f"{prefix}.value", rec.value, "expression", errors)
            if rec.value is not None
            else None
        )
        text = rec.advice if rec.advice is not None else (rec.why or spec.title)
        field_name = "advice" if rec.advice is not None else "why"
        template = _compile(spec.id, where, f"{prefix}.{field_name}", text, "template", errors)
        when = (
            _compile(spec.id, where, f"{prefix}.when", rec.when, "expression", errors)
            if rec.when is not None
            else None
        )
        recs.append(CompiledRecommendation(spec=rec, value=value, text=template, when=when))
    items_each = items_line = None
    if spec.items is not None:
        items_each = _compile(spec.id, where, "items.each", spec.items.each, "expression", errors)
        items_line = _compile(spec.id, where, "items.line", spec.items.line, "template", errors)
    if len(errors) > before:
        return None
    reads = _reads(spec)
    return Rule(
        spec=spec,
        source=where,
        severity=severity or spec.severity,
        let=let,
        condition=condition,
        message=message,
        recommendations=recs,
        reads=frozenset(reads),
        items_each=items_each,
        items_line=items_line,
        needs=frozenset(_needs(spec)),
    )


def _needs(spec: RuleSpec) -> set[str]:
    """The names the condition, message and items read, through the let names they use."""
    let_reads = {
        name: sandbox.names_read(sandbox.parse_expression(e)) for name, e in spec.let.items()
    }
    todo = [
        *sandbox.names_read(sandbox.parse_expression(spec.condition)),
        *sandbox.names_read(sandbox.parse_template(spec.message)),
    ]
    if spec.items is not None:
        todo += sandbox.names_read(sandbox.parse_expression(spec.items.each))
        todo += sandbox.names_read(sandbox.parse_template(spec.items.line)) - {ITEM_NAME}
    seen: set[str] = set()
    while todo:
        name = todo.pop()
        if name not in seen:
            seen.add(name)
            todo += let_reads.get(name, ())
    return seen - set(spec.let)


def _reads(spec: RuleSpec) -> set[str]:
    """Every name the rule's expressions and templates read, less its own ``let`` names (and
    ``item`` in its items' line)."""
    expressions = [*spec.let.values(), spec.condition]
    templates = [spec.message]
    for rec in spec.recommendations:
        expressions += [e for e in (rec.value, rec.when) if e is not None]
        templates.append(rec.advice if rec.advice is not None else rec.why)
    names: set[str] = set()
    for e in expressions:
        names |= sandbox.names_read(sandbox.parse_expression(e))
    for t in templates:
        names |= sandbox.names_read(sandbox.parse_template(t))
    if spec.items is not None:
        names |= sandbox.names_read(sandbox.parse_expression(spec.items.each))
        names |= sandbox.names_read(sandbox.parse_template(spec.items.line)) - {ITEM_NAME}
    return names - set(spec.let)


_SafeLoader: type[yaml.SafeLoader] = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
"""libyaml's safe loader where PyYAML was built with it (several times faster), else PyYAML's."""


class _UniqueKeyLoader(_SafeLoader):  # type: ignore[valid-type,misc]
    """YAML's safe loader, refusing a key given twice in one mapping: PyYAML keeps the last one
    silently, so a rule with two ``applies_to`` lines would lose the first without a word."""

    def construct_mapping(self, node: yaml.MappingNode, deep: bool = False) -> dict[Any, Any]:
        seen: set[Any] = set()
        for key_node, _ in node.value:
            key = self.construct_object(key_node, deep=deep)
            if key in seen:
                raise yaml.constructor.ConstructorError(
                    None, None, f"key {key!r} appears twice in one mapping", key_node.start_mark
                )
            seen.add(key)
        return super().construct_mapping(node, deep=deep)


def _load_file(path: Path, errors: list[str]) -> list[tuple[RuleSpec, str]]:
    where = str(path)
    try:
        doc = yaml.load(path.read_text(encoding="utf-8"), Loader=_UniqueKeyLoader)  # noqa: S506
    except yaml.YAMLError as e:
        mark = getattr(e, "problem_mark", None)
        at = f" at line {mark.line + 1}, column {mark.column + 1}" if mark else ""
        errors.append(f"{where}: not valid YAML{at}: {getattr(e, 'problem', None) or e}")
        return []
    except OSError as e:
        loop = symlink_loop(path)
        why = f"a symbolic link loop ({loop} leads back to itself)" if loop else str(e)
        errors.append(f"{where}: cannot read: {why}")
        return []
    if not isinstance(doc, dict) or not isinstance(doc.get("rules"), list):
        errors.append(f"{where}: a rule file is a mapping with a 'rules' list (rules: [- id: ...])")
        return []
    extra = sorted(set(doc) - {"rules"})
    if extra:
        errors.append(f"{where}: unknown top-level keys {extra}; only 'rules' is allowed")
    out = []
    for i, raw in enumerate(doc["rules"]):
        rule_id = raw.get("id") if isinstance(raw, dict) else None
        label = rule_id if isinstance(rule_id, str) else f"#{i + 1} (no id)"
        if not isinstance(raw, dict):
            errors.append(f"{where}: rule {label}: each rule is a mapping of fields")
            continue
        try:
            out.append((RuleSpec.model_validate(raw), where))
        except ValidationError as e:
            for err in e.errors():
                loc = ".".join(str(p) for p in err["loc"]) or "(rule)"
                msg = err["msg"]
                if err["type"] == "extra_forbidden":
                    msg = "unknown field" + _suggest(
                        str(err["loc"][-1]), list(RuleSpec.model_fields)
                    )
                elif err["type"] == "missing":
                    msg = "required field is missing"
                elif err["type"] == "literal_error":
                    msg = f"{err['input']!r} is not allowed: {msg}"
                errors.append(f"{where}: rule {label}: field {loc}: {msg}")
    return out


def _suggest(word: str, options: list[str]) -> str:
    close = difflib.get_close_matches(word, options, n=1)
    return f" (did you mean {close[0]!r}?)" if close else ""


def load_paths(
    paths: Iterable[Path],
    *,
    severity: dict[str, str] | None = None,
    disabled: Iterable[str] = (),
) -> RuleSet:
    """Validate and compile every rule in ``paths``; one ConfigError lists all problems."""
    errors: list[str] = []
    files = rule_files(paths)
    specs: list[tuple[RuleSpec, str]] = []
    for path in files:
        specs += _load_file(path, errors)
    seen: dict[str, str] = {}
    for spec, where in specs:
        if spec.id in seen:
            errors.append(
                f"{where}: rule {spec.id}: field id: duplicate id, also in {seen[spec.id]}"
            )
        seen.setdefault(spec.id, where)
    severity = severity or {}
    for rule_id in [*severity, *disabled]:
        if rule_id not in seen:
            errors.append(
                f"rules config names rule {rule_id!r}, which no rule file defines"
                f"{_suggest(rule_id, list(seen))}"
            )
    rules = []
    for spec, where in specs:
        rule = compile_rule(spec, where, errors, severity.get(spec.id))
        if rule is not None:
            rules.append(rule)
    if errors:
        raise ConfigError(f"{len(errors)} problem(s) in rule files:\n  " + "\n  ".join(errors))
    off = set(disabled)
    return RuleSet(
        rules=[r for r in rules if r.id not in off],
        files=[str(f) for f in files],
        disabled=sorted(off),
    )


_LOADED: dict[tuple[Any, ...], RuleSet] = {}
"""Rule sets already compiled in this process, by their files' stamps and the config: a run
checks its rules before measuring and applies them after, and compiling the built-in rules
costs about a second each time."""


def load(cfg: RulesConfig) -> RuleSet:
    """The built-in rules (unless switched off) and the config's extra directories; the set
    compiled before in this process while none of its files changed."""
    paths = [builtin_dir()] if cfg.builtin else []
    paths += [Path(d).expanduser() for d in cfg.dirs]
    try:
        stats = [(f, f.stat()) for f in rule_files(paths)]
        stamps = tuple((str(f), st.st_mtime_ns, st.st_size) for f, st in stats)
    except (OSError, ConfigError):
        stamps = None  # load_paths names the problem
    key = (stamps, tuple(sorted(cfg.severity.items())), tuple(sorted(cfg.disabled)))
    if stamps is not None and key in _LOADED:
        return _LOADED[key]
    rule_set = load_paths(paths, severity=cfg.severity, disabled=cfg.disabled)
    if stamps is not None:
        _LOADED[key] = rule_set
    return rule_set
