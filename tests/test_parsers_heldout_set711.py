"""Outputs of round UUUU's held-out evaluation (set 711, NVIDIA tool outputs) that the advisor
read wrong or in part before this change (tests/data/evidence_heldout_81, sources in
tests/data/SOURCES.md): ``nvidia-smi --gpu-reset`` refused in the older one-line wording ("GPU
... is currently in use by another process.") with ``fuser -v /dev/nvidia*`` under it was no
format the advisor knew; a pending MIG disable was read but not the refused reset and the reset
that went through after it; and ``dcgmi policy --get -v`` with two ``dcgmi test --inject`` of
field 230 was no format the advisor knew."""

from __future__ import annotations

from functools import partial
from pathlib import Path

from advisor.evidence.load import EvidenceFacts
from tests import heldout
from tests.conftest import DATA

HELDOUT = DATA / "evidence_heldout_81"

RESET = (
    "nvidia_smi_gpu_reset_i1_refused_in_use_00_18_0_then_fuser_v_python_pid45208_holds_nvidia0_7"
    "_cupy1930_cut.txt"
)
MIG = (
    "nvidia_smi_mig_disabled_pending_in_use_c1_00_0_gpu_reset_refused_killall_persistenced_then"
    "_reset_successful_gpuoperator118.txt"
)
POLICY = (
    "dcgmi_policy_get_v_gpu0_xid_reset_gpu_manual_then_dcgmi_test_inject_field230_twice_4090"
    "_indented_dcgm185.txt"
)

_write = partial(heldout.load_copy, name="copy.txt")
_load = partial(heldout.load, HELDOUT)
_text = partial(heldout.text, HELDOUT)


def _said(ev: EvidenceFacts) -> list[tuple[int | None, str]]:
    return [(m.line, m.message) for f in ev.files for m in f.messages]


# --- nvidia-smi --gpu-reset refused, one line a GPU, and fuser -v under it ----------------------


def test_a_refused_reset_in_the_older_wording_names_the_gpu_and_the_holder() -> None:
    ev = _load(RESET)
    assert ev.files[0].formats == ["log"] and ev.files[0].status == "read"
    (fail,) = ev.failures
    assert (fail["kind"], fail["line"], fail["library"]) == ("gpu_driver_error", 2, "nvidia-smi")
    assert fail["exception_type"].startswith(
        "nvidia-smi -r could not reset GPU 00000000:00:18.0: in use by another process"
    )
    # (review 67a: the copy shows no nvidia-smi -q Minor Number for GPU 00:18.0, so which
    # /dev/nvidiaN is its own is not known: the holders are named with the files they hold,
    # not as holding this GPU)
    assert (
        "fuser -v, files not tied to this GPU (no nvidia-smi -q Minor Number for it in the "
        "copy): python (PID 45208, user ubuntu) holds /dev/nvidia0-7 (lines 8-15)"
        in (fail["exception_type"])
    )
    assert fail["exception_type"].endswith(": the GPU was not reset")
    level, outcome = heldout.imported(ev)
    assert level == "READY WITH WARNINGS"
    (found,) = [f for f in outcome.findings if f.rule_id == "evidence-gpu-driver-error"]
    assert "00000000:00:18.0" in found.items[0] and "line 2" in found.items[0]


def test_another_gpu_and_two_holders_are_named_as_the_copy_gives_them(tmp_path: Path) -> None:
    text = (
        _text(RESET)
        .replace("-i 1", "-i 3")
        .replace("00000000:00:18.0", "00000000:3B:00.0")
        .replace(
            "/dev/nvidia7:        ubuntu    45208 F...m python",
            "/dev/nvidia7:        "
            "ubuntu    45208 F...m python\n                     root       2211 F.... "
            "nvidia-persistenced",
        )
    )
    (fail,) = _write(tmp_path, text).failures
    said = fail["exception_type"]
    assert "GPU 00000000:3B:00.0" in said
    assert "python (PID 45208, user ubuntu) holds /dev/nvidia0-7 (lines 8-15)" in said
    assert "nvidia-persistenced (PID 2211, user root) holds /dev/nvidia7 (line 16)" in said


def test_the_refusal_without_fuser_still_warns_and_a_later_reset_makes_it_a_note(
    tmp_path: Path,
) -> None:
    refused = "".join(_text(RESET).splitlines(keepends=True)[:4])
    (fail,) = _write(tmp_path, refused).failures
    assert "fuser" not in fail["exception_type"]
    # the same GPU reset after the holder was stopped: history, no failure
    done = (
        refused
        + "\n$ kill 45208\n$ sudo nvidia-smi --gpu-reset -i 1\n"
        + ("GPU 00000000:00:18.0 was successfully reset.\n")
    )
    ev = _write(tmp_path, done)
    assert ev.failures == []
    assert any(
        line == 2 and "a later nvidia-smi -r reset it (line 8" in note for line, note in _said(ev)
    )
    assert heldout.imported(ev)[0] == "READY"


# --- a pending MIG disable, the reset refused, then the reset that went through -----------------


def test_the_pending_mig_change_is_read_with_each_reset_step_and_ends_ready() -> None:
    ev = _load(MIG)
    assert ev.files[0].status == "read" and ev.failures == []
    notes = dict(_said(ev))
    assert notes[2].endswith(
        "after it: nvidia-smi --gpu-reset refused, in use by another process (line 7); "
        "'killall nvidia-persistenced' (line 11); then GPU 00000000:C1:00.0 was successfully "
        "reset (line 14): the pending MIG change took effect with that reset"
    )
    assert "a later nvidia-smi -r reset it (line 14" in notes[7]
    level, outcome = heldout.imported(ev)
    assert level == "READY" and heldout.above_info(outcome) == []


def test_a_pending_change_whose_reset_stays_refused_warns(tmp_path: Path) -> None:
    # the copy without its last try: the GPU is still held, the change still pending
    text = "".join(_text(MIG).splitlines(keepends=True)[:11])
    ev = _write(tmp_path, text)
    (fail,) = ev.failures
    assert (fail["line"], fail["kind"]) == (7, "gpu_driver_error")
    notes = dict(_said(ev))
    assert "refused, in use by another process (line 7)" in notes[2]
    assert "successfully reset" not in notes[2]
    assert heldout.imported(ev)[0] == "READY WITH WARNINGS"


def test_another_gpus_reset_does_not_end_this_ones_pending_change(tmp_path: Path) -> None:
    text = _text(MIG).replace(
        "GPU 00000000:C1:00.0 was successfully reset.",
        "GPU 00000000:81:00.0 was successfully reset.",
    )
    ev = _write(tmp_path, text)
    notes = dict(_said(ev))
    assert "took effect" not in notes[2]
    assert [f["line"] for f in ev.failures] == [7]


# --- dcgmi policy --get -v and dcgmi test --inject ----------------------------------------------


def test_the_policy_box_and_the_injections_are_read_as_notes_and_ready() -> None:
    ev = _load(POLICY)
    assert ev.files[0].formats == ["dcgmi_policy"] and ev.files[0].status == "read"
    notes = dict(_said(ev))
    assert notes[7] == (
        "dcgmi_policy: dcgmi policy: GPU ID: 0: Violation conditions: XID error detected.; "
        "Isolation mode: Manual; Action on violation: Reset GPU; Validation after action: System "
        "Validation (Short); Validation failure action: None (the policy DCGM is set to apply, not "
        "a violation)"
    )
    for at, answer in ((14, 15), (18, 19)):
        assert notes[at].startswith(
            "dcgmi_policy: dcgmi test --inject: field 230 (DCGM_FI_DEV_XID_ERRORS"
        )
        assert f"for GPU 0 (line {answer}: 'Successfully injected field info.')" in notes[at]
        assert notes[at].endswith("a synthetic test value, not an event the GPU raised")
    assert ev.failures == []
    level, outcome = heldout.imported(ev)
    assert level == "READY" and heldout.above_info(outcome) == []


def test_two_gpus_and_two_conditions_are_said_per_box(tmp_path: Path) -> None:
    lines = _text(POLICY).splitlines(keepends=True)
    box = "".join(lines[2:12])
    second = box.replace("GPU ID: 0 ", "GPU ID: 1 ").replace(
        "| XID error detected.                            |",
        "| Double-bit ECC errors                          |\n"
        "  |                             | XID error detected.                            |",
    )
    ev = _write(tmp_path, "".join(lines[:2]) + box + second)
    said = [note for _, note in _said(ev) if note.startswith("dcgmi_policy:")]
    assert len(said) == 2
    assert "GPU ID: 0: Violation conditions: XID error detected.;" in said[0]
    assert "GPU ID: 1: Violation conditions: Double-bit ECC errors, XID error detected.;" in said[1]


def test_an_injection_of_another_field_is_named_by_its_number_only(tmp_path: Path) -> None:
    text = _text(POLICY).replace("--gpuid 0 -f 230 -v 1", "--gpuid 2 -f 150 -v 95")
    notes = dict(_said(_write(tmp_path, text)))
    assert "dcgmi test --inject: field 150 = 95 put into DCGM for GPU 2 (line 15" in notes[14]
