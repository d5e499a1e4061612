"""Hostile rules that would exhaust memory, time or the interpreter's stack are refused.

Every operator and filter that builds a string or a list is bounded (``MAX_BUILD`` per value,
``MAX_BUILT_TOTAL`` per expression or message); nesting is bounded (``MAX_NESTING``) before
Jinja's recursive parser runs, so a deep rule is a validation error naming file, rule, field and
the limit, in ``advisor rules validate`` and in ``advisor run`` alike. Each refusal is asserted
by its message; the time bounds are generous (the attacks took seconds and gigabytes before).
"""

from __future__ import annotations

import time
from pathlib import Path

import pytest

from advisor.errors import ConfigError
from advisor.rules import engine, sandbox, schema
from tests.conftest import run_advisor
from tests.rules_facts import patched

GENEROUS_S = 10.0
"""Far above what a refusal costs (milliseconds); the attacks ran for seconds to minutes."""


def _rule(condition: str, message: str = "fired") -> str:
    return (
        "rules:\n  - id: hostile\n    title: hostile rule\n    category: environment\n"
        f"    condition: {condition!r}\n    severity: critical\n    message: {message!r}\n"
        "    reference: test\n    evidence: [env]\n"
    )


def _outcome(tmp_path: Path, condition: str, message: str = "fired") -> tuple[str, str, float]:
    """(outcome, detail, seconds) of one rule over a small run's facts."""
    path = tmp_path / "hostile.yaml"
    path.write_text(_rule(condition, message))
    rule_set = schema.load_paths([path])
    facts, config, rules_cfg = patched({})
    started = time.monotonic()
    out = engine.evaluate(rule_set, facts, config=config, rules_cfg=rules_cfg)
    took_s = time.monotonic() - started
    if out.findings:
        return "finding", out.findings[0].message, took_s
    if out.not_evaluated:
        return "not_evaluated", out.not_evaluated[0].reason, took_s
    return "passed", "", took_s


BIG = "('x' * 999999)"
DOUBLING = "{% set a = " + BIG + " %}" + "{% set a = a ~ a %}" * 7 + "{{ a | length }}"

BUILDS = [
    # ``~`` built 128 MB in seconds before it was counted
    (f"({BIG} ~ {BIG}) | length > 0", "true", "'~' would build 1999998"),
    ("true", DOUBLING, "'~' would build 1999998"),
    (f"('y' ~ [{BIG}, {BIG}]) | length > 0", "true", "'~' would build"),
    # repeat, join, + of strings and lists
    ("('ab' * 600000) | length > 0", "true", "repeating a str 600000 times"),
    ("([1, 2] * 600000) | length > 0", "true", "repeating a list 600000 times"),
    (f"({BIG} + {BIG}) | length > 0", "true", "'+' of a str would build"),
    ("(range(1000) | list) * 1000 + [1] | length > 0", "true", "repeating a list 1000 times"),
    ("range(1000) | map('string') | join('x' * 2000) | length > 0", "true", "'join' would build"),
    # filters and functions that turn a value into text
    (f"[{BIG}, {BIG}] | string | length > 0", "true", "filter 'string' would build"),
    (f"[{BIG}, {BIG}] | upper | length > 0", "true", "filter 'upper' would build"),
    (f"[{BIG}, {BIG}] | tojson | length > 0", "true", "filter 'tojson' would build"),
    (f"[[{BIG}, {BIG}]] | map('string') | list | length > 0", "true", "filter 'string'"),
    (f"str([{BIG}, {BIG}]) | length > 0", "true", "str() would build"),
    ("(range(9) | list) | tojson(99999) | length > 0", "true", "tojson's indent is not allowed"),
    # a message's {{ }} of a list holding one big string many times
    ("true", "{% set a = [" + BIG + "] %}{{ [a, a, a] }}", "'{{ }}' output would build"),
    # numbers: a repeated product would double its digits each time
    ("((2 ** 64) ** 64) * ((2 ** 64) ** 64) > 0", "true", "over the sandbox limit of 8192 bits"),
    ("[(2 ** 64) ** 64] * 999 * 999 | length > 0", "true", "MAX_BUILD"),
    ("range(1001) | length > 0", "true", "over the sandbox limit of 1000 (MAX_SEQUENCE)"),
    # each build is small enough, but a loop repeats it: the expression's total is bounded
    (
        "true",
        "{% for i in range(1000) %}{% for j in range(1000) %}{{ ('x' * 999999) | length }}"
        "{% endfor %}{% endfor %}",
        "over the sandbox limit of 20000000 (MAX_BUILT_TOTAL)",
    ),
]


@pytest.mark.parametrize(("condition", "message", "why"), BUILDS)
def test_every_way_to_build_big_is_refused(
    tmp_path: Path, condition: str, message: str, why: str
) -> None:
    outcome, detail, took_s = _outcome(tmp_path, condition, message)
    assert outcome == "not_evaluated", detail
    assert detail.startswith("refused by the rule sandbox:") and why in detail, detail
    assert took_s < GENEROUS_S


def test_the_limits_are_named_in_the_refusal(tmp_path: Path) -> None:
    _, detail, _ = _outcome(tmp_path, f"({BIG} ~ {BIG}) | length > 0")
    assert f"over the sandbox limit of {sandbox.MAX_BUILD} (MAX_BUILD)" in detail


def test_builds_within_the_limits_still_work(tmp_path: Path) -> None:
    outcome, detail, _ = _outcome(
        tmp_path,
        "('x' * 1000 ~ 'y') | length == 1001 and (range(3) | join(',')) == '0,1,2'",
        "{{ 'a' ~ 1 ~ [2] }} {{ range(3) | list | tojson }} {{ str(12) ~ 'x' | upper }}",
    )
    assert (outcome, detail) == ("finding", "a1[2] [0, 1, 2] 12X")


def test_joining_lists_of_big_items_counts_the_items_not_their_contents(tmp_path: Path) -> None:
    # 2 x 600 items of 1,000 characters each: over MAX_BUILD in contents, 1,200 in items. A large
    # log's 8,000 NCCL WARN records joined so were refused, and that critical rule went
    # undecided; '+' shares the items, so only turning the result into text counts them.
    many = "([('x' * 1000)] * 600)"
    joined = f"({many} + {many})"
    assert _outcome(tmp_path, f"{joined} | length == 1200")[:2] == ("finding", "fired")
    outcome, detail, _ = _outcome(tmp_path, "true", "{{ " + joined + " }}")
    assert outcome == "not_evaluated" and "'{{ }}' output would build" in detail, detail


def test_joining_lists_past_the_item_limit_is_refused(tmp_path: Path) -> None:
    doubling = "{% set a = range(1000) | list %}" + "{% set a = a + a %}" * 12 + "{{ a | length }}"
    outcome, detail, _ = _outcome(tmp_path, "true", doubling)
    assert outcome == "not_evaluated" and "'+' of a list would build" in detail, detail


@pytest.mark.parametrize(
    "text", ["{{ 'x' | center(10**9) }}", "{{ 'x' | format(1) }}", "{{ 'x' | indent(10**9) }}",
             "{{ 'x' | wordwrap(5) }}", "{{ 'x' | replace('x', 'xx') }}"],
)  # fmt: skip
def test_string_building_filters_are_not_reachable(tmp_path: Path, text: str) -> None:
    (tmp_path / "hostile.yaml").write_text(_rule("true", text))
    with pytest.raises(ConfigError, match="field message: No filter named"):
        schema.load_paths([tmp_path / "hostile.yaml"])


@pytest.mark.parametrize("method", ["ljust(10**9)", "rjust(10**9)", "center(10**9)", "zfill(9)"])
def test_string_building_methods_are_refused(tmp_path: Path, method: str) -> None:
    outcome, detail, _ = _outcome(tmp_path, f"'x'.{method} != ''")
    assert outcome == "not_evaluated" and "is not allowed in rules" in detail, detail


DEEP = [
    ("(" * 80 + "1" + ")" * 80 + " > 0", "nested 80 deep"),
    ("[" * 40 + "1" + "]" * 40 + " is defined", "nested 40 deep"),
    ("not " * 300 + "false", "nested 300 deep"),
    ("- " * 300 + "1 < 0", "nested 300 deep"),
    ("1" + " + 1" * 500 + " > 0", "chains of operators or filters nest"),
    ("1" + " | abs" * 500 + " > 0", "chains of operators or filters nest"),
    ("true" + " and true" * 300, "chains of operators or filters nest"),
]


@pytest.mark.parametrize(("condition", "why"), DEEP)
def test_deep_nesting_is_a_validation_error(tmp_path: Path, condition: str, why: str) -> None:
    (tmp_path / "hostile.yaml").write_text(_rule(condition))
    with pytest.raises(ConfigError) as e:
        schema.load_paths([tmp_path / "hostile.yaml"])
    text = str(e.value)
    assert "hostile.yaml: rule hostile: field condition:" in text and why in text, text
    assert f"over the sandbox limit of {sandbox.MAX_NESTING} (MAX_NESTING)" in text


def test_deep_message_blocks_are_a_validation_error(tmp_path: Path) -> None:
    message = "{% if true %}" * 60 + "x" + "{% endif %}" * 60
    (tmp_path / "hostile.yaml").write_text(_rule("true", message))
    with pytest.raises(ConfigError, match=r"field message: nested 60 deep.*MAX_NESTING"):
        schema.load_paths([tmp_path / "hostile.yaml"])


def test_nesting_up_to_the_limit_compiles() -> None:
    depth = sandbox.MAX_NESTING
    expr = sandbox.compile_expression("(" * depth + "1" + ")" * depth)
    assert sandbox.evaluate(expr, {}) == 1
    # statements one after another do not nest, however many
    many = (
        "{% set a = 1 %}" * (3 * depth)
        + "{% if a %}{% for i in range(2) %}{{ i }}{% endfor %}{% endif %}" * depth
    )
    assert sandbox.render(sandbox.compile_template(many), {}) == "01" * depth


def test_deep_rule_in_validate_and_in_run_is_named_not_a_traceback(tmp_path: Path) -> None:
    rules_dir = tmp_path / "deep"
    rules_dir.mkdir()
    (rules_dir / "deep.yaml").write_text(_rule("(" * 80 + "1" + ")" * 80 + " > 0"))
    where = "deep.yaml: rule hostile: field condition: nested 80 deep"
    validated = run_advisor(["validate", str(rules_dir)], command="rules", timeout_s=120)
    assert validated.returncode == 2 and where in validated.stderr, validated.stderr
    assert "Traceback" not in validated.stderr and "RecursionError" not in validated.stderr
    ran = run_advisor(
        ["+cluster=2x2", "emulate=true", f"rules.dirs=[{rules_dir}]"],
        tmp_path / "run",
        timeout_s=120,
    )
    assert ran.returncode == 2 and where in ran.stderr, ran.stderr
    assert "Traceback" not in ran.stderr and "RecursionError" not in ran.stderr
    assert not (tmp_path / "run" / "facts.json").exists()
