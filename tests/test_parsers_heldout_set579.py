"""Outputs of round YYY's held-out evaluation (set 579) that the advisor read wrong or only in part
before this change (tests/data/evidence_heldout_62, sources in tests/data/SOURCES.md): two
bandwidthTest runs in one file, nvidia-smi's MIG devices table, an SXM board's NVLinks lost on
some GPUs, and a dcgmi diag excerpt whose last row lost its right border."""

from __future__ import annotations

from functools import partial
from typing import Any

from advisor.evidence.load import EvidenceFacts, load_text
from advisor.parsers import bandwidth_test, dcgm, nvidia_smi
from tests import heldout
from tests.conftest import DATA
from tests.rules_facts import builtin_findings

HELDOUT = DATA / "evidence_heldout_62"
BANDWIDTH = "cuda_samples_bandwidthTest_t4_then_v100_sxm2_two_runs_prompts_pass.txt"
MIG = "nvidia_smi_590_table_h100_mig_4_instances_under_load_capture.txt"
NVLINK = "nvidia_smi_nvlink_s_v100_sxm2_7gpus_six_inactive_links_azhpc_sample.txt"
DCGM49 = "dcgmi_diag_r2_dcgm246_a100_pcie_fail_nvlink_down_warnings_excerpt_issue49.txt"


_load = partial(heldout.load, HELDOUT)


def _bad(ev: EvidenceFacts) -> dict[str, Any]:
    """The built-in rules' critical and warning findings on an import's facts."""
    found = builtin_findings(
        {
            "evidence.failures": ev.failures,
            "evidence.gpus": ev.gpus,
            "evidence.gpu_copy": ev.gpu_copy,
            "evidence.nvlinks": ev.nvlinks,
            "evidence.dcgm_diags": ev.dcgm_diags,
        },
        "nccl",
    )
    return {k: f for k, f in found.items() if f.severity in ("critical", "warning")}


def test_each_bandwidth_test_run_is_said_with_its_own_gpu() -> None:
    ev = _load(BANDWIDTH)
    assert [(c["line"], c["devices"], c["complete"]) for c in ev.gpu_copy] == [
        (2, [{"index": 0, "name": "Tesla T4"}], True),
        (36, [{"index": 0, "name": "Tesla V100-SXM2-16GB"}], True),
    ]
    said = heldout.said(ev)
    assert said == [
        "bandwidth_test: bandwidthTest on GPU 0 Tesla T4: Host to Device (PINNED) up to 9.7 GB/s",
        "bandwidth_test: bandwidthTest on GPU 0 Tesla T4: Device to Host (PINNED) up to 11.1 GB/s",
        "bandwidth_test: bandwidthTest on GPU 0 Tesla T4: Device to Device (PINNED) up to 239.6 "
        "GB/s",
        "bandwidth_test: bandwidthTest on GPU 0 Tesla V100-SXM2-16GB: Host to Device (PINNED) up "
        "to 9.6 GB/s",
        "bandwidth_test: bandwidthTest on GPU 0 Tesla V100-SXM2-16GB: Device to Host (PINNED) up "
        "to 11.4 GB/s",
        "bandwidth_test: bandwidthTest on GPU 0 Tesla V100-SXM2-16GB: Device to Device (PINNED) "
        "up to 739.8 GB/s",
    ]
    assert ev.files[0].status == "read" and not ev.failures and not _bad(ev)


def test_a_second_run_whose_banner_was_lost_starts_at_its_device_line() -> None:
    # the second run pasted from its "Device 0:" line to its last row, without its banner and
    # "Result =" line: still its own GPU's, and said cut
    lines = (HELDOUT / BANDWIDTH).read_text().splitlines()
    cut = "\n".join(lines[:33] + lines[39:59]) + "\n"
    runs, _ = bandwidth_test.parse(cut)
    assert [[d["name"] for d in r.devices] for r in runs] == [
        ["Tesla T4"],
        ["Tesla V100-SXM2-16GB"],
    ]
    assert [r.result for r in runs] == ["PASS", None]
    said = heldout.said(load_text(cut, "bw.txt"))
    assert (
        "bandwidth_test: bandwidthTest on GPU 0 Tesla V100-SXM2-16GB: Device to Device (PINNED) "
        "up to 739.8 GB/s"
    ) in said
    assert "bandwidth_test: bandwidthTest: the copy ends before its 'Result =' line" in said


def test_nvidia_smis_mig_devices_table_is_read_with_the_gpus_mig_mode() -> None:
    ev = _load(MIG)
    (gpu,) = ev.gpus
    assert (gpu["name"], gpu["mig_mode"], gpu["power_w"], gpu["ecc_uncorrected"]) == (
        "NVIDIA H100 80GB HBM3",
        "Enabled",
        432,
        None,
    )
    assert ev.files[0].status == "read"
    (note,) = heldout.said(ev)
    assert note == (
        "nvidia_smi: nvidia-smi: GPU 0 (MIG mode Enabled) split into 4 MIG device(s): "
        "GI 2 / CI 0 (device 0): 60 SMs, 11091 of 40448 MiB used, uncorrectable ECC 0; "
        "GI 3 / CI 0 (device 1): 32 SMs, 17 of 20096 MiB used, uncorrectable ECC 0; "
        "GI 9 / CI 0 (device 2): 16 SMs, 9 of 9984 MiB used, uncorrectable ECC 0; "
        "GI 10 / CI 0 (device 3): 16 SMs, 9 of 9984 MiB used, uncorrectable ECC 0; "
        "a job sees each as its own device, not the whole GPU"
    )
    # (a GPU in MIG mode is a warning since set 633: the MIG User Guide has no P2P between MIG
    # instances, so a training job cannot use it whole)
    assert not ev.failures and set(_bad(ev)) == {"evidence-gpu-mig-mode"}


def test_a_mig_instances_uncorrectable_ecc_count_is_its_gpus() -> None:
    # in MIG mode the GPU's cell shows the ECC mode ("On"); an instance's count is the GPU's,
    # and the older drivers' header ("Memory-Usage") and an indented copy read alike
    text = (HELDOUT / MIG).read_text()
    text = text.replace("Shared Memory-Usage", "      Memory-Usage").replace(
        "| 32      0 |", "| 32      2 |"
    )
    indented = "".join(f"    {line}\n" for line in text.splitlines())
    table = nvidia_smi.parse_mig_devices(text)
    assert table is not None and not table.cut
    assert [(d.gpu_instance, d.sm_count, d.ecc_uncorrected) for d in table.devices] == [
        (2, 60, 0),
        (3, 32, 2),
        (9, 16, 0),
        (10, 16, 0),
    ]
    for copy in (text, indented):
        ev = load_text(copy, "smi.txt")
        (gpu,) = ev.gpus
        assert gpu["ecc_uncorrected"] == 2
        assert "evidence-gpu-ecc-uncorrected" in _bad(ev)


def test_an_sxm_boards_gpus_that_lost_nvlinks_are_not_ready() -> None:
    ev = _load(NVLINK)
    lost = [(g["gpu"], g["inactive"]) for g in ev.nvlinks if g["inactive"]]
    assert lost == [(3, [3, 5]), (4, [1]), (5, [0, 4]), (6, [1])]
    assert all(g["baseboard"] for g in ev.nvlinks)
    found = _bad(ev)
    assert set(found) == {"evidence-nvlink-down-on-baseboard"}
    down = found["evidence-nvlink-down-on-baseboard"]
    assert down.severity == "critical"
    assert down.items[0].startswith(
        "GPU 3 (Tesla V100-SXM2-32GB): link(s) 3, 5 inactive, 4 of 6 active (more than the other "
        "GPUs of its model in the output)"
    )
    assert [i.split(":")[0] for i in down.items] == ["GPU 3 (Tesla V100-SXM2-32GB)"] + [
        f"GPU {g} (Tesla V100-SXM2-32GB)" for g in (4, 5, 6)
    ]
    # GPUs 0-2 keep all six links: nothing said of them
    assert not any(i.startswith(("GPU 0 ", "GPU 1 ", "GPU 2 ")) for i in down.items)


def test_a_dcgm_diag_rows_lost_right_border_ends_its_message_and_the_fail_row_is_pointed_at() -> (
    None
):
    ev = _load(DCGM49)
    (diag,) = ev.dcgm_diags
    (failed,) = diag["failed"]
    assert (
        failed["section"],
        failed["name"],
        failed["result"],
        failed["gpus"],
        failed["line"],
    ) == (
        "Integration",
        "PCIe",
        "Fail",
        "All",
        2,
    )
    (warning,) = failed["details"]
    assert warning.endswith(
        "GPU 0GPU 0's NvLink link 4 is currently down Run a field diagnostic on the GPU.,"
    )
    assert warning.count("is currently down Run a field diagnostic on the GPU.") == 5
    found = builtin_findings({"evidence.dcgm_diags": ev.dcgm_diags}, "nccl")
    (item,) = found["evidence-dcgm-diag-failed"].items
    assert item.endswith(f"{DCGM49}, line 2)")
    # the copy's cut (the author's "..."): the other sections are unknown, not passed
    assert any(
        "the copy ends inside a row of its Integration section" in m for m in heldout.said(ev)
    )
    # the same row cut in a table that goes on with a prompt: read alike
    text = (HELDOUT / DCGM49).read_text().replace("...", "$ echo done")
    (table,), _ = dcgm.parse(text)
    assert table.failed[0].details == [warning]
