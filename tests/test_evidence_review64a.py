"""Review 64 (part a) of round RRRR (sets 691, 692, 695, 696 and review 63a's mend), faults 1-6:
a MindIE start script's other job (a ``tail -f``) terminated after the daemon came up; two
npu-exporter pods' DCMI failures under kubectl's --prefix, and one -8005 on two pdsh hosts; a
vLLM Ray worker's ERROR-logged traceback under the newer bracketed logger head and below an INFO
line; two absl frames logged in one millisecond: each on its input (tests/data/review64,
described in tests/data/SOURCES.md)."""

from __future__ import annotations

from functools import partial
from pathlib import Path

from advisor.evidence.load import EvidenceFacts, load_paths
from tests import heldout
from tests.conftest import DATA

REVIEW = DATA / "review64"
REVIEW63 = DATA / "review63"
HELDOUT = DATA / "evidence_heldout_78"

_write = partial(heldout.load_copy, name="copy.log")


def _load(name: str, where: Path = REVIEW) -> EvidenceFacts:
    return load_paths([where / name])


# --- 1. MindIE: another job of the start script ends after the daemon's start --------------------

TAIL_431 = "mindie_2.2rc1_daemon_418_start_success_then_start_sh_tail_job_431_terminated.log"
JOB_418 = "mindie_2.2rc1_daemon_start_success_then_start_sh_job_418_killed.log"
_JOB_LINE = "/usr/local/Ascend/mindie/latest/mindie-service/start.sh: line 20:   431 Terminated"


def test_a_start_scripts_tail_job_terminated_is_not_the_daemon_stopping() -> None:
    ev = _load(TAIL_431)
    assert [f["kind"] for f in ev.failures] == ["run_success"]
    assert heldout.imported(ev)[0] == "READY"
    # the real job-418 file it was built from (the daemon's own pid killed) still stops it
    killed = _load(JOB_418, REVIEW63)
    assert "launcher_exit" in [f["kind"] for f in killed.failures]
    assert heldout.imported(killed)[0] == "NOT READY"


def test_a_job_naming_the_daemons_pid_or_program_is_its_stop(tmp_path: Path) -> None:
    text = (REVIEW / TAIL_431).read_text()
    # the daemon's pid (g_mainPid 418) terminated: its stop
    own = text.replace(
        "  431 Terminated              tail -f /root/mindie_start.log", "  418 Terminated"
    )
    assert own != text
    assert heldout.imported(_write(tmp_path, own))[0] == "NOT READY"
    # a job under another pid that ran the daemon's program
    named = text.replace("tail -f /root/mindie_start.log", "./bin/mindieservice_daemon")
    assert heldout.imported(_write(tmp_path, named))[0] == "NOT READY"
    assert _JOB_LINE in text


# --- 2, 3, 6. MindCluster components: each pod's or host's DCMI failure on its own -------------

TWO_PODS = "npu_exporter_kubectl_prefix_pod_7x2kq_dcmi_minus8005_pod_b9mzd_driver_lib_usr_local.log"
TWO_HOSTS = "npu_exporter_pdsh_node_a_node_b_dcmi_init_minus8005.log"
BASE_8005 = (
    "npu_exporter_2024_dcmi_init_failed_minus8005_device_manager_nil_mindcluster_faq_cut.log"
)
BASE_LIB = (
    "npu_exporter_2023_prepare_dcmi_failed_no_valid_driver_lib_usr_local_uid_mode_register_"
    "prometheus_failed_mindcluster_faq_cut.log"
)


def test_two_pods_failures_are_each_their_own_with_their_own_follow_up() -> None:
    ev = _load(TWO_PODS)
    assert [(f["call"], f["line"]) for f in ev.failures] == [("dcmi_init", 1), ("dcmi_lib", 7)]
    level, outcome = heldout.imported(ev)
    assert level == "NOT READY"
    (init,) = heldout.items(outcome, "evidence-npu-dcmi-init-failed")
    assert "(on pod npu-exporter-7x2kq)" in init and "-8005" in init
    assert "no device manager (line 2)" in init and "line 9" not in init
    (lib,) = heldout.items(outcome, "evidence-npu-driver-lib-refused")
    assert "(on pod npu-exporter-b9mzd)" in lib and "/usr/local failed the owner/mode" in lib
    assert "Prometheus registration then failed (line 9)" in lib
    # the real files it was built from read as before, each one failure with no pod
    one = _load(BASE_8005, HELDOUT)
    assert [f["call"] for f in one.failures] == ["dcmi_init"]
    (item,) = heldout.items(heldout.imported(one)[1], "evidence-npu-dcmi-init-failed")
    assert "npu-exporter's device manager could not start DCMI: -8005" in item
    lib_only = _load(BASE_LIB, HELDOUT)
    assert [f["call"] for f in lib_only.failures] == ["dcmi_lib"]
    assert heldout.above_info(heldout.imported(lib_only)[1]) == [
        ("evidence-npu-driver-lib-refused", "warning")
    ]


def test_one_failure_on_two_hosts_is_two_and_a_restart_on_one_is_one(tmp_path: Path) -> None:
    ev = _load(TWO_HOSTS)
    assert [(f["call"], f["line"]) for f in ev.failures] == [("dcmi_init", 1), ("dcmi_init", 3)]
    items = heldout.items(heldout.imported(ev)[1], "evidence-npu-dcmi-init-failed")
    assert len(items) == 2
    assert "(on node-a)" in items[0] and "(line 2)" in items[0]
    assert "(on node-b)" in items[1] and "(line 4)" in items[1]
    # one host's exporter restarted and saying it again: one failure
    text = (REVIEW / TWO_HOSTS).read_text().replace("node-b: ", "node-a: ")
    again = _write(tmp_path, text)
    assert [f["line"] for f in again.failures] == [1]


def test_another_cause_in_one_components_log_is_a_failure_of_its_own(tmp_path: Path) -> None:
    # one pod's log (no prefix): -8005, then after a restart the refused driver library
    text = (HELDOUT / BASE_8005).read_text() + (HELDOUT / BASE_LIB).read_text()
    ev = _write(tmp_path, text)
    assert sorted(f["call"] for f in ev.failures) == ["dcmi_init", "dcmi_lib"]
    above = heldout.above_info(heldout.imported(ev)[1])
    assert ("evidence-npu-driver-lib-refused", "warning") in above
    assert ("evidence-npu-dcmi-init-failed", "critical") in above


def test_two_pods_with_the_same_failure_are_two(tmp_path: Path) -> None:
    lines = (HELDOUT / BASE_8005).read_text().splitlines()
    text = "".join(
        f"[pod/npu-exporter-{pod}/npu-exporter] {line}\n"
        for pod in ("aaaa1", "bbbb2")
        for line in lines
    )
    ev = _write(tmp_path, text)
    assert [f["call"] for f in ev.failures] == ["dcmi_init", "dcmi_init"]
    items = heldout.items(heldout.imported(ev)[1], "evidence-npu-dcmi-init-failed")
    assert [
        "(on pod npu-exporter-aaaa1)" in items[0],
        "(on pod npu-exporter-bbbb2)" in items[1],
    ] == [
        True,
        True,
    ]


# --- 4. vLLM Ray worker's ERROR-logged traceback ------------------------------------------------

BRACKETED = "vllm_ray_worker_error_traceback_fp8_cutlass_bracketed_logger_head.log"
INFO_ABOVE = "vllm_ray_worker_error_traceback_fp8_cutlass_info_line_above.log"
BASE_VLLM = "vllm_0_5_3_ray_worker_error_traceback_fp8_cutlass_cut_vllm7057.log"


def _worker_traceback(ev: EvidenceFacts) -> str:
    level, outcome = heldout.imported(ev)
    assert level == "NOT READY"
    (item,) = heldout.items(outcome, "evidence-python-exception")
    assert "logged at ERROR by worker_base.py:382" in item
    assert "apply_fp8_linear -> wrapper -> cutlass_scaled_mm -> __call__" in item
    return item


def test_a_logged_traceback_under_the_bracketed_head_or_below_an_info_line_is_read() -> None:
    _worker_traceback(_load(BRACKETED))
    _worker_traceback(_load(INFO_ABOVE))
    # the real file both were built from still reads so
    _worker_traceback(_load(BASE_VLLM, HELDOUT))


def test_info_lines_between_frames_stand_aside_but_other_lines_do_not(tmp_path: Path) -> None:
    lines = (REVIEW / BRACKETED).read_text().splitlines(keepends=True)
    info = (
        "(RayWorkerWrapper pid=4329, ip=192.168.200.191) INFO 08-02 01:57:44 [ray_utils.py:55] x\n"
    )
    _worker_traceback(_write(tmp_path, "".join([*lines[:3], info, *lines[3:]])))
    # a line that is not the logger's: no one logger's copy, the old reading
    other = _write(tmp_path, "".join([*lines[:3], "some other program's line\n", *lines[3:]]))
    assert ("evidence-python-exception", "critical") not in heldout.above_info(
        heldout.imported(other)[1]
    )


# --- 5. absl frames logged in one millisecond ---------------------------------------------------

SAME_MS = "absl_ray_actor_sigsegv_two_frames_same_ms_innermost_tiling_first.log"
BASE_ABSL = "fla_npu_megatron_ray_rl_train_sigsegv_op_tiling_8_ranks_fla272_cut.log"


def _native(ev: EvidenceFacts) -> str:
    (item,) = heldout.items(heldout.imported(ev)[1], "evidence-launcher-exit")
    return item.split("inside native code: ", 1)[1].split(")) ", 1)[0] + ")"


def test_frames_in_one_millisecond_are_ordered_by_line(tmp_path: Path) -> None:
    assert _native(_load(SAME_MS)) == "op::internal::OpRunContextMgr::Tiling()"
    # swapped: the one standing first is the innermost, whatever its spelling
    lines = (REVIEW / SAME_MS).read_text().splitlines(keepends=True)
    swapped = _write(tmp_path, "".join([*lines[:2], lines[3], lines[2], *lines[4:]]))
    assert _native(swapped) == "(anonymous namespace)::THPFunction_apply()"
    # the real file it was built from still names its frame
    assert "Tiling()" in _native(_load(BASE_ABSL, HELDOUT))
