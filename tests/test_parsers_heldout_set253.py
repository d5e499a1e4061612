"""Outputs of this stop's held-out evaluations (tests/data/evidence_heldout_43, sources in
tests/data/SOURCES.md): Ascend DMI's fault diagnosis and MindCluster's reschedule records."""

from __future__ import annotations

from typing import Any

from advisor.evidence.command import cluster_from
from advisor.evidence.load import EvidenceFacts, load_paths, load_text
from tests.conftest import DATA
from tests.rules_facts import builtin_findings

HELDOUT = DATA / "evidence_heldout_43"


def _findings(ev: EvidenceFacts, backend: str) -> dict[str, Any]:
    return builtin_findings({"evidence.failures": ev.failures}, backend)


def _said(ev: EvidenceFacts) -> str:
    return " | ".join(m.message for f in ev.files for m in f.messages)


def test_ascend_dmi_network_pass_is_a_healthy_npu_nodes_note() -> None:
    ev = load_paths([HELDOUT / "ascend_dmi_dg_items_network_pass_doc.txt"])
    assert ev.files[0].status == "read" and ev.files[0].formats == ["ascend_dmi"]
    assert ev.failures == []
    assert "ascend-dmi --dg at 20250529-19:22:43: network PASS" in _said(ev)
    # only an Ascend host runs ascend-dmi: the import is an NPU cluster's, with no shape made up
    cluster = cluster_from(ev)
    assert (cluster.backend, cluster.nodes) == ("hccl", 0)


def test_ascend_dmi_scene_reads_every_item_and_says_the_cut_one() -> None:
    ev = load_paths(
        [
            HELDOUT
            / "ascend_dmi_dg_scene_healthcheck_perfcheck_stresstest_a2_a3_all_pass_doc_indented_cut.txt"
        ]
    )
    f = ev.files[0]
    assert f.status == "partial" and ev.failures == []
    said = _said(ev)
    assert "driver HEALTH, device HEALTH, network PASS" in said and "tdp PASS" in said
    assert "aicpu: no state below it" in said
    assert [m.line for m in f.messages if "aicpu" in m.message] == [31]


DMI_BAD = """[root@node-7 ~]# ascend-dmi --dg -i driver,network,hbm,signalQuality -q
Summary:
    Arch: x86_64
    Mode: Normal
    Time: 20250601-08:00:00

Hardware:
    driver:
        EMERGENCY_WARN
    network:
        FAIL
        device 3: link down
    hbm:
        PASS
    signalQuality:
        SKIP
"""


def test_ascend_dmi_states_are_read_by_their_documented_meaning() -> None:
    ev = load_text(DMI_BAD, "dmi.txt")
    got = {(f["exception_type"].split(":")[0], f["code"]) for f in ev.failures}
    assert got == {("Hardware driver", "Warn"), ("Hardware network", "Fail")}
    network = next(f for f in ev.failures if f["code"] == "Fail")
    # what the tool printed under the state goes with it
    assert network["exception_type"].endswith("FAIL at 20250601-08:00:00: device 3: link down")
    assert network["message"].startswith("ascend-dmi --dg -i driver,network,hbm,signalQuality -q")
    said = _said(ev)
    assert (
        "hbm PASS" in said and "signalQuality SKIP (not supported on this product or scene)" in said
    )
    found = _findings(ev, "hccl")
    assert {"evidence-dmi-fail", "evidence-dmi-warn"} <= set(found)
    assert "evidence-dmi-fail" not in _findings(
        load_text(DMI_BAD.replace("FAIL", "PASS"), "d.txt"), "hccl"
    )


def test_mindcluster_reschedule_record_names_the_node_of_the_failed_pod() -> None:
    ev = load_paths(
        [
            HELDOUT
            / "mindcluster_kubectl_describe_cm_job_reschedule_reason_pod_failed_worker0_node2_rank_index1.txt"
        ]
    )
    (r,) = ev.failures
    assert (r["kind"], r["code"], r["host"], r["line"]) == ("reschedule", "pod-failed", "node2", 9)
    assert "pod default-test-pytorch-worker-0 on node2, node rank index 1" in r["exception_type"]
    # the record's epoch stamp, read as UTC; the job's total count kept
    assert "at 2025-10-05 16:56:10 UTC" in r["message"] and "1 reschedule(s)" in r["message"]
    assert cluster_from(ev).backend == "hccl"
    assert "node2" in _findings(ev, "hccl")["evidence-reschedule"].message


def test_reschedule_records_in_lower_case_keys_and_a_cut_record() -> None:
    text = (
        "recent-reschedule-records:\n----\n"
        '{"ns/job-a":{"jobID":"ns/job-a","totalRescheduleTimes":2,"rescheduleRecords":[{"rescheduleTimeStamp":1759683370,'
        '"reasonOfTask":[{"rescheduleReason":"process-exception","podName":"w-3","nodeName":"n9","nodeRankIndex":"3"},'
        '{"rescheduleReason":"pod-failed","podName":"w-1","nodeName":"n4"}]}]}}\n'
        '{"ns/job-b":{"JobID":"ns/job-b","RescheduleRecords":[{"ReasonOfTask":[{"Resched\n'
    )
    ev = load_text(text, "cm.txt")
    assert [(f["host"], f["code"]) for f in ev.failures] == [
        ("n9", "process-exception"),
        ("n4", "pod-failed"),
    ]
    assert "(a process in the pod failed)" in ev.failures[0]["exception_type"]
    assert ev.files[0].status == "partial" and "not whole JSON" in _said(ev)


def test_a_log_naming_ascend_dmi_in_its_prose_is_not_its_output() -> None:
    text = (
        "[ERROR] HCCL(123,python):2024-01-01-00:00:00.000.000 [hccl_comm.cc:1] EI0006: Getting "
        "socket times out.\nhint: run ascend-dmi --dg to check the node\n"
    )
    ev = load_text(text, "train.log")
    assert ev.files[0].formats == ["log"] and ev.files[0].status == "read"
