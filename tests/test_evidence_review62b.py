"""Review 62 (part b) of the set 681/681b/682/682b mends, faults 1 and 2: an ``nvsm show
health`` copy followed by an ``nvsm stress-test`` copy in one log, its unhealthy check lost to the
stress run that passed; ``nvsm show health`` behind pdsh's "host: ", not recognised, and several
hosts' copies merged into one summary: each on its input (tests/data/review62, described in
tests/data/SOURCES.md) and on variants of the real files they were built from
(tests/data/evidence_heldout_76)."""

from __future__ import annotations

from functools import partial
from pathlib import Path

from advisor.evidence.load import EvidenceFacts, load_paths
from advisor.parsers import pdsh_by_host
from tests import heldout
from tests.conftest import DATA

REVIEW = DATA / "review62"
HELDOUT = DATA / "evidence_heldout_76"

THEN_STRESS = "nvsm_show_health_nic_35_00_0_unhealthy_then_stress_test_all_pass_one_log_nx_w0.txt"
PDSH = "nvsm_show_health_nic_35_00_0_unhealthy_pdsh_prefix_nx_w0.txt"
NIC_SPEED = "nvsm_show_health_23_12_dgx2_nic_35_00_0_link_speed_2_5gt_unhealthy_t3_nx_w0.txt"
NIC_MISSING = (
    "nvsm_show_health_23_12_dgx2_missing_mellanox_nic_5d_00_0_informational_overall_healthy"
    "_t3_nx_w1.txt"
)
NVME = "nvsm_show_health_23_12_dgx2_missing_nvme_disk_controller_2f_00_0_unhealthy_t3_nx_w3.txt"
STRESS_FAILED = "nvsm_stress_test_dgx2_gpu_failed_pcie_failed_t3_nx_w1.txt"
STRESS_SKIPPED = "nvsm_stress_test_dgx2_gpu_skipped_pcie_skipped_cpu_mem_storage_pass_t3_nx_w0.txt"

_write = partial(heldout.load_copy, name="copy.txt")

NIC_SAID = (
    "NetworkAdapter link speed [0000:35:00.0][2.5GT/s]: Unhealthy (line {0}): "
    "Expected value 8GT/s but detected 2.5GT/s (line {1})"
)


def _heldout(name: str) -> str:
    return (HELDOUT / name).read_text()


def _failures(ev: EvidenceFacts) -> list[tuple[str, int, str]]:
    return [(f["kind"], f["line"], f["exception_type"]) for f in ev.failures]


def _said(ev: EvidenceFacts) -> list[tuple[int | None, str]]:
    return [(m.line, m.message) for f in ev.files for m in f.messages]


def _pdsh(host: str, text: str) -> list[str]:
    return [f"{host}: {line}" if line else f"{host}:" for line in text.splitlines()]


# --- fault 1: show health, then stress-test, in one log ----------------------------------------


def test_an_unhealthy_check_before_a_stress_run_that_passed_is_kept() -> None:
    ev = load_paths([REVIEW / THEN_STRESS])
    assert ev.files[0].formats == ["nvsm"] and ev.files[0].status == "read"
    assert _failures(ev) == [("nvsm_check_unhealthy", 132, NIC_SAID.format(132, 133))]
    notes = [message for _line, message in _said(ev)]
    assert notes[0] == (
        "nvsm: nvsm show health 23.12.01: 199 healthy, 1 unhealthy of 200 checks; "
        "Overall system status is unhealthy (line 301)"
    )
    assert notes[1].startswith("nvsm: nvsm stress-test: PASS for GPU (line 323)")
    level, outcome = heldout.imported(ev)
    assert level == "READY WITH WARNINGS"
    assert heldout.above_info(outcome) == [("evidence-nvsm-health-unhealthy", "warning")]
    assert "0000:35:00.0" in heldout.items(outcome, "evidence-nvsm-health-unhealthy")[0]


def test_the_real_health_and_stress_files_alone_still_read_as_before() -> None:
    ev = load_paths([HELDOUT / NIC_SPEED])
    assert _failures(ev) == [("nvsm_check_unhealthy", 132, NIC_SAID.format(132, 133))]
    ev = load_paths([HELDOUT / STRESS_SKIPPED])
    kinds = [kind for kind, _line, _said in _failures(ev)]
    assert kinds == ["nvsm_stress_skipped", "nvsm_stress_skipped"]
    # a stress copy alone holds no check line and no overall status: no health note
    assert not any("show health" in message for _line, message in _said(ev))


def test_a_failed_stress_run_after_an_informational_check_keeps_both(tmp_path: Path) -> None:
    health = _heldout(NIC_MISSING)
    ev = _write(tmp_path, health + _heldout(STRESS_FAILED))
    kinds = [kind for kind, _line, _said in _failures(ev)]
    assert kinds == ["nvsm_check_attention", "nvsm_stress_failed", "nvsm_stress_failed"]
    _level, outcome = heldout.imported(ev)
    rules = {rule for rule, _severity in heldout.above_info(outcome)}
    assert "evidence-nvsm-health-attention" in rules


def test_a_stress_run_first_then_an_unhealthy_check_keeps_the_check(tmp_path: Path) -> None:
    stress = _heldout(STRESS_SKIPPED)
    ev = _write(tmp_path, stress + _heldout(NVME))
    kinds = [kind for kind, _line, _said in _failures(ev)]
    assert kinds.count("nvsm_check_unhealthy") >= 1
    assert kinds.count("nvsm_stress_skipped") == 2
    shift = len(stress.splitlines())
    first = next(line for kind, line, _s in _failures(ev) if kind == "nvsm_check_unhealthy")
    assert first > shift  # its line in the whole log, below the stress run


# --- fault 2: behind pdsh's "host: " -----------------------------------------------------------


def test_nvsm_show_health_behind_pdsh_prefix_is_read_with_its_host() -> None:
    ev = load_paths([REVIEW / PDSH])
    assert ev.files[0].formats == ["nvsm"] and ev.files[0].status == "read"
    assert _failures(ev) == [("nvsm_check_unhealthy", 130, "nx-w0: " + NIC_SAID.format(130, 131))]
    ((at, note),) = _said(ev)
    assert at == 299
    assert note == (
        "nvsm: nvsm show health 23.12.01 on nx-w0: 199 healthy, 1 unhealthy of 200 checks; "
        "Overall system status is unhealthy (line 299)"
    )
    level, outcome = heldout.imported(ev)
    assert level == "READY WITH WARNINGS"
    assert heldout.above_info(outcome) == [("evidence-nvsm-health-unhealthy", "warning")]
    assert "nx-w0" in heldout.items(outcome, "evidence-nvsm-health-unhealthy")[0]


def test_a_copy_without_pdsh_is_not_split() -> None:
    text = _heldout(NIC_SPEED)
    assert pdsh_by_host(text) == [(None, text)]


def test_two_hosts_interleaved_each_keep_their_own_checks_and_summary(tmp_path: Path) -> None:
    # pdsh -w nx-w[0,3] nvsm show health: the two hosts' lines interleaved as they arrive
    w0 = _pdsh("nx-w0", _heldout(NIC_SPEED))
    w3 = _pdsh("nx-w3", _heldout(NVME))
    lines: list[str] = []
    for i in range(max(len(w0), len(w3))):
        lines.extend(part[i] for part in (w0, w3) if i < len(part))
    ev = _write(tmp_path, "\n".join(lines) + "\n")
    assert ev.files[0].formats == ["nvsm"]
    failures = _failures(ev)
    assert {said.split(":", 1)[0] for _k, _l, said in failures} == {"nx-w0", "nx-w3"}
    (nic,) = [f for f in failures if "0000:35:00.0" in f[2]]
    assert nic[2].startswith("nx-w0: ") and lines[nic[1] - 1].startswith("nx-w0: NetworkAdapter")
    assert all(s.startswith("nx-w3: ") for _k, _l, s in failures if "0000:35:00.0" not in s)
    notes = [message for _line, message in _said(ev)]
    assert len(notes) == 2
    assert "on nx-w0: 199 healthy, 1 unhealthy of 200" in notes[0]
    assert "on nx-w3: " in notes[1] and "on nx-w0" not in notes[1]


def test_a_pdsh_stress_run_names_its_host(tmp_path: Path) -> None:
    ev = _write(tmp_path, "\n".join(_pdsh("nx-w1", _heldout(STRESS_FAILED))) + "\n")
    assert ev.files[0].formats == ["nvsm"]
    failures = _failures(ev)
    assert [kind for kind, _l, _s in failures] == ["nvsm_stress_failed", "nvsm_stress_failed"]
    assert all(said.startswith("nx-w1: ") for _k, _l, said in failures)
