"""Review 67 (part a) of round UUUU (sets 709-711), faults 1-6: a perftest host buffer
(CUDA_MEM_MALLOC) and a dma-buf run's GPU buffer that the HCA would not register; a TSCH
line's process id read as its device; an hccl_test build run inside its own directory and an
nccl-tests build stopped by nvcc; two hosts' nvidia-smi resets through pdsh; fuser's holders
of files not tied to the refused GPU: each on its input (tests/data/review67, described in
tests/data/SOURCES.md), with the real file each is built from still read as before."""

from __future__ import annotations

from functools import partial
from pathlib import Path

from advisor.evidence.load import EvidenceFacts, load_paths
from tests import heldout
from tests.conftest import DATA

REVIEW = DATA / "review67"
SET706 = DATA / "evidence_heldout_80"
SET709 = DATA / "evidence_heldout_81"

_write = partial(heldout.load_copy, name="copy.txt")


def _load(name: str, where: Path = REVIEW) -> EvidenceFacts:
    return load_paths([where / name])


def _rules(ev: EvidenceFacts) -> tuple[str, set[str]]:
    level, outcome = heldout.imported(ev)
    return level, {f.rule_id for f in outcome.findings}


# --- fault 1: a perftest host buffer is no GPU memory; dma-buf already used -----------------------

MALLOC = "perftest_cuda_mem_malloc_host_buffer_couldnt_allocate_mr_error_12_perftest346.txt"
DMABUF = "perftest_use_cuda_dmabuf_device_buffer_couldnt_allocate_mr_error_14_perftest346.txt"
PERFTEST346 = "perftest_cuda_mem_device_couldnt_allocate_mr_error_14_no_dmabuf_perftest346.txt"


def test_a_cuda_mem_malloc_buffer_stays_the_host_buffer_warning() -> None:
    level, rules = _rules(_load(MALLOC))
    assert "evidence-rdma-perftest-gpu-mr-failed" not in rules
    # (a host buffer the device would not register: no RDMA ran, critical since set 724)
    assert "evidence-rdma-perftest-mr-failed" in rules
    assert level == "NOT READY"


def test_a_dmabuf_run_is_not_told_to_use_dmabuf() -> None:
    ev = _load(DMABUF)
    level, outcome = heldout.imported(ev)
    assert level == "NOT READY"
    (item,) = heldout.items(outcome, "evidence-rdma-perftest-gpu-mr-failed")
    assert "registered it as a dma-buf (--use_cuda_dmabuf) and that was refused" in item
    assert "dma-buf with --use_cuda_dmabuf" not in item


def test_the_real_device_buffer_run_is_still_the_gpu_failure() -> None:
    level, outcome = heldout.imported(_load(PERFTEST346, SET706))
    assert level == "NOT READY"
    (item,) = heldout.items(outcome, "evidence-rdma-perftest-gpu-mr-failed")
    assert "GPU memory (CUDA_MEM_DEVICE)" in item and "dma-buf with --use_cuda_dmabuf" in item


def test_an_integrated_gpus_device_buffer_is_host_memory(tmp_path: Path) -> None:
    # (cuda_memory.c: CU_DEVICE_ATTRIBUTE_INTEGRATED 1 allocates with cuMemAllocHost)
    text = (DATA / "review67" / DMABUF).read_text()
    text = text.replace("CUDA device integrated: 0", "CUDA device integrated: 1").replace(
        "using DMA-BUF for GPU buffer address at 0x7f3a40000000 aligned at 0x7f3a40000000 "
        "with aligned size 16777216\n",
        "",
    )
    _, rules = _rules(_write(tmp_path, text))
    assert "evidence-rdma-perftest-gpu-mr-failed" not in rules
    assert "evidence-rdma-perftest-mr-failed" in rules


# --- fault 2: TSCH(PID,PName)'s first field is the process id ----------------------------------

TSCH_PID = "cann_device_slog_tsch_pid_28417_aicore_task_timeout_no_device_atlaste_10_0382.log"
TSCH_GREP = (
    "cann_device_slog_tsch_grep_rn_hisi_logs_device_2_aicore_task_timeout_atlaste_10_0382.log"
)
TSCH_REAL = "cann_device_slog_tsch_atlas200dk_aicore_task_timeout_fault_task0_huaweicloud_atlaste_10_0382.log"


def _tsch_item(ev: EvidenceFacts) -> str:
    level, outcome = heldout.imported(ev)
    assert level == "NOT READY"
    (item,) = heldout.items(outcome, "evidence-npu-device-exception")
    return item


def test_the_tsch_pid_is_no_device() -> None:
    item = _tsch_item(_load(TSCH_PID))
    assert item.startswith("A device: AI Core task timeout: task 0")
    assert "28417" not in item.split(":", 1)[0]


def test_the_grep_rn_path_names_the_device() -> None:
    assert _tsch_item(_load(TSCH_GREP)).startswith("Device 2: AI Core task timeout: task 0")


def test_the_real_tsch_line_still_names_no_device_and_a_device_file_prefix_does(
    tmp_path: Path,
) -> None:
    assert _tsch_item(_load(TSCH_REAL, SET709)).startswith("A device: AI Core task timeout")
    text = "device-5_20240422.log:12:" + (SET709 / TSCH_REAL).read_text()
    assert _tsch_item(_write(tmp_path, text)).startswith("Device 5: AI Core task timeout")


# --- faults 3-4: relative paths under make's directory, nvcc's error form ----------------------

HCCL_REL = "hccl_test_build_make_entering_tools_hccl_test_relative_paths_hcclcommsetmemoryrange_undeclared.log"
NCCL_NVCC = (
    "nccl_tests_build_nvcc_common_cu_966_ctapolicy_undefined_make_entering_src_nccl_tests343.log"
)
HCCL_REAL = (
    "hccl_test_build_failed_cann_9_0_0_beta1_hcclcommsetmemoryrange_undeclared_vllm_hust_devhub.log"
)


def _build_item(ev: EvidenceFacts) -> str:
    level, outcome = heldout.imported(ev)
    assert level == "NOT READY"
    (item,) = heldout.items(outcome, "evidence-test-build-failed")
    return item


def test_an_hccl_test_build_with_relative_paths_failed() -> None:
    item = _build_item(_load(HCCL_REL))
    assert item.startswith("hccl_test's build failed: 7 compiler error line(s)")
    assert "the first at line 3" in item and "HcclCommSetMemoryRange (line 3)" in item


def test_an_nccl_tests_build_stopped_by_nvcc_failed() -> None:
    item = _build_item(_load(NCCL_NVCC))
    assert item.startswith("nccl-tests's build failed: 1 compiler error line(s)")
    assert "the first at line 4" in item and 'common.cu(966): error: identifier "ctaPolicy"' in item


def test_the_real_hccl_build_still_fails_and_another_directory_does_not(tmp_path: Path) -> None:
    assert _build_item(_load(HCCL_REAL, SET709)).startswith("hccl_test's build failed")
    # (make in some other project's tree: its errors are not the collective test's)
    text = (REVIEW / NCCL_NVCC).read_text().replace("nccl-tests", "my-app")
    _, rules = _rules(_write(tmp_path, text))
    assert "evidence-test-build-failed" not in rules


def test_an_error_after_make_left_the_test_directory_is_not_the_tests(tmp_path: Path) -> None:
    text = (
        "make[1]: Entering directory '/home/user/nccl-tests/src'\n"
        "make[1]: Leaving directory '/home/user/nccl-tests/src'\n"
        'other.cu(12): error: identifier "x" is undefined\n'
        "make: *** [Makefile:20: all] Error 2\n"
    )
    _, rules = _rules(_write(tmp_path, text))
    assert "evidence-test-build-failed" not in rules


# --- fault 5: two hosts' resets through pdsh -----------------------------------------------------

PDSH_NOCMD = "nvidia_smi_gpu_reset_pdsh_two_hosts_node03_refused_in_use_node04_reset_no_command.txt"
PDSH_CMD = "nvidia_smi_gpu_reset_pdsh_two_hosts_node03_refused_in_use_node04_reset_with_command.txt"
RESET_REAL = "nvidia_smi_gpu_reset_i1_refused_in_use_00_18_0_then_fuser_v_python_pid45208_holds_nvidia0_7_cupy1930_cut.txt"


def test_one_hosts_refusal_is_not_cleared_by_another_hosts_reset() -> None:
    for name in (PDSH_NOCMD, PDSH_CMD):
        ev = _load(name)
        assert ev.files[0].status == "read"
        (fail,) = ev.failures
        assert fail["host"] == "gpu-node-03" and fail["kind"] == "gpu_driver_error"
        level, outcome = heldout.imported(ev)
        assert level == "READY WITH WARNINGS"
        (item,) = heldout.items(outcome, "evidence-gpu-driver-error")
        assert "00000000:00:18.0" in item and "gpu-node-03" in item


def test_the_same_hosts_later_reset_makes_it_a_note(tmp_path: Path) -> None:
    text = (REVIEW / PDSH_NOCMD).read_text().replace("gpu-node-04", "gpu-node-03")
    ev = _write(tmp_path, text)
    assert not ev.failures
    assert any("gpu-node-03: nvidia-smi -r could not reset" in n for n in _notes_of(ev))


def _notes_of(ev: EvidenceFacts) -> list[str]:
    return [m.message for f in ev.files for m in f.messages]


# --- fault 6: fuser's holders tied to the GPU only by its minor --------------------------------

FUSER_NO_MINOR = "nvidia_smi_gpu_reset_i1_refused_fuser_python_on_nvidia0_only_no_minor_shown.txt"
FUSER_MINOR_NONE = "nvidia_smi_gpu_reset_i1_refused_minor_1_shown_fuser_python_on_nvidia0_only.txt"
FUSER_MINOR_HELD = "nvidia_smi_gpu_reset_i1_refused_minor_1_shown_fuser_python_on_nvidia1.txt"


def _said(ev: EvidenceFacts) -> str:
    (fail,) = ev.failures
    return str(fail["exception_type"])


def test_holders_without_a_minor_are_not_said_to_hold_the_gpu() -> None:
    said = _said(_load(FUSER_NO_MINOR))
    assert "fuser -v, files not tied to this GPU" in said and "fuser -v: " not in said
    assert "python (PID 45208, user ubuntu) holds /dev/nvidia0, /dev/nvidia-uvm" in said
    assert said.endswith(": the GPU was not reset")


def test_a_minor_with_no_holder_says_none_holds_it() -> None:
    said = _said(_load(FUSER_MINOR_NONE))
    assert "fuser -v shows no process on this GPU's /dev/nvidia1" in said
    assert "this GPU's device file" not in said


def test_a_minor_with_its_holder_names_it() -> None:
    said = _said(_load(FUSER_MINOR_HELD))
    assert "fuser -v: python (PID 45208, user ubuntu) holds /dev/nvidia1" in said
    assert "/dev/nvidia1 this GPU's device file" in said
    assert "nvidia-persistenced (PID 1911, user root) holds /dev/nvidiactl (line 15)" in said


def test_the_real_cupy_copy_still_warns_with_its_holder() -> None:
    ev = _load(RESET_REAL, SET709)
    said = _said(ev)
    assert "python (PID 45208, user ubuntu) holds /dev/nvidia0-7 (lines 8-15)" in said
    assert heldout.imported(ev)[0] == "READY WITH WARNINGS"
