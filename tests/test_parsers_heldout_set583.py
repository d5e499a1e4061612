"""Outputs of round ZZZ's held-out set 583 that the advisor read with the wrong verdict or line
before this change (tests/data/evidence_heldout_62, sources in tests/data/SOURCES.md): hccn_tool's
``-tls -g`` whose near-expiry CRL the finding placed at the port's first line; npu-smi chips whose
HBM running work held (AI cores busy) and a process table pasted without its chip rows, both READY
with nothing or only notes said; chips whose HBM idle processes held (set 577's fix, checked).
A pre-flight check asks whether the chips are free for the job about to start: none of these is."""

from __future__ import annotations

from advisor.evidence.load import load_text
from advisor.rules.findings import RulesOutcome
from tests import heldout
from tests.test_parsers_heldout_set577 import HELDOUT, _load

TLS = "hccn_tool_g_tls_i0_950_crl_near_expiration_switch_off_driver_doc.txt"
BUSY = "npu_smi_info_910b4_1_npu0_1_hbm61553_aicore16_busy_headless_ucm694_cut.txt"
PROCESSES = (
    "npu_smi_process_table_npu0_eight_python_pids_90mb_one_4184mb_tab_paddlecustomdevice767_cut.txt"
)
IDLE = "npu_smi_info_24_1_1_910b4_hbm26838_29356_of_32768_prompt_1panel9472_cut.txt"


def _only_warning(outcome: RulesOutcome, rule_id: str) -> list[str]:
    """The items of ``rule_id``'s warning, the one finding above info: nothing else is said."""
    assert [(f.rule_id, f.severity) for f in outcome.findings if f.severity != "info"] == [
        (rule_id, "warning")
    ]
    (finding,) = [f for f in outcome.findings if f.rule_id == rule_id]
    return [str(item) for item in finding.items]


def test_a_near_expiry_crl_is_placed_at_its_own_status_line() -> None:
    ev = _load(TLS)
    (port,) = ev.npu_ports
    assert (port["device"], port["tls_enabled"], port["line"]) == (0, False, 1)
    # every block's status line is kept: the pub cert's at 7 ... the CRL's at 25
    assert [(c["name"], c["status"], c["line"]) for c in port["tls_certs"]] == [
        ("pub cert", 0, 7),
        ("ca1 cert", 0, 13),
        ("ca2 cert", 0, 19),
        ("crl", 1, 25),
    ]
    level, outcome = heldout.imported(ev)
    assert level == "READY WITH WARNINGS"
    (item,) = _only_warning(outcome, "evidence-npu-tls-cert-expiry")
    assert item.startswith(
        "NPU 0 (TLS off): crl near expiration (ends Mon Mar 2 03:10:27 2026 GMT) ("
    )
    assert item.endswith(f"{TLS}, line 25)")


def test_a_crl_behind_the_command_line_is_placed_in_the_file() -> None:
    # the same answer under its command line (as a collection script echoes it): the status
    # line moves with the file, one down
    text = "hccn_tool -i 0 -tls -g\n" + (HELDOUT / TLS).read_text()
    (port,) = load_text(text, "hccn.txt").npu_ports
    assert [c["line"] for c in port["tls_alarms"]] == [26]


def test_chips_whose_hbm_running_work_holds_are_not_free_for_a_job() -> None:
    ev = _load(BUSY)
    assert {c["health"] for c in ev.npu_chips} == {"OK"}
    level, outcome = heldout.imported(ev)
    assert level == "READY WITH WARNINGS"
    items = _only_warning(outcome, "evidence-npu-hbm-held")
    # NPU 0/1 hold 61553/61555 of 65536 MB with their AI cores at 16/15 % (lines 4-8); NPU 2's
    # 3402 MB is an idle chip's reserve, NPU 3's usage row is cut: neither is said
    assert items == [
        f"NPU 0 chip 0 (0000:C1:00.0): HBM 61553 of 65536 MB (93.9 %), AICore 16 %; no process "
        f"listed in this copy ({HELDOUT / BUSY}, line 4)",
        f"NPU 1 chip 0 (0000:C2:00.0): HBM 61555 of 65536 MB (93.9 %), AICore 15 %; no process "
        f"listed in this copy ({HELDOUT / BUSY}, line 7)",
    ]


def test_a_process_table_alone_says_the_chip_its_processes_hold() -> None:
    ev = _load(PROCESSES)
    assert ev.npu_chips == []  # no chip row in the copy: no chip's figures or health made up
    (held,) = ev.npu_process_chips
    assert (held["npu"], held["chip"], held["line"], held["memory_mb"]) == (0, 0, 5, 4814)
    assert len(held["processes"]) == 8
    level, outcome = heldout.imported(ev)
    assert level == "READY WITH WARNINGS"
    (item,) = _only_warning(outcome, "evidence-npu-process-chips")
    assert item.startswith(
        "NPU 0 chip 0: 8 process(es) holding 4814 MB: python (pid 47928, 90 MB), "
    )
    assert "python (pid 47881, 4184 MB)" in item
    assert item.endswith(f"({HELDOUT / PROCESSES}, line 5)")
    # the chip's HBM size and AI cores are not in the copy: no share of its memory is said
    assert "%" not in item and "AICore" not in item


def test_processes_under_their_chips_rows_are_the_chips_not_a_second_finding() -> None:
    # the set 577 table whose chip rows are all there: its processes are said with their chips
    ev = _load("npu_smi_info_25.5.1_910B3_8npu_hbm90pct_vllm_procs_nvitop_sample.txt")
    assert ev.npu_process_chips == []
    _, outcome = heldout.imported(ev)
    assert "evidence-npu-process-chips" not in {f.rule_id for f in outcome.findings}


def test_hbm_idle_processes_hold_is_a_warning() -> None:
    ev = _load(IDLE)
    level, outcome = heldout.imported(ev)
    assert level == "READY WITH WARNINGS"
    items = _only_warning(outcome, "evidence-npu-hbm-held")
    assert [i.split(";")[0] for i in items] == [
        "NPU 0 chip 0 (0000:C1:00.0): HBM 26838 of 32768 MB (81.9 %), AICore 0 %",
        "NPU 1 chip 0 (0000:C2:00.0): HBM 29356 of 32768 MB (89.6 %), AICore 0 %",
    ]
    assert all("no process listed in this copy" in i for i in items)
