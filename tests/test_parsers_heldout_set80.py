"""Outputs the eightieth to ninety-fourth held-out evaluations misread that this round reads:
HugeCTR's report of a failed NCCL call (the call on the line after the error text), a DeepSpeed
exit record a page wrapped inside a word, torch_npu's ``HCCL error in: FILE:LINE`` with no call
named (the collective from the c10d frame above it), srun's report of a task a signal ended,
npu-smi tables cut inside a chip's first row, after a chip's rows or inside the process table,
a rank table copied from one of its lists on, rocm-smi's matrices (not nvidia-smi's), an
rccl-tests log cut after its table's header, a wrapper's banner naming the test and ``%g`` wrong
counts, a watchdog exception's ``Last error:`` and a watchdog record without its times, the
exit reports of HPE PALS' and MPICH Hydra's mpiexec, torch elastic's root cause first at a
tie of its one-second stamps, torch.multiprocessing.spawn's reports, events without a host or a
call named without "None", and a CANN error code as a failure.

Samples: ``tests/data/evidence_heldout_25/`` (sources in ``tests/data/SOURCES.md``).
"""

from __future__ import annotations

from functools import partial

import pytest

from advisor.evidence.load import detect
from advisor.parsers import ParseError, busbw_factor, logs, nccl_tests, npu_smi, rank_table
from tests import heldout
from tests.conftest import DATA
from tests.rules_facts import builtin_findings

HELDOUT = DATA / "evidence_heldout_25"


_load = partial(heldout.load, HELDOUT)


def _events(name: str) -> list[logs.LogEvent]:
    return logs.parse((HELDOUT / name).read_text()).events


def test_hugectr_failed_nccl_call_read_with_the_call_from_the_next_line() -> None:
    name = "hugectr_dcn_ncclgroupend_unhandled_system_error.log"
    assert detect((HELDOUT / name).read_text()) == ["log"]
    (ev,) = [e for e in _events(name) if e.kind == "nccl_call_failure"]
    assert (ev.call, ev.code, ev.code_name, ev.line) == ("ncclGroupEnd", "2", "ncclSystemError", 15)
    findings = builtin_findings({"evidence.failures": _load(name).failures}, "nccl")
    assert findings["evidence-nccl-call-failed"].severity == "critical"


def test_runtime_error_text_without_an_nccl_call_after_it_is_not_an_nccl_failure() -> None:
    # "invalid argument" is CUDA's text for cudaErrorInvalidValue too: the next line decides
    text = (
        "RuntimeError: Runtime error: invalid argument\n"
        "        cudaMemcpy(d, h, n, cudaMemcpyHostToDevice) at init(/src/a.cu:12)\n"
    )
    with pytest.raises(ParseError):  # nothing else in it either
        logs.parse(text)
    assert detect(text) == []


def test_deepspeed_exit_record_wrapped_inside_a_word_is_joined() -> None:
    name = "llava_pretrain_deepspeed_local_rank7_exit_minus9.log"
    assert detect((HELDOUT / name).read_text()) == ["log"]
    (ev,) = [e for e in _events(name) if e.kind == "launcher_exit"]
    assert (ev.local_rank, ev.exit_code, ev.line) == (None, -9, 1)
    assert ev.exception_type.startswith("deepspeed (a process of its node failed")
    finding = builtin_findings({"evidence.failures": _load(name).failures}, "nccl")[
        "evidence-launcher-exit"
    ]
    assert any("a process exited with -9" in str(i) for i in finding.items), finding.items


def test_torch_npu_hccl_error_in_names_the_collective_device_and_code() -> None:
    name = "llamafactory_ej0001_barrier_device3_err02200.log"
    (ev,) = [e for e in _events(name) if e.kind == "hccl_call_failure"]
    assert (ev.op, ev.rank, ev.device, ev.pid, ev.torch_npu_code, ev.line) == (
        "barrier",
        3,
        3,
        927000,
        "ERR02200",
        3,
    )
    assert "ProcessGroupHCCL.cpp:64" in ev.message
    findings = builtin_findings({"evidence.failures": _load(name).failures})
    # a failed barrier is not ready; the CANN code after it keeps its own finding
    assert findings["evidence-hccl-call-failed"].severity == "critical"
    assert "EJ0001" in findings["evidence-hccl-other-error"].message


def test_npu_smi_fragment_cut_inside_a_first_row_reads_that_far_and_is_partial() -> None:
    name = "qwen25vl_npu_smi_910b3_rows3to7_noheader.txt"
    info = npu_smi.parse_info((HELDOUT / name).read_text())
    assert [c.npu for c in info.chips] == [3, 4, 5, 6, 7]
    last = info.chips[-1]
    assert (last.health, last.power_w, last.hbm_used_mb) == ("OK", None, None)
    assert any("NPU 7's rows are cut off after its health" in w.message for w in info.warnings)
    assert _load(name).files[0].status == "partial"


def test_npu_smi_process_table_without_its_closing_border_is_partial() -> None:
    name = "nyaterm_a3_npu_smi_tail_process_table_cut.txt"
    info = npu_smi.parse_info((HELDOUT / name).read_text())
    assert [(c.npu, c.chip, c.hbm_used_mb) for c in info.chips] == [(7, 0, 15503), (7, 1, 15242)]
    assert [(p.npu, p.pid, p.memory_mb) for p in info.processes] == [(0, 692318, 12417)]
    (cut,) = [w for w in info.warnings if "closing border" in w.message]
    assert cut.line == 11
    assert _load(name).files[0].status == "partial"


def test_a_whole_process_table_is_not_called_cut() -> None:
    table = (HELDOUT / "nyaterm_a3_npu_smi_tail_process_table_cut.txt").read_text()
    closed = table.rstrip("\n") + "\n" + "+" + "-" * 40 + "+\n"
    info = npu_smi.parse_info(closed)
    assert not [w for w in info.warnings if "closing border" in w.message]


def test_srun_task_ended_by_a_signal_is_a_launcher_exit_with_the_shells_code() -> None:
    name = "cscs_megatron_ucx_segv_srun_task640_indented.log"
    assert detect((HELDOUT / name).read_text()) == ["log"]
    (ev,) = [e for e in _events(name) if e.kind == "launcher_exit"]
    assert (ev.rank, ev.host, ev.exit_code, ev.line) == (640, "nid007306", 139, 10)


def test_srun_tasks_that_segfaulted_and_those_it_terminated_after() -> None:
    name = "cscs_osu_iallreduce_cuda_segfault_srun_2node.log"
    exits = [e for e in _events(name) if e.kind == "launcher_exit"]
    # slurmstepd's cancelling of the step is an account of its own, between the two ends
    cancelled = [e for e in _events(name) if e.kind == "job_cancelled"]
    assert [(e.host, e.exit_code) for e in cancelled] == [("nid006549", None)]
    # the tasks srun reports Terminated were stopped by Slurm for the step's failure: one
    # account of them, after the tasks that failed
    assert [(e.rank, e.host, e.exit_code) for e in exits] == [
        (0, "nid006549", 139),
        (2, "nid006550", 139),
        (None, None, None),
    ]
    assert exits[2].message == (
        "2 task(s) terminated (SIGTERM) by Slurm as it cancelled step 2243671.21 for a task's "
        "failure"
    )
    finding = builtin_findings({"evidence.failures": _load(name).failures}, "nccl")[
        "evidence-launcher-exit"
    ]
    assert "task/rank 0 on nid006549 exited with 139 (signal 11)" in str(finding.items[0])


def test_srun_line_with_another_text_after_the_task_is_not_an_exit() -> None:
    text = "srun: error: node1: task 0: Some unexpected words here\n"
    assert detect(text) == []


def test_npu_smi_table_ending_on_a_chip_row_without_its_border_is_partial() -> None:
    name = "vllm_ascend_264_dsr1_oom_npu_smi_910b2c_24_1_rc1_cut.txt"
    info = npu_smi.parse_info((HELDOUT / name).read_text())
    assert [(c.npu, c.hbm_used_mb) for c in info.chips] == [(0, 59356), (1, 59351)]
    (cut,) = [w for w in info.warnings if "closing border" in w.message]
    assert "chips after NPU 1 are unknown" in cut.message
    assert _load(name).files[0].status == "partial"


def test_rank_table_copied_from_one_of_its_lists_is_read_as_cut_at_both_ends() -> None:
    name = "vllm_ascend_pr2939_a3_gen_ranktable_prefill_device_list_after_cut.json"
    text = (HELDOUT / name).read_text()
    assert detect(text) == ["rank_table"]
    table = rank_table.parse(text)
    assert table.headless and table.elided_lines == [17] and table.form == "prefill_decode"
    assert [(r.device_id, r.role) for r in table.ranks] == [("0", "prefill"), ("1", "prefill")]
    # the decode list may stand outside the copy; "xxx" is a placeholder, not one shared address
    assert table.errors == [], table.errors
    ev = _load(name)
    assert ev.files[0].status == "partial" and ev.shapes == []
    assert any("starts inside the rank table" in m.message for m in ev.files[0].messages)


def test_rocm_smi_showtopo_is_another_tools_matrix_named_and_not_read() -> None:
    name = "rocm_smi_showtopo_8gpu_xgmi_numa.txt"
    ev = _load(name)
    (report,) = ev.files
    assert report.status == "unknown" and ev.topologies == []
    (note, _) = report.messages
    assert note.line == 4 and note.message.startswith("rocm-smi --showtopo matrices")


def test_rccl_tests_cut_after_its_tables_header_keeps_what_it_asked_partial() -> None:
    name = "rccl_tests_2_18_3_mi50_x4_header_only.log"
    log = nccl_tests.parse((HELDOUT / name).read_text())
    (table,) = log.tables
    assert (table.op, table.rows, table.max_bytes) == ("all_reduce", [], 1073741824)
    (cut,) = [w for w in log.warnings if "ends with the table's header" in w.message]
    assert cut.line == 14 and "0 of 28 sizes" in cut.message
    assert _load(name).files[0].status == "partial"


def test_a_header_with_other_lines_after_it_and_no_row_is_a_run_stopped_before_its_first_size() -> (
    None
):
    # lines after the header that are no row (the crash the run printed): it stopped before
    # its first size, and what it asked is kept as for a copy that ends at the header
    text = (HELDOUT / "rccl_tests_2_18_3_mi50_x4_header_only.log").read_text()
    log = nccl_tests.parse(text + "Segmentation fault (core dumped)\n")
    (table,) = log.tables
    assert table.rows == [] and table.max_bytes == 1073741824
    (note,) = [w for w in log.warnings if "no result row follows" in w.message]
    assert note.line == 14 and "0 of 28 sizes" in note.message


def test_wrappers_banner_names_the_test_and_g_formatted_wrong_counts_are_read() -> None:
    name = "llmjp_sakura_nccl_tests_1node_8gpu_hypercube_out_of_bounds_44_failed.txt"
    log = nccl_tests.parse((HELDOUT / name).read_text())
    (table,) = log.tables
    assert table.op == "hypercube" and len(table.rows) == 26
    last = table.rows[-1]
    assert last.size_bytes == 268435456 and last.out_of_place is not None
    assert (last.out_of_place.wrong, last.out_of_place.busbw_gbytes_s) == (103365000, 194.53)
    # every row that printed a non-zero count, out of place and in place: the footer's 44
    wrong = [t for r in table.rows for t in (r.out_of_place, r.in_place) if t and t.wrong]
    assert len(wrong) == 44
    assert not [w for w in log.warnings if "unreadable" in w.message]


def test_hypercube_prints_busbw_equal_to_algbw_at_any_rank_count() -> None:
    # hypercube.cu's HyperCubeGetBw: algbw is already the bytes each rank receives, busbw = algbw
    # x 1; the 8-GPU run's rows hold it, and algbw = count x 4 B x (8 - 1) / time.
    name = "llmjp_sakura_nccl_tests_1node_8gpu_hypercube_out_of_bounds_44_failed.txt"
    (table,) = nccl_tests.parse((HELDOUT / name).read_text()).tables
    row = next(r for r in table.rows if r.size_bytes == 33554432)
    timing = row.out_of_place
    assert timing is not None and timing.busbw_gbytes_s == timing.algbw_gbytes_s
    assert busbw_factor("hypercube", 8) == 1.0
    assert row.count * 4 * 7 / (timing.time_us * 1e3) == pytest.approx(
        timing.algbw_gbytes_s, rel=1e-3
    )


def test_watchdog_exception_keeps_nccls_last_error_an_infiniband_completion() -> None:
    name = "llmjp_sakura_p2p_test_rank9_nccl_remote_error_ib_completion_error5_vendor244.log"
    (ev,) = [e for e in _events(name) if e.kind == "watchdog_exception"]
    assert ev.rank == 9 and ev.exception_type is not None
    assert ev.exception_type.startswith("NET/IB : Got completion from peer 10.5.0.34<33956>")
    assert "Last error: NET/IB" in ev.message


def test_watchdog_record_without_times_says_so_not_none() -> None:
    name = "tistory_9566_k8s_ddp_2gpu_watchdog_allreduce_seqnum1_sigabrt_excerpt.log"
    finding = builtin_findings({"evidence.failures": _load(name).failures}, "nccl")[
        "evidence-watchdog-timeout"
    ]
    (item,) = [str(i) for i in finding.items]
    assert "all_reduce (SeqNum 1) timed out (the record names no times)" in item
    assert "None" not in item


def test_untagged_abort_notice_repeating_a_ranks_time_out_is_no_failure_of_its_own() -> None:
    name = "pytorch_forum_fsdp_llama2_2xa100_watchdog_allgather_base_seq388923_cut.log"
    events = _events(name)
    assert [(e.kind, e.rank, e.seq) for e in events] == [
        ("watchdog_timeout", 0, 388923),
        ("watchdog_timeout", 1, 388923),
    ]


def test_without_the_time_out_lines_the_notices_what_is_that_ranks_time_out() -> None:
    # the time-out lines not kept: the what() under the notice is rank 1's record, read once
    lines = HELDOUT / "pytorch_forum_fsdp_llama2_2xa100_watchdog_allgather_base_seq388923_cut.log"
    text = "\n".join(lines.read_text().splitlines()[2:7])
    events = logs.parse(text).events
    assert [(e.kind, e.rank, e.seq, e.line) for e in events] == [("watchdog_timeout", 1, 388923, 4)]


def test_pals_mpiexec_exit_and_signal_lines_are_launcher_exits() -> None:
    name = "polaris_pals_mpiexec_rank97_exit1_rank117_signal15.log"
    assert detect((HELDOUT / name).read_text()) == ["log"]
    exits = [e for e in _events(name) if e.kind == "launcher_exit"]
    assert [(e.rank, e.host, e.exit_code) for e in exits] == [
        (97, "x3204c0s7b1n0.hsn.cm.polaris.alcf.anl.gov", 1),
        (117, "x3004c0s1b1n0.hsn.cm.polaris.alcf.anl.gov", 143),
    ]


def test_mpich_hydra_bad_termination_names_the_rank_host_and_signal() -> None:
    name = "frontera_msccl_2node_rtx5000_mpich_bad_termination_rank1_signal11.log"
    (ev,) = [e for e in _events(name) if e.kind == "launcher_exit"]
    assert (ev.rank, ev.host, ev.pid, ev.exit_code, ev.line) == (1, "c198-031", 30012, 139, 41)
    ev_all = _load(name)
    # the nccl-tests header before it is kept as what the run asked, beside the failure
    assert ev_all.files[0].formats == ["nccl_tests", "log"]
    assert ev_all.files[0].status == "partial"


def test_elastic_root_cause_is_first_at_a_tie_of_its_stamps() -> None:
    name = "speculators_1115_910c_dspark_train_childfailed_rank1_root_cut.log"
    ev = _load(name)
    (timeline,) = ev.timelines
    assert timeline.first_rank == 1, timeline
    assert [x.rank for x in timeline.entries][:2] == [1, 3]


def test_nccl_warnings_in_a_run_that_finished_and_passed_are_a_warning_not_a_failure() -> None:
    name = "frontera_msccl_4node_16gpu_all_gather_algo_ignored_warn_ok.log"
    ev = _load(name)
    (bench,) = ev.benchmarks
    assert bench["complete"] and not bench["wrong_total"] and not bench["failed_checks"]
    findings = builtin_findings(
        {"evidence.failures": ev.failures, "evidence.benchmarks": ev.benchmarks}, "nccl"
    )
    assert "evidence-nccl-warning" not in findings
    finished = findings["evidence-nccl-warning-run-finished"]
    assert finished.severity == "warning" and len(finished.items) == 32


def test_spawn_process_that_raised_is_a_launcher_report_with_its_index() -> None:
    name = "pytorch_152302_torch27_ddp_spawn_process1_error_sigterm_cut.log"
    assert detect((HELDOUT / name).read_text()) == ["log"]
    (ev,) = [e for e in _events(name) if e.kind == "launcher_exit"]
    assert (ev.local_rank, ev.exit_code, ev.line) == (1, None, 3)
    assert "its exception line is not in the file" in ev.message
    finding = builtin_findings({"evidence.failures": _load(name).failures}, "nccl")[
        "evidence-launcher-exit"
    ]
    assert "torch.multiprocessing.spawn: process 1 raised" in str(finding.items[0])


def test_spawn_process_ended_by_a_signal_has_the_shells_code() -> None:
    name = "tistory_9566_k8s_ddp_2gpu_watchdog_allreduce_seqnum1_sigabrt_excerpt.log"
    (ev,) = [e for e in _events(name) if e.kind == "launcher_exit"]
    assert (ev.local_rank, ev.exit_code, ev.exception_type) == (
        1, 134, "torch.multiprocessing.spawn"
    )  # fmt: skip


def test_events_without_host_device_or_call_are_said_without_none() -> None:
    name = "trl_3158_grpo_vllm_nccl_warn_duplicate_gpu_invalid_usage.log"
    findings = builtin_findings({"evidence.failures": _load(name).failures}, "nccl")
    items = [str(i) for rule in ("evidence-nccl-call-failed", "evidence-nccl-warning")
             for i in findings[rule].items]  # fmt: skip
    assert items[0].startswith("A process: ncclInvalidUsage (")
    assert items[1].startswith("a process: Duplicate GPU detected : rank 1 and rank 0")
    assert not [i for i in items if "None" in i], items


def test_a_cann_error_code_alone_is_a_failure_not_a_warning() -> None:
    name = "sglang_12464_ascend_ez9999_aivec_mpu_invalid_rank3_cut.log"
    # (its vector core's exception: the device's, since round HH)
    (ev,) = [e for e in _events(name) if e.kind == "npu_device_exception"]
    assert (ev.code, ev.rank) == ("EZ9999", 3)
    finding = builtin_findings({"evidence.failures": _load(name).failures})[
        "evidence-npu-device-exception"
    ]
    assert finding.severity == "critical"
