"""Review 47 of review 46's mends, faults 1-9: Fabric Manager statuses of two hosts, and one host's
version mismatch a later status shows mended; mlxfwreset's other wordings of the device it resets;
ibdiagnet runs from two local ports, and a later run cut before its summary; Trainer records in a
row ending on NaN gradient norms; a RendezvousClosedError in a copy with no torchrun command line;
a host name a loop echoes above ethtool -m's power lines; the mlxconfig set's notes once a query
shows it current: each on its input (tests/data/review47, described in tests/data/SOURCES.md), and
the review's controls as they read before."""

from __future__ import annotations

from advisor.evidence.load import load_paths, load_text
from advisor.parsers import ethtool, logs, rdma
from tests import heldout
from tests.conftest import DATA

REVIEW = DATA / "review47"


# --- 1. Fabric Manager inactive on one host, running on another -------------------------------


def test_another_hosts_running_fabric_manager_does_not_clear_this_hosts_inactive_one() -> None:
    ev = load_paths(
        [REVIEW / "fabricmanager_two_hosts_in_turn_hgx01_inactive_hgx02_active_running.txt"]
    )
    (failed,) = [e for e in ev.failures if e["kind"] == "fabric_manager_failed"]
    assert failed["line"] == 4 and failed["host"] == "hgx-01"
    assert "inactive" in failed["exception_type"]
    notes = [m for _, m in heldout.notes(ev)]
    assert "log: the Fabric Manager service is active (running) on hgx-02" in notes
    assert heldout.rules_verdict(ev) == "NOT READY"


def test_a_running_status_of_the_same_host_clears_its_inactive_one_over_ssh() -> None:
    text = (
        "[root@hgx-01 ~]# ssh hgx-02 systemctl status nvidia-fabricmanager\n"
        "○ nvidia-fabricmanager.service - NVIDIA fabric manager service\n"
        "     Active: inactive (dead)\n"
        "[root@hgx-01 ~]# ssh hgx-02 systemctl start nvidia-fabricmanager\n"
        "[root@hgx-01 ~]# ssh hgx-02 systemctl status nvidia-fabricmanager\n"
        "● nvidia-fabricmanager.service - NVIDIA fabric manager service\n"
        "     Active: active (running) since Thu 2024-05-16 23:22:02 UTC; 3s ago\n"
    )
    ev = load_text(text, "fm.txt")
    assert not [e for e in ev.failures if e["kind"] == "fabric_manager_failed"]


# --- 2. mlxfwreset's "Requested reset level for device, X:" ------------------------------------


def test_a_reset_of_one_nic_leaves_the_others_set_pending_in_every_wording() -> None:
    for name in (
        "mlxconfig_set_two_nics_mlxfwreset_only_first_requested_reset_level_wording.txt",
        "check_held_mlxconfig_two_nics_mlxfwreset_first_the_reset_level_is_wording.txt",
    ):
        ev = load_paths([REVIEW / name])
        (pending,) = [e for e in ev.failures if e["kind"] == "firmware_config_pending"]
        assert "5e:00.0" in pending["exception_type"], name
        notes = [m for _, m in heldout.notes(ev)]
        assert any("3d:00.0" in m and "loaded by the firmware reset at line 44" in m for m in notes)
        assert not any("5e:00.0" in m and "firmware reset" in m for m in notes), name
        assert heldout.rules_verdict(ev) == "READY WITH WARNINGS"


def test_mlxfwresets_device_lines_and_command_line_name_the_device() -> None:
    for line in (
        "The reset level for device, 3d:00.0 is:",
        "Requested reset level for device, 3d:00.0:",
        "Minimal reset level for device, 3d:00.0:",
    ):
        m = rdma._MLXFWRESET_DEVICE_RE.match(line)
        assert m is not None and m["path"] == "3d:00.0", line
    command = rdma._MLXFWRESET_COMMAND_RE.search("# mstfwreset reset -d 0000:4b:00.0 -y -l 4")
    assert command is not None and rdma._pci_key(command["path"]) == "4b:00.0"


def test_a_reset_naming_no_device_loads_no_set_where_two_devices_wait() -> None:
    text = (
        REVIEW / "mlxconfig_set_two_nics_mlxfwreset_only_first_requested_reset_level_wording.txt"
    ).read_text()
    cut = "\n".join(
        line
        for line in text.splitlines()
        if "reset level for device" not in line and "mlxfwreset" not in line
    )
    blocks = rdma.parse_mlxconfig_blocks(cut)
    assert [b.reset_line for b in blocks] == [None, None]


# --- 3. and 8. ibdiagnet runs: two local ports, a later run cut --------------------------------


def test_a_failing_rail_is_judged_beside_a_clean_run_on_another_port() -> None:
    name = "ibdiagnet_two_runs_two_ports_two_fabrics_port1_link_init_error_port2_clean.txt"
    runs = rdma.parse_ibdiagnet((REVIEW / name).read_text())
    assert [r.local_port for r in runs] == ["port 1", "port 2"]
    ev = load_paths([REVIEW / name])
    (check,) = [e for e in ev.failures if e["kind"] == "ibdiag_check" and e["code"] == "Fail"]
    assert "port 1: Link State Active Check: 1 error(s)" in check["exception_type"]
    notes = [m for _, m in heldout.notes(ev)]
    assert not any("an earlier ibdiagnet run, not judged" in m for m in notes)
    assert any("(local port 2)" in m and "0 error(s)" in m for m in notes)
    assert heldout.rules_verdict(ev) == "NOT READY"


def test_a_later_run_cut_before_its_summary_is_said_with_its_error_lines() -> None:
    name = "ibdiagnet_clean_run_then_later_rerun_cut_before_summary_with_link_init_error.txt"
    ev = load_paths([REVIEW / name])
    (cut,) = [e for e in ev.failures if e["message"] == "ibdiagnet run at line 71, cut"]
    assert cut["code"] == "Warn" and cut["line"] == 86
    assert "-E- link with logical state = INIT" in cut["exception_type"]
    assert "not judged" in cut["exception_type"]
    assert heldout.rules_verdict(ev) == "READY WITH WARNINGS"


def test_the_review46_reruns_on_one_port_still_judge_the_last() -> None:
    ev = load_paths(
        [
            DATA
            / "review46"
            / "ibdiagnet_two_runs_first_link_init_error_then_rerun_clean_after_fix.txt"
        ]
    )
    assert not [e for e in ev.failures if e["kind"] == "ibdiag_check" and e["code"] == "Fail"]
    assert any("an earlier ibdiagnet run, not judged" in m for _, m in heldout.notes(ev))


# --- 4. Trainer records in a row ending on NaN gradient norms -----------------------------------


def test_six_records_in_a_row_with_a_nan_gradient_norm_are_a_stalled_fp16_run() -> None:
    ev = load_paths(
        [
            REVIEW
            / "hf_trainer_fp16_six_records_in_a_row_grad_norm_nan_loss_stuck_at_6.91_step4090.log"
        ]
    )
    (diverged,) = [e for e in ev.failures if e["kind"] == "loss_diverged"]
    assert diverged["line"] == 13
    said = diverged["exception_type"]
    assert "step 4040 of 13080" in said and "5 more record(s)" in said
    assert "the loss 1.821 to 6.9101" in said and "fp16 loss scaler skips" in said
    assert heldout.rules_verdict(ev) == "READY WITH WARNINGS"


def test_two_nan_gradient_records_in_fp16_are_no_divergence_but_one_in_bf16_is() -> None:
    head = "training_args: {precision}, logging_steps=10\n"
    finite = "{'loss': 1.80, 'grad_norm': 0.41, 'learning_rate': 1e-05, 'epoch': 0.3}\n"
    nan = "{'loss': 1.81, 'grad_norm': nan, 'learning_rate': 1e-05, 'epoch': 0.3}\n"
    for precision, nans, diverged in (
        ("fp16=True, bf16=False", 2, False),
        ("fp16=True, bf16=False", logs.NAN_GRAD_RECORDS_FP16, True),
        ("fp16=False, bf16=True", 1, True),
    ):
        text = head.format(precision=precision) + finite * 3 + nan * nans
        report = logs.parse(text)
        got = [e for e in report.events if e.kind == "loss_diverged"]
        assert bool(got) is diverged, (precision, nans)


# --- 5. RendezvousClosedError in a copy with no torchrun command line ---------------------------


def test_torchruns_omp_banner_opens_each_launch_where_no_command_line_is_kept() -> None:
    ev = load_paths(
        [
            REVIEW / "torchrun_two_launches_slurm_out_no_command_lines_omp_warning_per_launch_first"
            "_rendezvousclosed_stale.log"
        ]
    )
    assert not [e for e in ev.failures if e["kind"] == "rendezvous_closed"]
    (failed,) = [e for e in ev.failures if e["kind"] == "rendezvous_failure"]
    assert failed["line"] == 30 and "RendezvousClosedError" in failed["exception_type"]
    assert not any("after the job had formed" in (e["exception_type"] or "") for e in ev.failures)
    assert heldout.rules_verdict(ev) == "NOT READY"


# --- 6. a Fabric Manager version mismatch a later status shows mended ---------------------------


def test_a_version_mismatch_the_same_hosts_later_status_shows_running_is_cleared() -> None:
    ev = load_paths(
        [
            REVIEW
            / "fabricmanager_journal_version_mismatch_then_fm_package_matched_restart_then_active"
            "_running.txt"
        ]
    )
    assert not [e for e in ev.failures if e["kind"] == "fabric_manager_failed"]
    notes = [m for _, m in heldout.notes(ev)]
    assert any("530.30.02" in m and "a later status (line 10) shows" in m for m in notes)
    assert "log: the Fabric Manager service is active (running) on hgx-07" in notes
    assert heldout.rules_verdict(ev) == "READY"


def test_a_version_mismatch_after_a_running_status_still_fails() -> None:
    text = (
        "# systemctl status nvidia-fabricmanager\n"
        "● nvidia-fabricmanager.service - NVIDIA fabric manager service\n"
        "     Active: active (running) since Thu 2024-05-16 23:22:02 UTC; 7s ago\n"
        "May 17 08:10:41 hgx-07 nv-fabricmanager[3228]: fabric manager NVIDIA GPU driver interface "
        "version 530.30.02 don't match with driver version 530.41.03. Please update with matching "
        "NVIDIA driver package.\n"
    )
    ev = load_text(text, "fm.txt")
    (failed,) = [e for e in ev.failures if e["kind"] == "fabric_manager_failed"]
    assert failed["line"] == 4 and "530.30.02" in failed["exception_type"]


# --- 7. a host name a loop echoes above the power lines -----------------------------------------


def test_an_echoed_host_is_the_host_and_the_command_names_the_port() -> None:
    name = "ethtool_m_loop_over_hosts_echo_hostname_grep_dbm_same_port_eth2_gpu_node02_rx_low_alarm.txt"
    modules = ethtool.parse_module((REVIEW / name).read_text())
    assert [(m.iface, m.host) for m in modules] == [("eth2", "gpu-node01"), ("eth2", "gpu-node02")]
    ev = load_paths([REVIEW / name])
    (alarm,) = [e for e in ev.failures if e["kind"] == "optical_power"]
    assert alarm["exception_type"].startswith("eth2 on gpu-node02: Receiver signal")
    assert not any(e["exception_type"].startswith("gpu-node02:") for e in ev.failures)
    assert heldout.rules_verdict(ev) == "NOT READY"


def test_echoed_ports_of_a_loop_over_ports_are_still_the_ports() -> None:
    ev = load_paths(
        [
            REVIEW
            / "check_held_ethtool_m_three_ports_loop_middle_no_optic_qsfp28_channels_grep_dbm.txt"
        ]
    )
    notes = [m for _, m in heldout.notes(ev)]
    assert any(m.startswith("ethtool_module: ethtool -m swp13: ") for m in notes)
    assert any(m.startswith("ethtool_module: ethtool -m swp15: ") for m in notes)
    assert heldout.rules_verdict(ev) == "READY"


# --- 9. the mlxconfig set's notes once a reset or a query shows it current ----------------------


def test_a_set_a_query_shows_current_is_read_whole_and_its_notes_agree() -> None:
    for path in (
        REVIEW
        / "mstconfig_set_roce_disable_then_mstfwreset_level4_warm_reboot_then_query_shows_new.txt",
        DATA
        / "review46"
        / "mlxconfig_set_then_mlxfwreset_then_query_e_current_equals_new_connectx6.txt",
    ):
        ev = load_paths([path])
        assert ev.files[0].status == "read", path.name
        notes = [m for _, m in heldout.notes(ev)]
        assert any("running since" in m for m in notes)
        assert not any("loaded at the next reboot" in m for m in notes), path.name
    (note,) = [m for m in notes if "(2 setting(s) shown)" in m]
    assert note.endswith("applied, loaded by the firmware reset at line 29")
    ev = load_paths(
        [
            REVIEW
            / "mstconfig_set_roce_disable_then_mstfwreset_level4_warm_reboot_then_query_shows_new.txt"
        ]
    )
    assert any(
        m.endswith("applied, running since: the query at line 30 shows them current")
        for _, m in heldout.notes(ev)
    )
    assert not [e for e in ev.failures if e["kind"] == "firmware_config_pending"]
