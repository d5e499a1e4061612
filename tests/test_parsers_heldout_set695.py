"""Outputs of round RRRR's held-out evaluation (set 695, NVIDIA collective logs) that the advisor
read wrong or in part before this change (tests/data/evidence_heldout_78, sources in
tests/data/SOURCES.md): the aws-ofi-nccl plugin's probe WARN "NET/OFI Could not find
ncclGetVersion symbol" (it asks NCCL's version only to leave NVLS off before 2.18.5, then goes
on) made a finished SageMaker run NOT READY; a copy of aws-ofi-nccl's failed-completion WARN
broken after "RC: 107." lost its next line, "Error: Inappropriate ioctl for device.", the only
text saying what failed; and torch's untagged "Some NCCL operations have failed or timed out"
notice, printed by the very process whose "[Rank 16] NCCL watchdog thread terminated" follows
it, was counted as a second failing rank "the log does not name"."""

from __future__ import annotations

from functools import partial
from pathlib import Path

from advisor.evidence.load import EvidenceFacts
from tests import heldout
from tests.conftest import DATA

HELDOUT = DATA / "evidence_heldout_78"

SAGEMAKER = (
    "sagemaker_pytorch_2_0_1_nccl_2_17_1_dataparallel_4x_a10g_benign_warn_ofi_ncclgetversion_"
    "symbol_training_success.log"
)
OFI_RC = (
    "aws_ofi_nccl_1_8_1_slingshot_cxi_warn_request_completed_with_error_rc107_inappropriate_"
    "ioctl_weight_sync.log"
)
WATCHDOG = (
    "torch_nccl_2_19_3_watchdog_ncclremoteerror_rank16_net_ib_error5_vendor244_peer_10_42_0_2_"
    "kubecon_hk_slides.log"
)

_write = partial(heldout.load_copy, name="copy.log")
_load = partial(heldout.load, HELDOUT)
_text = partial(heldout.text, HELDOUT)


def _kind(ev: EvidenceFacts, kind: str) -> list[dict]:
    """The failure records of ``kind`` the import read."""
    return [e for e in ev.failures if e["kind"] == kind]


def _said(ev: EvidenceFacts) -> list[tuple[int | None, str]]:
    return [(m.line, m.message) for f in ev.files for m in f.messages]


PROBE = "NET/OFI Could not find ncclGetVersion symbol"


# --- aws-ofi-nccl's ncclGetVersion probe: a note ------------------------------------------------


def test_the_plugins_version_probe_warn_leaves_a_finished_run_ready() -> None:
    ev = _load(SAGEMAKER)
    assert ev.files[0].formats == ["log"] and ev.files[0].status == "read"
    level, outcome = heldout.imported(ev)
    assert level == "READY"
    assert heldout.above_info(outcome) == []
    assert not _kind(ev, "nccl_warning")
    (note,) = [(line, text) for line, text in _said(ev) if "ncclGetVersion" in text]
    assert note[0] == 3
    assert note[1].startswith("log: algo-1 pid 46 device 0: the aws-ofi-nccl plugin")
    assert "line(s) 3" in note[1] and note[1].endswith("no error")
    assert (2, "log: NCCL 2.17.1+cuda11.8") in _said(ev)


def test_the_probe_on_every_gpu_of_another_host_is_one_note(tmp_path: Path) -> None:
    text = "".join(
        f"ip-10-1-2-3:{100 + d}:{200 + d} [{d}] configure_nvls_option:287 NCCL WARN {PROBE}\n"
        for d in range(4)
    ) + "".join(
        f"ip-10-1-2-3:{100 + d}:{100 + d} [{d}] NCCL INFO comm 0x5555{d} rank {d} nranks 4 "
        f"cudaDev {d} busId {d}0000 - Init COMPLETE\n"
        for d in range(4)
    )
    ev = _write(tmp_path, text)
    level, outcome = heldout.imported(ev)
    assert level == "READY"
    assert heldout.above_info(outcome) == []
    (note,) = [text for _, text in _said(ev) if "ncclGetVersion" in text]
    assert note.startswith("log: ip-10-1-2-3 pid 100 device 0, ip-10-1-2-3 pid 101 device 1, ")
    assert "line(s) 1, 2, 3, 4" in note


def test_the_probe_does_not_hide_a_real_plugin_warn_after_it(tmp_path: Path) -> None:
    # the same run, its plugin then failing to call ncclGetVersion: still a failure
    text = _text(SAGEMAKER).replace(
        "NVIDIA A10G\n",
        "NVIDIA A10G\nalgo-1:46:58 [0] configure_nvls_option:292 NCCL WARN NET/OFI "
        "ncclGetVersion returned 3\n",
        1,
    )
    ev = _write(tmp_path, text)
    level, outcome = heldout.imported(ev)
    assert level == "NOT READY"
    (item,) = heldout.items(outcome, "evidence-nccl-warning")
    assert "ncclGetVersion returned 3" in item and "line 7" in item


# --- aws-ofi-nccl's failed completion: the Error field on the line below ------------------------


def test_the_completion_error_text_on_the_next_line_is_quoted() -> None:
    ev = _load(OFI_RC)
    level, outcome = heldout.imported(ev)
    assert level == "NOT READY"
    (item,) = heldout.items(outcome, "evidence-nccl-warning")
    assert (
        "NET/OFI Request completed with error. RC: 107. Error: Inappropriate ioctl for device."
        in item
    )
    assert "line 1)" in item


def test_another_rc_and_error_with_a_prefix_is_quoted_too(tmp_path: Path) -> None:
    text = (
        "nid001234:5120:5301 [3] ofi_process_cq:196 NCCL WARN NET/OFI Request completed with "
        "error. RC: 5.\n"
        "Error: Input/output error.\n"
    )
    ev = _write(tmp_path, text)
    (warn,) = _kind(ev, "nccl_warning")
    assert warn["message"].endswith("RC: 5. Error: Input/output error.")
    assert (warn["host"], warn["pid"], warn["device"], warn["line"]) == ("nid001234", 5120, 3, 1)


def test_a_line_that_is_not_its_error_field_is_not_taken(tmp_path: Path) -> None:
    # a blank line between: the next text is no part of the WARN
    text = _text(OFI_RC).replace("\nError:", "\n\nError:")
    ev = _write(tmp_path, text)
    (warn,) = _kind(ev, "nccl_warning")
    assert warn["message"] == "NET/OFI Request completed with error. RC: 107."


# --- torch's abort notice above its own watchdog's death: one rank ------------------------------


def test_the_notice_above_rank_16s_watchdog_death_is_no_second_rank() -> None:
    ev = _load(WATCHDOG)
    level, outcome = heldout.imported(ev)
    assert level == "NOT READY"
    assert heldout.above_info(outcome) == [("evidence-watchdog-exception", "critical")]
    (item,) = heldout.items(outcome, "evidence-watchdog-exception")
    assert item.startswith("Rank 16 (NCCL): NCCL error: remote process exited")
    assert "peer 10.42.0.2<47534> with error 5" in item and "vendor err 244" in item
    assert "line 7)" in item
    (died,) = _kind(ev, "watchdog_exception")
    assert (died["rank"], died["host"]) == (16, "node-1")
    assert not _kind(ev, "watchdog_failure")


def test_another_rank_with_a_pg_tag_is_one_rank_too(tmp_path: Path) -> None:
    text = (
        _text(WATCHDOG)
        .replace("rank 16 nranks 32", "rank 5 nranks 8")
        .replace("[Rank 16] NCCL watchdog", "[PG 0 Rank 5] NCCL watchdog")
        .replace("node-1", "gpu-node-7")
    )
    ev = _write(tmp_path, text)
    level, outcome = heldout.imported(ev)
    assert level == "NOT READY"
    assert heldout.above_info(outcome) == [("evidence-watchdog-exception", "critical")]
    (died,) = _kind(ev, "watchdog_exception")
    assert died["rank"] == 5


def test_a_notice_with_no_watchdog_death_below_it_is_still_a_failure(tmp_path: Path) -> None:
    # the notice alone (the death line not kept): a rank the log does not name still failed
    lines = _text(WATCHDOG).splitlines(keepends=True)
    text = "".join(lines[:6])
    ev = _write(tmp_path, text)
    level, _ = heldout.imported(ev)
    assert level == "NOT READY"
    (failure,) = _kind(ev, "watchdog_failure")
    assert failure["line"] == 5 and failure["rank"] is None
