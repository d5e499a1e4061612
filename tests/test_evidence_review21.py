"""The twenty-first review's findings on round T's readings (inputs in tests/data/review21,
written from the formats named in tests/data/SOURCES.md)."""

from __future__ import annotations

from advisor.evidence.load import EvidenceFacts, load_paths
from tests.conftest import DATA

REVIEW = DATA / "review21"


def _load(name: str) -> EvidenceFacts:
    return load_paths([REVIEW / name])


def test_the_drivers_start_beside_a_machine_check_is_not_a_healthy_log() -> None:
    ev = _load("nvrm04_load_then_mce_edac_ue.log")
    # (a kernel log: its first error line, the machine check, is what it says)
    (error,) = ev.failures
    assert error["kind"] == "log_error" and "Machine check events logged" in error["message"]


def test_torch_npus_older_warning_of_a_version_mismatch_is_not_a_healthy_run() -> None:
    assert _load("pgw01_old_torch_npu_pta_version_mismatch.log").files[0].status != "read"


def test_a_bare_error_heading_far_below_a_traceback_is_not_its_exception() -> None:
    ev = _load("exc02_keyboardinterrupt_then_bare_error_header.log")
    assert not any(
        e["kind"] == "python_exception" and "Error:" in e["message"] for e in ev.failures
    )


def test_the_device_plugins_other_wordings_mig_devices_and_replicas() -> None:
    (every,) = _load("plug03_all_devices_will_go_unhealthy.log").failures
    assert (every["kind"], every["code"]) == ("gpu_driver_fault", "79")
    assert "marked every GPU of the node unhealthy" in every["exception_type"]
    (mig,) = _load("plug04_mig_device_marked_unhealthy.log").failures
    assert mig["exception_type"].startswith("Xid 94 on MIG-8f2b5d1a-3c4e-5f60-9a7b-1c2d3e4f5a6b:")
    # a time-sliced GPU's replicas are one GPU
    (replicas,) = _load("plug05_timeslicing_replicas.log").failures
    assert replicas["exception_type"].startswith(
        "Xid 79 on GPU-5f1d8c2e-6b0a-4c1d-9a7e-2f3b4c5d6e7f:"
    )


def test_an_application_xid_the_plugin_reports_is_an_error_not_a_hardware_fault() -> None:
    (xid,) = _load("plug06_xid13_app_fault_counted_hardware.log").failures
    assert (xid["kind"], xid["code"]) == ("gpu_driver_error", "13")


def test_the_attribution_table_behind_a_logging_prefix() -> None:
    ev = _load("fr01_nvrx_cli_stderr_basicconfig_prefix.log")
    assert [(e["group"], e["missing_ranks"]) for e in ev.failures] == [
        ("73 (EXPERT_MODEL_PARALLEL_GROUP,0)", [10]),
        ("74 (EXPERT_MODEL_PARALLEL_GROUP,0)", [15]),
    ]


def test_the_runtimes_other_core_exception_wordings() -> None:
    for name, said in (
        (
            "rt_core01_fftsplus_aivector_multiword_unit.log",
            "fftsplus aivector error exception on core 3",
        ),
        ("rt_core02_arch9201_There_capital_space_comma.log", "aicore error exception on core 5"),
    ):
        first = min(_load(name).failures, key=lambda e: e["line"])
        assert first["exception_type"].endswith(said), name
