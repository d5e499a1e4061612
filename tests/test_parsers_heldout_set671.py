"""Outputs of round NNNN's held-out evaluation (set 671, NVIDIA collective logs) that the advisor
read wrong or in part before this change (tests/data/evidence_heldout_74, sources in
tests/data/SOURCES.md): RCCL 2.21.5 on four MI50s whose only WARN, "MSCCL++: Cannot enable
MSCCL++; environment is not MSCCL compatible", says an optional feature RCCL tries by default
stays off, was called a critical connectivity error beside four ranks' Init COMPLETE; and NCCL's
INFO lines whose prefix the poster masked as "pod-id:num:num" were not known as NCCL's at all,
their 4-rank, 1-node communicator unread and the file said to hold no NCCL line."""

from __future__ import annotations

from functools import partial
from pathlib import Path

from advisor.evidence.load import EvidenceFacts
from tests import heldout
from tests.conftest import DATA

HELDOUT = DATA / "evidence_heldout_74"

RCCL = "rccl_2_21_5_mi50_gfx906_4rank_init_complete_msccl_warn_rcclt163_cut.log"
MASKED = "nccl_4gpu_single_node_init_nvls_unavailable_trees_p2p_chunksize_nccl1466_cut.log"

MSCCLPP_OFF = "MSCCL++: Cannot enable MSCCL++; environment is not MSCCL compatible"
NO_FORM = "a program's log in no form the advisor reads"

_write = partial(heldout.load_copy, name="copy.log")
_load = partial(heldout.load, HELDOUT)
_text = partial(heldout.text, HELDOUT)


def _said(ev: EvidenceFacts) -> list[tuple[int | None, str]]:
    return [(m.line, m.message) for f in ev.files for m in f.messages]


# --- RCCL: MSCCL++ left off, every rank's init complete -----------------------------------------


def test_rccls_mscclpp_left_off_is_a_note_beside_four_completed_ranks() -> None:
    ev = _load(RCCL)
    assert ev.files[0].status == "read" and ev.files[0].formats == ["log"]
    assert ev.failures == []
    level, outcome = heldout.imported(ev)
    assert level == "READY"
    assert heldout.above_info(outcome) == []
    (note,) = [(no, m) for no, m in _said(ev) if "MSCCL++" in m]
    assert note[0] == 1
    assert note[1].startswith("log: z292 pid 58192 device 2: RCCL left its optional MSCCL++")
    assert f"'{MSCCLPP_OFF}', line(s) 1" in note[1] and note[1].endswith("no error")
    assert any(
        no == 4 and m.endswith("a communicator of 4 rank(s) started (this log: rank(s) 0, 1, 2, 3)")
        for no, m in _said(ev)
    )


def test_the_architecture_form_on_another_host_and_device_is_a_note_too(tmp_path: Path) -> None:
    text = (
        _text(RCCL)
        .replace("z292:58192:58200 [2]", "gpu-b07:4411:4420 [0]", 1)
        .replace("; environment is not MSCCL compatible", " on gfx90a:sramecc+:xnack- architecture")
    )
    ev = _write(tmp_path, text)
    assert ev.failures == []
    level, _ = heldout.imported(ev)
    assert level == "READY"
    (note,) = [m for _, m in _said(ev) if "MSCCL++" in m]
    assert note.startswith("log: gpu-b07 pid 4411 device 0: RCCL left its optional MSCCL++")
    assert "Cannot enable MSCCL++ on gfx90a:sramecc+:xnack- architecture" in note


def test_each_ranks_mscclpp_warn_is_one_note_with_its_lines(tmp_path: Path) -> None:
    lines = _text(RCCL).splitlines(keepends=True)
    warn = lines[0]
    copies = [
        warn.replace(":58200 [2]", f":5820{dev} [{dev}]") for dev in ("0", "1", "3")
    ]  # (ranks 0, 1 and 3 print it too)
    ev = _write(tmp_path, "".join([warn, *copies, *lines[1:]]))
    assert ev.failures == []
    level, _ = heldout.imported(ev)
    assert level == "READY"
    (note,) = [m for _, m in _said(ev) if "MSCCL++" in m]
    assert "device 2, z292 pid 58192 device 0, z292 pid 58192 device 1" in note
    assert "line(s) 1, 2, 3, 4)" in note


def test_a_real_failure_beside_mscclpp_left_off_is_still_read(tmp_path: Path) -> None:
    failed = (
        "z292:58192:58199 [1] /src/rccl/build/hipify/src/misc/socket.cc:484 NCCL WARN "
        "socketStartConnect: Connect to 10.0.0.2<43211> failed : Connection refused\n"
    )
    ev = _write(tmp_path, _text(RCCL).splitlines(keepends=True)[0] + failed)
    level, outcome = heldout.imported(ev)
    assert level == "NOT READY"
    items = " ".join(
        i for rule, _ in heldout.above_info(outcome) for i in heldout.items(outcome, rule)
    )
    assert "Connection refused" in items and "MSCCL++" not in items


def test_mscclpp_asked_for_in_a_build_without_it_stays_a_fallback(tmp_path: Path) -> None:
    # (RCCL_MSCCLPP_ENABLE=1 set where the build has no MSCCL++: asked for, not had)
    text = _text(RCCL).replace(
        "Cannot enable MSCCL++; environment is not MSCCL compatible",
        "Feature not enabled. ENABLE_MSCCLPP must be defined at compile-time to enable this "
        "feature.",
    )
    ev = _write(tmp_path, text)
    level, outcome = heldout.imported(ev)
    assert level == "READY WITH WARNINGS"
    assert heldout.above_info(outcome) == [("evidence-nccl-fallback-warning", "warning")]
    (item,) = heldout.items(outcome, "evidence-nccl-fallback-warning")
    assert "ENABLE_MSCCLPP must be defined" in item and "line 1" in item


# --- NCCL INFO lines with a masked prefix -------------------------------------------------------


def test_masked_prefix_info_lines_are_read_as_ncclss_start() -> None:
    ev = _load(MASKED)
    assert ev.files[0].status == "read" and ev.files[0].formats == ["log"]
    assert ev.failures == []
    level, outcome = heldout.imported(ev)
    assert level == "READY"
    assert heldout.above_info(outcome) == []
    said = _said(ev)
    assert not any(NO_FORM in m for _, m in said)
    assert (
        9,
        "log: a communicator of 4 rank(s) on 1 node(s), 4 on each (this log: rank(s) 0, 1, 2, 3)",
    ) in said
    assert any(no == 2 and "NVLink SHARP (NVLS) multicast is not available" in m for no, m in said)
    # (a masked host is no host's name)
    assert "pod-id" not in {h["host"] for h in ev.log_hosts}


def test_another_mask_and_a_two_node_communicator(tmp_path: Path) -> None:
    text = (
        _text(MASKED)
        .replace("pod-id:num:num", "worker-3:pid:tid")
        .replace("nRanks 4 nNodes 1 localRanks 4", "nRanks 8 nNodes 2 localRanks 4")
    )
    ev = _write(tmp_path, text)
    assert ev.failures == []
    level, _ = heldout.imported(ev)
    assert level == "READY"
    said = [m for _, m in _said(ev)]
    assert not any(NO_FORM in m for m in said)
    assert (
        "log: a communicator of 8 rank(s) on 2 node(s), 4 on each (this log: rank(s) 0, 1, 2, 3)"
        in said
    )


def test_a_masked_prefix_warn_of_a_refused_connection_is_a_failure(tmp_path: Path) -> None:
    warn = (
        "pod-id:num:num [2] misc/socket.cc:484 NCCL WARN socketStartConnect: Connect to "
        "10.0.0.2<43211> failed : Connection refused\n"
    )
    ev = _write(tmp_path, _text(MASKED) + warn)
    level, outcome = heldout.imported(ev)
    assert level == "NOT READY"
    items = " ".join(
        i for rule, _ in heldout.above_info(outcome) for i in heldout.items(outcome, rule)
    )
    assert "Connection refused" in items and "line 17" in items
