"""The HTML report: every section from facts, graceful when stages are absent or cut short,
escaped hostile strings, size, findings, and re-rendering a real run from its stored results."""

from __future__ import annotations

import copy
import html as html_lib
import json
import re
import shutil
from pathlib import Path
from typing import Any

import pytest

from advisor.errors import ConfigError
from advisor.facts import Facts
from advisor.report import charts, render, sections
from advisor.rules.engine import resolve
from advisor.rules.findings import Finding, Recommendation, RulesOutcome
from advisor.verdict import verdict
from tests.conftest import DATA, run_advisor

STAGE_SECTIONS = [
    "sec-preflight",
    "sec-smoke",
    "sec-topology",
    "sec-connectivity",
    "sec-timeouts",
    "sec-subgroups",
    "sec-bench",
    "sec-whatif",
    "sec-sweep",
]
FIXED_SECTIONS = [
    "sec-verdict",
    "sec-findings",
    "sec-recommended",
    "sec-stages",
    "sec-environment",
    "sec-reproduce",
]
HOSTILE = "<script>alert(1)</script>"


def load(name: str) -> dict[str, Any]:
    return json.loads((DATA / f"facts_{name}.json").read_text())


def render_dict(d: dict[str, Any], **kw: Any) -> str:
    f = Facts.from_dict(d)
    return render.render_report(f, verdict(f), **kw)


def finding(rule_id: str, severity: str, title: str, **values: Any) -> Finding:
    """A finding as the rule engine makes it (the fields a test does not care about blank)."""
    fields: dict[str, Any] = dict(category="environment", priority=50, message="", reference="")
    return Finding(rule_id=rule_id, severity=severity, title=title, **{**fields, **values})


def env_recommendation(f: Finding, name: str, value: str, why: str) -> Recommendation:
    rec = Recommendation(
        kind="env",
        name=name,
        value=value,
        why=why,
        rule_id=f.rule_id,
        priority=f.priority,
        severity=f.severity,
    )
    f.recommendations.append(rec)
    return rec


def outcome_of(*findings: Finding) -> RulesOutcome:
    """The rules' outcome holding ``findings``, their recommendations resolved as the engine does."""
    out = RulesOutcome(findings=list(findings))
    resolve(out)
    return out


def section_html(html: str, sec_id: str) -> str:
    start = html.index(f'<section id="{sec_id}"')
    return html[start : html.index("</section>", start)]


@pytest.fixture(scope="module")
def html_2x8() -> str:
    return render_dict(load("2x8"))


def test_every_section_of_a_full_run_is_rendered(html_2x8: str) -> None:
    for sec in STAGE_SECTIONS + FIXED_SECTIONS:
        assert f'id="{sec}"' in html_2x8, sec
    assert 'id="verdict">NOT READY<' in html_2x8
    assert 'id="emulated"' in html_2x8 and "EMULATED RUN" in html_2x8
    # charts: pair matrix, timeouts, topology picture, one per benchmarked op, three sweep charts
    for sec, n_svg in [
        ("sec-connectivity", 1),
        ("sec-timeouts", 1),
        ("sec-topology", 1),
        ("sec-bench", 4),
        ("sec-sweep", 3),
    ]:
        assert section_html(html_2x8, sec).count("<svg") == n_svg, sec
    assert "could not be drawn" not in html_2x8
    assert "could not be laid out" not in html_2x8
    # no network fetch: nothing refers to an http(s) resource
    assert not re.search(r'(src|href)="https?:', html_2x8)
    assert "@font-face" not in html_2x8


def test_failed_and_cut_short_stages_say_why_and_keep_what_they_measured(html_2x8: str) -> None:
    tmo = section_html(html_2x8, "sec-timeouts")
    assert 'id="sec-timeouts-stopped"' in tmo
    assert "rank 9 (node1, host vm) hung in step barrier_2" in tmo
    assert "no progress for 60 s in barrier_2" in tmo  # the hung rank's own reason
    assert tmo.count("stopped by the agent after rank 9 hung") == 15
    assert "<svg" in tmo  # the distributions measured before the deadline are still drawn
    conn = section_html(html_2x8, "sec-connectivity")
    assert "send timed out after 5 s" in conn
    assert re.search(r'<tr class="bad"><td class="num">5</td><td class="num">13</td>', conn)
    sub = section_html(html_2x8, "sec-subgroups")
    assert "same_node" in sub and "inconsistent" in sub
    stages = section_html(html_2x8, "sec-stages")
    assert stages.count('<tr class="bad">') == 2


def test_large_run_stays_small_and_keeps_the_per_rank_matrix() -> None:
    d = load("4x8")
    html = render_dict(d)
    assert len(html.encode()) < 2 * 2**20
    assert 'id="verdict">READY<' in html
    conn = section_html(html, "sec-connectivity")
    assert "Rank-pair bandwidth" in conn  # 32 ranks: drawn per pair, not per node


def test_matrix_falls_back_to_node_pairs_above_the_cap() -> None:
    d = load("4x8")
    # 80 ranks on 10 nodes, only the ring pairs measured: the matrix becomes node × node
    d["cluster"].update(nodes=10, world_size=80)
    d["stages"]["connectivity"]["data"]["pairs"] = [
        {
            "src": r,
            "dst": (r + 1) % 80,
            "src_node": f"node{r // 8}",
            "dst_node": f"node{(r + 1) % 80 // 8}",
            "link": "intra",
            "bandwidth_gbps": 5.0,
            "ok": True,
        }
        for r in range(80)
    ]
    html = render_dict(d)
    assert "Node-pair median bandwidth" in section_html(html, "sec-connectivity")


def test_absent_stages_and_empty_data_render_gracefully() -> None:
    d = load("2x8")
    only_smoke = copy.deepcopy(d)
    only_smoke["stages"] = {"smoke": d["stages"]["smoke"]}
    html = render_dict(only_smoke)
    assert 'id="sec-smoke"' in html and 'id="sec-connectivity"' not in html
    assert "Not run in this profile: Preflight, Drift between nodes, Topology, Connectivity" in html
    # every stage cut short before it summarised anything, plus one this version does not know
    empty = copy.deepcopy(d)
    for sf in empty["stages"].values():
        sf.update(status="timeout", data={}, reason="reached its deadline")
    empty["stages"]["future"] = dict(d["stages"]["smoke"], name="future", data={"x": [1, 2]})
    html = render_dict(empty)
    for sec in [s for s in STAGE_SECTIONS if s != "sec-whatif"] + ["sec-future"]:
        assert f'id="{sec}"' in html, sec
    assert "could not be" not in html
    assert "&#34;x&#34;" in section_html(html, "sec-future")  # unknown stage: its raw data


def test_odd_shapes_in_stage_data_are_refused_before_the_report_with_their_paths() -> None:
    d = load("2x8")
    d["stages"]["connectivity"]["data"]["links"] = {"intra": "not a mapping"}
    d["stages"]["bench"]["data"]["results"] = [
        {"op": "all_reduce", "bytes": "x", "busbw_gbps": None}
    ]
    d["stages"]["timeouts"]["data"]["settings"] = {"HCCL_CONNECT_TIMEOUT": 5}
    d["stages"]["sweep"]["data"]["trials"] = [{"config": None, "status": "ok"}]
    d["stages"]["topology"]["data"]["islands"] = "oops"
    with pytest.raises(ConfigError) as e:
        render_dict(d)
    for path in (
        "stages.connectivity.data.links.intra",
        "stages.bench.data.results.0.bytes",
        "stages.timeouts.data.settings.HCCL_CONNECT_TIMEOUT",
        "stages.sweep.data.trials.0.config",
        "stages.topology.data.islands",
    ):
        assert f"facts: {path}: " in str(e.value), path


def test_a_section_or_chart_that_fails_never_costs_the_report(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    def broken(*args: Any, **kwargs: Any) -> None:
        raise ValueError("boom")

    monkeypatch.setitem(sections.BUILDERS, "topology", broken)
    monkeypatch.setattr(charts, "busbw_chart", broken)
    html = render_dict(load("2x8"))
    for sec in STAGE_SECTIONS:
        assert f'id="{sec}"' in html, sec
    topo = section_html(html, "sec-topology")
    assert "section could not be laid out: ValueError: boom" in topo
    assert "islands_match_declared" in topo  # its data, shown raw
    assert "svg chart could not be drawn: ValueError: boom" in section_html(html, "sec-bench")


def test_hostile_strings_from_the_cluster_are_escaped(tmp_path: Path) -> None:
    d = load("2x8")
    d["cluster"]["hosts"] = [HOSTILE, "n1$x$"]
    d["cluster"]["name"] = HOSTILE
    d["cluster"]["ranks"][0]["node_name"] = HOSTILE
    d["environment"]["variables"]["NCCL_SOCKET_IFNAME"] = HOSTILE
    d["environment"]["host"] = HOSTILE
    d["run"]["command"] = f"advisor run {HOSTILE}"
    tmo = d["stages"]["timeouts"]
    tmo["reason"] = f"rank 9 on {HOSTILE} hung"
    tmo["ranks"][9]["host"] = HOSTILE
    topo = d["stages"]["topology"]["data"]
    for r in topo["ranks"][:8]:
        r["node_name"] = (
            f"{HOSTILE}$\\frac{{1}}{{0}}$"  # also: a $ must not start maths typesetting
        )
        r["host"] = HOSTILE
    d["stages"]["sweep"]["data"]["trials"][0]["error"] = HOSTILE
    d["stages"]["subgroups"]["data"]["errors"][0]["message"] = HOSTILE
    d["stages"]["connectivity"]["data"]["failed_pairs"][0]["error"] = HOSTILE
    d["stages"]["bench"]["data"]["results"][0]["algorithm"] = HOSTILE
    hostile = finding(HOSTILE, "warning", HOSTILE, evidence={"env.X": HOSTILE})
    env_recommendation(hostile, "X", HOSTILE, HOSTILE)
    findings = outcome_of(hostile)
    f = Facts.from_dict(d)
    run_dir = tmp_path / "run"
    (run_dir / ".hydra").mkdir(parents=True)
    (run_dir / ".hydra" / "config.yaml").write_text(f"cluster:\n  hosts: ['{HOSTILE}']\n")
    render.write_report(f, verdict(f), run_dir / "report.html", findings)
    html = (run_dir / "report.html").read_text()
    assert "<script>alert" not in html
    assert html.count("<script>") == 1  # the page's own copy-button script, nothing else
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in html
    assert html.count("&lt;script&gt;alert(1)") >= 12
    assert "could not be drawn" not in html  # the picture with the hostile node name was drawn


def test_findings_sorted_by_severity_with_evidence_fix_and_env(tmp_path: Path) -> None:
    d = load("4x8")
    connect = finding(
        "connect-timeout",
        "critical",
        "HCCL_CONNECT_TIMEOUT below measured init",
        message="init took 180 s at p90",
        evidence={"timeouts.init_s.p90": 180},
    )
    env_recommendation(connect, "HCCL_CONNECT_TIMEOUT", "600", "raise HCCL_CONNECT_TIMEOUT to 600")
    findings = outcome_of(
        finding("info-1", "info", "Buffer size is the default", evidence={"HCCL_BUFFSIZE": "200"}),
        connect,
        finding("w", "warning", "MTU differs"),
    )
    html = render_dict(d, findings=findings)
    sec = section_html(html, "sec-findings")
    order = [sec.index(t) for t in ("HCCL_CONNECT_TIMEOUT below", "MTU differs", "Buffer size is")]
    assert order == sorted(order)
    assert "raise HCCL_CONNECT_TIMEOUT to 600" in sec and "timeouts.init_s.p90: 180" in sec
    assert "HCCL_BUFFSIZE: 200" in sec
    env = section_html(html, "sec-recommended")
    assert "export HCCL_CONNECT_TIMEOUT=600" in env
    assert "no recommendations" not in env
    # the same findings read from findings.json beside the report when none are passed
    f = Facts.from_dict(d)
    findings.write(tmp_path / "findings.json")
    (tmp_path / "launch.sh").write_text("torchrun --nnodes=4 --nproc-per-node=8 train.py\n")
    render.write_report(f, verdict(f), tmp_path / "report.html")
    html = (tmp_path / "report.html").read_text()
    assert "HCCL_CONNECT_TIMEOUT below measured init" in html
    assert "torchrun --nnodes=4 --nproc-per-node=8 train.py" in section_html(
        html, "sec-recommended"
    )


def test_no_findings_given_shows_run_env_and_a_launch_line_for_the_shape() -> None:
    html = render_dict(load("4x8"))
    rec = section_html(html, "sec-recommended")
    assert "export HCCL_EXEC_TIMEOUT=1836" in rec
    assert 'torchrun --nnodes=4 --nproc-per-node=8 --node-rank="$NODE_RANK"' in html_lib.unescape(
        rec
    )
    assert "No rule findings were produced" in html
    assert "No findings: every rule evaluated passed" in render_dict(
        load("4x8"), findings=RulesOutcome()
    )


def test_rank_list_filter_compacts_ranges() -> None:
    assert render._ranks([0, 1, 2, 3, 5, 7, 8, 9]) == "0-3, 5, 7-9"
    assert render._ranks([4, 5]) == "4, 5"
    assert render._ranks([]) == ""


def test_stages_are_ordered_by_when_they_ran() -> None:
    f = Facts.from_dict(load("2x8"))  # stored sorted by name
    assert [s.name for s in sections.ordered_stages(f)][:3] == ["preflight", "smoke", "topology"]


@pytest.fixture(scope="module")
def real_run(tmp_path_factory: pytest.TempPathFactory) -> Path:
    run_dir = tmp_path_factory.mktemp("report-real") / "run"
    res = run_advisor(["+cluster=2x2", "emulate=true"], run_dir, timeout_s=300)
    assert res.returncode == 0, res.stdout + res.stderr
    return run_dir


def test_real_run_report_and_rerender_from_stored_results(real_run: Path, tmp_path: Path) -> None:
    html = (real_run / "report.html").read_text()
    assert 'id="verdict">READY<' in html and 'id="sec-smoke"' in html
    assert "emulate: true" in section_html(html, "sec-reproduce")  # the composed config
    copy_dir = tmp_path / "copy"
    shutil.copytree(real_run, copy_dir)
    (copy_dir / "report.html").unlink()
    (copy_dir / "facts.json").unlink()
    res = run_advisor([str(copy_dir)], command="report", timeout_s=120)
    assert res.returncode == 0, res.stdout + res.stderr
    again = (copy_dir / "report.html").read_text()
    assert 'id="sec-smoke"' in again
    assert section_html(again, "sec-smoke").count("<td") == section_html(html, "sec-smoke").count(
        "<td"
    )


def test_rules_outcome_shape_renders_recommendations_conflicts_and_missing_rules() -> None:
    """findings.json as the rule engine writes it (``RulesOutcome.to_dict()``)."""
    rec = {
        "kind": "env",
        "name": "HCCL_CONNECT_TIMEOUT",
        "value": "600",
        "unset": False,
        "why": "init p90 is close to the limit",
        "rule_id": "connect-timeout",
        "priority": 50,
        "severity": "critical",
    }
    outcome = {
        "schema_version": 1,
        "findings": [
            {
                "rule_id": "mtu-mismatch",
                "title": "MTU differs between nodes",
                "category": "network",
                "severity": "warning",
                "priority": 10,
                "message": "node1 has MTU 9000, node0 1500",
                "reference": "CANN docs: HCCL network",
                "evidence": {"connectivity.mtu_mismatch": True},
                "missing_evidence": ["preflight.nodes"],
                "recommendations": [
                    {
                        "kind": "advice",
                        "name": "",
                        "value": None,
                        "unset": False,
                        "why": "set the same MTU on every node",
                        "rule_id": "mtu-mismatch",
                        "priority": 10,
                        "severity": "warning",
                    }
                ],
                "notes": [],
                "source": "network.yaml",
            },
            {
                "rule_id": "connect-timeout",
                "title": "Connect timeout too short",
                "category": "timeouts",
                "severity": "critical",
                "priority": 50,
                "message": "init took 120 s at p90",
                "reference": "",
                "evidence": {"timeouts.init_s.p90": 120},
                "missing_evidence": [],
                "recommendations": [rec],
                "notes": [],
                "source": "timeouts.yaml",
            },
        ],
        "not_evaluated": [
            {
                "rule_id": "bench-util",
                "title": "t",
                "category": "c",
                "severity": "warning",
                "reason": "bench.utilisation is missing",
            }
        ],
        "skipped": [{"rule_id": "nccl-only", "reason": "backend is gloo"}],
        "passed": ["a", "b"],
        "conflicts": [
            {
                "kind": "env",
                "name": "HCCL_CONNECT_TIMEOUT",
                "chosen": rec,
                "overruled": [dict(rec, value="300", rule_id="other")],
                "resolution": "higher priority wins",
            }
        ],
        "env": [
            {
                "kind": "env",
                "name": "HCCL_CONNECT_TIMEOUT",
                "value": "600",
                "unset": False,
                "rule_ids": ["connect-timeout"],
                "why": ["init p90 is close to the limit"],
            }
        ],
        "settings": [
            {
                "kind": "setting",
                "name": "bucket_cap_mb",
                "value": 50,
                "unset": False,
                "rule_ids": ["bucket"],
                "why": ["largest bucket is small"],
            }
        ],
        "advice": [],
        "summary": {"critical": 1, "warning": 1},
    }
    html = render_dict(load("4x8"), findings=RulesOutcome.from_dict(outcome))
    sec = section_html(html, "sec-findings")
    assert sec.index("Connect timeout too short") < sec.index("MTU differs between nodes")
    assert "export HCCL_CONNECT_TIMEOUT=600  # init p90 is close to the limit" in sec
    assert "set the same MTU on every node" in sec
    assert "connectivity.mtu_mismatch: True" in sec
    assert "Not measured in this run: preflight.nodes" in sec
    assert "higher priority wins" in sec and "300 (other)" in sec
    assert "bench.utilisation is missing" in sec
    assert "2 rule(s) passed, 1 did not apply" in sec
    rec_sec = section_html(html, "sec-recommended")
    assert "export HCCL_CONNECT_TIMEOUT=600" in rec_sec
    assert "bucket_cap_mb" in rec_sec and "largest bucket is small" in rec_sec


def test_job_starts_are_listed_with_the_slowest_node_and_escaped() -> None:
    d = load("2x8")
    stage_names = list(d["stages"])
    d["launches"] = [
        {
            "launch": "L0",
            "stages": stage_names[1:6],
            "ranks": 16,
            "slowest_node": "<b>node-1</b>",
            "slowest_node_ready_s": 31.5,
            "others_ready_s": 9.25,
            "slow_excess_s": 22.25,
            "slow_ratio": 3.41,
        },
        {"launch": "L1-77.1", "stages": ["bench"], "ranks": 16},
    ]
    sec = section_html(render_dict(d), "sec-stages")
    assert "2 job(s) ran these stages" in sec
    rows = re.findall(r"<tr><td>(L[^<]*)</td>(.*?)</tr>", sec, re.S)
    assert [r[0] for r in rows] == ["L0", "L1-77.1"]
    first = rows[0][1]
    assert ", ".join(stage_names[1:6]) in first
    assert "&lt;b&gt;node-1&lt;/b&gt;" in first and "<b>node-1" not in sec
    for figure in ("31.5", "9.25", "22.2", "3.41"):
        assert f'<td class="num">{figure}</td>' in first, figure
    assert rows[1][1].count('<td class="num">–</td>') == 4  # one node: no comparison


def test_a_run_that_launched_no_job_lists_no_job_starts(html_2x8: str) -> None:
    assert "Job starts" not in html_2x8


def test_a_finding_with_thousands_of_events_lists_the_first_ones_and_counts_the_rest() -> None:
    # An imported log of 50,000 time-outs makes one finding of 50,000 items: the report lists
    # MAX_REPORT_ITEMS of them (five shown, the rest folded) and says how many it left out.
    items = [f"Rank {i}: all_reduce timed out" for i in range(5000)]
    f = finding("evidence-watchdog-timeout", "critical", "time-outs", items=items)
    html = render_dict(load("2x8"), findings=outcome_of(f))
    article = html.split("(evidence-watchdog-timeout)")[1].split("</article>")[0]
    shown, rest = article.split('<details class="more">')
    assert shown.count("<li>") == 5
    assert "<summary>4995 more</summary>" in rest
    assert rest.count("<li>") == render.MAX_REPORT_ITEMS - 5
    limit = render.MAX_REPORT_ITEMS
    assert f"<li>Rank {limit - 1}: all_reduce timed out</li>" in rest
    assert f"Rank {limit}:" not in html
    left = 5000 - limit
    assert f"{left} more not listed here: findings.json holds every one." in rest
