"""Open report.html and compare.html in Debian's headless chromium: no console errors, the verdict
and every section visible, screenshots kept as artefacts.

Screenshots go to ``$ADVISOR_ARTIFACTS`` (default ``reports/artifacts/browser`` in the checkout);
each test prints the paths it wrote.
"""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import pytest

from advisor.facts import Facts
from advisor.report import render
from advisor.rules.findings import Finding, Recommendation, RulesOutcome
from advisor.verdict import verdict
from tests.cdp import CHROMIUM, Browser
from tests.conftest import DATA, REPO, AdvisorResult, run_advisor

pytestmark = [
    pytest.mark.browser,
    pytest.mark.skipif(
        not Path(CHROMIUM).exists(),
        reason=f"{CHROMIUM} missing: apt-get install -y chromium (Debian's package)",
    ),
]

ARTIFACTS = Path(os.environ.get("ADVISOR_ARTIFACTS", REPO / "reports" / "artifacts" / "browser"))

VISIBLE_JS = """
(function (ids) {
  return ids.map(function (id) {
    var e = document.getElementById(id);
    if (!e) { return id + ": missing"; }
    var r = e.getBoundingClientRect(), st = getComputedStyle(e);
    if (r.width < 1 || r.height < 1 || st.visibility === "hidden" || st.display === "none") {
      return id + ": not visible";
    }
    var svgs = Array.prototype.slice.call(e.querySelectorAll("figure svg"));
    var flat = svgs.filter(function (s) { var b = s.getBoundingClientRect(); return b.width < 50 || b.height < 50; });
    return flat.length ? id + ": " + flat.length + " chart(s) not drawn" : id + ": ok";
  });
})(%s)
"""


def check_page(b: Browser, path: Path, ids: list[str], shot: str) -> list[Path]:
    b.open(path)
    states = b.evaluate(VISIBLE_JS % json.dumps(ids))
    assert states == [f"{i}: ok" for i in ids]
    for button in range(b.evaluate("document.querySelectorAll('button.copy').length")):
        b.evaluate(f"document.querySelectorAll('button.copy')[{button}].click()")
    assert b.problems() == []
    shots = [
        b.screenshot(ARTIFACTS / f"{shot}-top.png"),
        b.screenshot(ARTIFACTS / f"{shot}-full.png", full_page=True),
    ]
    print("screenshots:", *shots)
    return shots


@pytest.fixture(scope="module")
def runs(tmp_path_factory: pytest.TempPathFactory, emulated_2x8: AdvisorResult) -> dict[str, Path]:
    """A real emulated 2x8 run, and the synthetic 2x8 facts (every stage) rendered as a run."""
    root = tmp_path_factory.mktemp("browser")
    res = emulated_2x8
    assert res.returncode in (0, 1), res.stdout + res.stderr
    real = res.run_dir
    full = root / "synthetic-2x8"
    full.mkdir()
    shutil.copy(DATA / "facts_2x8.json", full / "facts.json")
    finding = Finding(
        rule_id="inter-node-groups",
        title="Inter-node groups hold ranks of one node",
        category="subgroups",
        severity="critical",
        priority=80,
        message="group [0, 1] is on node0; the hierarchical all-reduce would not cross nodes",
        reference="",
        evidence={"subgroups.errors[0].kind": "same_node"},
    )
    advice = "build groups with Cluster.inter_node_groups()"
    finding.recommendations.append(
        Recommendation(
            kind="advice",
            name="",
            why=advice,
            rule_id=finding.rule_id,
            priority=80,
            severity="critical",
        )
    )
    RulesOutcome(findings=[finding]).write(full / "findings.json")
    f = Facts.read(full / "facts.json")
    render.write_report(f, verdict(f), full / "report.html")
    return {"real": real, "full": full}


def test_the_harness_sees_console_errors(tmp_path: Path) -> None:
    page = tmp_path / "bad.html"
    page.write_text(
        "<!doctype html><html><head><link rel='icon' href='data:,'></head><body><p id='x'>x</p>"
        "<script>console.error('boom'); null.f();</script></body></html>"
    )
    with Browser() as b:
        b.open(page)
        problems = b.problems()
    assert any("boom" in p for p in problems)
    assert any("exception" in p for p in problems)


def test_real_emulated_2x8_report_in_chromium(runs: dict[str, Path]) -> None:
    real = runs["real"]
    ids = ["verdict", "emulated", "sec-findings", "sec-recommended", "sec-stages"]
    ids += [f"sec-{name}" for name in Facts.read(real / "facts.json").stages]
    ids += ["sec-environment", "sec-reproduce"]
    with Browser() as b:
        check_page(b, real / "report.html", ids, "report-real-2x8")
        assert b.evaluate("document.getElementById('verdict').innerText") in (
            "READY",
            "READY WITH WARNINGS",
            "NOT READY",
        )


def test_report_with_every_section_in_chromium(runs: dict[str, Path]) -> None:
    ids = ["verdict", "emulated", "sec-findings", "sec-recommended", "sec-stages"]
    ids += ["sec-preflight", "sec-smoke", "sec-topology", "sec-connectivity", "sec-timeouts"]
    ids += ["sec-subgroups", "sec-bench", "sec-whatif", "sec-sweep", "sec-environment"]
    ids += ["sec-reproduce", "sec-timeouts-stopped", "sec-connectivity-stopped", "finding-1"]
    with Browser() as b:
        check_page(b, runs["full"] / "report.html", ids, "report-synthetic-2x8")
        assert b.evaluate("document.getElementById('verdict').innerText") == "NOT READY"
        assert b.evaluate("document.querySelectorAll('figure svg').length") == 10


def test_compare_page_in_chromium(runs: dict[str, Path], tmp_path: Path) -> None:
    # B: the real run after a change that broke a rank (its stage failed, a finding appeared)
    after = tmp_path / "after"
    shutil.copytree(runs["real"], after)
    facts = json.loads((after / "facts.json").read_text())
    smoke = facts["stages"]["smoke"]
    smoke.update(status="failed", reason="rank 3 (node0) died in all_reduce")
    smoke["data"]["ranks_initialised"] -= 1
    (after / "facts.json").write_text(json.dumps(facts))
    died = Finding(
        rule_id="rank-died",
        title="Rank 3 died",
        category="environment",
        severity="critical",
        priority=90,
        message="rank 3 died",
        reference="",
    )
    RulesOutcome(findings=[died]).write(after / "findings.json")
    out = tmp_path / "cmp"
    res = run_advisor([str(runs["real"]), str(after), "--out", str(out)], command="compare")
    assert res.returncode == 1, res.stdout + res.stderr
    ids = ["compare-verdict", "runs", "sec-stage-changes", "sec-findings-diff", "sec-metrics"]
    with Browser() as b:
        check_page(b, out / "compare.html", ids, "compare-2x8")
        assert "REGRESSION" in b.evaluate("document.getElementById('compare-verdict').innerText")
        assert "Rank 3 died" in b.evaluate("document.getElementById('sec-findings-diff').innerText")
