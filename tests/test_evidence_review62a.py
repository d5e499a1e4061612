"""Review 62 (part a) of round PPPP's sets 679, 680, 683 and review 61a's mends, faults 1-4:
vLLM's failed import of vllm._C on a CUDA platform (or with no platform plugin named) read as a
note; a Kunpeng host's HiSilicon ZIP Engine with no driver read as an NPU not enabled; a pdsh
copy of two hosts whose bare NCCL lines gave worker-1 worker-2's TCP fallback; an all-SYS
npu-smi matrix of two PCIe cards warned as an HCCS board's links down: each on its input
(tests/data/review62, described in tests/data/SOURCES.md)."""

from __future__ import annotations

from functools import partial
from pathlib import Path

from advisor.evidence.load import EvidenceFacts, load_paths
from tests import heldout
from tests.conftest import DATA

REVIEW = DATA / "review62"
HELDOUT76 = DATA / "evidence_heldout_76"

_write = partial(heldout.load_copy, name="copy.log")


def _load(name: str, where: Path = REVIEW) -> EvidenceFacts:
    return load_paths([where / name])


def _said(ev: EvidenceFacts) -> list[tuple[int | None, str]]:
    return [(m.line, m.message) for f in ev.files for m in f.messages]


# --- 1. vLLM's vllm._C import: a note only under an out-of-tree platform plugin ---------------

CUDA_LIBCUDART = "vllm_platform_cuda_c_import_libcudart_missing.log"
NO_PLATFORM_SYMBOL = "vllm_no_platform_line_c_import_undefined_c10_symbol.log"
ASCEND_STARTUP = "vllm_ascend_0102_serve_startup_benign_plugin_warnings_vllmascend3316_cut.log"


def test_vllm_c_without_libcudart_on_the_cuda_platform_is_the_loader_failure() -> None:
    ev = _load(CUDA_LIBCUDART)
    (failure,) = ev.failures
    assert failure["kind"] == "library_missing" and failure["line"] == 2
    assert failure["library"] == "libcudart.so.12"
    assert not [m for _, m in _said(ev) if "vllm._C" in m]
    level, outcome = heldout.imported(ev)
    assert level == "NOT READY"
    assert ("evidence-library-missing", "critical") in heldout.above_info(outcome)


def test_vllm_c_with_an_undefined_c10_symbol_and_no_plugin_is_the_loader_failure() -> None:
    ev = _load(NO_PLATFORM_SYMBOL)
    (failure,) = ev.failures
    assert failure["kind"] == "library_missing" and failure["line"] == 2
    assert not [m for _, m in _said(ev) if "vllm._C" in m]
    assert heldout.imported(ev)[0] == "NOT READY"


def test_the_real_ascend_plugin_file_is_still_a_note_and_ready() -> None:
    ev = _load(ASCEND_STARTUP, HELDOUT76)
    assert not ev.failures
    ((line, note),) = [(n, m) for n, m in _said(ev) if "vllm._C" in m]
    assert line == 5 and "platform plugin 'ascend'" in note
    assert heldout.imported(ev)[0] == "READY"


def test_the_cuda_file_under_the_ascend_plugin_line_is_a_note(tmp_path: Path) -> None:
    # (the same warning, the platform line vllm-ascend's plugin gives instead of cuda's)
    text = (REVIEW / CUDA_LIBCUDART).read_text()
    text = text.replace(
        "[__init__.py:190] Automatically detected platform cuda.",
        "[__init__.py:207] Platform plugin ascend is activated",
    )
    ev = _write(tmp_path, text)
    assert not ev.failures
    assert [n for n, m in _said(ev) if "vllm._C" in m] == [2]
    assert heldout.imported(ev)[0] == "READY"


def test_an_undefined_symbol_under_the_plugin_is_still_the_loader_failure(tmp_path: Path) -> None:
    # (a vllm._C that loads but was built against another torch: a CUDA build of vLLM installed
    # under vllm-ascend, not the expected absence)
    text = (REVIEW / NO_PLATFORM_SYMBOL).read_text()
    text = "INFO 02-10 09:12:03 [__init__.py:207] Platform plugin ascend is activated\n" + text
    ev = _write(tmp_path, text)
    (failure,) = ev.failures
    assert failure["kind"] == "library_missing"


# --- 2. lspci: the Kunpeng CPU's own offload engines are no NPU --------------------------------

ZIP = "lspci_vv_kunpeng_hisilicon_zip_engine_no_driver.txt"
ZIP_HEAD = (
    "75:00.0 Processing accelerators: Huawei Technologies Co., Ltd. HiSilicon ZIP Engine (rev 21)"
)
QAT = DATA / "review61" / "lspci_vv_intel_qat_c62x_coprocessor_no_driver_busmaster_off_irq255.txt"


def test_a_hisilicon_zip_engine_no_driver_took_is_not_an_npu_not_enabled() -> None:
    ev = _load(ZIP)
    assert not [f for f in ev.failures if f["kind"] == "gpu_not_enabled"]
    level, outcome = heldout.imported(ev)
    assert level == "READY"
    assert heldout.above_info(outcome) == []


def test_the_sec_and_hpre_engines_by_name_or_lspci_nn_id_are_not_either(tmp_path: Path) -> None:
    text = (REVIEW / ZIP).read_text()
    for head in (
        "76:00.0 Processing accelerators: Huawei Technologies Co., Ltd. HiSilicon SEC Engine (rev 21)",
        "78:00.0 Processing accelerators [1200]: Huawei Technologies Co., Ltd. Device [19e5:a258] (rev 21)",
    ):
        level, outcome = heldout.imported(_write(tmp_path, text.replace(ZIP_HEAD, head)))
        assert level == "READY", head
        assert heldout.above_info(outcome) == [], head


def test_an_ascend_npu_in_the_same_file_is_still_warned(tmp_path: Path) -> None:
    text = (
        (REVIEW / ZIP)
        .read_text()
        .replace(
            ZIP_HEAD,
            "c1:00.0 Processing accelerators: Huawei Technologies Co., Ltd. Device d802 (rev 20)",
        )
    )
    level, outcome = heldout.imported(_write(tmp_path, text))
    assert level == "READY WITH WARNINGS"
    assert ("evidence-gpu-not-enabled", "warning") in heldout.above_info(outcome)


def test_the_real_qat_file_it_was_built_from_is_still_ready() -> None:
    assert heldout.imported(load_paths([QAT]))[0] == "READY"


# --- 3. NCCL's HCA skip: another pdsh host's bare lines are not this process's ------------------

TWO_HOSTS = "nccl451_pdsh_two_hosts_bare_worker1_ib_worker2_socket.log"
BOND = "nccl_docker_deepspeed_ibv_open_device_failed_mlx5_bond_0_fallback_net_socket_bond0_nccl451_cut.log"


def test_worker1_went_on_with_its_own_hca_not_worker2s_socket_fallback() -> None:
    ev = _load(TWO_HOSTS)
    (failure,) = ev.failures
    message = failure["message"]
    assert failure["line"] == 3 and failure["host"] == "worker-1"
    assert "went on with the HCA(s) NET/IB lists: [0]mlx5_1:1/RoCE (line 4)" in message
    assert "fell back to TCP" not in message and "200.1.93.3" not in message


def test_the_same_two_ranks_with_no_prefix_take_the_first_network_said(tmp_path: Path) -> None:
    # (two ranks' lines with their prefixes cut: NCCL prints its network straight after its
    # device scan, so the first said below the skip is this process's)
    text = "".join(
        line.split(": ", 1)[1] for line in (REVIEW / TWO_HOSTS).read_text().splitlines(True)
    )
    (failure,) = _write(tmp_path, text).failures
    assert "went on with the HCA(s) NET/IB lists: [0]mlx5_1:1/RoCE (line 4)" in failure["message"]


def test_worker2s_own_skip_reads_its_own_socket_fallback(tmp_path: Path) -> None:
    # (the other way round: the skip's two WARNs on worker-2, whose lines 5-7 say No device
    # found and Socket, between worker-1's NET/IB line 4 and its "Using network IB")
    lines = (REVIEW / TWO_HOSTS).read_text().splitlines(keepends=True)
    for i in (1, 2):
        lines[i] = lines[i].replace("worker-1: ", "worker-2: ")
    (failure,) = _write(tmp_path, "".join(lines)).failures
    assert failure["host"] == "worker-2"
    assert "fell back to TCP sockets on bond0 200.1.93.3" in failure["message"]
    assert "NET/IB : No device found, line 5" in failure["message"]


def test_the_real_single_host_file_still_reads_the_socket_fallback() -> None:
    (failure,) = _load(BOND, HELDOUT76).failures
    assert "fell back to TCP sockets on bond0 200.1.93.2" in failure["message"]
    assert "NET/IB : No device found, line 4" in failure["message"]


# --- 4. npu-smi topo: an all-SYS matrix that cannot be an HCCS server's ------------------------

TWO_CARDS = "npu_smi_topo_910b4_pcie_two_cards_all_sys_two_sockets.txt"
PCIE_SAMPLE = DATA / "evidence" / "npu_smi_topo_910b4_pcie_npu1.txt"
ZSTACK = next(
    (DATA).glob("*/npu_smi_t_topo_910b_8npu_all_sys_no_hccs_fully_isolated_zstack_cut.txt")
)


def _all_sys(npus: list[int]) -> str:
    """An npu-smi matrix of the given NPUs, every pair SYS, half on each socket's cores."""
    names = [f"NPU{n}" for n in npus]
    head = "           " + "".join(f"{n:<11}" for n in names) + "CPU Affinity\n"
    rows = []
    for i, a in enumerate(names):
        cells = "".join(f"{'X' if a == b else 'SYS':<11}" for b in names)
        affinity = "0-23" if i < len(names) / 2 else "24-47"
        rows.append(f"{a:<11}{cells}{affinity}\n")
    return head + "".join(rows)


def test_two_pcie_cards_on_two_sockets_all_sys_are_ready() -> None:
    ev = _load(TWO_CARDS)
    (topo,) = ev.topologies
    assert topo["no_hccs_npus"] == [] and topo["hccs"] is False
    level, outcome = heldout.imported(ev)
    assert level == "READY"
    assert heldout.above_info(outcome) == []


def test_four_cards_numbered_with_gaps_are_ready_but_npu0_to_3_are_warned(tmp_path: Path) -> None:
    (topo,) = heldout.load_copy(tmp_path, _all_sys([1, 3, 5, 7]), "gaps.txt").topologies
    assert topo["no_hccs_npus"] == []
    ev = heldout.load_copy(tmp_path, _all_sys([0, 1, 2, 3]), "group.txt")
    (topo,) = ev.topologies
    assert [n["npu"] for n in topo["no_hccs_npus"]] == ["NPU0", "NPU1", "NPU2", "NPU3"]
    assert ("evidence-npu-topology-no-hccs-link", "warning") in heldout.above_info(
        heldout.imported(ev)[1]
    )


def test_the_zstack_910b_all_sys_sample_is_still_warned() -> None:
    ev = load_paths([ZSTACK])
    (topo,) = ev.topologies
    assert len(topo["no_hccs_npus"]) == 8
    assert heldout.imported(ev)[0] == "READY WITH WARNINGS"


def test_the_real_pcie_sample_it_was_built_from_is_still_ready() -> None:
    ev = load_paths([PCIE_SAMPLE])
    (topo,) = ev.topologies
    assert topo["no_hccs_npus"] == []
    assert heldout.imported(ev)[0] == "READY"
