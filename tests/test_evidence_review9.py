"""Mends of the ninth review (of the eighth review's mends and the held-out rounds 257-260): a
program's log beside a pasted diagnosis still read, ascend-dmi's JSON with a prompt after it, the
out-of-bounds sizes only beyond rounding, torch_npu's application exception only from its own
process, a dashed border cut under whole chip blocks, and the connect rule counting processes.
The inputs are the review's own."""

from __future__ import annotations

from advisor.evidence.load import load_text
from tests.rules_facts import builtin_findings

DMI_THEN_PROGRAM_LOG = "+ ascend-dmi --dg -i network -q\nSummary:\n    Arch: aarch64\n    Mode: normal\n    Time: 20250529-19:22:43\nHardware:\n    network:\n        PASS\n2025-05-29 19:23:01,120 INFO trainer: starting epoch 0\n2025-05-29 19:23:05,450 INFO trainer: step 10 loss 2.31\n2025-05-29 19:25:11,002 ERROR trainer: allreduce did not finish within 1800 s on device 3, aborting\n2025-05-29 19:25:11,010 INFO trainer: exiting with code 1\n"
DMI_JSON_THEN_PROMPT = '[root@node-1 ~]# ascend-dmi --dg -i nic --fmt json -q\n{\n    "DiagnosisItems": [\n        {\n            "group_name": "Hardware",\n            "group_results": "GENERAL_WARN",\n            "sub_items": [\n                {\n                    "item_name": "nic",\n                    "item_result": "GENERAL_WARN",\n                    "result_array": [\n                        {\n                            "item_result": "GENERAL_WARN"\n                        }\n                    ]\n                }\n            ]\n        }\n    ],\n    "Summary": {\n        "Arch": "aarch64",\n        "Mode": "Ascend 910",\n        "Time": "20250603-16:46:40"\n    }\n}\n[root@node-1 ~]# \n'
OOB_ONE_FAIL_ONE_TINY = "# Collective test starting: all_reduce_perf\n# nThread 1 nGpus 1 minBytes 4194304 maxBytes 33554432 step: 2(factor) warmup iters: 5 iters: 20 validation: 1\n#\n# Using devices\n#   Rank  0 Pid  11111 on     node-a device  0 [0x07] Tesla V100-SXM2-32GB\n#   Rank  1 Pid  22222 on     node-b device  0 [0x07] Tesla V100-SXM2-32GB\n#\n#                                                     out-of-place                       in-place          \n#       size         count    type   redop     time   algbw   busbw  error     time   algbw   busbw  error\n#        (B)    (elements)                     (us)  (GB/s)  (GB/s)            (us)  (GB/s)  (GB/s)       \n     4194304       1048576   float     sum   120.00   34.95   34.95  0e+00   120.00   34.95   34.95  0e+00\n     8388608       2097152   float     sum   121.00   69.33   69.33  1e+00   121.00   69.33   69.33  0e+00\n    16777216       4194304   float     sum   122.00  137.52  137.52  2e-07   122.00  137.52  137.52  0e+00\n    33554432       8388608   float     sum   123.00  272.80  272.80  0e+00   123.00  272.80  272.80  0e+00\n# Out of bounds values : 2 FAILED\n# Avg bus bandwidth    : 10.0 \n#\n"
ERR_TORCHRUN_AGENT = '[rank1]: Traceback (most recent call last):\n[rank1]:   File "/work/train.py", line 120, in <module>\n[rank1]:     loss.backward()\n[rank1]: RuntimeError: NPU out of memory. Tried to allocate 2.00 GiB (NPU 1; 60.97 GiB total capacity)\nW0601 10:00:01.000000 900 torch/distributed/elastic/multiprocessing/api.py:897] Sending process 1001 closing signal SIGTERM\nE0601 10:00:02.000000 900 torch/distributed/elastic/multiprocessing/api.py:869] failed (exitcode: 1) local_rank: 1 (pid: 1002) of binary: /usr/bin/python3\nTraceback (most recent call last):\n  File "/usr/local/bin/torchrun", line 8, in <module>\n    sys.exit(main())\n  File "/usr/local/lib/python3.10/site-packages/torch/distributed/run.py", line 919, in main\n    run(args)\n  File "/usr/local/lib/python3.10/site-packages/torch/distributed/launcher/api.py", line 263, in launch_agent\n    raise ChildFailedError(\ntorch.distributed.elastic.multiprocessing.errors.ChildFailedError: \n============================================================\ntrain.py FAILED\n------------------------------------------------------------\nFailures:\n  <NO_OTHER_FAILURES>\n------------------------------------------------------------\nRoot Cause (first observed failure):\n[0]:\n  time      : 2025-06-01_10:00:02\n  host      : node-a\n  rank      : 1 (local_rank: 1)\n  exitcode  : 1 (pid: 1002)\n  error_file: <N/A>\n  traceback : To enable traceback see: https://pytorch.org/docs/stable/elastic/errors.html\n============================================================\n[ERROR] 2025-06-01-10:00:02 (PID:900, Device:-1, RankID:-1) ERR99999 UNKNOWN applicaiton exception\n'
ERR_KEYBOARD_INTERRUPT = '[W compiler_depend.ts:133] Warning: Warning: Device do not support double dtype now, dtype cast repalce with float. (function operator())\nTraceback (most recent call last):\n  File "/home/user/data.py", line 88, in fetch\n    return self.queue.get(timeout=5)\n  File "/usr/lib/python3.10/queue.py", line 179, in get\n    raise Empty\n_queue.Empty\n\nDuring handling of the above exception, another exception occurred:\n\nTraceback (most recent call last):\n  File "/home/user/data.py", line 90, in fetch\n    raise TimeoutError("worker 3 produced no batch in 5 s")\nTimeoutError: worker 3 produced no batch in 5 s\n\nDuring handling of the above exception, another exception occurred:\n\nTraceback (most recent call last):\n  File "/home/user/train.py", line 200, in <module>\n    main()\n  File "/home/user/train.py", line 180, in main\n    time.sleep(1)\nKeyboardInterrupt\n[ERROR] 2025-06-01-10:00:00 (PID:4242, Device:0, RankID:-1) ERR99999 UNKNOWN applicaiton exception\n'
PROCESS_BORDER_CUT = "+------------------------------------------------------------------------------------------------+\n| npu-smi 24.1.rc1                 Version: 24.1.rc1                                             |\n+---------------------------+---------------+----------------------------------------------------+\n| NPU   Name                | Health        | Power(W)    Temp(C)           Hugepages-Usage(page)|\n| Chip                      | Bus-Id        | AICore(%)   Memory-Usage(MB)  HBM-Usage(MB)        |\n+===========================+===============+====================================================+\n| 0     910B3               | OK            | 97.6        52                0    / 0             |\n| 0                         | 0000:C1:00.0  | 0           0    / 0          3525 / 65536         |\n+===========================+===============+====================================================+\n| 1     910B3               | OK            | 95.1        50                0    / 0             |\n| 0                         | 0000:C2:00.0  | 0           0    / 0          3525 / 65536         |\n+===========================+===============+====================================================+\n+---------------------------+---------------+-----------------\n"
NPU_SMI_L_CUT_SECOND = "[root@node-1 ~]# npu-smi info -l\n        Total Count                    : 8\n\n        NPU ID                         : 0\n        Chip Count                     : 1\n\n        NPU ID                         : 1\n        Chip Count                     : 1\n\n        NPU ID                         : 2\n        Chip Count                     : 1\n\n        NPU ID                         : 3\n        Chip Count                     : 1\n\n        NPU ID                         : 4\n        Chip Count                     : 1\n\n        NPU ID                         : 5\n        Chip Count                     : 1\n\n        NPU ID                         : 6\n        Chip Count                     : 1\n\n        NPU ID                         : 7\n        Chip Count                     : 1\n\n[root@node-2 ~]# npu-smi info -l\n        Total Count                    : 8\n\n        NPU ID                         : 0\n        Chip Count                     : 1\n\n        NPU ID                         : 1\n        Chip Count                     : 1\n\n        NPU ID                         : 2\n        Chip Count                     : 1\n\n        "
TRACEBACK_WITH_LEGEND = '+ nvidia-smi topo -m | grep NIC\n  NIC0: mlx5_0\n  NIC1: mlx5_1\n  NIC2: mlx5_2\n  NIC3: mlx5_3\n+ python train.py\nTraceback (most recent call last):\n  File "train.py", line 10, in <module>\n    main()\n  File "train.py", line 5, in main\n    torch.cuda.set_device(8)\nRuntimeError: CUDA error: invalid device ordinal\n'
DUMP_SUBGROUP_RANKS = "[E ProcessGroupNCCL.cpp:1153] [PG 3 Rank 0] ProcessGroupNCCL preparing to dump debug info.\n[E ProcessGroupNCCL.cpp:1153] [PG 0 Rank 0] ProcessGroupNCCL preparing to dump debug info.\n[E ProcessGroupNCCL.cpp:1153] [PG 3 Rank 1] ProcessGroupNCCL preparing to dump debug info.\n"
NPU_L_FIRST_TOTAL_LOST = "        NPU ID                         : 0\n        Chip Count                     : 1\n\n        NPU ID                         : 1\n        Chip Count                     : 1\n# host2 npu-smi info -l\n        Total Count                    : 8\n\n        NPU ID                         : 0\n        Chip Count                     : 1\n"
CONNECT_THREE_WARNS = "node-a:1234:1300 [0] NCCL INFO Bootstrap : Using eth0:10.0.0.1<0>\nnode-a:1234:1300 [0] misc/socket.cc:484 NCCL WARN socketStartConnect: Connect to 10.0.0.2<43121> failed : No route to host\nnode-a:1234:1300 [0] misc/socket.cc:484 NCCL WARN socketStartConnect: Connect to 10.0.0.3<43122> failed : No route to host\nnode-a:1234:1300 [0] misc/socket.cc:468 NCCL WARN socketStartConnect: exceeded retries (34)\n"


def test_a_programs_error_line_beside_a_pasted_diagnosis_is_read() -> None:
    ev = load_text(DMI_THEN_PROGRAM_LOG, "job.log")
    assert ev.files[0].formats == ["ascend_dmi", "log"]
    (error,) = ev.failures
    assert (error["kind"], error["line"]) == ("log_error", 11)


def test_ascend_dmi_json_followed_by_a_prompt_is_read() -> None:
    (f,) = load_text(DMI_JSON_THEN_PROMPT, "nic.txt").failures
    assert f["code"] == "Fail" and f["exception_type"].startswith("Hardware nic: GENERAL_WARN")


def test_a_group_with_rounding_only_is_not_blamed() -> None:
    (b,) = load_text(OOB_ONE_FAIL_ONE_TINY, "all_reduce_perf.log").benchmarks
    assert [c["bytes"] for c in b["failed_checks"]] == [8388608]


def test_torch_npus_application_exception_only_from_its_own_process() -> None:
    (agent,) = [
        f
        for f in load_text(ERR_TORCHRUN_AGENT, "run.log").failures
        if f["kind"] == "torch_npu_error"
    ]
    # the launcher's own ERR line (Device:-1) names no worker's exception
    assert agent["exception_type"] == "UNKNOWN applicaiton exception"
    (stopped,) = [
        f
        for f in load_text(ERR_KEYBOARD_INTERRUPT, "run.log").failures
        if f["kind"] == "torch_npu_error"
    ]
    assert stopped["exception_type"].endswith("KeyboardInterrupt")


def test_a_dashed_border_cut_under_whole_chip_blocks_leaves_the_chips_known() -> None:
    ev = load_text(PROCESS_BORDER_CUT, "npu-smi.txt")
    assert "border cut short" not in " ".join(m.message for m in ev.files[0].messages)


def test_the_connect_rule_counts_processes_not_lines() -> None:
    ev = load_text(CONNECT_THREE_WARNS, "n.log")
    message = builtin_findings({"evidence.failures": ev.failures}, "nccl")[
        "evidence-nccl-connect-failed"
    ].message
    assert "3 time(s) in 1 process(es)" in message


def test_each_npu_smi_list_is_checked_against_its_own_count() -> None:
    ev = load_text(NPU_SMI_L_CUT_SECOND, "npu-smi-l.txt")
    said = [m.message for m in ev.files[0].messages]
    assert [m.split(" NPU(s) listed")[0][-1] for m in said] == ["8", "3"]
    assert ev.files[0].status == "partial" and said[1].endswith("the rest are unknown")


def test_a_nic_legend_printed_in_a_jobs_log_leaves_the_log_read() -> None:
    # (the tenth review's inputs)
    ev = load_text(TRACEBACK_WITH_LEGEND, "job.log")
    assert ev.files[0].formats == ["nic_legend", "log"]
    assert [f["kind"] for f in ev.failures] == ["python_exception"]


def test_flight_recorder_dumps_of_several_groups_are_each_said() -> None:
    ev = load_text(DUMP_SUBGROUP_RANKS, "dump.log")
    dumps = sorted((f["group"], f["rank"]) for f in ev.failures if f["kind"] == "pg_debug_dump")
    assert dumps == [("0", 0), ("3", 0), ("3", 1)]


def test_npus_listed_above_any_total_count_are_said_apart() -> None:
    said = [m.message for m in load_text(NPU_L_FIRST_TOTAL_LOST, "l.txt").files[0].messages]
    assert said[0].startswith("npu_smi_query: npu-smi info -l: no Total Count above them; 2 NPU(s)")


def test_json_nested_past_the_readers_depth_is_no_crash() -> None:
    # (the tenth review's hostile input: an import never crashes on a file)
    deep = "log line\n" + '{"a": [' * 2000 + "]}" * 2000 + "\n"
    assert load_text(deep, "x.log").files[0].status == "unknown"
    table = load_text('{"server_list": [' + '{"a": [' * 3000 + "\n", "rank_table.json")
    assert table.files[0].status == "unreadable"
    assert "nested too deep" in table.files[0].messages[0].message


PRETTY_RECORDS_IN_LOG = '2025-09-08 11:30:00 INFO job started\n2025-09-08 11:30:01 INFO loading data\n2025-09-08 11:30:02 INFO step 1\n2025-09-08 11:36:12 INFO reschedule record of the job:\n{\n  "JobID": "default/job-1",\n  "TotalRescheduleTimes": 1,\n  "RescheduleRecords": [\n    {\n      "LogFileFormatTime": "I0908 11:36:10",\n      "RescheduleTimeStamp": 1759683370,\n      "ReasonOfTask": [\n        {"RescheduleReason": "pod-failed", "PodName": "worker-0", "NodeName": "node2", "NodeRankIndex": "1"}\n      ]\n    }\n  ]\n}\n2025-09-08 11:36:20 INFO resumed\n2025-09-08 11:40:00 ERROR checkpoint save failed: disk full\n'
PRETTY_MAP_OF_TWO_JOBS = '{\n  "default/a": {\n    "TotalRescheduleTimes": 2,\n    "RescheduleRecords": [\n      {"RescheduleTimeStamp": 1759683370, "ReasonOfTask": [{"RescheduleReason": "process-exception", "PodName": "a-0", "NodeName": "n1", "NodeRankIndex": "0"}]}\n    ]\n  },\n  "default/b": {\n    "TotalRescheduleTimes": 1,\n    "RescheduleRecords": [\n      {"RescheduleTimeStamp": 1759683371, "ReasonOfTask": [{"RescheduleReason": "pod-failed", "PodName": "b-1", "NodeName": "n2", "NodeRankIndex": "1"}]}\n    ]\n  }\n}\n'


def test_pretty_printed_reschedule_records_in_a_jobs_log_leave_the_log_read() -> None:
    # (the tenth review's older problem: the reader took one-line records only, and the
    # records' inner lines made the rest no program's log)
    ev = load_text(PRETTY_RECORDS_IN_LOG, "job.log")
    assert ev.files[0].formats == ["reschedule", "log"]
    by_kind = {f["kind"]: f for f in ev.failures}
    assert set(by_kind) == {"reschedule", "log_error"}
    assert (by_kind["reschedule"]["host"], by_kind["reschedule"]["line"]) == ("node2", 5)
    assert "job default/job-1" in by_kind["reschedule"]["message"]
    assert by_kind["log_error"]["line"] == 19


def test_a_pretty_printed_map_of_jobs_is_read_once_per_task() -> None:
    ev = load_text(PRETTY_MAP_OF_TWO_JOBS, "cm.json")
    said = sorted((f["host"], f["code"]) for f in ev.failures)
    assert said == [("n1", "process-exception"), ("n2", "pod-failed")]
    assert ev.files[0].status == "read"


NIC_LEGENDS_OF_TWO_HOSTS = "# host1\n  NIC0: mlx5_0\n  NIC1: mlx5_1\n  NIC2: mlx5_2\n# host2\n  NIC0: mlx5_0\n  NIC1: mlx5_1\n  NIC2: mlx5_bond_0\n"


def test_nic_legends_of_two_hosts_are_each_said() -> None:
    # (the tenth review's L6: one map by NIC name let host2's NIC2 overwrite host1's)
    ev = load_text(NIC_LEGENDS_OF_TWO_HOSTS, "legends.txt")
    said = [(m.line, m.message) for m in ev.files[0].messages]
    assert [line for line, _ in said] == [2, 6]
    assert "NIC2 mlx5_2;" in said[0][1] and "NIC2 mlx5_bond_0 (1 bonded" in said[1][1]
    assert all("(one of 2 in the file): 3 NIC(s)" in m for _, m in said)
