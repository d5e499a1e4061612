"""Rule files are validated with errors naming file, rule and field; conflicts are resolved by
priority and recorded; the outputs are safe to source and run."""

from __future__ import annotations

import dataclasses
import json
import os
import subprocess
from pathlib import Path
from typing import Any

import pytest
import yaml

from advisor.errors import ConfigError
from advisor.rules import engine, outputs, sandbox, schema
from advisor.rules.config import RuleParams, RulesConfig
from advisor.rules.findings import RulesOutcome
from advisor.stages import STAGE_MODULES
from advisor.verdict import NOT_READY, READY, WARNINGS, verdict
from tests.rules_facts import patched

GOOD = {
    "id": "good",
    "title": "a good rule",
    "category": "environment",
    "condition": "env.get('A') == '1'",
    "severity": "warning",
    "message": "A={{ env.A }}",
    "recommendations": [{"env": "A", "value": "'2'"}],
    "reference": "test",
    "evidence": ["env.A"],
}


def _write(tmp_path: Path, name: str, rules: Any) -> Path:
    path = tmp_path / name
    path.write_text(rules if isinstance(rules, str) else yaml.safe_dump({"rules": rules}))
    return path


def _errors(tmp_path: Path, *docs: tuple[str, Any]) -> str:
    paths = [_write(tmp_path, name, doc) for name, doc in docs]
    with pytest.raises(ConfigError) as e:
        schema.load_paths(paths)
    return str(e.value)


@pytest.mark.parametrize(
    ("change", "expected"),
    [
        ({"severity": "fatal"}, "rule good: field severity: 'fatal' is not allowed"),
        ({"category": "misc"}, "rule good: field category"),
        ({"condition": "env.A ==="}, "rule good: field condition:"),
        ({"condition": "env.A == 1 1"}, "rule good: field condition:"),
        ({"message": "{{ env.A "}, "rule good: field message:"),
        ({"condition": "frobnicate(env.A)"}, "unknown function 'frobnicate'"),
        ({"condition": "env.A | shell"}, "No filter named 'shell'"),
        # tests and filters named by a string are looked up only when their filter runs: a
        # typo in a branch that did not fire used to pass validation and stop a run mid-way
        (
            {
                "recommendations": [
                    {"advice": "{% if [1] | rejectattr('x', 'search', 'k') | list %}x{% endif %}"}
                ]
            },
            "field recommendations[0].advice: No test named 'search'",
        ),
        ({"condition": "[1] | select('nosuchtest') | list"}, "No test named 'nosuchtest'"),
        ({"condition": "[1] | map('nosuchfilter') | list"}, "No filter named 'nosuchfilter'"),
        ({"priority": 500}, "rule good: field priority"),
        ({"evidence": []}, "rule good: field evidence"),
        ({"evidence": ["env..A"]}, "evidence path 'env..A'"),
        ({"id": "Bad Id"}, "rule Bad Id: field id"),
        ({"let": {"env": "1"}}, "let name 'env' would hide"),
        ({"conditon": "true"}, "field conditon: unknown field (did you mean 'condition'?)"),
        ({"recommendations": [{"env": "A B", "value": "1"}]}, "field recommendations.0"),
        ({"recommendations": [{"env": "A"}]}, "give either value or unset"),
        ({"recommendations": [{"env": "A", "setting": "b", "value": "1"}]}, "exactly one of"),
        ({"recommendations": [{"setting": "b", "value": "1 +"}]}, "field recommendations[0].value"),
        ({"recommendations": [{"advice": "{{ x.__class__ }}"}]}, "field recommendations[0].advice"),
    ],
)
def test_malformed_rule_names_file_rule_and_field(
    tmp_path: Path, change: dict[str, Any], expected: str
) -> None:
    text = _errors(tmp_path, ("bad.yaml", [{**GOOD, **change}]))
    assert "bad.yaml" in text and expected in text


def test_missing_field(tmp_path: Path) -> None:
    rule = {k: v for k, v in GOOD.items() if k != "reference"}
    assert "rule good: field reference: required field is missing" in _errors(
        tmp_path, ("bad.yaml", [rule])
    )


def test_bad_yaml_names_the_line(tmp_path: Path) -> None:
    text = _errors(tmp_path, ("bad.yaml", "rules:\n  - id: x\n    title: [unclosed\n"))
    assert "bad.yaml: not valid YAML at line" in text


def test_a_key_given_twice_is_an_error_not_a_silent_overwrite(tmp_path: Path) -> None:
    text = _errors(
        tmp_path,
        ("twice.yaml", "rules:\n  - id: x\n    applies_to: {emulated: false}\n"
                       "    applies_to: {devices: [npu]}\n"),
    )  # fmt: skip
    assert "twice.yaml: not valid YAML at line 4" in text
    assert "key 'applies_to' appears twice" in text


def test_wrong_top_level_shape(tmp_path: Path) -> None:
    assert "a rule file is a mapping with a 'rules' list" in _errors(
        tmp_path, ("bad.yaml", "- id: x\n")
    )


def test_duplicate_id_across_files(tmp_path: Path) -> None:
    text = _errors(tmp_path, ("a.yaml", [GOOD]), ("b.yaml", [GOOD]))
    assert "b.yaml: rule good: field id: duplicate id, also in" in text and "a.yaml" in text


def test_all_errors_of_all_files_reported_together(tmp_path: Path) -> None:
    text = _errors(
        tmp_path,
        ("a.yaml", [{**GOOD, "severity": "loud"}]),
        ("b.yaml", [{**GOOD, "id": "other", "condition": "(("}]),
    )
    assert text.startswith("2 problem(s)") and "a.yaml" in text and "b.yaml" in text


def test_config_naming_unknown_rule_is_an_error() -> None:
    with pytest.raises(ConfigError, match="did you mean 'hccl-rdma-tc'"):
        schema.load(RulesConfig(disabled=["hccl-rdma-t"]))
    with pytest.raises(ConfigError, match=r"rules.severity.hccl-rdma-tc='loud'"):
        RulesConfig(severity={"hccl-rdma-tc": "loud"})
    with pytest.raises(ConfigError, match=r"rules\.params\.max_comm_share"):
        RuleParams(max_comm_share=3.0)


def test_disabled_and_severity_override(tmp_path: Path) -> None:
    cfg = RulesConfig(
        disabled=["hccl-rdma-sl"],
        severity={"hccl-rdma-tc": "critical"},
        dirs=[str(_write(tmp_path, "mine.yaml", [GOOD]).parent)],
    )
    rule_set = schema.load(cfg)
    facts, config, _ = patched({"env.HCCL_RDMA_TC": "3", "env.HCCL_RDMA_SL": "9", "env.A": "1"})
    out = engine.evaluate(rule_set, facts, config=config, rules_cfg=cfg)
    sev = {f.rule_id: f.severity for f in out.findings}
    assert sev["hccl-rdma-tc"] == "critical" and sev["good"] == "warning"
    assert "hccl-rdma-sl" not in sev
    assert {"rule_id": "hccl-rdma-sl", "reason": "disabled in rules.disabled"} in [
        {"rule_id": s.rule_id, "reason": s.reason} for s in out.skipped
    ]


def test_a_rule_set_is_compiled_once_until_a_file_changes(tmp_path: Path) -> None:
    # A run checks its rules before measuring and applies them after: the second load is the
    # first's set, unless a rule file changed in between (then it is read again, and checked).
    path = _write(tmp_path, "mine.yaml", [GOOD])
    cfg = RulesConfig(builtin=False, dirs=[str(tmp_path)])
    first = schema.load(cfg)
    assert schema.load(cfg) is first
    assert (
        schema.load(RulesConfig(builtin=False, dirs=[str(tmp_path)], disabled=["good"]))
        is not first
    )
    _write(tmp_path, "mine.yaml", [{**GOOD, "title": "a retitled rule"}])
    os.utime(path, ns=(path.stat().st_mtime_ns + 10**9,) * 2)
    second = schema.load(cfg)
    assert second is not first and second.get("good").spec.title == "a retitled rule"
    _write(tmp_path, "mine.yaml", [{**GOOD, "message": "{{ env.A | shell }}"}])
    os.utime(path, ns=(path.stat().st_mtime_ns + 2 * 10**9,) * 2)
    with pytest.raises(ConfigError, match="field message: No filter named 'shell'"):
        schema.load(cfg)


def test_compiled_at_first_use_yet_refused_at_load(tmp_path: Path) -> None:
    # Expressions and templates are compiled when first evaluated; whatever jinja's compiler
    # would refuse (an unknown filter or test) is still refused when the file is loaded.
    for field, text in [
        ("condition", "env.A is frobbed"),
        ("message", "{{ env.A | frob }}"),
        ("message", "{% if env.A is frobbed %}x{% endif %}"),
    ]:
        errors = _errors(tmp_path, ("r.yaml", [{**GOOD, field: text}]))
        assert f"rule good: field {field}: No " in errors and "frob" in errors, errors
    rule = schema.load_paths([_write(tmp_path, "ok.yaml", [GOOD])]).get("good")
    assert isinstance(rule.condition, sandbox.Deferred) and isinstance(
        rule.message, sandbox.Deferred
    )
    facts, config, cfg = patched({"env.A": "1"})
    out = engine.evaluate(
        schema.RuleSet(rules=[rule], files=[]), facts, config=config, rules_cfg=cfg
    )
    assert [f.message for f in out.findings] == ["A=1"]


def _conflicting(tmp_path: Path, p_low: int, p_high: int) -> RulesOutcome:
    low = {**GOOD, "id": "low", "priority": p_low, "severity": "critical",
           "recommendations": [{"env": "X", "value": "'from-low'"}, {"setting": "batch_size", "value": "8"}]}  # fmt: skip
    high = {**GOOD, "id": "high", "priority": p_high,
            "recommendations": [{"env": "X", "value": "'from-high'"}, {"setting": "batch_size", "value": "8"}]}  # fmt: skip
    same = {
        **GOOD,
        "id": "same",
        "priority": 10,
        "recommendations": [{"env": "X", "value": "'from-high'"}],
    }
    rule_set = schema.load_paths([_write(tmp_path, "c.yaml", [low, high, same])])
    facts, config, cfg = patched({"env.A": "1"})
    return engine.evaluate(rule_set, facts, config=config, rules_cfg=cfg)


def test_conflict_resolved_by_priority_and_recorded(tmp_path: Path) -> None:
    out = _conflicting(tmp_path, 20, 80)
    assert [(e.name, e.value, e.rule_ids) for e in out.env] == [
        ("X", "from-high", ["high", "same"])
    ]
    assert [(s.name, s.value, s.rule_ids) for s in out.settings] == [
        ("batch_size", 8, ["high", "low"])
    ]
    assert len(out.conflicts) == 1  # batch_size: both ask for 8, no conflict
    c = out.conflicts[0]
    assert (c.kind, c.name, c.chosen.rule_id, [o.rule_id for o in c.overruled]) == (
        "env", "X", "high", ["low"]
    )  # fmt: skip
    assert "high has priority 80, above low (20)" in c.resolution
    text = outputs.recommended_env(out, "r")
    assert "# conflict: high has priority 80" in text and "export X=from-high" in text


def test_conflict_tie_is_decided_and_says_so(tmp_path: Path) -> None:
    out = _conflicting(tmp_path, 50, 50)
    c = out.conflicts[0]
    assert c.chosen.rule_id == "low"  # the critical one wins a tie
    assert (
        "equal priority 50" in c.resolution
        and "give the rules different priorities" in c.resolution
    )


def test_recommendation_failure_is_a_note_not_a_crash(tmp_path: Path) -> None:
    rule = {**GOOD, "recommendations": [{"env": "B", "value": "timeouts_x.init_s.max * 3"},
                                        {"env": "C", "value": "'ok'"}]}  # fmt: skip
    rule_set = schema.load_paths([_write(tmp_path, "r.yaml", [rule])])
    facts, config, cfg = patched({"env.A": "1"})
    (finding,) = engine.evaluate(rule_set, facts, config=config, rules_cfg=cfg).findings
    assert [r.name for r in finding.recommendations] == ["C"]
    assert "timeouts_x" in finding.notes[0]


_NASTY = "$(touch PWNED); `touch PWNED2` \"; rm -rf / #\n'quote' $HOME \\ end"


def _hostile_outcome(tmp_path: Path) -> RulesOutcome:
    nasty = _NASTY
    rule = {**GOOD, "message": "{{ env.A }}\nsecond line $(touch PWNED3)",
            "recommendations": [{"env": "NASTY", "value": "env.NASTY", "why": "{{ env.NASTY }}"},
                                {"env": "GONE", "unset": True},
                                {"setting": "nasty_setting", "value": "env.NASTY"}]}  # fmt: skip
    rule_set = schema.load_paths([_write(tmp_path, "r.yaml", [rule])])
    facts, config, cfg = patched({"env.A": "1", "env.NASTY": nasty})
    return engine.evaluate(rule_set, facts, config=config, rules_cfg=cfg)


def test_recommended_env_sources_in_bash_and_keeps_values_exact(tmp_path: Path) -> None:
    out = _hostile_outcome(tmp_path)
    run_dir = tmp_path / "run"
    run_dir.mkdir()
    cluster = patched({})[0].cluster
    outputs.write(out, cluster, "r1", run_dir)
    env = {"PATH": os.environ["PATH"], "GONE": "still here"}
    script = 'source ./recommended.env && printf %s "$NASTY" && echo "|${GONE-unset}"'
    res = subprocess.run(
        ["bash", "-c", script], cwd=run_dir, env=env, capture_output=True, text=True
    )
    assert res.returncode == 0, res.stderr
    assert res.stdout == f"{_NASTY}|unset\n"
    assert not list(run_dir.glob("PWNED*"))
    settings = yaml.safe_load((run_dir / "settings.yaml").read_text())
    assert settings == {"nasty_setting": next(s.value for s in out.settings)}
    res = subprocess.run(["bash", "-n", "launch.sh"], cwd=run_dir, capture_output=True, text=True)
    assert res.returncode == 0, res.stderr
    findings = json.loads((run_dir / "findings.json").read_text())
    assert findings["summary"]["warning"] == 1
    assert RulesOutcome.from_dict(findings) == out


def test_launch_sh_runs_torchrun_with_the_recommended_env(tmp_path: Path) -> None:
    out = _hostile_outcome(tmp_path)
    run_dir = tmp_path / "run"
    run_dir.mkdir()
    cluster = patched({})[0].cluster
    outputs.write(out, cluster, "r1", run_dir)
    fake = tmp_path / "bin"
    fake.mkdir()
    (fake / "torchrun").write_text('#!/usr/bin/env bash\nprintf "%s\\n" "$@" "NASTY=$NASTY"\n')
    (fake / "torchrun").chmod(0o755)
    env = {"PATH": f"{fake}:{os.environ['PATH']}", "TRAIN_SCRIPT": "train.py"}
    res = subprocess.run(
        ["./launch.sh", "1", "--lr", "a b"], cwd=run_dir, env=env, capture_output=True, text=True
    )
    assert res.returncode == 0, res.stderr
    assert res.stdout.splitlines()[:8] == [
        "--nnodes=2", "--nproc-per-node=2", "--node-rank=1", "--master-addr=10.0.0.1",
        "--master-port=29500", "train.py", "--lr", "a b",
    ]  # fmt: skip
    assert res.stdout.endswith(f"NASTY={_NASTY}\n")
    bad = subprocess.run(["./launch.sh", "7"], cwd=run_dir, env=env, capture_output=True, text=True)
    assert bad.returncode == 2 and "NODE_RANK must be 0..1" in bad.stderr


@pytest.mark.parametrize(
    ("device", "expected"),
    [
        (
            "npu",
            {
                "TORCH_HCCL_TRACE_BUFFER_SIZE": "2000",
                "TORCH_HCCL_DUMP_ON_TIMEOUT": "1",
                "TORCH_HCCL_ENABLE_MONITORING": "1",
                "TORCH_HCCL_DEBUG_INFO_TEMP_FILE": "{run}/flight_dumps/hccl_trace_rank_",
            },
        ),
        (
            "cuda",
            {
                # this host's torch (2.8 on) reads the recorder's own names
                "TORCH_FR_BUFFER_SIZE": "2000",
                "TORCH_NCCL_DUMP_ON_TIMEOUT": "1",
                "TORCH_FR_DUMP_TEMP_FILE": "{run}/flight_dumps/nccl_trace_rank_",
                "TORCH_NCCL_TRACE_BUFFER_SIZE": "",
            },
        ),
        ("cpu", {"TORCH_FR_BUFFER_SIZE": "2000", "TORCH_HCCL_DUMP_ON_TIMEOUT": ""}),
    ],
)
def test_launch_sh_turns_the_flight_recorder_on_for_the_backend(
    tmp_path: Path, device: str, expected: dict[str, str]
) -> None:
    run_dir = tmp_path / "run"
    run_dir.mkdir()
    cluster = dataclasses.replace(patched({})[0].cluster, declared_device=device)
    outputs.write(_hostile_outcome(tmp_path), cluster, "r1", run_dir)
    fake = tmp_path / "bin"
    fake.mkdir()
    names = " ".join(expected)
    (fake / "torchrun").write_text(
        f'#!/usr/bin/env bash\nfor n in {names}; do echo "$n=${{!n:-}}"; done\n'
    )
    (fake / "torchrun").chmod(0o755)
    env = {"PATH": f"{fake}:{os.environ['PATH']}", "TRAIN_SCRIPT": "train.py"}
    res = subprocess.run(["./launch.sh", "0"], cwd=run_dir, env=env, capture_output=True, text=True)
    assert res.returncode == 0, res.stderr
    got = dict(line.split("=", 1) for line in res.stdout.splitlines())
    assert got == {k: v.format(run=run_dir) for k, v in expected.items()}
    assert (run_dir / "flight_dumps").is_dir() == (device != "cpu")


def test_verdict_from_findings() -> None:
    facts, config, cfg = patched({})
    rule_set = schema.load(RulesConfig())
    calm = engine.evaluate(rule_set, facts, config=config, rules_cfg=cfg)
    assert verdict(facts, calm).level == READY
    warn = engine.evaluate(rule_set, patched({"env.HCCL_RDMA_TC": "3"})[0], config=config)
    assert verdict(facts, warn).level == WARNINGS
    both = {"env.HCCL_INTRA_ROCE_ENABLE": "1", "env.HCCL_INTRA_PCIE_ENABLE": "1"}
    crit = engine.evaluate(rule_set, patched(both)[0], config=config)
    v = verdict(facts, crit)
    assert v.level == NOT_READY and v.exit_code == 1
    assert any(r.startswith("hccl-intra-roce-and-pcie:") for r in v.reasons)


def test_a_check_that_could_not_be_decided_is_not_a_pass(tmp_path: Path) -> None:
    # A critical rule the sandbox refused, or whose expression failed, over facts the run has:
    # what it guards is not shown ready, so READY is not given (a large log's NCCL WARN rule was
    # refused once and its 8,000 failures read READY). A missing fact stays as it was.
    rules = {
        "refused": "(('x' * 999999) ~ ('x' * 999999)) | length > 0",
        "failed": "(1 / 0) > 0",
        "missing": "env.NO_SUCH_FACT.deeper > 0",
    }
    path = tmp_path / "rules.yaml"
    path.write_text(yaml.safe_dump({"rules": [
        {"id": name, "title": f"{name} rule", "category": "environment", "condition": cond,
         "severity": "critical", "message": "fired", "reference": "test", "evidence": ["env"]}
        for name, cond in rules.items()
    ]}))  # fmt: skip
    facts, config, cfg = patched({})
    out = engine.evaluate(schema.load_paths([path]), facts, config=config, rules_cfg=cfg)
    reasons = {n.rule_id: n.reason for n in out.not_evaluated}
    assert set(reasons) == set(rules), reasons
    v = verdict(facts, out)
    assert v.level == WARNINGS and v.exit_code == 0
    assert sorted(r.split(":", 1)[0] for r in v.reasons) == ["failed", "refused"], v.reasons
    assert any("not decided (refused by the rule sandbox" in r for r in v.reasons), v.reasons
    missing_only = dataclasses.replace(
        out, not_evaluated=[n for n in out.not_evaluated if n.rule_id == "missing"]
    )
    assert verdict(facts, missing_only).level == READY


def test_builtin_evidence_paths_name_facts_a_rule_can_read() -> None:
    readable = set(schema.CONTEXT_ROOTS) | set(STAGE_MODULES)
    for rule in schema.load_paths([schema.builtin_dir()]).rules:
        for path in rule.spec.evidence:
            assert path.split(".")[0] in readable, (rule.id, path)


def test_report_shows_findings_and_conflicts(tmp_path: Path) -> None:
    from advisor.report import render

    out = _conflicting(tmp_path, 20, 80)
    facts = patched({})[0]
    path = tmp_path / "report.html"
    render.write_report(facts, verdict(facts, out), path, out)
    html = path.read_text()
    assert "high has priority 80, above low (20)" in html
    assert "from-low" in html and "from-high" in html


def test_evidence_cuts_long_lists_at_any_depth() -> None:
    # a failure timeline of 50,000 ranks is one item of evidence.timelines: its entries are cut
    # too, so findings.json and the report stay readable
    timeline = {"summary": "rank 0 first", "entries": [{"rank": r} for r in range(50)]}
    ctx = {"evidence": sandbox.wrap({"timelines": [timeline], "n": (1, 2)}, "evidence")}
    found, value = engine.read_path(ctx, "evidence.timelines")
    entries = [{"rank": r} for r in range(engine.MAX_EVIDENCE_ITEMS)]
    assert found and value == [
        {"summary": "rank 0 first", "entries": [*entries, f"... {50 - len(entries)} more"]}
    ]
    assert engine.read_path(ctx, "evidence.n") == (True, [1, 2])


def test_a_finding_whose_item_or_message_cannot_be_written_still_stands(tmp_path: Path) -> None:
    # the condition held: an event lacking a field one line reads (None // 1000) once turned a
    # failure into "not evaluated" and the verdict into READY
    listed = {
        **GOOD,
        "id": "listed",
        "items": {"each": "[1, none, 3]", "line": "{{ item // 1 }} s"},
    }
    worded = {**GOOD, "id": "worded", "message": "{{ 1 // none }}"}
    cfg = RulesConfig(
        builtin=False, dirs=[str(_write(tmp_path, "mine.yaml", [listed, worded]).parent)]
    )
    facts, config, _ = patched({"env.A": "1"})
    out = engine.evaluate(schema.load(cfg), facts, config=config, rules_cfg=cfg)
    assert out.not_evaluated == []
    by_id = {f.rule_id: f for f in out.findings}
    items = by_id["listed"].items
    assert items[0] == "1 s" and items[2] == "3 s"
    assert items[1].startswith("(item 2 could not be written: TypeError")
    assert by_id["listed"].notes == [
        n for n in by_id["listed"].notes if n.startswith("item 2 not rendered")
    ]
    assert by_id["worded"].message.startswith(
        "a good rule (the rule's message could not be written"
    )
    assert verdict(facts, out).level == WARNINGS
