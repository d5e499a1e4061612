"""Review 29 of the readers added for rounds TT to VV (ibnetdiscover, ping-pongs, kubectl pods,
Slurm jobs, flattened dcgmi diag, a program's first error line): each fault it found, on its
input (tests/data/review29, described in tests/data/SOURCES.md)."""

from __future__ import annotations

import re
import time

from advisor.evidence.load import EvidenceFacts, load_paths
from advisor.parsers import nvidia_smi, prechecks
from tests.conftest import DATA
from tests.rules_facts import builtin_findings

REVIEW = DATA / "review29"


def _load(name: str) -> EvidenceFacts:
    return load_paths([REVIEW / name])


def _said(ev: EvidenceFacts) -> list[str]:
    return [m.message for f in ev.files for m in f.messages]


def test_a_lone_carriage_return_above_the_error_line_numbers_it_as_the_reader_does() -> None:
    ev = _load("cr2.log")  # (a progress bar's \r: splitlines counts it, split("\n") did not)
    (fail,) = ev.failures
    assert fail["kind"] == "log_error"
    assert "failed to write checkpoint: disk quota exceeded" in fail["message"]
    ev = _load("ibnet_cr.txt")
    assert ev.files[0].formats == ["rdma"]


def test_ibnetdiscover_as_it_prints_with_tabs_is_read() -> None:
    ev = _load("ibnet.txt")
    assert ev.files[0].formats == ["rdma"]
    (note,) = _said(ev)
    assert "ibnetdiscover: 3 node(s) with 4 connected port(s)" in note


def test_pod_row_and_header_signatures_stay_linear_on_long_lines() -> None:
    for line in ("ab-" * 30000, "-" * 40000 + "x", "NAME READY STATUS RESTARTS AGE" + " " * 40000 + "x",
                 "123 " + "x RUNNING 1:00 1 (a) " * 10000 + "z"):  # fmt: skip
        # this process's CPU time: other jobs on a shared host do not count against it
        began = time.process_time()
        re.search(prechecks.SIGNATURE, f"Running the job\n{line}\n", re.M)
        # (quadratic, each took seconds to tens of seconds; linear, a few milliseconds)
        assert time.process_time() - began < 1.0


def test_a_ping_pong_that_printed_its_result_did_not_hang() -> None:
    ev = _load("rc_pp_hang.txt")  # (a note above its result: "it does not hang when ...")
    assert not ev.failures
    (note,) = _said(ev)
    assert note.endswith("8374.52 Mbit/s, 7.83 us an iteration")


def test_a_refused_tcp_exchange_is_a_set_up_failure_not_a_stalled_transfer() -> None:
    ev = _load("rc_pp_conn.txt")
    (fail,) = ev.failures
    assert (fail["kind"], fail["exception_type"]) == (
        "rdma_test_setup_failed",
        "Couldn't connect to server01:18515",
    )
    findings = builtin_findings({"evidence.failures": ev.failures}, "nccl")
    assert "evidence-rdma-test-setup-failed" in findings
    assert "evidence-transfer-stalled" not in findings


def test_a_malformed_figure_is_no_result_and_no_crash() -> None:
    ev = _load("ppdot.txt")  # "= 1.2.3 Mbit/sec"
    (note,) = _said(ev)
    assert note.endswith(
        "no result in the copy (it ends after the addresses: the run hung, or the copy was cut)"
    )


def test_kubelets_admission_and_start_failures_are_failing_pods_and_the_table_is_read_whole() -> (
    None
):
    ev = _load("pods_bad.txt")
    assert ev.files[0].status == "read"  # (its UnexpectedAdmissionError is no log's line)
    assert [f["message"] for f in ev.failures] == [
        "pod train-worker-0 is UnexpectedAdmissionError",
        "pod train-worker-1 is OutOfnvidia.com/gpu",
        "pod train-worker-2 is CreateContainerError",
        "pod train-worker-3 is RunContainerError after 2 restart(s)",
    ]


def test_a_pending_job_cut_above_its_id_is_kept_from_starting_and_a_node_list_is_no_host() -> None:
    (fail,) = _load("scontrol_job3.txt").failures
    assert fail["kind"] == "launch_failed"
    (fail,) = _load("scontrol_job.txt").failures
    assert (fail["kind"], fail["host"]) == ("launcher_exit", None)
    assert fail["message"].endswith("(nodes gpu[01-02])")


def test_a_flattened_dcgmi_diag_with_its_own_double_spaces_is_read() -> None:
    ev = _load("dcgmi_flat.txt")
    (diag,) = ev.dcgm_diags
    failed = [
        (c["section"], c["name"], c["result"]) for c in diag["checks"] if c["result"] != "Pass"
    ]
    assert ("Hardware", "GPU Memory", "Fail") in failed


def test_the_failed_task_of_a_cancelled_step_is_put_on_the_node_whose_stopped_tasks_surround_it() -> (
    None
):
    # (one slurmstepd, node 0's, prints the STEP line: not the failed task's node)
    for name, node in (("srun_cancel3.log", "nodeB"), ("srun_cancel_two_nodes.log", "nid002889")):
        (named,) = [f for f in _load(name).failures if f["rank"] == 5]
        assert named["host"] == node
        assert "if the step had no task above it" in named["exception_type"]


def test_a_looped_query_csv_with_a_header_no_pattern_knows_is_two_gpus_sampled() -> None:
    gpus = nvidia_smi.parse_query_csv((REVIEW / "smi_loop2.csv").read_text())
    assert [(g.gpu, g.bus_id, g.line) for g in gpus] == [
        (0, "00000000:18:00.0", 7),
        (1, "00000000:2A:00.0", 8),
    ]


def test_a_listing_run_over_ssh_is_the_remote_hosts() -> None:
    ev = _load("netif_ssh.txt")
    (fail,) = ev.failures
    assert (fail["kind"], fail["host"], fail["line"]) == ("link_carrier_lost", "gpu02", 8)
    (note,) = _said(ev)
    assert "gpu01: ens1f0np0: up, link up" in note and "gpu02: ens1f0np0: up, no carrier" in note


def test_a_later_listing_with_flags_says_the_link_now() -> None:
    ev = _load("netif_before_after.txt")  # (NO-CARRIER, then the port brought down and up)
    assert not ev.failures
    assert _said(ev) == ["netif: ip: 1 interface(s): gpu03: ens1f0np0 (mtu 9000): up, link up"]


def test_lspci_rev_ff_names_an_nvswitch_as_one_and_a_gpus_audio_function_goes_with_it() -> None:
    (fail,) = _load("lspci_ff.txt").failures
    assert fail["exception_type"].startswith("NVSwitch 08:00.0 reads revision ff")
    (fail,) = _load("lspci_audio.txt").failures
    assert fail["exception_type"].startswith("GPU 01:00.0 reads revision ff")


def test_fi_info_filtered_to_another_endpoint_type_says_nothing_of_rdm() -> None:
    (note,) = _said(_load("fi_info_dgram.txt"))
    assert note.endswith(
        "this listing shows no RDM endpoint of the EFA provider: it was asked for other "
        "endpoint types only (fi_info -t), so whether EFA offers one is not in it"
    )


def test_kubelets_own_device_count_is_not_the_plugins_allocate() -> None:
    # (the log says "Failed to admit pod", not kubelet's reason UnexpectedAdmissionError: that
    # name is said only where the copy says it, round LLLL set 656)
    (fail,) = _load("kubelet_alloc.log").failures
    assert fail["exception_type"] == (
        "kubelet would not admit the pod: it found 7 healthy, free "
        "nvidia.com/gpu of the 8 the pod asks (a device went unhealthy or is still held: a "
        "device plugin's restart, a stale checkpoint)"
    )


def test_a_daemonset_under_a_rolling_update_is_no_failing_pod() -> None:
    ev = _load("ds_rollout.txt")
    assert not ev.failures
    (note,) = _said(ev)
    assert note.endswith(
        "being updated (a rolling update): nvidia-dcgm-exporter (3 of 8 pod(s) updated, 7 ready)"
    )


def test_fi_pingpongs_shortened_counts_and_unanswered_messages_and_the_fabtests_table() -> None:
    (note,) = _said(_load("fi_pp.txt"))
    assert note == (
        "libfabric: fabtests' ping-pong (fi_pingpong -p efa -e rdm -I 1000 10.0.0.2): 2 size(s) "
        "from 64 B to 256 B went both ways; at most 16.8 MB/s, 15.23 us a transfer at best"
    )
    (note,) = _said(_load("fi_pp2.txt"))
    assert "sent and acknowledged messages apart at 64 B (+3) (messages not answered)" in note
    (note,) = _said(_load("fi_rdm_pp.txt"))  # (the fabtests' own "bytes iters ..." columns)
    assert "2 size(s) from 64 B to 256 B went both ways" in note
    ev = _load("fidot.txt")  # ("5.13.2" in a figure: no row, no crash)
    assert ev.files[0].status == "partial"


def test_a_memory_resource_held_back_is_an_amount_not_devices() -> None:
    notes = _said(_load("k8snode.txt"))
    assert notes[0].endswith(
        "aliyun.com/gpu-mem capacity 320, allocatable 300: 20 of it held back (an amount, not devices)"
    )


def test_ibv_ud_pingpongs_gid_after_a_colon_is_taken() -> None:
    (note,) = _said(_load("ud_pp.txt"))
    assert note.startswith(
        "pingpong: ibverbs ping-pong: local fe80::ba59:9fff:fe12:3456, remote fe80::ba59:9fff:fe12:3457;"
    )
