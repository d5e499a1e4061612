"""Review 50 of round EEEE (sets 613-618) and review 49's mends, faults 3, 4, 6, 10 and 11: a
grep of npu-smi info that kept only the chips' second rows, one chip's HBM held; nvidia-smi -q
run again after a held GPU's process was ended; simpleP2P run on two hosts through pdsh, one
failing; nvidia-smi -L cut by head, then a container's one-GPU listing; a --query-gpu row whose
mig.mode.pending differs from its mig.mode.current: each on its input (tests/data/review50,
described in tests/data/SOURCES.md)."""

from __future__ import annotations

import re

from advisor.evidence.load import EvidenceFacts, load_paths, load_text
from advisor.parsers import npu_smi, simple_p2p
from tests import heldout
from tests.conftest import DATA

REVIEW = DATA / "review50"


def _load(name: str) -> EvidenceFacts:
    return load_paths([REVIEW / name])


# --- 3. npu-smi info | grep 0000: the chips' second rows, one chip's HBM held ------------------

NPU_GREP = "npu_smi_info_grep_0000_910b2_8_chip_rows_npu5_hbm_61234_held.txt"


def test_a_grepped_chip_rows_held_hbm_is_judged_and_the_chip_named_by_its_bus_id() -> None:
    ev = _load(NPU_GREP)
    level, outcome = heldout.imported(ev)
    assert level == "READY WITH WARNINGS"
    assert heldout.above_info(outcome) == [("evidence-npu-hbm-held", "warning")]
    (item,) = heldout.items(outcome, "evidence-npu-hbm-held")
    assert item.startswith("the NPU chip at bus id 0000:02:00.0 (its NPU id, name and health")
    assert "HBM 61234 of 65536 MB (93.4 %)" in item and "line 7" in item
    assert "NPU None" not in item
    # eight chips, each by its bus id, no NPU id or health made up
    chips = ev.npu_chips
    assert [c["bus_id"] for c in chips] == [
        "0000:C1:00.0",
        "0000:C2:00.0",
        "0000:81:00.0",
        "0000:82:00.0",
        "0000:01:00.0",
        "0000:02:00.0",
        "0000:41:00.0",
        "0000:42:00.0",
    ]
    assert {(c["npu"], c["health"], c["name"]) for c in chips} == {(None, None, "")}
    assert [c["hbm_used_pct"] for c in chips][4:6] == [5.2, 93.4]
    # the notes name each chip by its bus id, its index as its NPU's, and no longer say that
    # no chip's figures are judged
    said = [m for _, m in heldout.notes(ev)]
    assert len(said) == 8
    assert "the chip at bus id 0000:02:00.0 (chip 0 of its NPU)" in said[5]
    assert (
        "HBM 61234 / 65536 MB" in said[5] and "its health is not judged (its memory is)" in said[5]
    )
    assert not any("no chip's health judged" in m for m in said)


def test_grepped_rows_keep_their_layouts_figures_apart() -> None:
    # a 310P's "Chip Device" row: its one pair is the device memory, judged as a 310P's is;
    # a row of one id and one pair could be either column: kept as said, no chip made
    row_310p = "| 0       1                     | 0000:85:00.0    | 0            15000 / 21525 |\n"
    (chip,) = load_text(row_310p, "npu.txt").npu_chips
    assert (chip["device"], chip["memory_used_pct"], chip["hbm_used_pct"]) == (1, 69.7, None)
    assert heldout.imported(load_text(row_310p, "npu.txt"))[0] == "READY WITH WARNINGS"
    info = npu_smi.parse_info("| 0   | 0000:85:00.0 | 0   15000 / 21525 |\n")
    (row,) = info.rows_alone
    assert (row.memory_used_mb, row.hbm_used_mb, row.chip) == (None, None, 0)
    assert load_text("| 0   | 0000:85:00.0 | 0   15000 / 21525 |\n", "npu.txt").npu_chips == []


def test_the_whole_table_the_rows_came_from_reads_as_before() -> None:
    ev = load_paths([DATA / "evidence_heldout_10" / "npu_smi_info_1.txt"])
    assert [c["npu"] for c in ev.npu_chips] == [0, 1, 2]
    assert all(c["health"] for c in ev.npu_chips)
    assert heldout.imported(ev)[0] == "READY"


# --- 4. nvidia-smi -q again after the held GPU's process ended --------------------------------

Q_AGAIN = "nvidia_smi_q_8xa100_gpu0b_held_70gb_then_kill_and_q_again_processes_none.txt"


def test_a_later_q_of_the_same_gpus_is_their_state_and_the_held_gpu_is_free() -> None:
    ev = _load(Q_AGAIN)
    # 8 GPUs (their UUIDs), each the later record's
    assert len(ev.gpus) == 8 and [g["gpu"] for g in ev.gpus] == list(range(8))
    assert all(g["line"] > 1461 for g in ev.gpus)
    held = [g for g in ev.gpus if g["bus_id"] == "00000000:0B:00.0"]
    assert [(g["memory_used_mib"], g.get("processes")) for g in held] == [(3, [])]
    level, outcome = heldout.imported(ev)
    assert "evidence-gpu-held-by-process" not in {f.rule_id for f in outcome.findings}
    # (the hung job's idle GPU 0, the original sample's reading, stands: the later record's)
    assert heldout.above_info(outcome) == [("evidence-gpu-idle-among-busy", "warning")]
    assert level == "READY WITH WARNINGS"
    said = [m for _, m in heldout.notes(ev)]
    assert any(": 8 GPUs 00000000:07:00.0" in m for m in said)
    assert not any("16 GPUs" in m for m in said)
    assert any("nvidia-smi -q again (line 1470): 8 record(s) of GPUs the file" in m for m in said)


def test_the_first_q_alone_still_warns_the_held_gpu_and_records_of_other_gpus_stay() -> None:
    text = (REVIEW / Q_AGAIN).read_text()
    first, _ = text.split("$ kill 280059")
    _, outcome = heldout.imported(load_text(first, "q.txt"))
    assert "evidence-gpu-held-by-process" in {f.rule_id for f in outcome.findings}
    # a second host's -q (other UUIDs, the same bus ids: NVML's UUID is each GPU's own): 16
    # GPUs, none replaced
    other = re.sub(r"(GPU UUID\s+: GPU-)[0-9a-f]", r"\g<1>0", text.split("$ kill 280059")[1])
    two_hosts = load_text(first + "$ ssh gpu02 nvidia-smi -q" + other, "q.txt")
    assert len(two_hosts.gpus) == 16
    assert not any("nvidia-smi -q again" in m for _, m in heldout.notes(two_hosts))


def test_the_original_q_sample_reads_as_before() -> None:
    ev = load_paths(
        [
            DATA / "evidence_heldout_47" / "nvidia_smi_q_8xa100_hung_job_gpu0_util0_others_"
            "busy_m4_tr141.txt"
        ]
    )
    assert len(ev.gpus) == 8
    level, _ = heldout.imported(ev)
    assert level == "READY WITH WARNINGS"
    assert not any("nvidia-smi -q again" in m for _, m in heldout.notes(ev))


# --- 6. simpleP2P on two hosts through pdsh ----------------------------------------------------

P2P_PDSH = "simpleP2P_pdsh_gpu02_verification_error_nan_test_failed_gpu01_test_passed.txt"


def test_each_hosts_simplep2p_run_is_its_own_and_the_failing_host_is_named() -> None:
    ev = _load(P2P_PDSH)
    failing, passing = ev.gpu_copy
    (failed,) = failing["failed"]
    assert (failed["line"], failed["test"]) == (16, "simpleP2P on gpu02 GPU0<->GPU1")
    assert "(12 wrong value(s) printed); Test failed! (line 30)" in failed["message"]
    assert passing["failed"] == [] and passing["complete"]
    level, outcome = heldout.imported(ev)
    assert level == "NOT READY"
    (item,) = heldout.items(outcome, "evidence-gpu-copy-test-failed")
    assert item.startswith("simpleP2P on gpu02 GPU0<->GPU1: Verification error @ element 0")
    assert "line 47" not in item
    said = dict(heldout.notes(ev))
    assert said[11] == "simple_p2p: simpleP2P on gpu02: cudaMemcpyPeer GPU0<->GPU1: 10.39 GB/s"
    assert said[40].endswith("simpleP2P on gpu01: cudaMemcpyPeer GPU0<->GPU1: 10.39 GB/s; Test "
                             "passed (line 47)")  # fmt: skip
    runs = simple_p2p.parse_hosts((REVIEW / P2P_PDSH).read_text())
    assert [(r.host, r.result, len(r.wrong), r.line) for r in runs] == [
        ("gpu02", "failed", 12, 2),
        ("gpu01", "passed", 0, 31),
    ]


def test_interleaved_hosts_and_an_address_prefix_read_alike() -> None:
    lines = (REVIEW / P2P_PDSH).read_text().splitlines()
    head, body = lines[0], lines[1:]
    # pdsh prints lines as they come: the two hosts' interleaved
    mixed = [line for pair in zip(body[:17], body[29:], strict=True) for line in pair]
    text = "\n".join([head, *mixed, *body[17:29]]) + "\n"
    runs = simple_p2p.parse_hosts(text.replace("gpu01: ", "10.0.0.1: "))
    assert [(r.host, r.result, len(r.wrong)) for r in runs] == [
        ("gpu02", "failed", 12),
        ("10.0.0.1", "passed", 0),
    ]


def test_the_one_host_sample_reads_as_before() -> None:
    ev = load_paths(
        [
            DATA / "evidence_heldout_67" / "simpleP2P_cuda11.8_2x_rtx4090_verification_error_nan_"
            "test_failed.txt"
        ]
    )
    (run,) = ev.gpu_copy
    (failed,) = run["failed"]
    assert (failed["line"], failed["test"]) == (17, "simpleP2P GPU0<->GPU1")
    assert heldout.imported(ev)[0] == "NOT READY"


# --- 10. nvidia-smi -L | head -n2, then a container's one-GPU listing --------------------------

L_DOCKER = "nvidia_smi_L_head_n2_of_8_then_docker_one_gpu_device5_listing.txt"


def test_a_containers_listing_after_a_cut_one_keeps_the_cut_said() -> None:
    ev = _load(L_DOCKER)
    ((line, note),) = [(n, m) for n, m in heldout.notes(ev) if "GPU(s)" in m]
    assert line == 2
    assert "GPU 0, 1 (the listing at line 2); GPU 0 (the listing at line 5: GPUs the" in note
    assert (
        "numbered from its own GPU 0: another listing, another host's (a loop over hosts) or a "
        "restricted view of one host's (a container's or a job's)"
    ) in note
    assert "('nvidia-smi -L | head -n2' keeps its first 2 lines)" in note
    assert note.endswith("so this is not the host's count")
    assert "GPU 0, 1, 0" not in note
    assert heldout.imported(ev)[0] == "READY"


def test_a_cut_listing_before_a_whole_one_still_says_no_cut() -> None:
    # review 49's sample: the later listing holds the cut one's GPUs (their UUIDs) and more
    ev = load_paths([DATA / "review49" / "nvidia_smi_L_head_n2_then_full_listing_8_gpus.txt"])
    (first, _) = [(n, m) for n, m in heldout.notes(ev) if "nvidia-smi -L" in m]
    assert first[1].endswith("GPU(s) (NVIDIA A100-SXM4-80GB): GPU 0, 1, 2, 3, 4, 5, 6, 7")


# --- 11. --query-gpu: mig.mode.pending apart from mig.mode.current -----------------------------

MIG_PENDING = (
    "nvidia_smi_query_gpu_csv_mig_mode_gpu2_current_disabled_pending_enabled_reset_needed_"
    "compute01.txt"
)


def test_a_pending_mig_enable_in_a_query_row_is_a_note() -> None:
    ev = _load(MIG_PENDING)
    ((line, note),) = heldout.notes(ev)
    assert line == 8
    assert note == (
        "nvidia_smi_query_csv: nvidia-smi --query-gpu: MIG enable pending on GPU 2 "
        "(GPU-b4199570-ed3c-2a6b-646a-af77be93eac5): mig.mode.current Disabled, mig.mode.pending "
        "Enabled; the change takes effect once the GPU is reset or the system rebooted, until "
        "then the GPU runs without MIG; a mode change waiting, not a fault"
    )
    assert [(g["mig_mode"], g["mig_mode_pending"]) for g in ev.gpus][2] == ("Disabled", "Enabled")
    level, outcome = heldout.imported(ev)
    # (GPU 0 runs in MIG mode: set 633's warning, the MIG User Guide's no P2P between MIG
    # instances; GPU 2's pending enable stays a note, not a second item)
    assert level == "READY WITH WARNINGS"
    assert heldout.above_info(outcome) == [("evidence-gpu-mig-mode", "warning")]
    (item,) = heldout.items(outcome, "evidence-gpu-mig-mode")
    assert item.startswith("GPU 0: MIG mode Enabled")
    # a pending disable reads the other way round
    text = (REVIEW / MIG_PENDING).read_text().replace("Enabled, Enabled", "Enabled, Disabled")
    notes = [m for _, m in heldout.notes(load_text(text, "q.csv"))]
    assert any("MIG disable pending on GPU 0" in m and "with its MIG instances" in m for m in notes)


def test_the_query_sample_with_no_pending_change_reads_as_before() -> None:
    ev = load_paths(
        [
            DATA / "evidence_heldout_67" / "nvidia_smi_query_gpu_csv_mig_mode_current_pending_"
            "4gpu_nvmm_prefixed_compute01.txt"
        ]
    )
    assert len(ev.gpus) == 4 and heldout.notes(ev) == []
    # (GPU 0's MIG mode is set 633's warning; no pending change adds anything)
    level, outcome = heldout.imported(ev)
    assert level == "READY WITH WARNINGS"
    assert heldout.above_info(outcome) == [("evidence-gpu-mig-mode", "warning")]
