"""Outputs of round RRRR's held-out evaluation (set 693, NVIDIA tool outputs) that the advisor
read in part before this change (tests/data/evidence_heldout_78, sources in
tests/data/SOURCES.md): a ``dcgmi diag -r 2`` table copied from a PDF, whose section rows carry a
blank inside their border ("| -----  Deployment  ----+---- |"), lost its Deployment section and
never said the passes above its cut; a ``-r 4`` run whose Persistence Mode check failed did not
say that DCGM then skipped six tests and ran only Memtest; NCCL's NVLS multicast bind failure
(CUDA error 401) was a bare WARN, its meaning and the Fabric Manager / NVSwitch pointer of
NCCL's own nvls.cc unsaid; nv-hostengine's SysMon module (module 9) not loading on an x86 host
was an unexplained error; and an ``nvidia-smi -q`` GH200 held at 700 W of its 900 W requested
power limit did not say so."""

from __future__ import annotations

from functools import partial
from pathlib import Path

from advisor.evidence.load import EvidenceFacts, load_paths
from tests import heldout
from tests.conftest import DATA

HELDOUT = DATA / "evidence_heldout_78"

DIAG_R2 = "dcgmi_diag_r2_dcgm331_8xh100_all_pass_pdf_line_numbers_smol_playbook_cut.txt"
DIAG_R4 = "dcgmi_diag_r4_gpu0_persistence_mode_fail_tests_skipped_memtest_pass_gpu_memtest_page.txt"
NVLS = "nccl_nvls_multicast_bind_failed_cuda_error_401_rank5_gpu_stress_dcgm304.log"
SYSMON = "nv_hostengine_log_dcgm33_sysmon_incompatible_cpu_vendor_module9_load_failed_dgx_a100_dcgm149_cut.log"
GH200 = "nvidia_smi_q_gh200_550_127_aggregate_dram_uncorrectable_1_row_remapped_power_limit_700_of_900w_thamada_gls.txt"


_load = partial(heldout.load, HELDOUT)


def _bytes(name: str) -> bytes:
    # (bytes, not text: the SysMon log holds the bytes its logger printed, not UTF-8)
    return (HELDOUT / name).read_bytes()


def _copy(tmp_path: Path, data: bytes, name: str) -> EvidenceFacts:
    path = tmp_path / name
    path.write_bytes(data)
    return load_paths([path])


def _said(ev: EvidenceFacts) -> list[tuple[int | None, str]]:
    return [(m.line, m.message) for f in ev.files for m in f.messages]


# --- dcgmi diag -r 2 from a PDF: its section rows with a blank inside the border --------------


def test_a_pdf_copy_of_dcgmi_diag_keeps_its_deployment_section_and_says_the_passes() -> None:
    ev = _load(DIAG_R2)
    (diag,) = ev.dcgm_diags
    deployment = [c for c in diag["checks"] if c["section"] == "Deployment"]
    assert len(deployment) == 9 and all(c["result"] == "Pass" for c in deployment)
    assert (deployment[0]["line"], deployment[-1]["line"]) == (21, 37)
    after = {(c["name"], c["section"], c["line"]) for c in diag["checks"]} - {
        (c["name"], "Deployment", c["line"]) for c in deployment
    }
    assert after == {("PCIe", "Integration", 42), ("GPU Memory", "Hardware", 61)}
    # the copy still ends at the Stress header (line 80), nothing under it: only Stress is lost
    assert diag["cut"]["line"] == 80 and diag["cut"]["missing"] == ["Stress"]
    said = [m for _, m in _said(ev)]
    assert not any("Deployment results are not in the copy" in m for m in said)
    assert any(
        "dcgmi diag -r 2 (DCGM 3.3.1): the results in the copy above its cut: Deployment: all 9 "
        "checks Pass (lines 21-37); PCIe: Pass - All (line 42); GPU Memory: Pass - All (line 61)"
        in m
        for m in said
    )
    level, outcome = heldout.imported(ev)
    assert level == "READY WITH WARNINGS"
    assert heldout.above_info(outcome) == [("evidence-dcgm-diag-cut-short", "warning")]
    (item,) = heldout.items(outcome, "evidence-dcgm-diag-cut-short")
    assert "not in the copy: Stress" in item and "Deployment" not in item


def test_a_pdf_section_row_with_a_failed_check_under_it_is_judged(tmp_path: Path) -> None:
    # the same PDF copy, GPU Memory failed on GPU 3: the section it sits in must be read
    data = _bytes(DIAG_R2).replace(
        b"| GPU Memory | Pass - All |", b"| GPU Memory | Fail - GPU: 3 |"
    )
    ev = _copy(tmp_path, data, "diag.txt")
    (diag,) = ev.dcgm_diags
    assert [(c["name"], c["section"], c["gpus"]) for c in diag["failed"]] == [
        ("GPU Memory", "Hardware", "GPU: 3")
    ]
    level, _ = heldout.imported(ev)
    assert level == "NOT READY"


# --- dcgmi diag -r 4: a failed Deployment check, the tests DCGM skipped after it -------------


def test_a_persistence_mode_failure_says_the_tests_skipped_and_the_one_that_ran() -> None:
    level, outcome = heldout.imported(_load(DIAG_R4))
    # DCGM's own words: the diagnostic "requires persistence mode to be enabled", a precondition
    # of the diagnostic, not a fault the GPU showed: a warning that it could not judge the GPU
    assert level == "READY WITH WARNINGS"
    assert heldout.above_info(outcome) == [("evidence-dcgm-diag-precondition", "warning")]
    (item,) = heldout.items(outcome, "evidence-dcgm-diag-precondition")
    assert "Persistence mode for GPU 0 is currently disabled" in item
    assert '"nvidia-smi -i <gpuId> -pm 1 "' in item
    assert (
        "the tests after it: 6 skipped (PCIe, GPU Memory, Pulse Test, Targeted Stress, Targeted "
        "Power, Memory Bandwidth, lines 21-28), only Memtest (Stress): Pass - All ran (line(s) 29)"
        in item
    )


def test_a_deployment_failure_with_every_test_skipped_says_none_ran(tmp_path: Path) -> None:
    data = _bytes(DIAG_R4).replace(
        b"| Memtest                   | Pass - All ", b"| Memtest                   | Skip - All "
    )
    level, outcome = heldout.imported(_copy(tmp_path, data, "diag.txt"))
    assert level == "READY WITH WARNINGS"
    (item,) = heldout.items(outcome, "evidence-dcgm-diag-precondition")
    assert "7 skipped (" in item and "Memtest, lines 21-29), none ran" in item


# --- NCCL: the NVLS multicast bind failure --------------------------------------------------


def test_an_nvls_bind_failure_says_its_cuda_error_and_the_fabric_to_check() -> None:
    ev = _load(NVLS)
    level, outcome = heldout.imported(ev)
    assert level == "NOT READY"
    (item,) = heldout.items(outcome, "evidence-nccl-warning")
    assert item.startswith("gpu-stress-dgc86-xfpt6 pid 420, device 5: Failed to bind NVLink SHARP")
    assert "(cuMulticastBindMem returned 401, CUDA_ERROR_ILLEGAL_STATE)" in item
    assert "error in the Fabric Manager or NVSwitches" in item
    assert "NCCL_NVLS_ENABLE=0" in item and "line 1)" in item


def test_an_nvls_bind_failure_of_another_host_and_code_is_read_alike(tmp_path: Path) -> None:
    data = (
        _bytes(NVLS)
        .replace(b"gpu-stress-dgc86-xfpt6:420:437 [5]", b"node-b07:3311:3390 [2]")
        .replace(
            b"CUDA error 401 'the operation cannot be performed in the present state'",
            b"CUDA error 1 'invalid argument'",
        )
    )
    (item,) = heldout.items(
        heldout.imported(_copy(tmp_path, data, "nccl.log"))[1], "evidence-nccl-warning"
    )
    assert item.startswith("node-b07 pid 3311, device 2: ")
    assert "(cuMulticastBindMem returned 1, CUDA_ERROR_INVALID_VALUE)" in item
    assert "Fabric Manager or NVSwitches" in item


# --- nv-hostengine: DCGM's SysMon module on a host without NVIDIA CPUs -----------------------


def test_the_sysmon_module_not_loading_on_x86_is_a_note_not_an_error() -> None:
    ev = _load(SYSMON)
    assert ev.files[0].status == "read"
    level, outcome = heldout.imported(ev)
    assert level == "READY"
    assert heldout.above_info(outcome) == []
    ((line, note),) = _said(ev)
    assert line == 1
    assert "nv-hostengine's log (DCGM's host engine, pid 9596, a DCGM 3.3 build)" in note
    assert (
        "its SysMon module (module 9, CPU monitoring of NVIDIA's Grace CPUs) did not load" in note
    )
    assert "lines 1-5, 5 times" in note and "no fault of the GPUs" in note


def test_a_sysmon_log_with_another_error_is_not_taken_for_sysmon_alone(tmp_path: Path) -> None:
    other = (
        b"2024-02-01 14:26:14.001 ERROR [9694:9696] Unable to initialize NVML "
        b"[/workspaces/dcgm-rel_dcgm_3_3-postmerge/dcgmlib/src/DcgmCacheManager.cpp:99] "
        b"[DcgmCacheManager::Init]\n"
    )
    ev = _copy(tmp_path, _bytes(SYSMON) + other, "nv-hostengine.log")
    assert not any("SysMon module" in m for _, m in _said(ev))
    level, _ = heldout.imported(ev)
    assert level != "READY"


def test_module_9_failing_without_the_cpu_vendor_line_is_not_called_sysmon(tmp_path: Path) -> None:
    line3 = _bytes(SYSMON).splitlines(keepends=True)[2]
    assert b"Failed to load module 9" in line3
    ev = _copy(tmp_path, line3, "nv-hostengine.log")
    assert not any("SysMon module" in m for _, m in _said(ev))


# --- nvidia-smi -q: a GH200's power limit held under the one requested -----------------------


def test_a_power_limit_held_under_the_requested_one_is_said() -> None:
    ev = _load(GH200)
    said = dict((m, line) for line, m in _said(ev))
    (note,) = [m for m in said if "power limit in force" in m]
    assert said[note] == 175
    assert (
        "GPU 00000000:DD:00.0: its power limit in force (Current Power Limit) is 700 W, under the "
        "900 W requested (default 900 W) (lines 175-176)" in note
    )
    # the lifetime uncorrectable error whose row was remapped (none pending, none failed) stays
    # a note, as tests/test_parsers_heldout_set485.py keeps it
    assert any("1 uncorrectable ECC error(s) in its lifetime" in m for m in said)
    assert any(
        "1 row(s) remapped after uncorrectable memory errors, none pending" in m for m in said
    )
    level, _ = heldout.imported(ev)
    assert level == "READY"


def test_a_power_limit_at_the_requested_one_says_nothing(tmp_path: Path) -> None:
    data = _bytes(GH200).replace(
        b"Current Power Limit               : 700.00 W",
        b"Current Power Limit               : 900.00 W",
    )
    ev = _copy(tmp_path, data, "smi.txt")
    assert not any("power limit in force" in m for _, m in _said(ev))
