"""Mends of the eighth review (of the held-out rounds 253-256): readers of outputs a job's log
may print among its own lines leave the rest to the log readers, a diagnosis's runs keep their
own times, no comment or YAML file is taken for ascend-dmi's output, another rank's exception is
not the root cause's, a failure logged again without NCCL's last warning is one failure, the
sizes behind an out-of-bounds verdict only where the counts allow, reschedule records read from
any line, and HCCL's settings per process. The inputs are the review's own."""

from __future__ import annotations

from advisor.evidence.command import cluster_from
from advisor.evidence.load import EvidenceFacts, load_text
from tests.rules_facts import builtin_findings


def _said(ev: EvidenceFacts) -> str:
    return " | ".join(m.message for f in ev.files for m in f.messages)


DMI_THEN_TRACEBACK = '+ ascend-dmi --dg -i network -q\nSummary:\n    Arch: aarch64\n    Mode: normal\n    Time: 20250529-19:22:43\nHardware:\n    network:\n        PASS\n+ python train.py\nTraceback (most recent call last):\n  File "train.py", line 3, in <module>\n    dist.init_process_group("hccl")\nRuntimeError: HCCL init failed: EI0006 socket build timeout\n'
DMI_TWO_NODES = "node-1:\n[root@node-1 ~]# ascend-dmi -dg -i network\nSummary:\n    Arch: aarch64\n    Mode: normal\n    Time: 20250529-19:22:43\nHardware:\n    network:\n        FAIL\nnode-2:\n[root@node-2 ~]# ascend-dmi -dg -i network\nSummary:\n    Arch: aarch64\n    Mode: normal\n    Time: 20250529-19:22:50\nHardware:\n    network:\n        PASS\n"
SCRIPT_COMMENT = (
    "#!/bin/bash\n# ascend-dmi -dg checks the node before the job\nset -e\npython train.py\n"
)
YAML_SUMMARY = "Summary:\n  Arch: x86_64\n  Mode: release\nBuild:\n  compiler:\n    gcc\nHardware:\n  gpu:\n    FAIL\n"
ELASTIC_OTHER_RANK = "[rank1]: Traceback (most recent call last):\n[rank1]:   File \"train.py\", line 40, in <module>\n[rank1]:     dist.all_reduce(t)\n[rank1]: torch.distributed.DistBackendError: [1] is setting up NCCL communicator and retrieving ncclUniqueId from [0] via c10d key-value store by key '0', but store->get('0') got error: Connection reset by peer\nW0101 10:00:00.000000 100 torch/distributed/elastic/multiprocessing/api.py:890] Sending process 2002 closing signal SIGTERM\nE0101 10:00:01.000000 100 torch/distributed/elastic/multiprocessing/api.py:862] failed (exitcode: -9) local_rank: 0 (pid: 2001) of binary: /usr/bin/python\nTraceback (most recent call last):\n  File \"/usr/bin/torchrun\", line 8, in <module>\n    sys.exit(main())\ntorch.distributed.elastic.multiprocessing.errors.ChildFailedError: \n============================================================\ntrain.py FAILED\n------------------------------------------------------------\nFailures:\n  <NO_OTHER_FAILURES>\n------------------------------------------------------------\nRoot Cause (first observed failure):\n[0]:\n  time      : 2025-01-01_10:00:01\n  host      : node-a\n  rank      : 0 (local_rank: 0)\n  exitcode  : -9 (pid: 2001)\n  error_file: <N/A>\n  traceback : Signal 9 (SIGKILL) received by PID 2001\n============================================================\n"
NCCL_LOGGED_TWICE = 'Traceback (most recent call last):\n  File "train.py", line 10, in <module>\n    dist.barrier()\ntorch.distributed.DistBackendError: NCCL error in: ../torch/csrc/distributed/c10d/ProcessGroupNCCL.cpp:1970, unhandled system error (run with NCCL_DEBUG=INFO for details), NCCL version 2.20.5\nncclSystemError: System call (e.g. socket, malloc) or external library call failed or device error.\nLast error:\nsocketStartConnect: Connect to 10.0.0.2<43121> failed : Software caused connection abort\n2024-05-01 10:00:01 ERROR trainer: step failed: NCCL error in: ../torch/csrc/distributed/c10d/ProcessGroupNCCL.cpp:1970, unhandled system error (run with NCCL_DEBUG=INFO for details), NCCL version 2.20.5\n'
OOB_TWO_PROCS = "# Collective test starting: all_reduce_perf\n# nThread 1 nGpus 1 minBytes 4194304 maxBytes 33554432 step: 2(factor) warmup iters: 5 iters: 20 validation: 1\n#\n# Using devices\n#   Rank  0 Pid  11111 on     node-a device  0 [0x07] Tesla V100-SXM2-32GB\n#   Rank  1 Pid  22222 on     node-b device  0 [0x07] Tesla V100-SXM2-32GB\n#\n#                                                     out-of-place                       in-place          \n#       size         count    type   redop     time   algbw   busbw  error     time   algbw   busbw  error\n#        (B)    (elements)                     (us)  (GB/s)  (GB/s)            (us)  (GB/s)  (GB/s)       \n     4194304       1048576   float     sum   120.00   34.95   34.95  2e-07   120.00   34.95   34.95  3e-07\n     8388608       2097152   float     sum   121.00   69.33   69.33  1e+00   121.00   69.33   69.33  2e-07\n    16777216       4194304   float     sum   122.00  137.52  137.52  3e-07   122.00  137.52  137.52  4e-07\n    33554432       8388608   float     sum   123.00  272.80  272.80  2e-07   123.00  272.80  272.80  1e-07\n# Out of bounds values : 2 FAILED\n# Avg bus bandwidth    : 10.0 \n#\n"
TWO_TASKS = 'recent-reschedule-records:\n----\n{"default/job1":{"JobID":"default/job1","TotalRescheduleTimes":1,"RescheduleRecords":[{"RescheduleTimeStamp":1759683370,"ReasonOfTask":[{"RescheduleReason":"pod-failed","PodName":"w0","NodeName":"node2","NodeRankIndex":"0"},{"RescheduleReason":"pod-failed","PodName":"w1","NodeName":"node3","NodeRankIndex":"1"}]}]}}\n'
GET_CM_YAML = 'apiVersion: v1\ndata:\n  recent-reschedule-records: \'{"default/job1":{"JobID":"default/job1","TotalRescheduleTimes":1,"RescheduleRecords":[{"LogFileFormatTime":"I1005 16:56:10","RescheduleTimeStamp":1759683370,"ReasonOfTask":[{"RescheduleReason":"pod-failed","PodName":"w0","NodeName":"node2","NodeRankIndex":"1"}]}]}}\'\nkind: ConfigMap\nmetadata:\n  name: job-reschedule-reason\n  namespace: mindx-dl\n'
VOLCANO_LOG = 'I1005 16:56:10.123456 1 reschedule.go:120] update cm job-reschedule-reason: {"default/job1":{"JobID":"default/job1","TotalRescheduleTimes":1,"RescheduleRecords":[{"LogFileFormatTime":"I1005 16:56:10","RescheduleTimeStamp":1759683370,"ReasonOfTask":[{"RescheduleReason":"pod-failed","PodName":"w0","NodeName":"node2","NodeRankIndex":"1"}]}]}}\nE1005 16:56:11.000000 1 scheduler.go:10] some error happened: connection refused\nTraceback (most recent call last):\n  File "x.py", line 1, in <module>\nRuntimeError: boom\n'
BOOL_TOTAL = 'recent-reschedule-records:\n----\n{"default/job1":{"JobID":"default/job1","TotalRescheduleTimes":true,"RescheduleRecords":[{"RescheduleTimeStamp":1.7596833e9,"ReasonOfTask":[{"RescheduleReason":"process-exception","PodName":"w0","NodeName":"node2","NodeRankIndex":0}]}]}}\n'
HCCL_ENV_TWO = "[INFO] HCCL(1001,python):2026-01-06-15:38:29.881.877 [externalinput.cc:598] [1001][HCCL_ENV] HCCL_CONNECT_TIMEOUT set by default to [120]s\n[INFO] HCCL(2002,python):2026-01-06-15:38:29.981.877 [externalinput.cc:598] [2002][HCCL_ENV] HCCL_CONNECT_TIMEOUT set by environment to [1800]s\n[INFO] HCCL(1001,python):2026-01-06-15:38:29.881.882 [externalinput.cc:558] [1001][HCCL_ENV] HCCL_EXEC_TIMEOUT set by default to [1836]s\n[INFO] HCCL(2002,python):2026-01-06-15:38:29.981.882 [externalinput.cc:558] [2002][HCCL_ENV] HCCL_EXEC_TIMEOUT set by environment to [60]s\n"


def test_a_pre_flight_diagnosis_in_a_jobs_log_leaves_the_log_read() -> None:
    ev = load_text(DMI_THEN_TRACEBACK, "job.log")
    assert ev.files[0].formats == ["ascend_dmi", "log"] and ev.files[0].status == "read"
    (raised,) = ev.failures
    assert (raised["kind"], raised["exception_type"]) == ("python_exception", "RuntimeError")
    assert "network PASS" in _said(ev)


def test_each_diagnosis_run_keeps_its_own_time() -> None:
    ev = load_text(DMI_TWO_NODES, "dmi.txt")
    (failed,) = ev.failures
    assert failed["exception_type"] == "Hardware network: FAIL at 20250529-19:22:43"
    assert "ascend-dmi --dg at 20250529-19:22:50: network PASS" in _said(ev)
    assert "unreadable line" not in _said(ev)


def test_a_comment_naming_ascend_dmi_and_a_yaml_summary_are_not_its_output() -> None:
    assert load_text(SCRIPT_COMMENT, "check.sh").files[0].formats == []
    ev = load_text(YAML_SUMMARY, "build.yaml")
    assert ev.failures == [] and ev.files[0].formats == []
    assert cluster_from(ev).backend == ""


def test_another_ranks_exception_is_not_the_root_causes() -> None:
    ev = load_text(ELASTIC_OTHER_RANK, "run.log")
    (root,) = [e for e in ev.failures if e["kind"] == "elastic_failure"]
    assert root["message"] == "Signal 9 (SIGKILL) received by PID 2001"


def test_a_failure_logged_again_without_its_last_warning_is_one_failure() -> None:
    ev = load_text(NCCL_LOGGED_TWICE, "train.log")
    (failed,) = [e for e in ev.failures if e["kind"] == "nccl_call_failure"]
    assert failed["line"] == 4
    assert failed["exception_type"].startswith("socketStartConnect: Connect to 10.0.0.2<43121>")
    # the copy without the block first, the one with it after: one event that has it
    lines = NCCL_LOGGED_TWICE.splitlines()
    again = "\n".join([lines[-1], *lines[:-1]]) + "\n"
    (failed,) = [e for e in load_text(again, "t.log").failures if e["kind"] == "nccl_call_failure"]
    assert (failed["line"], failed["exception_type"][:19]) == (1, "socketStartConnect:")


def test_an_out_of_bounds_count_summed_over_processes_names_no_size_it_cannot() -> None:
    (b,) = load_text(OOB_TWO_PROCS, "all_reduce_perf.log").benchmarks
    # one group deviates by 1, the float sums' rounding elsewhere (1e-07 to 4e-07) is no failure:
    # that group, counted by each of the two processes, is the one that failed
    assert [c["bytes"] for c in b["failed_checks"]] == [8388608]
    # a deviation between rounding and a clear failure leaves it unnamed
    (b,) = load_text(OOB_TWO_PROCS.replace("3e-07", "5e-04", 1), "all_reduce_perf.log").benchmarks
    assert b["failed_checks"] == [{"bytes": None, "ranks": [], "out_of_bounds": 2}]
    exact = OOB_TWO_PROCS
    for small in ("2e-07", "3e-07", "4e-07", "1e-07"):
        exact = exact.replace(small, "0e+00")
    (b,) = load_text(exact, "all_reduce_perf.log").benchmarks
    # one failing group counted by each of two processes: that size
    assert [c["bytes"] for c in b["failed_checks"]] == [8388608]


def test_reschedule_records_one_reschedule_with_two_failed_tasks() -> None:
    ev = load_text(TWO_TASKS, "cm.txt")
    assert [f["host"] for f in ev.failures] == ["node2", "node3"]
    message = builtin_findings({"evidence.failures": ev.failures}, "hccl")[
        "evidence-reschedule"
    ].message
    assert "name 2 failed task(s) on node2, node3" in message and "time(s)" not in message


def test_reschedule_records_in_kubectls_yaml_and_a_schedulers_log() -> None:
    (r,) = load_text(GET_CM_YAML, "cm.yaml").failures
    assert (r["host"], r["code"]) == ("node2", "pod-failed")
    ev = load_text(VOLCANO_LOG, "volcano.log")
    assert ev.files[0].formats == ["reschedule", "log"]
    assert {f["kind"] for f in ev.failures} == {"reschedule", "python_exception"}
    (r,) = load_text(BOOL_TOTAL, "cm.txt").failures
    assert "True" not in r["message"] and "node rank index 0" in r["exception_type"]


def test_hccl_settings_that_differ_between_processes_are_named_with_each() -> None:
    said = _said(load_text(HCCL_ENV_TWO, "plog.log"))
    assert (
        "differing between processes: HCCL_CONNECT_TIMEOUT pid 1001 120 s (default), "
        "pid 2002 1800 s (environment); HCCL_EXEC_TIMEOUT pid 1001 1836 s (default), "
        "pid 2002 60 s (environment)"
    ) in said
