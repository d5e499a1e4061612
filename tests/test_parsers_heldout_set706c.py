"""Outputs of round TTTT's held-out evaluation (set 706, network and node tool outputs on GPU
clusters) that the advisor read in part before this change (tests/data/evidence_heldout_80,
sources in tests/data/SOURCES.md): a perftest run on GPU memory whose buffer the HCA would not
register ("Couldn't allocate MR", with or without ``--use_cuda`` on its command, "error=14") was
a warning that did not name the GPU nor read the errno, and said "port 1" the copy never gave;
libgdsync's "Couldn't register MR" above mpirun's exit report was not named as the cause; and a
C++ terminate was quoted by its "terminate called" line, not by the ``what():`` under it."""

from __future__ import annotations

from functools import partial
from pathlib import Path

from tests import heldout
from tests.conftest import DATA

HELDOUT = DATA / "evidence_heldout_80"

K80 = (
    "perftest_ib_write_bw_use_cuda_tesla_k80_mlx5_3_couldnt_allocate_mr_ib_resources_perftest31.txt"
)
EFAULT = "perftest_cuda_mem_device_couldnt_allocate_mr_error_14_no_dmabuf_perftest346.txt"
GDSYNC = (
    "libgdsync_gds_kernel_latency_tesla_p4_cx4_couldnt_register_mr_mpirun_exit1_libgdsync40.log"
)
MSCCLPP = "mscclpp_ibmr_gpu4_ibv_reg_mr_errno_14_bad_address_no_dmabuf_aborted_mscclpp657.log"

_write = partial(heldout.load_copy, name="copy.txt")
_load = partial(heldout.load, HELDOUT)
_text = partial(heldout.text, HELDOUT)


def test_a_use_cuda_perftest_whose_gpu_buffer_is_refused_is_a_failure_naming_the_gpu() -> None:
    level, outcome = heldout.imported(_load(K80))
    assert level == "NOT READY"
    assert ("evidence-rdma-perftest-gpu-mr-failed", "critical") in heldout.above_info(outcome)
    assert "evidence-rdma-perftest-failed" not in dict(heldout.above_info(outcome))
    (item,) = heldout.items(outcome, "evidence-rdma-perftest-gpu-mr-failed")
    assert item.startswith(
        "mlx5_3: ib_write_bw: Couldn't allocate MR (its buffer is GPU memory on the Tesla K80: "
    )
    assert "nvidia-peermem" in item and item.endswith(", line 13)")
    assert "port 1" not in item  # (the command has no -i: the copy does not say the port)
    (info,) = heldout.items(outcome, "evidence-rdma-perftest")
    assert info.startswith("mlx5_3: ib_write_bw: no result") and "port" not in info.split(":")[0]


def test_the_port_is_said_where_the_command_gives_it_and_another_gpu_is_named(
    tmp_path: Path,
) -> None:
    text = (
        _text(K80)
        .replace("-d mlx5_3 -a", "-d mlx5_7 -i 2 -a")
        .replace("[Tesla K80]", "[NVIDIA A100-SXM4-80GB]")
    )
    level, outcome = heldout.imported(_write(tmp_path, text))
    assert level == "NOT READY"
    (item,) = heldout.items(outcome, "evidence-rdma-perftest-gpu-mr-failed")
    assert item.startswith(
        "mlx5_7 port 2: ib_write_bw: Couldn't allocate MR (its buffer is GPU "
        "memory on the NVIDIA A100-SXM4-80GB: "
    )


def test_a_host_buffer_run_that_cannot_register_stays_the_warning(tmp_path: Path) -> None:
    # the same failure without --use_cuda and without the CUDA set-up lines: host memory, not a
    # GPUDirect matter: the host buffer's own rule (critical since set 724: no RDMA ran)
    lines = _text(K80).splitlines(keepends=True)
    text = lines[0].replace(" --use_cuda", "") + "".join(lines[1:5]) + "".join(lines[12:])
    level, outcome = heldout.imported(_write(tmp_path, text))
    assert level == "NOT READY"
    assert "evidence-rdma-perftest-gpu-mr-failed" not in dict(heldout.above_info(outcome))
    (item,) = heldout.items(outcome, "evidence-rdma-perftest-mr-failed")
    assert item.startswith("mlx5_3: ib_write_bw: Couldn't allocate MR (")


def test_a_cuda_mem_device_buffer_refused_with_error_14_reads_as_efault_on_gpu_memory() -> None:
    ev = _load(EFAULT)
    (port,) = ev.hca_ports
    run = port["perftest"]
    assert (run["gpu_mr_failed"], run["mr_errno"], run["failed_line"]) == (True, 14, 5)
    level, outcome = heldout.imported(ev)
    assert level == "NOT READY"
    (item,) = heldout.items(outcome, "evidence-rdma-perftest-gpu-mr-failed")
    assert item.startswith(
        "(device not named): perftest: Couldn't allocate MR (its buffer is GPU memory "
        "(CUDA_MEM_DEVICE), error=14 (EFAULT, Bad address): registering it for RDMA needs "
        "GPUDirect RDMA, the nvidia-peermem module, or dma-buf with --use_cuda_dmabuf"
    )
    assert item.endswith(", line 5)")
    (info,) = heldout.items(outcome, "evidence-rdma-perftest")
    assert "port 1" not in info


def test_another_errno_on_gpu_memory_is_given_as_a_number(tmp_path: Path) -> None:
    text = _text(EFAULT).replace("error=14", "error=22")
    level, outcome = heldout.imported(_write(tmp_path, text))
    assert level == "NOT READY"
    (item,) = heldout.items(outcome, "evidence-rdma-perftest-gpu-mr-failed")
    assert "(CUDA_MEM_DEVICE), error=22: registering" in item


def test_a_healthy_cuda_perftest_stays_ready(tmp_path: Path) -> None:
    # the GPU set-up lines, then a run that registered its buffer and measured
    text = "".join(_text(EFAULT).splitlines(keepends=True)[:4]) + (
        "---------------------------------------------------------------------------------------\n"
        "                    RDMA_Write BW Test\n"
        " Dual-port       : OFF          Device         : mlx5_0\n"
        " Number of qps   : 1            Transport type : IB\n"
        " Connection type : RC           Using SRQ      : OFF\n"
        "---------------------------------------------------------------------------------------\n"
        " #bytes     #iterations    BW peak[Gb/sec]    BW average[Gb/sec]   MsgRate[Mpps]\n"
        " 65536      5000             97.50              97.40               0.185780\n"
        "---------------------------------------------------------------------------------------\n"
    )
    level, outcome = heldout.imported(_write(tmp_path, text))
    assert level == "READY"
    assert heldout.above_info(outcome) == []


def test_libgdsync_couldnt_register_mr_is_named_as_the_cause_of_mpiruns_exit() -> None:
    level, outcome = heldout.imported(_load(GDSYNC))
    assert level == "NOT READY"
    (item,) = heldout.items(outcome, "evidence-launcher-exit")
    assert item.startswith(
        "mpirun: task/rank 1 exited with 1: its output above says Couldn't register MR "
        "(lines 15-16, 2 process(es)): ibv_reg_mr refused the buffer"
    )
    assert item.endswith(", line 30)")


def test_one_rank_refused_and_another_rank_named_by_mpirun(tmp_path: Path) -> None:
    text = _text(GDSYNC).replace(
        "Couldn't register MR\nCouldn't register MR\n", "Couldn't register MR\n"
    )
    text = text.replace("[[52222,1],1]", "[[52222,1],3]")
    level, outcome = heldout.imported(_write(tmp_path, text))
    assert level == "NOT READY"
    (item,) = heldout.items(outcome, "evidence-launcher-exit")
    assert item.startswith(
        "mpirun: task/rank 3 exited with 1: its output above says Couldn't register MR "
        "(line 15, 1 process(es))"
    )


def test_an_mpirun_exit_without_the_mr_line_names_no_cause(tmp_path: Path) -> None:
    text = _text(GDSYNC).replace("Couldn't register MR\n", "")
    _, outcome = heldout.imported(_write(tmp_path, text))
    (item,) = heldout.items(outcome, "evidence-launcher-exit")
    assert "register MR" not in item and item.startswith("mpirun: task/rank 1 exited with 1 (")


def test_an_uncaught_ib_error_is_read_by_its_what_line_and_names_gpu_4() -> None:
    ev = _load(MSCCLPP)
    (error,) = [f for f in ev.failures if f["kind"] == "log_error"]
    assert (error["line"], error["device"]) == (16, 4)
    assert error["message"] == (
        "ibv_reg_mr failed (errno 14) (Ib failure: Bad address) (registering GPU 4's memory)"
    )
    level, outcome = heldout.imported(ev)
    assert level == "NOT READY"
    (item,) = heldout.items(outcome, "evidence-log-error")
    assert item.startswith("ibv_reg_mr failed (errno 14) (Ib failure: Bad address)")


def test_another_gpu_and_another_what_are_read_the_same_way(tmp_path: Path) -> None:
    text = _text(MSCCLPP).replace("device=4", "device=6").replace("GPU 4:", "GPU 6:")
    ev = _write(tmp_path, text)
    (error,) = [f for f in ev.failures if f["kind"] == "log_error"]
    assert (error["line"], error["device"]) == (16, 6)
    # a what() that is no RDMA registration names no GPU
    text = _text(MSCCLPP).replace(
        "ibv_reg_mr failed (errno 14) (Ib failure: Bad address)", "cudaMalloc out of memory"
    )
    ev = heldout.load_copy(tmp_path, text, name="other.txt")
    (error,) = [f for f in ev.failures if f["kind"] == "log_error"]
    assert (error["line"], error["device"], error["message"]) == (
        16,
        None,
        "cudaMalloc out of memory",
    )
