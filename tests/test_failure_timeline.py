"""Failure logs of several ranks on one clock: who failed first, who only followed.

Samples: ``tests/data/multirank/`` (written from the EI0006 lines of vllm-project/vllm-ascend
issue #486 and torch elastic's ChildFailedError summary, see SOURCES.md) and
``tests/data/evidence/watchdog_nccl_allreduce.log``.
"""

from __future__ import annotations

import json
from pathlib import Path

from advisor.evidence.load import load_paths
from advisor.parsers.logs import timestamp_s
from tests.conftest import run_advisor

DATA = Path(__file__).parent / "data"


def test_time_stamps_of_each_log_form_share_one_clock() -> None:
    cann = timestamp_s("EI0006: [PID: 1] 2026-11-28-18:07:20.444.436 Getting socket times out")
    glog = timestamp_s("[rank1]:[E1128 18:07:21.444000 4 ProcessGroupNCCL.cpp:616] [Rank 1]")
    elastic = timestamp_s("  time      : 2026-11-28_18:07:22")
    assert cann is not None and glog is not None and elastic is not None
    assert round(glog - cann, 3) == 1.0 and round(elastic - cann, 3) == 1.556


def test_a_crash_on_one_rank_is_first_and_the_waits_follow_it() -> None:
    (tl,) = load_paths([DATA / "multirank" / "crash"]).timelines
    assert tl.first_rank == 3 and not tl.all_waiting
    roles = {e.rank: e.role for e in tl.entries}
    assert roles == {3: "first", 2: "consequence", 0: "consequence", 1: "consequence"}
    assert tl.consequences == [0, 1, 2]
    assert [e.rank for e in tl.entries] == [3, 2, 0, 1]  # time order
    assert tl.spread_s is not None and round(tl.spread_s, 1) == 124.3
    assert tl.summary.startswith("rank 3 on node-b failed first (elastic failure")


def test_every_rank_waiting_further_apart_than_the_connect_timeout() -> None:
    (tl,) = load_paths([DATA / "multirank" / "slow_start"]).timelines
    assert tl.all_waiting and tl.beyond_limit
    assert tl.limit_s == 120.0 and tl.limit_name == "HCCL_CONNECT_TIMEOUT (default)"
    assert tl.spread_s is not None and round(tl.spread_s, 3) == 154.227


def test_a_rank_that_never_reached_the_collective_is_named_though_it_failed_last() -> None:
    (tl,) = load_paths([DATA / "evidence" / "watchdog_nccl_allreduce.log"]).timelines
    assert tl.first_rank == 1 and tl.behind == [3]
    assert tl.limit_name == "the process-group (watchdog) time-out" and tl.limit_s == 600.0
    assert "rank(s) 3 never reached the collective" in tl.summary


def test_logs_of_different_days_are_not_one_incident() -> None:
    timelines = load_paths([DATA / "evidence"]).timelines
    (tl,) = timelines
    assert tl.first_rank is None and "not one incident" in tl.summary


def test_import_puts_the_timeline_in_findings_env_and_report(tmp_path: Path) -> None:
    res = run_advisor([str(DATA / "multirank" / "slow_start")], tmp_path / "o", command="import")
    # EI0006 on every rank: NOT READY, exit 1
    assert res.returncode == 1, res.stdout + res.stderr
    run_dir = Path(res.stdout.split(" into ")[1].split()[0])
    findings = json.loads((run_dir / "findings.json").read_text())
    ids = {f["rule_id"] for f in findings["findings"]}
    assert "evidence-failure-spread-beyond-connect-timeout" in ids
    assert "evidence-failure-order" not in ids  # no rank failed on its own
    assert "export HCCL_CONNECT_TIMEOUT=232" in (run_dir / "recommended.env").read_text()
    report = (run_dir / "report.html").read_text()
    assert 'id="sec-failure-timeline"' in report and "node-b_rank3.log:6" in report
    crash = run_advisor([str(DATA / "multirank" / "crash")], tmp_path / "c", command="import")
    crash_dir = Path(crash.stdout.split(" into ")[1].split()[0])
    crash_ids = {
        f["rule_id"] for f in json.loads((crash_dir / "findings.json").read_text())["findings"]
    }
    assert "evidence-failure-order" in crash_ids
    assert "evidence-failure-spread-beyond-connect-timeout" not in crash_ids
