"""Outputs of round PPPP's held-out evaluation (set 681, NVIDIA tool outputs, part b) that the
advisor read in part before this change (tests/data/evidence_heldout_76, sources in
tests/data/SOURCES.md): a CUDA samples deviceQuery output was taken for simpleP2P's, from its
peer-access lines alone; its devices (name, compute capability, memory), the CUDA driver and
runtime versions, the device count and its own "Result = PASS" were not read."""

from __future__ import annotations

from functools import partial
from pathlib import Path

from advisor.evidence.load import EvidenceFacts
from advisor.parsers import device_query
from tests import heldout
from tests.conftest import DATA

HELDOUT = DATA / "evidence_heldout_76"

QUERY = "cuda_devicequery_rt7_5_drv9_1_gtx1060_nvs310_no_peer_access_pass_reu_eelcomputer.txt"

_write = partial(heldout.load_copy, name="copy.txt")
_load = partial(heldout.load, HELDOUT)
_text = partial(heldout.text, HELDOUT)


def _said(ev: EvidenceFacts) -> list[tuple[int | None, str]]:
    # (each note as the import prints it, less the format's name before it)
    return [
        (m.line, m.message.removeprefix("device_query: ")) for f in ev.files for m in f.messages
    ]


# --- deviceQuery read as itself, not as simpleP2P ---------------------------------------------


def test_device_query_is_read_as_its_own_format_with_versions_devices_and_result() -> None:
    ev = _load(QUERY)
    assert ev.files[0].formats == ["device_query"] and ev.files[0].status == "read"
    level, outcome = heldout.imported(ev)
    assert level == "READY"
    assert heldout.above_info(outcome) == []
    (copy,) = ev.gpu_copy
    assert copy["tool"] == "deviceQuery" and copy["line"] == 1
    assert (copy["driver"], copy["cuda_runtime"]) == ("9.1", "7.5")
    assert [(d["index"], d["name"]) for d in copy["devices"]] == [
        (0, "GeForce GTX 1060 6GB"),
        (1, "NVS 310"),
    ]
    assert copy["peer_access"] == {"0": {"1": False}, "1": {"0": False}}
    assert copy["peer_access_line"] == 72
    # two GPUs of different models: no peer access is the board's mix, not judged
    assert copy["no_peer_access"] is False and copy["complete"] is True
    assert not copy["failed"] and not ev.failures
    said = dict(_said(ev))
    assert said[1] == (
        "deviceQuery: CUDA driver 9.1 / runtime 7.5, 2 CUDA device(s) (GPU0 GeForce GTX 1060 6GB, "
        "GPU1 NVS 310); Result = PASS (line 76)"
    )
    assert said[5].startswith(
        "deviceQuery GPU0 GeForce GTX 1060 6GB: compute capability 6.1, 6078 MBytes of global "
        "memory, PCI domain / bus / location 0 / 3 / 0"
    )
    assert "CUDA Cores figure a default" in said[5]  # "MapSMtoCores for SM 6.1" (lines 9-10)
    assert said[40] == (
        "deviceQuery GPU1 NVS 310: compute capability 2.1, 962 MBytes of global memory, "
        "PCI domain / bus / location 0 / 2 / 0"
    )
    assert said[72].startswith("deviceQuery: peer access GPU0->GPU1 No; GPU1->GPU0 No -- ")
    assert "not a fault" in said[72]


def test_device_query_parser_reads_each_device() -> None:
    run = device_query.parse(_text(QUERY))
    assert (run.count, run.summary_line, run.result, run.result_line) == (2, 75, "PASS", 76)
    gtx, nvs = run.devices
    assert (gtx.line, gtx.capability, gtx.memory_mbytes, gtx.memory_bytes) == (
        5,
        "6.1",
        6078,
        6373572608,
    )
    assert gtx.cores_default and not nvs.cores_default
    assert (nvs.index, nvs.capability, nvs.pci) == (1, "2.1", "0 / 2 / 0")


def test_two_gpus_of_one_model_without_peer_access_are_warned(tmp_path: Path) -> None:
    text = _text(QUERY).replace("NVS 310", "GeForce GTX 1060 6GB")
    ev = _write(tmp_path, text)
    assert ev.files[0].formats == ["device_query"]
    (copy,) = ev.gpu_copy
    assert copy["no_peer_access"] is True
    level, outcome = heldout.imported(ev)
    assert level == "READY WITH WARNINGS"
    assert heldout.above_info(outcome) == [("evidence-gpu-no-peer-access", "warning")]
    (item,) = heldout.items(outcome, "evidence-gpu-no-peer-access")
    assert item.startswith("2 GPU(s) (GeForce GTX 1060 6GB), every pair 'Peer access ... : No'")
    assert item.endswith("line 72)")
    # and with peer access both ways the twin stays READY
    ev = _write(tmp_path, text.replace(" : No", " : Yes"))
    assert ev.gpu_copy[0]["no_peer_access"] is False
    assert heldout.imported(ev)[0] == "READY"


def test_another_device_and_versions_are_read_from_the_text(tmp_path: Path) -> None:
    text = (
        _text(QUERY)
        .replace("9.1 / 7.5", "12.2 / 12.1")
        .replace(
            "Driver Version = 9.1, CUDA Runtime Version = 7.5",
            "Driver Version = 12.2, CUDA Runtime Version = 12.1",
        )
        .replace("GeForce GTX 1060 6GB", "NVIDIA A100-SXM4-80GB")
    )
    ev = _write(tmp_path, text)
    (copy,) = ev.gpu_copy
    assert (copy["driver"], copy["cuda_runtime"]) == ("12.2", "12.1")
    assert copy["devices"][0]["name"] == "NVIDIA A100-SXM4-80GB"
    assert heldout.imported(ev)[0] == "READY"


def test_a_device_query_that_sees_no_device_is_warned(tmp_path: Path) -> None:
    # deviceQuery.cpp: cudaGetDeviceCount answering 0 prints "There are no available device(s)
    # that support CUDA", the summary with NumDevs = 0 and still "Result = PASS"
    text = (
        "./deviceQuery Starting...\n\n"
        " CUDA Device Query (Runtime API) version (CUDART static linking)\n\n"
        "There are no available device(s) that support CUDA\n\n"
        "deviceQuery, CUDA Driver = CUDART, CUDA Driver Version = 0.0, CUDA Runtime Version = "
        "12.1, NumDevs = 0\n"
        "Result = PASS\n"
    )
    ev = _write(tmp_path, text)
    assert ev.files[0].formats == ["device_query"]
    (failure,) = ev.failures
    assert failure["line"] == 5 and failure["kind"] == "gpu_driver_error"
    assert "though its result says PASS" in failure["exception_type"]
    # (the rule bandwidthTest's "No devices found" meets too: a warning naming the device)
    level, outcome = heldout.imported(ev)
    assert level == "READY WITH WARNINGS"
    assert heldout.above_info(outcome) == [("evidence-gpu-driver-error", "warning")]


def test_device_query_cut_before_its_result_is_said_so(tmp_path: Path) -> None:
    text = "\n".join(_text(QUERY).splitlines()[:73]) + "\n"
    ev = _write(tmp_path, text)
    (copy,) = ev.gpu_copy
    assert copy["complete"] is False and copy["driver"] == "9.1"
    assert "the copy ends before its 'Result =' line" in dict(_said(ev))[1]


def test_simple_p2p_output_is_still_simple_p2p() -> None:
    # its peer-access lines beside its banner: simpleP2P's own run, deviceQuery's signature absent
    text = (
        "[./simpleP2P] - Starting...\n"
        "Checking for multiple GPUs...\n"
        "CUDA-capable device count: 2\n"
        "> Peer access from Tesla V100 (GPU0) -> Tesla V100 (GPU1) : Yes\n"
        "> Peer access from Tesla V100 (GPU1) -> Tesla V100 (GPU0) : Yes\n"
        "Test passed\n"
    )
    from advisor.evidence.load import load_text

    ev = load_text(text, "p2p.txt")
    assert ev.files[0].formats == ["simple_p2p"]
    assert ev.gpu_copy[0]["tool"] == "simpleP2P"
