"""``advisor rules list | validate | explain``, and the four outputs of a real emulated run."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from advisor.rules import schema
from tests.conftest import AdvisorResult, only_stages, run_advisor

USER_RULE = """\
rules:
  - id: user-init-measured
    title: smoke init measured
    category: timeouts
    condition: "max(smoke.init_s) >= 0 and smoke.ranks_initialised == cluster.world_size"
    severity: warning
    message: "slowest init {{ max(smoke.init_s) | round(2) }} s on {{ cluster.world_size }} ranks"
    recommendations:
      - {env: USER_VAR, value: "'a b $(x)'", why: "quoting test"}
      - {setting: batch_size, value: "16"}
    reference: test
    evidence: [smoke.init_s, smoke.ranks_initialised]
"""


def _cli(args: list[str]) -> AdvisorResult:
    return run_advisor(args, command="rules", timeout_s=120)


def test_rules_list() -> None:
    res = _cli(["list"])
    assert res.returncode == 0, res.stderr
    ids = [line.split()[0] for line in res.stdout.splitlines()[1:-1]]
    assert sorted(ids) == sorted(r.id for r in schema.load_paths([schema.builtin_dir()]).rules)
    row = next(line for line in res.stdout.splitlines() if line.startswith("hccl-rdma-tc "))
    assert row.split()[1:3] == ["warning", "environment"]


def test_rules_explain() -> None:
    res = _cli(["explain", "hccl-connect-timeout-below-setup"])
    assert res.returncode == 0, res.stderr
    for part in ("condition:", "configured_s + 20 < needed_s", "evidence:", "timeouts.init_s.max",
                 "recommends: env HCCL_CONNECT_TIMEOUT = clamp(needed_s, 120, 7200)",
                 "reference:  CANN HCCL environment variables"):  # fmt: skip
        assert part in res.stdout
    res = _cli(["explain", "hccl-connect-timeout"])
    assert res.returncode == 2 and "no rule 'hccl-connect-timeout'" in res.stderr


def test_rules_validate(tmp_path: Path) -> None:
    good = tmp_path / "good.yaml"
    good.write_text(USER_RULE)
    res = _cli(["validate", str(good), str(schema.builtin_dir())])
    assert res.returncode == 0 and "ok:" in res.stdout
    bad = tmp_path / "bad.yaml"
    bad.write_text(USER_RULE.replace("severity: warning", "severity: loud"))
    res = _cli(["validate", str(bad)])
    assert res.returncode == 2
    assert "bad.yaml: rule user-init-measured: field severity" in res.stderr


@pytest.fixture(scope="module")
def emulated_run(tmp_path_factory: pytest.TempPathFactory) -> AdvisorResult:
    """One real emulated 2x2 run (smoke stage) with a user rule directory."""
    base = tmp_path_factory.mktemp("rules-run")
    rules_dir = base / "my-rules"
    rules_dir.mkdir()
    (rules_dir / "mine.yaml").write_text(USER_RULE)
    return run_advisor(
        ["+cluster=2x2", "emulate=true", *only_stages("smoke"), f"rules.dirs=[{rules_dir}]"],
        base / "run",
    )


def test_run_writes_the_four_outputs(emulated_run: AdvisorResult) -> None:
    res = emulated_run
    assert res.returncode == 0, res.stdout + res.stderr
    assert "READY WITH WARNINGS" in res.stdout
    run_dir = res.run_dir
    findings = json.loads((run_dir / "findings.json").read_text())
    (mine,) = [f for f in findings["findings"] if f["rule_id"] == "user-init-measured"]
    assert mine["evidence"]["smoke.ranks_initialised"] == 4
    assert set(mine["evidence"]["smoke.init_s"]) == {"0", "1", "2", "3"}
    # Inputs this run did not collect (a stage left out, no evidence) make their rules not apply,
    # with the reason; they are not reported as rules that failed to evaluate.
    skipped = {s["rule_id"]: s["reason"] for s in findings["skipped"]}
    assert "needs stage 'connectivity'" in skipped["connectivity-failed-pairs"]
    assert "needs imported evidence" in skipped["evidence-watchdog-timeout"]
    assert "hccl-rdma-tc" in skipped  # gloo run
    not_evaluated = {n["rule_id"] for n in findings["not_evaluated"]}
    assert not not_evaluated & (set(skipped) | {"connectivity-failed-pairs"}), not_evaluated
    script = 'source ./recommended.env && printf "%s" "$USER_VAR"'
    out = subprocess.run(["bash", "-c", script], cwd=run_dir, capture_output=True, text=True)
    assert (out.returncode, out.stdout) == (0, "a b $(x)")
    assert "batch_size: 16" in (run_dir / "settings.yaml").read_text()
    launch = (run_dir / "launch.sh").read_text()
    assert "--nnodes=2 --nproc-per-node=2 --node-rank=1" in launch
    assert subprocess.run(["bash", "-n", str(run_dir / "launch.sh")]).returncode == 0
    assert "user-init-measured" in (run_dir / "report.html").read_text()


def test_report_rerenders_the_same_findings(emulated_run: AdvisorResult) -> None:
    run_dir = emulated_run.run_dir
    before = json.loads((run_dir / "findings.json").read_text())
    res = run_advisor([str(run_dir)], command="report", timeout_s=120)
    assert res.returncode == 0, res.stderr
    after = json.loads((run_dir / "findings.json").read_text())
    assert after["findings"] == before["findings"]


def test_bad_rule_file_stops_the_run_before_any_stage(tmp_path: Path) -> None:
    rules_dir = tmp_path / "bad-rules"
    rules_dir.mkdir()
    (rules_dir / "bad.yaml").write_text(USER_RULE.replace('condition: "', 'condition: "(('))
    res = run_advisor(
        ["+cluster=2x2", "emulate=true", f"rules.dirs=[{rules_dir}]"], tmp_path / "run"
    )
    assert res.returncode == 2
    assert "bad.yaml: rule user-init-measured: field condition" in res.stderr
    assert not (tmp_path / "run" / "facts.json").exists()


@pytest.mark.slow
def test_2x8_emulated_run_outputs(emulated_2x8: AdvisorResult) -> None:
    res = emulated_2x8
    assert res.returncode == 0, res.stdout + res.stderr
    findings = json.loads((res.run_dir / "findings.json").read_text())
    # The declared device is npu, so the hccl rules apply to the emulated run.
    assert "pg-timeout-not-above-hccl-timeouts" in {f["rule_id"] for f in findings["findings"]}
    for name in ("findings.json", "recommended.env", "launch.sh", "settings.yaml", "report.html"):
        assert (res.run_dir / name).exists(), name
    out = subprocess.run(["bash", "-c", "source ./recommended.env"], cwd=res.run_dir)
    assert out.returncode == 0
    assert "--nproc-per-node=8" in (res.run_dir / "launch.sh").read_text()


def test_rules_is_not_a_config_group(tmp_path: Path) -> None:
    res = run_advisor(["rules=timeouts"], tmp_path / "run", timeout_s=120)
    assert res.returncode == 2 and "rules.dirs=[DIR]" in res.stderr
