"""Review 68 of round VVVV (sets 715-720), faults 1, 2 and 3: Neuron's failed global
communicator in a copy without the CCOM WARN lines; nvidia-mig-parted's fatal apply (and
nvidia-smi mig's refused destroy) behind pdsh's "host: "; saquery's own failure to bind to the
SA in a copy without sminfo's lines: each on its input (tests/data/review68, described in
tests/data/SOURCES.md)."""

from __future__ import annotations

from functools import partial
from pathlib import Path

from advisor.evidence.load import EvidenceFacts, load_paths
from tests import heldout
from tests.conftest import DATA

REVIEW = DATA / "review68"
HELDOUT = DATA / "evidence_heldout_82"

_write = partial(heldout.load_copy, name="copy.txt")


def _load(name: str, where: Path = REVIEW) -> EvidenceFacts:
    return load_paths([where / name])


def _kinds(ev: EvidenceFacts) -> list[tuple[str, int]]:
    return [(f["kind"], f["line"]) for f in ev.failures]


# --- 1. Neuron: the NRT line alone is the failure ------------------------------------------------

NEURON_REAL = (
    "neuron_nrt_ccom_aws_ofi_nccl_init_failed_efa_not_enabled_trn1_2node_allreduce_cut.log"
)
NEURON_ERRORS = "neuron_nrt_global_comm_failed_error_lines_only_no_ccom_warn_trn1_cut.log"
NEURON_NO_CCOM = "neuron_nrt_global_comm_failed_ccom_warn_lines_left_out_trn1_cut.log"


def test_neurons_nrt_line_without_the_ccom_warns_is_the_failed_communicator() -> None:
    for name, line in ((NEURON_ERRORS, 3), (NEURON_NO_CCOM, 11)):
        ev = _load(name)
        assert _kinds(ev) == [("neuron_comm_init_failed", line)], name
        (f,) = ev.failures
        assert (f["pid"], f["rank"], f["rank_size"], f["ip"]) == (
            102203,
            1,
            2,
            "172.31.63.174:62128",
        )
        assert f["exception_type"] is None  # no CCOM WARN to name as its cause
        level, outcome = heldout.imported(ev)
        assert level == "NOT READY"
        assert ("evidence-neuron-comm-init-failed", "critical") in heldout.above_info(outcome)
    # the real file still names the CCOM WARNs (aws-ofi-nccl's first) before it
    real = _load(NEURON_REAL, HELDOUT)
    assert _kinds(real) == [("neuron_comm_init_failed", 20)]
    assert real.failures[0]["exception_type"].startswith(
        "aws-ofi-nccl: NET/OFI aws-ofi-nccl initialization failed (line 14)"
    )


def test_neurons_ccom_warns_alone_are_still_no_failure(tmp_path: Path) -> None:
    lines = (HELDOUT / NEURON_REAL).read_text().splitlines(keepends=True)
    # the WARNs and a run that went on: no communicator failed, no neuron event
    ev = _write(tmp_path, "".join(lines[13:17]) + "test tests::test_instance_1 ... ok\n")
    assert not any(f["kind"] == "neuron_comm_init_failed" for f in ev.failures)
    # the NRT line alone, another device and root: read as itself
    nrt = (
        lines[19]
        .replace("global_device_id=1", "global_device_id=0")
        .replace("172.31.63.174:62128", "10.0.1.5:41000")
    )
    ev = _write(tmp_path, nrt)
    assert _kinds(ev) == [("neuron_comm_init_failed", 1)]
    assert (ev.failures[0]["rank"], ev.failures[0]["ip"]) == (0, "10.0.1.5:41000")


# --- 2. nvidia-mig-parted (and nvidia-smi mig -dci) behind pdsh's "host: " ---------------------

MIG_REAL = (
    "nvidia_mig_parted_apply_all_balanced_gpu_reset_failed_4_gpus_in_use_nvidia_drm_exit_255_"
    "migparted181.txt"
)
MIG_PDSH = "nvidia_mig_parted_apply_all_balanced_reset_failed_pdsh_gpu_node07_prefix.txt"
DCI_REAL = "nvidia_smi_mig_dci_h100_gpu0_gi3_ci0_in_use_by_another_client_dcgm95.txt"


def test_mig_parteds_fatal_apply_under_pdsh_names_its_host() -> None:
    ev = _load(MIG_PDSH)
    fatal = [f for f in ev.failures if f["kind"] == "mig_config_failed"]
    assert [(f["line"], f["host"]) for f in fatal] == [(10, "gpu-node07")]
    assert "00000000:C2:00.0 (In use by another client, line 7)" in fatal[0]["exception_type"]
    resets = [f for f in ev.failures if f["kind"] == "gpu_driver_error"]
    assert [(f["line"], f["library"]) for f in resets] == [
        (n, "nvidia-mig-parted") for n in (4, 5, 6, 7)
    ]
    level, outcome = heldout.imported(ev)
    assert level == "NOT READY"
    (item,) = heldout.items(outcome, "evidence-mig-config-failed")
    assert item.startswith("gpu-node07: nvidia-mig-parted did not apply the MIG configuration")
    # the real file it was built from: the same reading, no host
    real = _load(MIG_REAL, HELDOUT)
    assert [(f["line"], f["host"]) for f in real.failures if f["kind"] == "mig_config_failed"] == [
        (10, None)
    ]


def test_mig_under_pdsh_two_hosts_and_a_destroy_refusal(tmp_path: Path) -> None:
    text = (HELDOUT / MIG_REAL).read_text()
    # pdsh's shell line above the prefixed output is no host's line
    copy = "$ pdsh -w gpu-node09 nvidia-mig-parted apply -c all-1g.10gb\n" + "".join(
        f"gpu-node09: {t}" for t in text.splitlines(keepends=True)
    )
    ev = _write(tmp_path, copy)
    assert [(f["line"], f["host"]) for f in ev.failures if f["kind"] == "mig_config_failed"] == [
        (11, "gpu-node09")
    ]
    # nvidia-smi mig -dci's refusal behind pdsh: read with its GPU, GI and CI and its host
    dci = "".join(f"gpu-node07: {t}" for t in (HELDOUT / DCI_REAL).read_text().splitlines(True))
    ev = _write(tmp_path, dci)
    assert [(f["kind"], f["line"], f["host"]) for f in ev.failures] == [
        ("gpu_driver_error", 1, "gpu-node07")
    ]
    assert ev.failures[0]["exception_type"].startswith(
        "MIG destroy refused: compute instance 0 of GPU instance 3 on GPU 0"
    )
    # a line's own "Word: " on one line only is not taken for pdsh's: no fatal apply read
    one = "Note: FATA[0008] Error applying MIG configuration with hooks: exit status 1\n"
    ev = _write(tmp_path, "nvidia-mig-parted apply -c all-balanced\n" + one)
    assert not any(f["kind"] == "mig_config_failed" for f in ev.failures)


# --- 3. saquery's own failure to bind to the SA, without sminfo ----------------------------------

SLIMFLY = "sminfo_saquery_non_root_cant_open_umad_port_permission_denied_slimfly_cscs_notes.txt"
SA_DENIED = "saquery_s_alone_umad_open_port_failed_bind_sa_permission_denied_slimfly.txt"
SA_NODEV = "saquery_s_alone_no_prompt_bind_sa_no_such_device.txt"


def test_saquery_alone_denied_its_umad_port_is_a_check_that_did_not_run() -> None:
    ev = _load(SA_DENIED)
    assert [f.formats for f in ev.files] == [["rdma"]]
    level, outcome = heldout.imported(ev)
    assert level == "READY WITH WARNINGS"
    assert heldout.above_info(outcome) == [("evidence-mad-port-denied", "warning")]
    (item,) = heldout.items(outcome, "evidence-mad-port-denied")
    assert item.startswith("saquery: saquery failed: Failed to bind to the SA: Permission denied")
    # the real notes it was cut from: sminfo's and saquery's runs, both denied
    real = _load(SLIMFLY, HELDOUT)
    level, outcome = heldout.imported(real)
    assert level == "READY WITH WARNINGS"
    assert len(heldout.items(outcome, "evidence-mad-port-denied")) == 2


def test_saquery_alone_another_errno_is_read(tmp_path: Path) -> None:
    ev = _load(SA_NODEV)
    assert [f.formats for f in ev.files] == [["rdma"]]
    assert any(
        "Failed to bind to the SA: No such device (line 3)" in m for _, m in heldout.notes(ev)
    )
    # the ibpanic line alone (its ibwarn cut off) still makes the copy an rdma one
    ev = _write(tmp_path, "ibpanic: [812] main: Failed to bind to the SA: Permission denied\n")
    assert [f.formats for f in ev.files] == [["rdma"]]
    # another tool's "bind" failure is not saquery's
    ev = _write(tmp_path, "ibpanic: [812] main: Failed to bind socket: Permission denied\n")
    assert [f.formats for f in ev.files] != [["rdma"]]
