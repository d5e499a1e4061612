"""Outputs of round FFFF's held-out evaluation (set 621, NVIDIA tool outputs) that the advisor read
in part before this change (tests/data/evidence_heldout_67, sources in tests/data/SOURCES.md):
nvidia-smi nvlink -e's replay errors, read as a warning where DCGM's NVLink health watch fails
the GPU; --query-gpu's fabric.state and fabric.status columns, not read (one GPU said of four,
from the -q section grepped beside them), and a GPU not registered with the NVLink fabric read as
a warning where no CUDA program starts on it."""

from __future__ import annotations

from functools import partial
from pathlib import Path

from advisor.evidence.load import EvidenceFacts
from tests import heldout
from tests.conftest import DATA

HELDOUT = DATA / "evidence_heldout_67"

NVLINK = "nvidia_smi_nvlink_e_v100_sxm2_condensed_gpu0_link3_replay2353_gpu2_link0_crc65535.txt"
FABRIC = (
    "nvidia_smi_query_fabric_state_4x_gb300_in_progress_status_na_plus_q_fabric_grep_elided.txt"
)


_load = partial(heldout.load, HELDOUT)


_write = partial(heldout.load_copy, name="copy.txt")


# --- nvidia-smi nvlink -e: replay errors --------------------------------------------------------


def test_nvlink_replay_errors_fail_the_gpus_as_dcgms_health_watch_does() -> None:
    ev = _load(NVLINK)
    gpu0, gpu2 = ev.nvlinks
    assert (gpu0["gpu"], gpu0["name"], gpu0["errors"]) == (
        0,
        "Tesla V100-SXM2-32GB-LS",
        {"3": {"Replay Errors": 2353}},
    )
    assert (gpu0["error_total"], gpu0["replay_total"]) == (2353, 2353)
    assert (gpu2["gpu"], gpu2["errors"]) == (2, {"0": {"Replay Errors": 148, "CRC Errors": 65535}})
    assert (gpu2["error_total"], gpu2["replay_total"]) == (65683, 148)
    # (the author's condensed "Links 0-2, 4-5: ... Errors: 0" lines say no link's count: none made)
    assert not ev.gpus and not ev.failures
    level, outcome = heldout.imported(ev)
    assert level == "NOT READY"
    assert heldout.above_info(outcome) == [("evidence-nvlink-replay-errors", "critical")]
    first, second = heldout.items(outcome, "evidence-nvlink-replay-errors")
    assert first.startswith("GPU 0 (Tesla V100-SXM2-32GB-LS): link 3 Replay Errors 2353;")
    assert second.startswith(
        "GPU 2 (Tesla V100-SXM2-32GB-LS): link 0 Replay Errors 148; link 0 CRC Errors 65535;"
    )


_SMI_E = (
    "$ nvidia-smi nvlink -e\n"
    "GPU 0: NVIDIA A100-SXM4-80GB (UUID: GPU-5261e3df-82f6-67b4-9953-4e63527e0e9d)\n"
    "\t Link 0: Replay Errors: 0\n"
    "\t Link 0: Recovery Errors: {recovery}\n"
    "\t Link 0: CRC Errors: {crc}\n"
    "\t Link 1: Replay Errors: 0\n"
    "\t Link 1: Recovery Errors: 0\n"
    "\t Link 1: CRC Errors: 0\n"
    "GPU 1: NVIDIA A100-SXM4-80GB (UUID: GPU-d9eeee97-c180-66de-23e0-d995387934dc)\n"
    "\t Link 0: Replay Errors: 0\n"
    "\t Link 0: Recovery Errors: 0\n"
    "\t Link 0: CRC Errors: 0\n"
)


def test_recovery_errors_in_nvidia_smis_own_form_fail_the_gpu(tmp_path: Path) -> None:
    # (a hundred or more since the driver loaded: review 51's line, tests/test_evidence_review51a)
    ev = _write(tmp_path, _SMI_E.format(recovery=120, crc=0))
    assert [g["replay_total"] for g in ev.nvlinks] == [120, 0]
    level, outcome = heldout.imported(ev)
    assert level == "NOT READY"
    assert heldout.above_info(outcome) == [("evidence-nvlink-replay-errors", "critical")]
    (item,) = heldout.items(outcome, "evidence-nvlink-replay-errors")
    assert item.startswith("GPU 0 (NVIDIA A100-SXM4-80GB): link 0 Recovery Errors 120;")


def test_crc_errors_alone_stay_a_warning(tmp_path: Path) -> None:
    # DCGM's health watch fails CRC errors only at 100 a second; a counter gives no rate
    ev = _write(tmp_path, _SMI_E.format(recovery=0, crc=17))
    assert [(g["error_total"], g["replay_total"]) for g in ev.nvlinks] == [(17, 0), (0, 0)]
    level, outcome = heldout.imported(ev)
    assert level == "READY WITH WARNINGS"
    assert heldout.above_info(outcome) == [("evidence-nvlink-errors", "warning")]
    ev = _write(tmp_path, _SMI_E.format(recovery=0, crc=0))
    assert heldout.imported(ev)[0] == "READY"


# --- nvidia-smi --query-gpu fabric.state, fabric.status -----------------------------------------


def test_every_gpu_of_the_query_in_progress_is_read_and_not_ready() -> None:
    ev = _load(FABRIC)
    assert [
        (g["gpu"], g["name"], g["fabric_state"], g["fabric_status"], g["line"]) for g in ev.gpus
    ] == [(n, "NVIDIA GB300", "In Progress", "N/A", 3 + n) for n in range(4)]
    # (the grepped -q section of GPU 0 is the same GPU as its row: folded into it, not a fifth)
    assert ev.gpus[0]["sections"] == ["Fabric"]
    assert ev.gpus[0]["fabric_health"] == {"Summary": "N/A"}
    assert not ev.failures
    level, outcome = heldout.imported(ev)
    assert level == "NOT READY"
    assert heldout.above_info(outcome) == [("evidence-gpu-fabric-not-registered", "critical")]
    items = heldout.items(outcome, "evidence-gpu-fabric-not-registered")
    assert [i.split(" (")[0] for i in items] == [
        f"GPU {n}: Fabric State In Progress Status N/A" for n in range(4)
    ]
    assert items[0].endswith(f"{FABRIC}, line 3)")


_QUERY = (
    "$ nvidia-smi --query-gpu=index,name,fabric.state,fabric.status --format=csv{noheader}\n"
    "{header}"
    "0, NVIDIA H100 80GB HBM3, {state0}, {status0}\n"
    "1, NVIDIA H100 80GB HBM3, Completed, Success\n"
)


def _query(tmp_path: Path, state0: str, status0: str, noheader: bool = False) -> EvidenceFacts:
    return _write(
        tmp_path,
        _QUERY.format(
            noheader=",noheader" if noheader else "",
            header="" if noheader else "index, name, fabric.state, fabric.status\n",
            state0=state0,
            status0=status0,
        ),
    )


def test_the_fabric_columns_read_in_any_state(tmp_path: Path) -> None:
    ev = _query(tmp_path, "Completed", "Success")
    assert [(g["fabric_state"], g["fabric_status"]) for g in ev.gpus] == [
        ("Completed", "Success")
    ] * 2
    assert heldout.imported(ev)[0] == "READY"
    # a registration that completed with NVML's error: not registered, named by its status
    ev = _query(tmp_path, "Completed", "Insufficient Resources", noheader=True)
    assert ev.gpus[0]["fabric_status"] == "Insufficient Resources"
    level, outcome = heldout.imported(ev)
    assert level == "NOT READY"
    (item,) = heldout.items(outcome, "evidence-gpu-fabric-not-registered")
    assert item.startswith("GPU 0: Fabric State Completed Status Insufficient Resources (")
    ev = _query(tmp_path, "Not Started", "N/A")
    assert heldout.imported(ev)[0] == "NOT READY"


def test_a_gpu_without_a_fabric_says_no_state(tmp_path: Path) -> None:
    # a PCIe card: NVML answers the fields in brackets, no registration state of its own
    ev = _query(tmp_path, "[N/A]", "[N/A]")
    assert (ev.gpus[0]["fabric_state"], ev.gpus[0]["fabric_status"]) == (None, None)
    ev = _query(tmp_path, "Not Supported", "[Not Supported]")
    assert (ev.gpus[0]["fabric_state"], ev.gpus[0]["fabric_status"]) == ("Not Supported", None)
    assert heldout.imported(ev)[0] == "READY"


def test_a_grepped_section_that_differs_from_the_row_stays_apart(tmp_path: Path) -> None:
    text = (
        "index, name, fabric.state, fabric.status\n"
        "0, NVIDIA GB200, In Progress, N/A\n"
        "\n"
        "$ nvidia-smi -i 0 -q | grep -A 3 Fabric\n"
        "    Fabric\n"
        "        State          : Completed\n"
        "        Status         : Success\n"
    )
    ev = _write(tmp_path, text)
    assert [(g["query"], g["fabric_state"]) for g in ev.gpus] == [
        ("q", "Completed"),
        ("csv", "In Progress"),
    ]
