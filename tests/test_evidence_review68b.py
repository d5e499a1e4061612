"""Review 68 of round VVVV (sets 715-720), faults 4, 5 and 6: nvidia-smi's ``-dgi`` refusal in
its own capitals ("Unable to destroy GPU instance ID  1 from GPU  0"); a CANN plog cut above the
driver's line, its runtime's or GE's line first, still naming the failed model load and the
KERNEL_AICORE task exception; NCCL_SOCKET_IFNAME's ``^`` exclusion list under "no socket
interface found": each on its input (tests/data/review68, described in tests/data/SOURCES.md)."""

from __future__ import annotations

from functools import partial
from pathlib import Path

from advisor.evidence.load import EvidenceFacts, load_paths
from tests import heldout
from tests.conftest import DATA

REVIEW = DATA / "review68"
HELDOUT = DATA / "evidence_heldout_82"

_write = partial(heldout.load_copy, name="copy.log")


def _load(name: str, where: Path = REVIEW) -> EvidenceFacts:
    return load_paths([where / name])


def _kinds(ev: EvidenceFacts) -> list[tuple[str, int]]:
    return [(f["kind"], f["line"]) for f in ev.failures]


# --- 4. nvidia-smi mig -dgi refused, in nvidia-smi's capitals ---------------------------------

DGI = "nvidia_smi_mig_dgi_gpu0_gi1_in_use_by_another_client_capitalised_real_case.txt"
DCI_REAL = "nvidia_smi_mig_dci_h100_gpu0_gi3_ci0_in_use_by_another_client_dcgm95.txt"


def test_a_capitalised_dgi_refusal_names_its_gpu_instance_and_gpu() -> None:
    ev = _load(DGI)
    assert _kinds(ev) == [("gpu_driver_error", 2)]
    said = ev.failures[0]["exception_type"]
    assert said.startswith("MIG destroy refused: GPU instance 1 on GPU 0: In use by another")
    assert "NVML_ERROR_IN_USE" in said
    assert heldout.imported(ev)[0] == "READY WITH WARNINGS"
    # the real (lower-case) -dci copy it stands beside still reads as before
    real = _load(DCI_REAL, HELDOUT)
    assert _kinds(real) == [("gpu_driver_error", 1)]
    assert real.failures[0]["exception_type"].startswith(
        "MIG destroy refused: compute instance 0 of GPU instance 3 on GPU 0"
    )


def test_a_dgi_refusal_in_any_case_and_another_gpu_reads(tmp_path: Path) -> None:
    text = (REVIEW / DGI).read_text().replace("GPU  0", "GPU  3").replace("ID  1", "ID  2")
    for variant in (text, text.lower()):  # (DCGM issue 95 quotes it in lower case)
        ev = _write(tmp_path, variant)
        assert _kinds(ev) == [("gpu_driver_error", 2)]
        assert "GPU instance 2 on GPU 3" in ev.failures[0]["exception_type"]


# --- 5. a plog cut above the driver's line ----------------------------------------------------

LOAD_RUNTIME = (
    "cann_plog_310p_pyacl_load_om_cut_no_drv_runtime_pcie_host_register_first_"
    "aclmdlloadfromfile_failed.log"
)
LOAD_GE = "cann_plog_310p_pyacl_load_om_cut_ge_assert_first_aclmdlloadfromfile_failed.log"
EXC_RUNTIME = (
    "cann_plog_310p_msame_cut_runtime_pcie_first_real_task_exception_kernel_aicore_0x91_device0.log"
)
LOAD_REAL = (
    "cann_plog_310p_pyacl_load_om_drv_mem_remote_map_ioctl_ret8_pcie_host_register_0x7020010_"
    "aclmdlloadfromfile_failed_idx4750576588.log"
)
EXC_REAL = (
    "cann_plog_310p_msame_real_task_exception_kernel_aicore_model_execute_0x91_ez9999_mte_ddr_"
    "out_of_range_device0_idx4750576588_cut.log"
)


def test_a_model_load_cut_above_the_driver_is_still_the_failed_load() -> None:
    ev = _load(LOAD_RUNTIME)
    assert _kinds(ev) == [("npu_runtime_error", 11)]
    (f,) = ev.failures
    assert (f["device"], f["code"], f["pid"]) == (0, "1343225857", 69072)
    assert f["code_name"].startswith("Parameter's invalid! (GE's words for it, line 9)")
    assert "the model load failed (aclmdlLoadFromFile" in f["exception_type"]
    assert "after the RUNTIME error at line 1" in f["exception_type"]
    assert heldout.imported(ev)[0] == "NOT READY"
    # GE's asserts first: the same load, no device field left in the copy to name
    ge = _load(LOAD_GE)
    assert _kinds(ge) == [("npu_runtime_error", 9)]
    assert (ge.failures[0]["device"], ge.failures[0]["code"]) == (None, "1343225857")
    # the whole plog, its DRV line first, still reads as before
    real = _load(LOAD_REAL, HELDOUT)
    assert _kinds(real) == [("npu_runtime_error", 12)]
    assert "after the driver's error at line 1" in real.failures[0]["exception_type"]


def test_a_task_exception_cut_above_the_driver_names_device_and_retcode() -> None:
    ev = _load(EXC_RUNTIME)
    assert _kinds(ev) == [("npu_device_exception", 3)]
    (f,) = ev.failures
    assert (f["device"], f["code"], f["pid"]) == (0, "EZ9999", 10686)
    said = f["exception_type"]
    assert said.startswith("KERNEL_AICORE task exception on device 0 (stream 5, task 2)")
    assert "retCode 0x91 = TS_MODEL_STREAM_EXE_FAILED" in said
    real = _load(EXC_REAL, HELDOUT)
    assert _kinds(real) == [("npu_device_exception", 4)]
    assert "after the driver's error at line 1" in real.failures[0]["exception_type"]


def test_a_cut_plog_on_another_device_names_that_device(tmp_path: Path) -> None:
    text = (
        (REVIEW / EXC_RUNTIME)
        .read_text()
        .replace("device_id=0", "device_id=5")
        .replace("dev_id=0", "dev_id=5")
    )
    ev = _write(tmp_path, text)
    assert _kinds(ev) == [("npu_device_exception", 3)]
    assert ev.failures[0]["device"] == 5
    # the load cut at its runtime's line, on device 2: named from the runtime's dev_id
    load = (REVIEW / LOAD_RUNTIME).read_text().replace("dev_id=0", "dev_id=2")
    ev = _write(tmp_path, load)
    assert [(f["kind"], f["device"]) for f in ev.failures] == [("npu_runtime_error", 2)]


# --- 6. NCCL_SOCKET_IFNAME=^... : an exclusion list ---------------------------------------------

EXCLUDED = "nccl2_4_8_bootstrap_no_socket_interface_found_ifname_exclude_docker0_lo.log"
ENO1_REAL = "nccl2_4_8_bootstrap_no_socket_interface_found_ifname_eno1_ddp_internal_error_cut.log"


def _ifname_said(ev: EvidenceFacts) -> str:
    (f,) = [f for f in ev.failures if f["kind"] == "nccl_warning"]
    assert f["line"] == 4
    return str(f["exception_type"])


def test_an_exclusion_list_says_what_it_excluded_not_matched_none() -> None:
    said = _ifname_said(_load(EXCLUDED))
    assert said.startswith(
        "NCCL_SOCKET_IFNAME=^docker0,lo (line 1) excludes the interfaces starting with "
        "docker0 or lo, and no other interface"
    )
    assert "matched none" not in said and "name one" not in said
    # the real file, its value a name to use, still reads as before
    real = _ifname_said(_load(ENO1_REAL, HELDOUT))
    assert real.startswith("NCCL_SOCKET_IFNAME=eno1 (line 1) matched none of this host's")


def test_an_exact_exclusion_list_names_its_interfaces(tmp_path: Path) -> None:
    text = (REVIEW / EXCLUDED).read_text()
    said = _ifname_said(_write(tmp_path, text.replace("^docker0,lo", "^=eth0,virbr0")))
    assert "excludes the interfaces named eth0 or virbr0" in said
    exact = _ifname_said(_write(tmp_path, text.replace("^docker0,lo", "=ib0")))
    assert exact.startswith("NCCL_SOCKET_IFNAME==ib0 (line 1) matched none")
