"""Hostile rules cannot run code, read files or exhaust the host; missing facts never pass.

Two lines of defence are tested: rule files that show the attack in their text are rejected
when validated (ConfigError naming file, rule and field), and attacks that only appear at run
time (names built from strings, huge numbers) are refused by the sandbox, which reports the
rule as not evaluated with the reason.
"""

from __future__ import annotations

import json
import textwrap
from pathlib import Path
from typing import Any

import pytest
from jinja2.exceptions import SecurityError

from advisor.errors import ConfigError
from advisor.rules import engine, sandbox, schema
from tests.rules_facts import patched

SECRET = "s3cret-canary-7f1e"


def _rule(condition: str, message: str = "fired", **extra: str) -> str:
    lines = [
        "rules:",
        "  - id: hostile",
        "    title: hostile rule",
        "    category: environment",
        f"    condition: {condition!r}",
        "    severity: critical",
        f"    message: {message!r}",
        "    reference: test",
        "    evidence: [env]",
    ]
    for key, value in extra.items():
        lines.append(f"    {key}: {value}")
    return "\n".join(lines) + "\n"


def _load(tmp_path: Path, text: str) -> schema.RuleSet:
    path = tmp_path / "hostile.yaml"
    path.write_text(text)
    return schema.load_paths([path])


def _run(tmp_path: Path, condition: str, message: str = "fired") -> tuple[str, str]:
    """(outcome, detail): outcome is finding, passed or not_evaluated."""
    rule_set = _load(tmp_path, _rule(condition, message))
    facts, config, rules_cfg = patched({"env.SECRET_PATH": str(tmp_path / "secret.txt")})
    (tmp_path / "secret.txt").write_text(SECRET)
    out = engine.evaluate(rule_set, facts, config=config, rules_cfg=rules_cfg)
    if out.findings:
        return "finding", out.findings[0].message
    if out.not_evaluated:
        return "not_evaluated", out.not_evaluated[0].reason
    return "passed", ""


# Attacks visible in the rule's text: the rule file is rejected before anything runs.
STATIC_ATTACKS = [
    "().__class__.__mro__[1].__subclasses__()",
    "cycler.__init__.__globals__.os.system('id')",
    "lipsum.__globals__['os'].popen('id').read()",
    "self._TemplateReference__context",
    "config.__class__.__init__.__globals__",
    "joiner()",
    "namespace()",
    "open(env.SECRET_PATH).read()",
    "__import__('os').system('id')",
    "'{0.__class__}' | format(env)",
    "env | attr('__class__')",
    "dict(a=1)",
    "getattr(env, 'items')",
    "env.items.__self__ is defined",
]


@pytest.mark.parametrize("condition", STATIC_ATTACKS)
def test_visible_attacks_are_rejected_at_validation(tmp_path: Path, condition: str) -> None:
    with pytest.raises(ConfigError) as e:
        _load(tmp_path, _rule(condition))
    text = str(e.value)
    assert "hostile.yaml" in text and "rule hostile" in text and "field condition" in text


@pytest.mark.parametrize(
    "message",
    [
        "{% include env.SECRET_PATH %}",
        "{% import 'os' as os %}",
        "{% extends '/etc/passwd' %}",
        "{% macro m() %}x{% endmacro %}",
        "{{ self.__class__ }}",
        "{{ ''.__class__.__mro__ }}",
    ],
)
def test_template_attacks_are_rejected_at_validation(tmp_path: Path, message: str) -> None:
    with pytest.raises(ConfigError, match="field message"):
        _load(tmp_path, _rule("true", message))


# Attacks that only show at run time: refused by the sandbox, reported as not evaluated.
RUNTIME_ATTACKS = [
    ("env['__cla' ~ 'ss__']", "private attribute"),
    ("cluster['__init__']", "private attribute"),
    ("range(10**10) | length > 0", "over the sandbox limit"),
    ("range(1001) | length > 0", "over the sandbox limit"),
    ("10 ** 1000 > 1", "over the sandbox limit"),
    ("(10 ** 60) ** 60 > 1", "over the sandbox limit"),
    ("('x' * 100000000) | length > 0", "over the sandbox limit"),
    ("(('x' * 1000) * 1001) | length > 0", "over the sandbox limit"),
    ("([1] * 100000000) | length > 0", "over the sandbox limit"),
    ("'{0.__class__.__init__.__globals__}'.format(env) != ''", "not allowed"),
    ("'%s' % env != ''", "not allowed"),
    ("'x'.ljust(1000000000) != ''", "not allowed"),
    ("env.update({'A': '1'}) is none", "not allowed"),
    ("env.pop('SECRET_PATH') != ''", "not allowed"),
    ("env.SECRET_PATH.encode('utf-8') != ''", "not allowed"),
    ("cluster.hosts.append('x') is none", "not allowed"),
    ("([range(1000) | list] * 1001) | length > 0", "over the sandbox limit"),
    ("(['x' * 10000] * 10000) | join | length > 0", "over the sandbox limit"),
    ("(['x' * 1000] * 1000) + (['x' * 1000] * 1000) | length > 0", "over the sandbox limit"),
]


@pytest.mark.parametrize(("condition", "why"), RUNTIME_ATTACKS)
def test_runtime_attacks_are_refused(tmp_path: Path, condition: str, why: str) -> None:
    outcome, detail = _run(tmp_path, condition)
    assert outcome == "not_evaluated", detail
    assert "refused by the rule sandbox" in detail and why in detail
    assert SECRET not in detail


@pytest.mark.parametrize(
    "message",
    [
        "{% for i in range(999) %}{% for j in range(999) %}{% for k in range(999) %}"
        "{% endfor %}{% endfor %}{% endfor %}",
        "{{ 'x' | sum(start=[]) }}",
    ],
)
def test_costly_templates_are_rejected_at_validation(tmp_path: Path, message: str) -> None:
    with pytest.raises(ConfigError, match="field message"):
        _load(tmp_path, _rule("true", message))


def test_long_messages_stop_early_and_are_cut(tmp_path: Path) -> None:
    message = "{% for i in range(1000) %}{{ range(1000) | join(',') }}{% endfor %}"
    outcome, detail = _run(tmp_path, "true", message)
    assert outcome == "finding" and len(detail) <= sandbox.MAX_MESSAGE_CHARS + 2


def test_secret_file_is_never_read(tmp_path: Path) -> None:
    outcome, detail = _run(tmp_path, "true", "{{ env.SECRET_PATH }} {{ env.SECRET_PATH | string }}")
    assert outcome == "finding"
    assert str(tmp_path / "secret.txt") in detail and SECRET not in detail


def test_facts_cannot_be_modified_by_a_rule(tmp_path: Path) -> None:
    outcome, _ = _run(tmp_path, "cluster.hosts.pop() == 'x'")
    assert outcome == "not_evaluated"


@pytest.mark.parametrize(
    "condition",
    [
        "timeouts_x.init_s.max > 5",
        "not (timeouts_x.init_s.max > 5)",
        "timeouts_x.hang",
        "timeouts_x.hang is none",
        "timeouts_x.hang is not none",
        "env.NOT_SET == '1'",
        "env.NOT_SET != '1'",
        "'a' in env.NOT_SET",
        "env.NOT_SET | length == 0",
        "env.NOT_SET | int == 0",
        "env.NOT_SET | lower == ''",
        "max(env.NOT_SET, 1) > 0",
        "as_int(env.NOT_SET) is none",
        "cluster.links.inter.no_such_field > 0",
        "smoke.no_such_field is sameas false",
    ],
)
def test_missing_facts_are_not_evaluated_never_passed(tmp_path: Path, condition: str) -> None:
    outcome, detail = _run(tmp_path, condition)
    assert outcome == "not_evaluated"
    assert detail.startswith("missing fact:"), detail


def test_missing_fact_reason_names_the_path(tmp_path: Path) -> None:
    assert _run(tmp_path, "cluster.links.inter.speed > 0")[1] == (
        "missing fact: fact 'cluster.links.inter.speed' is missing"
    )
    assert "no stage 'timeouts_x' in this run" in _run(tmp_path, "timeouts_x.init_s.max > 1")[1]


def test_defined_and_get_are_the_explicit_ways_to_ask(tmp_path: Path) -> None:
    assert _run(tmp_path, "timeouts_x is defined")[0] == "passed"
    assert _run(tmp_path, "env.get('NOT_SET') is none")[0] == "finding"
    assert _run(tmp_path, "'NOT_SET' in env")[0] == "passed"
    assert _run(tmp_path, "env.NOT_SET | default('x') == 'x'")[0] == "finding"


def test_whitelisted_functions_work() -> None:
    ctx = engine.build_context(patched({})[0])
    cases = {
        "percentile([1, 2, 3, 4], 50)": 2.5,
        "median(smoke.init_s)": 1.5,
        "max(smoke.init_s)": 2.0,
        "min(3, 1, 2)": 1,
        "ceil(2.1) + floor(2.9)": 5,
        "round_up(1800, 68)": 1836,
        "clamp(9000, 120, 7200)": 7200,
        "as_int('12a') is none and as_int(' 42 ') == 42": True,
        "where_below({'a': 0.5, 'b': 0.9}, 0.75)": {"a": 0.5},
        "hccl_algo_errors('level0:NA;level1:ring')": [],
        "hccl_algo_level1('allreduce=level0:NA;level1:NB/allgather=level0:NA;level1:ring')": "NB",
        "nccl_algo_errors('^NVLS,Tree')": [],
        "sorted([3, 1, 2])": [1, 2, 3],
        "any([false, true]) and all([true])": True,
        "flatten([[1, 2], [3], 4])": [1, 2, 3, 4],
        "((range(3) | list) * 2) + [7]": [0, 1, 2, 0, 1, 2, 7],
        "['a', 'b'] | join('-')": "a-b",
    }
    for expr, expected in cases.items():
        assert sandbox.evaluate(sandbox.compile_expression(expr), ctx) == expected, expr


def test_sandbox_refuses_dunder_access_directly() -> None:
    with pytest.raises(SecurityError):
        sandbox.evaluate(sandbox.SANDBOX.compile_expression("x['__class__']"), {"x": {}})


def test_require_gives_a_reason(tmp_path: Path) -> None:
    outcome, detail = _run(
        tmp_path, "require(cluster.links.inter.nominal_gbps * 0, 'declare it') > 1"
    )
    assert (outcome, detail) == ("not_evaluated", "missing fact: declare it")


def test_rule_yaml_example_in_schema_docstring_is_valid(tmp_path: Path) -> None:
    doc = schema.__doc__ or ""
    example = doc[doc.index("    rules:\n") : doc.index("Every file")]
    path = tmp_path / "example.yaml"
    path.write_text(textwrap.dedent(example))
    assert [r.id for r in schema.load_paths([path]).rules] == ["hccl-rdma-tc"]


@pytest.mark.parametrize(
    ("condition", "why"),
    [
        ("sweep.best.throughput.samples_per_s > 0", "needs stage 'sweep'"),
        ("sweep is defined and sweep.trials | length > 0", None),  # asks first: passes
        ("evidence.failures | length > 0", "needs imported evidence"),
    ],
)
def test_inputs_the_run_did_not_collect_make_a_rule_not_apply(
    tmp_path: Path, condition: str, why: str | None
) -> None:
    """A stage this run left out, or evidence it never imported, is not a missing fact: the rule
    does not apply (listed with the reason) instead of being reported as failing to evaluate."""
    rule_set = _load(tmp_path, _rule(condition))
    facts, config, rules_cfg = patched({})
    del facts.stages["sweep"]
    facts.evidence = None
    out = engine.evaluate(rule_set, facts, config=config, rules_cfg=rules_cfg)
    assert not out.findings and not out.not_evaluated
    if why is None:
        assert out.passed == ["hostile"]
    else:
        (skipped,) = out.skipped
        assert skipped.rule_id == "hostile" and why in skipped.reason, skipped
    # A stage that ran but lacks the field is still a missing fact, and so is a misspelt stage.
    assert _run(tmp_path, "sweep.no_such_field > 0")[0] == "not_evaluated"
    assert _run(tmp_path, "swep.best > 0")[0] == "not_evaluated"


def test_the_facts_are_wrapped_as_their_json_form() -> None:
    # wrap_json skips the JSON round trip for plain data (an import's events) and takes it for
    # anything JSON would change: the rules see the same values and paths either way
    data = {
        "plain": {"a": [1, 2.5, None, True, "x"], "b": {}},
        "tuple": (1, (2, 3)),
        "keys": {2: "int", 2.5: "float", True: "bool", None: "none"},
        "path": Path("/x/y"),
        "set": [{"v": {3}}],
    }
    fast = sandbox.wrap_json(data, "")
    slow = sandbox.wrap(json.loads(json.dumps(data, default=str)), "")
    assert fast == slow

    def paths(value: Any) -> list[str]:
        if isinstance(value, dict):
            return [value.path, *(p for v in value.values() for p in paths(v))]
        if isinstance(value, list):
            return [value.path, *(p for v in value for p in paths(v))]
        return []

    assert paths(fast) == paths(slow)
    assert "tuple[1]" in paths(fast) and "plain.a" in paths(fast)


_EVENTS = [
    {"kind": "a", "rank": 0, "ip": None},
    {"kind": "b", "rank": 1, "ip": "10.0.0.2"},
    {"kind": "a", "rank": 2, "ip": "10.0.0.3"},
]


@pytest.mark.parametrize(
    "expr",
    [
        "xs | selectattr('kind', 'equalto', 'a') | map(attribute='rank') | list",
        "xs | selectattr('kind', '==', 'b') | map(attribute='rank') | list",
        "xs | rejectattr('kind', 'eq', 'a') | map(attribute='rank') | list",
        "xs | selectattr('ip', 'ne', none) | map(attribute='rank') | list",
        "xs | rejectattr('ip', 'none') | map(attribute='rank') | list",
        "xs | selectattr('ip') | map(attribute='rank') | list",
        "xs | selectattr('rank', 'in', [0, 2]) | map(attribute='rank') | list",
        "xs | selectattr('ip', 'defined') | map(attribute='rank') | list",
        "xs | selectattr('rank', 'gt', 0) | map(attribute='rank') | list",
    ],
)
def test_fast_attribute_filters_answer_as_jinjas(expr: str) -> None:
    # the sandbox's selectattr/rejectattr take a shortcut over lists of dicts; Jinja's own
    # (a plain environment) must give the same answer
    from jinja2 import Environment

    fast = sandbox.evaluate(sandbox.compile_expression(expr), {"xs": _EVENTS})
    plain = Environment().compile_expression(expr)(xs=_EVENTS)
    assert fast == plain


def test_fast_attribute_filter_still_fails_on_a_missing_attribute() -> None:
    # an item without the attribute: the strict test raises as before, not a silent False
    expr = sandbox.compile_expression("xs | selectattr('port', 'equalto', 1) | list")
    with pytest.raises(Exception, match="port"):
        sandbox.evaluate(expr, {"xs": _EVENTS})
