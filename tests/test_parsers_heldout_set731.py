"""Outputs of round XXXX's held-out evaluation (set 731, NVIDIA collective logs) that the advisor
read wrong or in part before this change (tests/data/evidence_heldout_84, sources in
tests/data/SOURCES.md): bash's report of a script's job a signal ended ("run.sh: line 11: PID
Segmentation fault (core dumped)"), here in its zh_CN form, was not read, so a crashed NCCL run
came out READY; a WARN printed without NCCL's prefix (NVLS's "Cuda failure 1") left its bare
``file:line -> 1`` trace unread and NVLS unnamed; NCCL 2.2's old ``INFO file:line -> 2`` trace
(no "NCCL " in it) was not read under its WARNs; and RCCL's INFO "Failed to open
libibverbs.so[.1]" (no RDMA verbs library: sockets) said nothing."""

from __future__ import annotations

from functools import partial
from pathlib import Path

from tests import heldout
from tests.conftest import DATA

HELDOUT = DATA / "evidence_heldout_84"

SEGFAULT_ZH = (
    "mocknccl_2_20_5_simai_64_mock_ranks_init_channels_then_shell_segfault_core_dumped_zh"
    "_simai146_cut.log"
)
NVLS = "nccl_nvls_cuda_failure_1_invalid_argument_4xh200_container_no_nvidia_caps_init_subsys_pie500.log"
OLD_FORMAT = (
    "nccl_2_2_13_old_format_bootstrap_connect_timed_out_socket_enp3s0_2ranks_nccltests15_cut.log"
)
NO_VERBS = (
    "rccl_2_22_3_rocm_6_4_vllm_iommu_pt_missing_warn_no_ibverbs_plugin_internal_rocmvllm390_cut.log"
)

_write = partial(heldout.load_copy, name="copy.log")
_load = partial(heldout.load, HELDOUT)
_text = partial(heldout.text, HELDOUT)


# --- bash's "Segmentation fault (core dumped)" of a script's job, English and zh_CN ---------------


def test_the_zh_cn_segfault_of_the_nccl_process_is_not_ready_naming_pid_and_host() -> None:
    ev = _load(SEGFAULT_ZH)
    level, outcome = heldout.imported(ev)
    assert level == "NOT READY"
    assert heldout.above_info(outcome) == [("evidence-launcher-exit", "critical")]
    (item,) = heldout.items(outcome, "evidence-launcher-exit")
    assert "on inspur-gpu-server-15 exited with -11 (signal 11)" in item
    assert (
        "run.sh line 11: the shell reports process 2563676 (inspur-gpu-server-15, the NCCL "
        "process of line(s) 1-6) ended by Segmentation fault (signal 11), core dumped: "
        'LD_LIBRARY_PATH="$SCRIPT_DIR/../build/lib/"'
    ) in item
    assert item.endswith("line 7)")


def test_the_english_form_of_the_same_report_is_read_the_same(tmp_path: Path) -> None:
    text = (
        _text(SEGFAULT_ZH).replace("第 11 行：", "line 11:").replace("段错误", "Segmentation fault")
    )
    text = text.replace("（核心已转储）", "(core dumped)")
    level, outcome = heldout.imported(_write(tmp_path, text))
    assert level == "NOT READY"
    (item,) = heldout.items(outcome, "evidence-launcher-exit")
    assert "process 2563676 (inspur-gpu-server-15, the NCCL process of line(s) 1-6)" in item
    assert "ended by Segmentation fault (signal 11), core dumped" in item


def test_another_pids_abort_is_named_without_the_nccl_process(tmp_path: Path) -> None:
    # (a job the shell reports that is none of the log's NCCL processes: no host is tied to it)
    text = _text(SEGFAULT_ZH).replace("2563676 段错误               （核心已转储）", "4242 已放弃")
    level, outcome = heldout.imported(_write(tmp_path, text))
    assert level == "NOT READY"
    (item,) = heldout.items(outcome, "evidence-launcher-exit")
    assert "the shell reports process 4242 ended by Aborted (signal 6): LD_LIBRARY_PATH" in item
    assert "inspur-gpu-server-15" not in item and "core dumped" not in item


def test_a_job_the_script_terminated_is_read_only_where_it_is_the_nccl_process(
    tmp_path: Path,
) -> None:
    # (a start script ends its own jobs, a "tail -f" of its log: Terminated of another pid)
    other = _text(SEGFAULT_ZH).replace("2563676 段错误               （核心已转储）", "4242 已终止")
    assert heldout.imported(_write(tmp_path, other))[0] == "READY"
    ours = _text(SEGFAULT_ZH).replace("段错误               （核心已转储）", "已终止")
    level, outcome = heldout.imported(_write(tmp_path, ours))
    assert level == "NOT READY"
    (item,) = heldout.items(outcome, "evidence-launcher-exit")
    assert (
        "process 2563676 (inspur-gpu-server-15, the NCCL process of line(s) 1-6) ended by " in item
    )
    assert "Terminated (signal 15)" in item


def test_the_same_nccl_lines_without_the_shell_report_stay_ready(tmp_path: Path) -> None:
    text = "".join(_text(SEGFAULT_ZH).splitlines(keepends=True)[:6])
    level, outcome = heldout.imported(_write(tmp_path, text))
    assert level == "READY"
    assert heldout.above_info(outcome) == []


# --- NVLS's Cuda failure with its trace printed without NCCL's prefix -----------------------------


def test_the_nvls_cuda_failure_names_nvls_its_trace_and_the_fix() -> None:
    level, outcome = heldout.imported(_load(NVLS))
    assert level == "NOT READY"
    assert heldout.above_info(outcome) == [("evidence-nccl-warning", "critical")]
    (item,) = heldout.items(outcome, "evidence-nccl-warning")
    assert (
        "Cuda failure 1 'invalid argument' (then 1 = ncclUnhandledCudaError passed up through "
        "transport/nvls.cc, init.cc, group.cc, lines 2-5; it reached init.cc and group.cc: the "
        "communicator's set-up failed) at transport/nvls.cc:251 (NCCL's NVLS transport)"
    ) in item
    assert "NCCL_NVLS_ENABLE=0" in item and "/dev/nvidia-caps" in item
    assert item.endswith("line 1)")


def test_a_bare_trace_of_another_code_and_place_is_read_as_its_own(tmp_path: Path) -> None:
    # (another transport's WARN, its trace's code 2 with a blank line between: read, no NVLS)
    text = (
        "\ntransport/p2p.cc:275 NCCL WARN Cuda failure 'invalid argument'\n\n"
        "transport/p2p.cc:300 -> 2\ninit.cc:900 -> 2\n"
    )
    level, outcome = heldout.imported(_write(tmp_path, text))
    assert level == "NOT READY"
    (item,) = heldout.items(outcome, "evidence-nccl-warning")
    assert "(then 2 = ncclSystemError passed up through transport/p2p.cc, init.cc, lines 4-5)" in (
        item
    )
    assert "(NCCL's P2P transport)" in item and "NVLS" not in item


def test_a_bare_trace_far_under_the_warn_is_not_its_own(tmp_path: Path) -> None:
    lines = _text(NVLS).splitlines(keepends=True)
    text = lines[0] + "other output\n" * 8 + "".join(lines[1:])
    level, outcome = heldout.imported(_write(tmp_path, text))
    assert level == "NOT READY"
    (item,) = heldout.items(outcome, "evidence-nccl-warning")
    assert "passed up through" not in item and "NCCL's NVLS transport" in item


# --- NCCL 2.2's old "INFO file:line -> N" trace under its WARNs -----------------------------------


def test_the_old_format_traces_name_ncclsystemerror_and_bootstrap() -> None:
    level, outcome = heldout.imported(_load(OLD_FORMAT))
    assert level == "NOT READY"
    first, second = heldout.items(outcome, "evidence-nccl-warning")
    assert first.startswith(
        "gpu-bql-144-103 pid 18553 (rank 0), device 0: Call to connect failed : Connection timed "
        "out (then 2 = ncclSystemError passed up through transport/net_socket.cu, bootstrap.cu)"
    )
    assert first.endswith("line 10)")
    assert second.startswith(
        "gpu-bql-144-103 pid 18553 (rank 0), device 0: Connection closed by remote peer (then 2 "
        "= ncclSystemError passed up through transport/net_socket.cu, bootstrap.cu)"
    )
    assert second.endswith("line 15)")


def test_an_old_format_trace_of_another_host_and_code(tmp_path: Path) -> None:
    text = _text(OLD_FORMAT).replace("gpu-bql-144-103", "node7").replace("-> 2", "-> 3")
    level, outcome = heldout.imported(_write(tmp_path, text))
    assert level == "NOT READY"
    first, _ = heldout.items(outcome, "evidence-nccl-warning")
    assert first.startswith("node7 pid 18553 (rank 0), device 0: Call to connect failed")
    assert (
        "(then 3 = ncclInternalError passed up through transport/net_socket.cu, bootstrap.cu)"
        in (first)
    )


# --- RCCL's INFO "Failed to open libibverbs.so[.1]" -------------------------------------------------


def test_the_missing_verbs_library_is_a_note_naming_the_host() -> None:
    ev = _load(NO_VERBS)
    level, outcome = heldout.imported(ev)
    assert level == "READY WITH WARNINGS"
    assert heldout.above_info(outcome) == [("evidence-nccl-fallback-warning", "warning")]
    assert (
        14,
        "log: supllm: NCCL could not open libibverbs.so[.1]: no RDMA verbs library on this host, "
        "so no InfiniBand/RoCE transport: NCCL/RCCL goes on with its socket transport",
    ) in heldout.notes(ev)
    # (line 13 is RCCL's default plugin lookup: no setting is named; round WWWW's set 725 mend)
    assert not any("NCCL_NET_PLUGIN" in said for said in heldout.said(ev))


def test_the_note_names_another_host_and_is_absent_without_the_line(tmp_path: Path) -> None:
    text = _text(NO_VERBS).replace("supllm:461", "gpu-b:461")
    ev = _write(tmp_path, text)
    assert any(said.startswith("log: gpu-b: NCCL could not open") for said in heldout.said(ev))
    healthy = "".join(_text(NO_VERBS).splitlines(keepends=True)[1:13])
    ev = _write(tmp_path, healthy)
    assert heldout.imported(ev)[0] == "READY"
    assert not any("libibverbs" in said for said in heldout.said(ev))
