"""Outputs the two-hundred-ninth to two-hundred-twelfth held-out evaluations misread that this
stop reads: what cluster schedulers print of a job's end (srun's node failure and failed task
launch, Open MPI's daemons that ssh could not reach, Ray's raylet marked dead, a slurmd journal),
HybridBackend's NCCL abort, NVSHMEM's failure chains, an NCCL check with an empty error text,
nvidia-smi's table cut inside a GPU's row, and MindIE's HCCL runner naming its result code.

Samples: ``tests/data/evidence_heldout_34/`` (sources in ``tests/data/SOURCES.md``).
"""

from __future__ import annotations

from functools import partial
from typing import Any

from advisor.evidence.load import EvidenceFacts, load_text
from tests import heldout
from tests.conftest import DATA
from tests.rules_facts import finding_items

HELDOUT = DATA / "evidence_heldout_34"


_load = partial(heldout.load, HELDOUT)


def _kinds(ev: EvidenceFacts, kind: str) -> list[dict[str, Any]]:
    return [f for f in ev.failures if f["kind"] == kind]


def test_sruns_node_failure_names_the_lost_node() -> None:
    ev = _load("slurm_node_failure_step_cancelled_mid_training_jean_zay_m4_tr141_v06.log")
    (lost,) = _kinds(ev, "launcher_exit")
    assert (lost["host"], lost["line"], lost["root_cause"]) == ("jean-zay-iam37", 5, True)
    assert lost["exception_type"] == "srun (Slurm lost the node: node failure)"


def test_a_failed_task_launch_names_each_node_and_its_reason() -> None:
    ev = _load("srun_pyxis_task_launch_failed_socket_timed_out_send_recv_3_nodes_pyxis107.log")
    assert [(f["host"], f["exception_type"]) for f in _kinds(ev, "launcher_exit")] == [
        ("n2", "srun (task launch failed on the node: No such process)"),
        ("n3", "srun (task launch failed on the node: No such process)"),
        ("n1", "srun (task launch failed on the node: Socket timed out on send/recv operation)"),
    ]


def test_open_mpis_daemons_that_ssh_could_not_reach_are_named() -> None:
    ev = _load(
        "mpijob_launcher_ssh_could_not_resolve_worker_hostnames_orte_daemons_aks_rdma30_cut.log"
    )
    (orte,) = _kinds(ev, "launcher_exit")
    assert orte["line"] == 7
    assert (
        "nccl-tests-worker-0.nccl-tests.default.svc: Name or service not known"
        in (orte["exception_type"])
    )
    assert "nccl-tests-worker-1.nccl-tests.default.svc" in orte["exception_type"]


def test_rays_raylet_marked_dead_is_the_nodes_end() -> None:
    (dead,) = _kinds(
        _load("ray_raylet_out_heartbeat_lagging_node_marked_dead_stacktrace_ray22425.log"),
        "launcher_exit",
    )
    assert dead["line"] == 3 and dead["exception_type"].startswith(
        "Ray (the raylet was marked dead"
    )


def test_a_slurmd_journal_is_a_programs_log_read_by_its_first_error() -> None:
    ev = _load(
        "slurmd_journal_hyperpod_pyxis_enroot_epilog_permission_denied_node_drain_awsome141.log"
    )
    (first,) = ev.failures
    assert (first["kind"], first["line"]) == ("log_error", 1)
    assert first["message"].endswith("spank-epilog: error: pyxis: couldn't execute enroot command")


def test_hybridbackends_nccl_abort_is_a_failed_nccl_call() -> None:
    ev = _load(
        "k8s_tf_job_pod_log_timestamped_nccl_communication_aborted_unhandled_system_error_nccl1039_cut.log"
    )
    (call,) = _kinds(ev, "nccl_call_failure")
    assert (call["code"], call["line"], call["host"]) == ("2", 2, "job-1111-2222-0")


def test_nvshmems_failure_chain_is_one_failure_with_its_verdict_and_lost_peer() -> None:
    (boot,) = _load(
        "nvshmem_deepep223_uid_bootstrap_recv_broken_pipe_10_179_114_196_allgather_ipc_handles_failed_init_failed_twice_cut.log"
    ).failures
    assert (boot["kind"], boot["line"], boot["remote_ip"], boot["port"]) == (
        "nvshmem_error",
        1,
        "10.179.114.196",
        38229,
    )
    assert boot["exception_type"] == (
        "nvshmem initialization failed, exiting (its bootstrap's connection to 10.179.114.196: "
        "Broken pipe)"
    )
    (transports,) = _load(
        "nvshmem_deepep55_h100_single_node_ibgda_ibrc_transport_init_failed_no_transports_detect_topo_failed_status7_cut.log"
    ).failures
    assert transports["kind"] == "nvshmem_error"
    items = finding_items({"evidence.failures": [boot]}, "nccl")["evidence-nvshmem-error"]
    assert items[0].startswith("nvshmem initialization failed, exiting")


def test_an_nccl_check_with_an_empty_error_text_is_still_a_failed_call() -> None:
    (call,) = _load(
        "transformer_engine994_userbuffers_tp8_ok_iteration1_then_tp4_failed_nccl_error_userbuffers_host_cpp223_empty_msg_cut.log"
    ).failures
    assert (call["kind"], call["line"]) == ("nccl_call_failure", 20)
    assert call["call"].endswith("userbuffers/userbuffers-host.cpp:223")


def test_a_table_cut_inside_a_gpus_first_row_says_so() -> None:
    ev = _load(
        "nvidia_smi_deepep17_535_161_08_h20_gpu0_1_65_02_65_03_idle_0mib_97871mib_ecc0_cut_at_gpu2.txt"
    )
    assert [g["gpu"] for g in ev.gpus] == [0, 1]
    report = ev.files[0]
    assert report.status == "partial"
    (note,) = report.messages
    assert "GPU 2's rows are cut" in note.message


def test_mindies_hccl_runner_names_the_call_and_its_result() -> None:
    ev = _load(
        "mindie_multinode_ranks8_15_hccl_comminitclusterinfo_error19_check_ranktable_allreducehcclrunner_itove.log"
    )
    (call,) = _kinds(ev, "hccl_call_failure")
    assert (call["call"], call["code"], call["code_name"], call["line"]) == (
        "HcclCommInitClusterInfo",
        "19",
        "HCCL_E_NETWORK",
        22,
    )
    assert "should check rankTableFile config" in call["message"]


def test_fabric_managers_failed_start_is_said_with_its_exit_code() -> None:
    ev = _load(
        "journal_nvidia_fabricmanager_start_sh_pre_nvl5_query_nvswitch_failed_nv_warn_nothing_to_do_exit1_service_failure_2x4090_reporter_markers_cube_studio29.log"
    )
    (fm,) = ev.failures
    # the start script's exit follows the NVSwitch driver's "nothing to do": no NVSwitch here
    assert (fm["kind"], fm["line"], fm["exit_code"], fm["host"]) == (
        "fabric_manager_unneeded",
        3,
        1,
        "ubuntu2404",
    )
    assert "found no NVSwitch to manage" in fm["exception_type"]


def test_nvidia_smis_answers_that_it_cannot_read_the_gpus_are_errors() -> None:
    # nvidia-smi's own answers (they stand in place of its table)
    for answer in (
        "No devices were found",
        "NVIDIA-SMI has failed because it couldn't communicate with the NVIDIA driver. Make sure "
        "that the latest NVIDIA driver is installed and running.",
        "Failed to initialize NVML: Driver/library version mismatch",
    ):
        (ev,) = load_text(f"$ nvidia-smi\n{answer}\n", "smi.txt").failures
        assert ev["kind"] == "gpu_driver_error" and ev["line"] == 2, answer
        assert ev["exception_type"].startswith("nvidia-smi could not read the GPUs: "), answer
    # one GPU NVML cannot reach ("Unknown Error", "GPU is lost"): lost until it is reset, a fault
    answer = "Unable to determine the device handle for GPU0000:83:00.0: Unknown Error"
    (ev,) = load_text(f"$ nvidia-smi\n{answer}\n", "smi.txt").failures
    assert ev["kind"] == "gpu_driver_fault" and ev["line"] == 2
    assert ev["exception_type"].startswith("nvidia-smi could not reach GPU 0000:83:00.0: ")
    # the words inside another line are no answer of nvidia-smi's
    assert not load_text("INFO: No devices were found matching the filter\n", "t.log").failures


def test_nvidia_smi_q_counts_the_pages_a_gpu_retired() -> None:
    text = (
        "    Retired Pages\n        Single Bit ECC                    : 2\n"
        "        Double Bit ECC                    : 61\n"
        "        Pending Page Blacklist            : Yes\n"
    )
    (gpu,) = load_text(text, "q.txt").gpus
    assert (gpu["retired_pages"], gpu["retire_pending"]) == (63, True)
    items = finding_items({"evidence.gpus": [gpu]}, "nccl")["evidence-gpu-repair-pending"]
    assert "page retirement pending" in items[0]
