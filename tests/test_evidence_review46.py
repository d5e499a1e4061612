"""Review 46 of rounds AAAA and BBBB's change, faults 1-8: an mlxconfig set a firmware reset
loaded, two ports' grep'd ethtool -m power lines, two ibdiagnet runs, a RendezvousClosedError
before a later launch's workers, a Trainer record with a finite loss and a NaN gradient norm, a
Fabric Manager unit inactive then started, one inactive beside PCIe-only A30s, ethtool -m's
power lines beside a long run of blanks: each on its input (tests/data/review46, described in
tests/data/SOURCES.md), and the real sample each variant came from as it read before."""

from __future__ import annotations

import re
import time
from pathlib import Path

from advisor.evidence.load import load_paths
from advisor.parsers import ethtool, rdma
from tests import heldout
from tests.conftest import DATA

REVIEW = DATA / "review46"
HELDOUT = DATA / "evidence_heldout_64"


def test_a_fabric_manager_started_after_an_inactive_status_is_running() -> None:
    ev = load_paths(
        [
            REVIEW
            / "systemctl_status_fabricmanager_inactive_then_started_then_active_running_p4d.txt"
        ]
    )
    assert not [e for e in ev.failures if e["kind"] == "fabric_manager_failed"]
    assert heldout.rules_verdict(ev) == "READY"


def test_an_inactive_fabric_manager_beside_a30_cards_is_not_a_failure() -> None:
    ev = load_paths(
        [REVIEW / "nvidia_smi_4xa30_pcie_plus_systemctl_fabricmanager_inactive_disabled.txt"]
    )
    assert not [e for e in ev.failures if e["kind"] == "fabric_manager_failed"]
    (unneeded,) = [e for e in ev.failures if e["kind"] == "fabric_manager_unneeded"]
    assert "NVIDIA A30" in unneeded["exception_type"]
    assert heldout.rules_verdict(ev) != "NOT READY"


def test_ethtool_module_power_lines_are_linear_beside_a_long_run_of_blanks() -> None:
    signature = re.compile(ethtool.MODULE_SIGNATURE, re.M)
    for text in (
        "\tLaser output power" + " " * 80_000 + "x",
        "Laser output power (Channel 1)" + " " * 80_000 + "x",
        "Vendor name : a" + " " * 80_000 + "b",
    ):
        start = time.process_time()
        signature.search(text)
        ethtool._MODULE_FIELD_RE.match(text)
        assert time.process_time() - start < 0.5
    field = ethtool._MODULE_FIELD_RE.match("\tLaser output power    : 0.6755 mW / -1.70 dBm  ")
    assert field is not None
    assert (field["key"], field["value"]) == ("Laser output power", "0.6755 mW / -1.70 dBm")


# --- 1. mlxconfig set, then mlxfwreset, then mlxconfig -e query ---------------------------------


def test_an_mlxconfig_set_a_firmware_reset_loaded_is_not_pending() -> None:
    ev = load_paths(
        [REVIEW / "mlxconfig_set_then_mlxfwreset_then_query_e_current_equals_new_connectx6.txt"]
    )
    assert not [e for e in ev.failures if e["kind"] == "firmware_config_pending"]
    notes = [m for _, m in heldout.notes(ev)]
    assert any(
        "BOOT_VLAN 1 → 0, BOOT_UNDI_NETWORK_WAIT 0 → 30 applied and running since" in m
        and "firmware reset at line 29" in m
        and "query at line 35 shows them current" in m
        for m in notes
    )
    assert not any("loaded at the next reboot" in m for m in notes)
    assert heldout.rules_verdict(ev) == "READY"


def test_an_mlxconfig_query_e_alone_shows_a_set_running() -> None:
    # no mlxfwreset in the copy (a reboot between two captures): the Current column says it
    text = (
        REVIEW / "mlxconfig_set_then_mlxfwreset_then_query_e_current_equals_new_connectx6.txt"
    ).read_text()
    start, end = text.index("# mlxfwreset"), text.index("# mlxconfig -d c2:00.0 -e query")
    reset_cut = rdma.parse_mlxconfig_blocks(text[:start] + text[end:])
    assert reset_cut[0].reset_line is None and reset_cut[0].running_in(reset_cut[1])
    # a Current column still holding the old value: the set is still pending
    stale = text[:start] + text[end:].replace("1               0               0", "1    1    0")
    blocks = rdma.parse_mlxconfig_blocks(stale)
    assert blocks[1].verbose
    assert blocks[1].settings == {"BOOT_VLAN": "1", "BOOT_UNDI_NETWORK_WAIT": "30"}
    assert not blocks[0].running_in(blocks[1])


def test_the_real_mlxconfig_set_sample_is_still_pending_a_reboot() -> None:
    ev = load_paths(
        [
            HELDOUT
            / "mlxconfig_set_connectx6_mcx653106a_boot_options_applied_reboot_required_maas_cut.txt"
        ]
    )
    pending = [e for e in ev.failures if e["kind"] == "firmware_config_pending"]
    assert len(pending) == 2
    assert all("loaded at the next reboot" in e["exception_type"] for e in pending)
    assert heldout.rules_verdict(ev) == "READY WITH WARNINGS"


# --- 2. ethtool -m | grep dBm for two ports in one copy -----------------------------------------


def test_two_ports_grepd_power_lines_are_two_modules_each_by_its_thresholds() -> None:
    name = "ethtool_m_two_ports_loop_grep_dbm_thresholds_differ_swp1_judged_by_swp2s.txt"
    mods = ethtool.parse_module((REVIEW / name).read_text())
    assert [(m.iface, m.line, len(m.powers)) for m in mods] == [("swp1", 2, 2), ("swp2", 13, 2)]
    assert mods[0].thresholds_mw["rx low alarm"] == 0.0229
    assert mods[1].thresholds_mw["rx low alarm"] == 0.0891
    assert not any(ethtool.module_power_faults(m) for m in mods)
    ev = load_paths([REVIEW / name])
    assert not [e for e in ev.failures if "optical" in e["kind"]]
    assert heldout.rules_verdict(ev) == "READY"


def test_a_second_ports_low_rx_is_said_of_that_port() -> None:
    name = "ethtool_m_two_ports_loop_grep_dbm_swp2_rx_under_low_alarm_no_command_lines.txt"
    mods = ethtool.parse_module((REVIEW / name).read_text())
    assert [m.iface for m in mods] == ["swp1", "swp2"]
    ((level, power, said),) = [f for m in mods for f in ethtool.module_power_faults(m)]
    assert (level, power.line) == ("alarm", 14) and "0.0200 mW" in said
    assert heldout.rules_verdict(load_paths([REVIEW / name])) == "NOT READY"
    # no port names at all: the repeated Tx reading still starts the second module
    bare = "\n".join(t for t in (REVIEW / name).read_text().splitlines() if t.startswith("\t"))
    assert [(m.iface, m.line) for m in ethtool.parse_module(bare)] == [(None, 1), (None, 11)]


def test_the_real_one_port_grepd_sample_is_one_module() -> None:
    text = (HELDOUT / "ethtool_m_swp1_grep_dbm_rx_-2.36dbm_within_thresholds.txt").read_text()
    (mod,) = ethtool.parse_module(text)
    assert len(mod.powers) == 2 and len(mod.thresholds_mw) == 8
    assert not ethtool.module_power_faults(mod)


# --- 3. two ibdiagnet runs in one file ----------------------------------------------------------


def test_the_latest_ibdiagnet_run_decides_and_the_earlier_is_a_note() -> None:
    name = "ibdiagnet_two_runs_first_link_init_error_then_rerun_clean_after_fix.txt"
    runs = rdma.parse_ibdiagnet((REVIEW / name).read_text())
    assert [(r.version, len(r.stages)) for r in runs] == [("1.5.7", 8), ("1.5.7", 8)]
    (init,) = [s for s in runs[0].stages if s.errors]
    assert init.name == "Link State Active Check"
    # each run keeps its own -E- lines: the INIT link is the first run's alone
    assert [(no, level) for no, level, _, _ in runs[0].messages if level == "E"] == [(17, "E")]
    assert not [m for m in runs[1].messages if m[1] == "E"]
    assert not any(s.errors for s in runs[1].stages)
    ev = load_paths([REVIEW / name])
    checks = [e for e in ev.failures if e["kind"] == "ibdiag_check"]
    assert [(e["code"], e["message"]) for e in checks] == [
        ("Warn", "ibdiagnet stage IPoIB Subnets Check")
    ]
    notes = [m for _, m in heldout.notes(ev)]
    assert any("stage summary: 8 stage(s), 0 error(s), 1 warning(s)" in m for m in notes)
    assert any(
        "an earlier ibdiagnet run, not judged" in m and "Link State Active Check: 1 error(s)" in m
        for m in notes
    )
    assert not any("16 stage(s)" in m for m in notes)
    assert heldout.rules_verdict(ev) == "READY WITH WARNINGS"


def test_the_real_ibdiagnet_sample_is_one_run() -> None:
    name = "ibdiagnet_1.5.7_archwiki_2_ca_0_errors_1_warning_ipoib_group_rate_10g.txt"
    (run,) = rdma.parse_ibdiagnet((HELDOUT / name).read_text())
    assert len(run.stages) == 8
    ev = load_paths([HELDOUT / name])
    assert [e["code"] for e in ev.failures if e["kind"] == "ibdiag_check"] == ["Warn"]
    assert heldout.rules_verdict(ev) == "READY WITH WARNINGS"


# --- 4. RendezvousClosedError, then a later launch that ran --------------------------------------


def test_a_later_launchs_workers_are_no_proof_the_closed_rendezvous_had_formed() -> None:
    ev = load_paths(
        [
            REVIEW
            / "torchrun_two_launches_first_rendezvousclosed_stale_rdzv_id_then_relaunch_new_id"
            "_succeeded.log"
        ]
    )
    assert not [e for e in ev.failures if e["kind"] == "rendezvous_closed"]
    (failed,) = [e for e in ev.failures if e["kind"] == "rendezvous_failure"]
    assert failed["line"] == 27
    assert "RendezvousClosedError" in failed["exception_type"]
    assert not any("after the job had formed" in (e["exception_type"] or "") for e in ev.failures)
    assert heldout.rules_verdict(ev) == "NOT READY"


def test_the_real_closed_rendezvous_sample_still_formed_within_its_launch() -> None:
    ev = load_paths([HELDOUT / "torchrun2024_srun_rendezvousclosederror_cdr2596_sigterm_cut.log"])
    (closed,) = [e for e in ev.failures if e["kind"] == "rendezvous_closed"]
    assert closed["line"] == 4 and "pid 222141" in closed["exception_type"]


# --- 7. a Trainer record with a finite loss and a NaN gradient norm ------------------------------


def test_a_finite_loss_beside_a_nan_gradient_norm_is_no_diverged_job() -> None:
    ev = load_paths(
        [
            REVIEW
            / "hf_trainer_fp16_first_record_finite_loss_grad_norm_nan_scaler_skip_copy_taken_at"
            "_step11.log"
        ]
    )
    assert not [e for e in ev.failures if e["kind"] == "loss_diverged"]
    assert heldout.rules_verdict(ev) == "READY"


def test_a_nan_loss_or_a_zero_one_beside_a_nan_gradient_norm_still_diverged(tmp_path: Path) -> None:
    # (the Trainer logs a window whose every loss was NaN as 0.0: logging_nan_inf_filter)
    record = "{{'loss': {loss}, 'grad_norm': {grad}, 'learning_rate': 7.6e-07, 'epoch': 0.0}}\n"
    for loss, grad, diverged in (
        ("nan", "1.25", True),
        ("0.0", "nan", True),
        ("2.4512", "inf", False),
        ("2.4512", "nan", False),
    ):
        path = tmp_path / "trainer.log"
        path.write_text(
            "  0%|          | 10/13080 [01:21<29:03:11,  8.00s/it]\n"
            + record.format(loss=loss, grad=grad)
        )
        kinds = [e["kind"] for e in load_paths([path]).failures]
        assert (kinds == ["loss_diverged"]) is diverged, (loss, grad, kinds)


def test_the_real_loss_0_grad_norm_nan_sample_still_diverged() -> None:
    ev = load_paths(
        [HELDOUT / "llamafactory8439_910b1_qwen3_32b_lora_step60_loss_0_grad_norm_nan_tqdm_cut.log"]
    )
    (diverged,) = ev.failures
    assert (diverged["kind"], diverged["line"]) == ("loss_diverged", 6)
    assert heldout.rules_verdict(ev) == "READY WITH WARNINGS"
