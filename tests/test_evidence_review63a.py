"""Review 63 (part a), faults 1, 2 and 3: MindIE's "Daemon start success!" followed by the
daemon's stop (bash's job report of its SIGKILL, MindIE's "Daemon is killing...", a bare
"Killed"); EI0002's "(default 1800s, ...)", fixed text of HCCL's message table, said as the
message's words and not as the run's default; XLA's ROCm form of an invalid device
("failed call to hipDeviceGet: HIP_ERROR_InvalidDevice"): each on its input (tests/data/review63,
described in tests/data/SOURCES.md)."""

from __future__ import annotations

from functools import partial
from pathlib import Path

from advisor.evidence.load import EvidenceFacts, load_paths
from tests import heldout
from tests.conftest import DATA

REVIEW = DATA / "review63"
HELDOUT = DATA / "evidence_heldout_77"

_write = partial(heldout.load_copy, name="copy.log")


def _load(name: str, where: Path = REVIEW) -> EvidenceFacts:
    return load_paths([where / name])


def _text(name: str, where: Path = HELDOUT) -> str:
    return (where / name).read_text()


# --- 1. MindIE: a daemon start the later lines undo ---------------------------------------------

MINDIE = "mindie_2.2rc1_k3s_engine_daemon_start_success_healthy_sidecar_mindieverify.log"


def _mindie_stop(ev: EvidenceFacts) -> dict:
    # (the start is withdrawn: no evidence-run-success item, the stop is the failure)
    assert [f["kind"] for f in ev.failures] == ["launcher_exit"]
    level, outcome = heldout.imported(ev)
    assert level == "NOT READY"
    assert [f.rule_id for f in outcome.findings] == ["evidence-launcher-exit"]
    (stop,) = ev.failures
    return stop


def test_a_daemon_killed_after_its_start_is_no_success() -> None:
    ev = _load("mindie_2.2rc1_daemon_start_success_then_start_sh_job_418_killed.log")
    stop = _mindie_stop(ev)
    assert (stop["kind"], stop["line"], stop["exit_code"]) == ("launcher_exit", 8, 137)
    said = stop["exception_type"]
    assert "process 418 (./bin/mindieservice_daemon) ended by a signal: Killed" in said


def test_the_daemons_own_stop_words_undo_its_start() -> None:
    ev = _load("mindie_2.2rc1_daemon_start_success_then_daemon_is_killing.log")
    stop = _mindie_stop(ev)
    assert stop["line"] == 8 and "Daemon is killing..." in stop["exception_type"]


def test_a_bare_killed_after_the_start_undoes_it() -> None:
    ev = _load("mindie_2.2rc1_daemon_start_success_then_bare_killed.log")
    assert _mindie_stop(ev)["exit_code"] == 137


def test_the_real_start_alone_is_still_a_success() -> None:
    ev = _load(MINDIE, HELDOUT)
    (up,) = ev.failures
    assert (up["kind"], up["line"]) == ("run_success", 5)
    level, outcome = heldout.imported(ev)
    assert level == "READY"
    assert [f.rule_id for f in outcome.findings] == ["evidence-run-success"]


def test_a_restart_after_the_stop_is_the_word_that_stands(tmp_path: Path) -> None:
    # MindIE's documented restart: "Daemon is killing...", the entry script's exit code 137,
    # then "Daemon start success!" again
    text = _text(MINDIE) + (
        "Daemon is killing...\n"
        "[EntryPoint Script Log]running job failed. exit code: 137\n"
        "[EntryPoint Script Log]restart mindie service daemon, cur: 0, max: 1\n"
        "Daemon start success!\n"
    )
    ev = _write(tmp_path, text)
    (up,) = ev.failures
    assert (up["kind"], up["line"]) == ("run_success", 11)
    assert heldout.imported(ev)[0] == "READY"


def test_the_entry_scripts_failed_job_after_the_start_undoes_it(tmp_path: Path) -> None:
    text = _text(MINDIE) + "[EntryPoint Script Log]running job failed. exit code: 137\n"
    ev = _write(tmp_path, text)
    stop = _mindie_stop(ev)
    assert stop["exit_code"] == 137 and "exit code 137" in stop["exception_type"]


# --- 2. EI0002: the message's "default 1800s" is the template's, not the run's -----------------

EI0002 = "torch_npu_2023_npusync_107020_ei0002_notify_wait_timeout_allreduce_enp69s0_lf975_cut.log"


def test_the_real_ei0002_says_the_figure_as_the_messages_words() -> None:
    level, outcome = heldout.imported(_load(EI0002, HELDOUT))
    assert level == "NOT READY"
    (item,) = heldout.items(outcome, "evidence-hccl-exec-timeout")
    assert "EI0002's message text says 'default 1800s' for HCCL_EXEC_TIMEOUT (line 3)" in item
    assert "not necessarily the installed CANN's default (1836 s from CANN 7.0)" in item
    assert "the default of the CANN that wrote it" not in item
    (finding,) = [f for f in outcome.findings if f.rule_id == "evidence-hccl-exec-timeout"]
    assert "the log's figure is its run's" not in finding.reference
    assert "fixed text of HCCL's message table" in finding.reference


def test_a_1836_message_is_said_as_its_words_too() -> None:
    (item,) = heldout.items(
        heldout.imported(_load("torch_npu_ei0002_notify_wait_timeout_message_default_1836s.log"))[
            1
        ],
        "evidence-hccl-exec-timeout",
    )
    assert "says 'default 1836s' for HCCL_EXEC_TIMEOUT (line 3)" in item
    assert "the log does not state the run's own setting" in item


# --- 3. XLA on ROCm: HIP_ERROR_InvalidDevice from hipDeviceGet ----------------------------------

JAX = "jax_slurm_distributed_initialize_cuda_invalid_device_ordinal_1_jax23452_cut.log"
ROCM = "jax_xla_rocm1_hipdeviceget_hip_error_invaliddevice.log"


def _xla(ev: EvidenceFacts) -> dict:
    (f,) = [f for f in ev.failures if f["library"] == "XLA"]
    return f


def test_xlas_rocm_invalid_device_is_read_whole() -> None:
    f = _xla(_load(ROCM))
    assert (f["kind"], f["call"], f["device"]) == ("cuda_error", "hipDeviceGet", 1)
    assert f["exception_type"] == (
        "HIP_ERROR_InvalidDevice (XLA was asked for ROCM device 1, which this process does not see)"
    )


def test_the_real_cuda_form_reads_as_before() -> None:
    f = _xla(_load(JAX, HELDOUT))
    assert (f["call"], f["device"]) == ("cuDeviceGet", 1)
    assert f["exception_type"].startswith("CUDA_ERROR_INVALID_DEVICE: invalid device ordinal (XLA")


def test_another_hip_error_keeps_its_name_without_the_ordinal_reading(tmp_path: Path) -> None:
    text = (
        (REVIEW / ROCM)
        .read_text()
        .replace("hipDeviceGet: HIP_ERROR_InvalidDevice", "hipInit: HIP_ERROR_NoDevice", 1)
    )
    f = _xla(_write(tmp_path, text))
    assert (f["call"], f["exception_type"]) == ("hipInit", "HIP_ERROR_NoDevice")
