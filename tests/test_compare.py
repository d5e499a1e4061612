"""``advisor compare``: deltas, regressions beyond the threshold, stage and finding changes."""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import pytest

from advisor.errors import ConfigError
from advisor.report import compare
from advisor.rules.findings import Finding, RulesOutcome
from tests.conftest import DATA, run_advisor


def write_run(
    root: Path, name: str, facts: dict[str, Any], findings: list[Finding] | None = None
) -> Path:
    d = root / name
    d.mkdir(parents=True)
    (d / "facts.json").write_text(json.dumps(facts))
    if findings is not None:
        RulesOutcome(findings=findings).write(d / "findings.json")
    return d


def finding(rule_id: str, severity: str, title: str) -> Finding:
    return Finding(
        rule_id=rule_id,
        severity=severity,
        title=title,
        category="network",
        priority=50,
        message=title,
        reference="",
    )


@pytest.fixture
def base() -> dict[str, Any]:
    return json.loads((DATA / "facts_4x8.json").read_text())


def by_name(c: compare.Comparison) -> dict[str, compare.MetricDelta]:
    return {m.name: m for m in c.metrics}


def test_identical_runs_have_no_regression(tmp_path: Path, base: dict[str, Any]) -> None:
    a = write_run(tmp_path, "a", base)
    b = write_run(tmp_path, "b", base)
    c = compare.compare(a, b)
    assert not c.regressed
    assert {m.status for m in c.metrics} == {"same"}
    assert "bench.all_reduce/ring/float32.avg_busbw_gbps" in by_name(c)


def test_threshold_decides_what_counts_as_a_regression(
    tmp_path: Path, base: dict[str, Any]
) -> None:
    after = copy.deepcopy(base)
    key = "all_reduce/hierarchical/float32"
    after["stages"]["bench"]["data"]["avg_busbw_gbps"][key] *= 0.95  # 5 % slower
    after["stages"]["connectivity"]["data"]["links"]["inter"]["median_gbps"] *= 1.5  # faster
    after["stages"]["timeouts"]["data"]["init_s"]["max"] *= 3  # slower init: lower is better
    a, b = write_run(tmp_path, "a", base), write_run(tmp_path, "b", after)
    loose = by_name(compare.compare(a, b, threshold=0.1))
    assert loose[f"bench.{key}.avg_busbw_gbps"].status == "same"
    assert loose[f"bench.{key}.avg_busbw_gbps"].relative == pytest.approx(-0.05)
    assert loose["connectivity.inter.median_gbps"].status == "improvement"
    assert loose["timeouts.init.max_s"].status == "regression"
    strict = by_name(compare.compare(a, b, threshold=0.01))
    assert strict[f"bench.{key}.avg_busbw_gbps"].status == "regression"
    with pytest.raises(ConfigError, match="threshold"):
        compare.compare(a, b, threshold=0)


def test_stage_outcomes_counts_and_findings_changes(tmp_path: Path, base: dict[str, Any]) -> None:
    after = copy.deepcopy(base)
    conn = after["stages"]["connectivity"]
    conn["status"], conn["reason"] = "failed", "pair 0 -> 9 failed"
    conn["data"]["failed_pairs"] = [dict(conn["data"]["pairs"][0], ok=False)]
    del after["stages"]["sweep"]
    f_old = finding("mtu", "warning", "MTU differs")
    f_both = finding("buf", "info", "Default buffer")
    f_new = finding("pair", "critical", "Pair 0-9 cannot talk")
    a = write_run(tmp_path, "a", base, [f_old, f_both])
    b = write_run(tmp_path, "b", after, [f_both, f_new])
    c = compare.compare(a, b)
    assert c.regressed
    m = by_name(c)
    assert m["connectivity.failed_pairs"].status == "regression"  # 0 -> 1: any increase counts
    assert m["sweep.best.throughput.samples_per_s"].status == "gone"
    changes = {s["stage"]: s for s in c.stage_changes}
    assert changes["connectivity"]["status"] == "regression"
    assert changes["connectivity"]["reason"] == "pair 0 -> 9 failed"
    assert changes["sweep"]["b"] == "absent"
    assert [f["rule_id"] for f in c.findings_appeared] == ["pair"]
    assert [f["rule_id"] for f in c.findings_disappeared] == ["mtu"]
    assert [f["rule_id"] for f in c.findings_persisted] == ["buf"]
    assert c.b.verdict == "NOT READY"  # a critical finding (and a failed stage)
    assert c.a.verdict == "READY WITH WARNINGS"  # no verdict stored: stages plus finding severities
    json_path, html_path = compare.write(c, tmp_path / "out")
    stored = json.loads(json_path.read_text())
    assert stored["regression_count"] == len(c.regressions) + 1
    html = html_path.read_text()
    assert "Pair 0-9 cannot talk" in html and "REGRESSION" in html
    assert html.index("connectivity.failed_pairs") < html.index("run.duration_s")  # worst first


def test_hostile_strings_in_compare_are_escaped(tmp_path: Path, base: dict[str, Any]) -> None:
    hostile = "<script>alert(1)</script>"
    after = copy.deepcopy(base)
    after["run"]["run_id"] = hostile
    after["stages"]["bench"]["data"]["avg_busbw_gbps"][hostile] = 1.0
    after["stages"]["smoke"].update(status="failed", reason=hostile)
    a = write_run(tmp_path, "a", base)
    b = write_run(tmp_path, "b", after, [finding(hostile, "critical", hostile)])
    _, html_path = compare.write(compare.compare(a, b), tmp_path / "out")
    html = html_path.read_text()
    assert "<script>" not in html
    assert html.count("&lt;script&gt;alert(1)&lt;/script&gt;") >= 4


def test_cli_exit_codes_and_outputs(tmp_path: Path, base: dict[str, Any]) -> None:
    worse = copy.deepcopy(base)
    worse["stages"]["connectivity"]["data"]["links"]["intra"]["median_gbps"] /= 2
    a, b, w = (
        write_run(tmp_path, "a", base),
        write_run(tmp_path, "b", base),
        write_run(tmp_path, "w", worse),
    )
    same = run_advisor([str(a), str(b)], command="compare", timeout_s=120)
    assert same.returncode == 0, same.stdout + same.stderr
    assert (b / "compare.html").exists() and (b / "compare.json").exists()
    res = run_advisor([str(a), str(w), "--threshold", "0.2"], command="compare", timeout_s=120)
    assert res.returncode == 1
    assert "regression: connectivity.intra.median_gbps" in res.stdout
    bad = run_advisor([str(a), str(tmp_path / "nope")], command="compare", timeout_s=120)
    assert bad.returncode == 2 and "does not exist" in bad.stderr
    empty = tmp_path / "empty"
    empty.mkdir()
    res = run_advisor([str(a), str(empty)], command="compare", timeout_s=120)
    assert res.returncode == 2 and "advisor report" in res.stderr
