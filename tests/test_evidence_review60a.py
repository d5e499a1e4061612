"""Review 60 of round NNNN (sets 667-669), part a, faults 1, 2 and 3: a switch fault raised on
one port and another port's recovery of the same code; a data-parallel pair of vLLM engine cores
where only DP0 shut down; nccl-tests' first-release failure line behind pdsh's "node03: ": each
on its input (tests/data/review60, described in tests/data/SOURCES.md)."""

from __future__ import annotations

from functools import partial
from pathlib import Path

from advisor.evidence.load import EvidenceFacts, load_paths
from advisor.parsers import without_one_pdsh_host
from tests import heldout
from tests.conftest import DATA

REVIEW = DATA / "review60"
HELDOUT = DATA / "evidence_heldout_74"
SWITCH = "switch_fault_raised_port1_recovered_port2.log"
SWITCH_REAL = "mindcluster_device_plugin_switch_fault_events_port_f1ff09_chip_155907_occur_recover_devicePlugin.log"
VLLM = "vllm_dp0_shutdown_dp1_died_without_shutdown.log"
VLLM_REAL = (
    "vllm_ascend_quickstart_offline_inference_shutdown_enginecore_died_benign_quickstart_cut.log"
)
NCCL = "nccltests_first_release_failure_pdsh_prefix.log"
NCCL_REAL = "nccl_tests_nccl1_0_all_reduce_perf_8x_p100_pcie_nccl_failure_all_reduce_cu_95_unhandled_cuda_error_nccltests5_cut.log"

_write = partial(heldout.load_copy, name="review60a.log")


def _load(path: Path) -> EvidenceFacts:
    return load_paths([path])


# --- 1. one port's recovery leaves another port's fault standing ------------------------------


def test_port_1_raised_port_2_recovered_is_not_ready() -> None:
    level, outcome = heldout.imported(_load(REVIEW / SWITCH))
    assert level == "NOT READY"
    (raised,) = heldout.items(outcome, "evidence-switch-fault")
    assert "peer port 1 of peer device 1" in raised
    assert "raised at 2024/01/10 03:30:38 (line 1) and not recovered in the log" in raised
    (cleared,) = heldout.items(outcome, "evidence-switch-fault-cleared")
    assert "peer port 2 of peer device 1" in cleared and "raised before the log begins" in cleared


def test_the_same_port_recovering_still_clears_it(tmp_path: Path) -> None:
    text = (REVIEW / SWITCH).read_text().replace("PeerPortId:0x2", "PeerPortId:0x1")
    level, outcome = heldout.imported(_write(tmp_path, text))
    assert level != "NOT READY"
    (cleared,) = heldout.items(outcome, "evidence-switch-fault-cleared")
    assert "recovered at 2024/01/10 03:35:38 (line 2)" in cleared


def test_another_switch_port_of_the_same_peer_port_is_another_fault(tmp_path: Path) -> None:
    text = (
        (REVIEW / SWITCH)
        .read_text()
        .replace("PeerPortId:0x2", "PeerPortId:0x1")
        .replace(
            "SwitchPortId:0x0, Severity:0x0, Assertion:0x0",
            "SwitchPortId:0x3, Severity:0x0, Assertion:0x0",
        )
    )
    assert heldout.imported(_write(tmp_path, text))[0] == "NOT READY"


def test_the_real_switch_log_reads_as_before() -> None:
    level, outcome = heldout.imported(_load(HELDOUT / SWITCH_REAL))
    assert level == "READY WITH WARNINGS"
    first, second = heldout.items(outcome, "evidence-switch-fault-cleared")
    assert "peer port 2 of peer device 1: recovered at 2024/01/10 03:30:38 (line 1)" in first
    assert (
        "raised at 2024/01/10 03:31:38 (line 2), recovered at 2024/01/10 03:32:38 (line 3)"
        in second
    )


# --- 2. a died engine core with no shutdown of its own ----------------------------------------


def test_dp1_died_without_its_shutdown_is_no_benign_exit() -> None:
    ev = _load(REVIEW / VLLM)
    assert ev.failures
    assert heldout.imported(ev)[0] != "READY"
    assert not [m for m in ev.files[0].messages if "EngineCore_DP1 shut down in order" in m.message]


def test_both_cores_shut_down_is_a_note_for_each(tmp_path: Path) -> None:
    text = (REVIEW / VLLM).read_text()
    dp1 = "".join(
        line.replace("DP0 pid=970", "DP1 pid=971") for line in text.splitlines(keepends=True)[:2]
    )
    ev = _write(tmp_path, dp1 + text)
    assert not ev.failures and heldout.imported(ev)[0] == "READY"
    notes = [m.message for m in ev.files[0].messages if "shut down in order" in m.message]
    assert any("EngineCore_DP1 (pid 971) shut down in order (line 2," in n for n in notes)
    assert any("EngineCore_DP0 (pid 970) shut down in order (line 4," in n for n in notes)


def test_the_real_quick_start_still_reads_benign() -> None:
    ev = _load(HELDOUT / VLLM_REAL)
    assert not ev.failures and heldout.imported(ev)[0] == "READY"


# --- 3. nccl-tests behind pdsh's "node03: " ---------------------------------------------------


def test_first_release_failure_behind_pdsh_is_read() -> None:
    ev = _load(REVIEW / NCCL)
    said = [m.message for f in ev.files for m in f.messages]
    assert any("the run stopped before its first size" in m and "(line 16)" in m for m in said)
    assert not any("no nccl-tests results table" in m for m in said)
    level, outcome = heldout.imported(ev)
    assert level == "NOT READY"
    assert any("node03" in i for i in heldout.items(outcome, "evidence-nccl-call-failed"))


def test_the_real_nccltests5_file_reads_as_before() -> None:
    ev = _load(HELDOUT / NCCL_REAL)
    said = [m.message for f in ev.files for m in f.messages]
    assert any("the run stopped before its first size" in m for m in said)
    assert heldout.imported(ev)[0] == "NOT READY"


def test_one_host_is_stripped_two_are_not() -> None:
    text = (REVIEW / NCCL).read_text()
    host, stripped = without_one_pdsh_host(text)
    assert host == "node03" and stripped.splitlines()[0].startswith("root@node03:~/")
    assert stripped.splitlines()[15] == "NCCL failure all_reduce.cu:95 'unhandled cuda error'"
    mixed = text.replace("node03: #   Rank  7", "node04: #   Rank  7")
    assert without_one_pdsh_host(mixed) == (None, mixed)
