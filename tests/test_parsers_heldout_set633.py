"""Outputs of round HHHH's held-out evaluation (set 633, NVIDIA tool outputs) that the advisor
read wrong or in part before this change (tests/data/evidence_heldout_68, sources in
tests/data/SOURCES.md): a ``dcgmi diag -r 3`` table kept as one JSON string with its line breaks
escaped, not recognised; an ``nvidia-smi -L`` listing whose UUIDs its author masked with X's, not
recognised; GPUs listed in MIG mode read as a healthy inventory (now a warning: NVIDIA's MIG User
Guide, Deployment Considerations, "Application Considerations": no GPU-to-GPU P2P, PCIe or
NVLink, between MIG instances; CUDA enumerates one MIG instance per process)."""

from __future__ import annotations

import json
from functools import partial
from pathlib import Path

from tests import heldout
from tests.conftest import DATA

HELDOUT = DATA / "evidence_heldout_68"

DCGM_JSON = "dcgmi_diag_r3_dcgm_3.3.9_4x_a10g_targeted_power_fail_gpu1_json_escaped_one_line.txt"
MASKED = (
    "nvidia_smi_L_8x_a100_sxm4_80gb_mixed_mig_masked_uuids_gpu2_absent_prompt_trailing_spaces.txt"
)
STATION = "nvidia_smi_L_dgx_station_a100_mig_3g40gb_on_gpu2_gpu4_dgx_display_hash_commented_in_pbs_script.txt"


_load = partial(heldout.load, HELDOUT)


_write = partial(heldout.load_copy, name="copy.txt")


# --- dcgmi diag kept as one JSON string ---------------------------------------------------------


def test_a_dcgm_diag_kept_as_one_escaped_json_string_is_read_as_its_table() -> None:
    ev = _load(DCGM_JSON)
    assert ev.files[0].formats == ["dcgm_diag"]
    assert any(
        "an output kept as one JSON string on line 1 (its line breaks written '\\n') read as "
        "the 40 lines it holds" in m
        for m in heldout.said(ev)
    )
    level, outcome = heldout.imported(ev)
    assert level == "NOT READY"
    assert heldout.above_info(outcome) == [("evidence-dcgm-diag-failed", "critical")]
    (item,) = heldout.items(outcome, "evidence-dcgm-diag-failed")
    assert item.startswith(
        "Targeted Power (Stress): Fail - GPU: 1: Warning: GPU 1 Max power of 224.1"
    )
    # (GPUs 0, 2 and 3 passed it: only GPU 1 is failed)
    assert "Fail - GPU: 0" not in item and "Fail - GPU: 2" not in item


def test_an_ansible_stdout_string_cut_before_its_closing_quote_is_read_too(tmp_path: Path) -> None:
    table = (HELDOUT / DCGM_JSON).read_text()
    held = json.loads(table.strip().rstrip(",").split(": ", 1)[1])
    # another key, another indent, and the copy cut before the string's closing quote
    cut = '    "stdout": ' + json.dumps(held)[:-1]
    ev = _write(tmp_path, "{\n" + cut + "\n")
    assert [f.formats for f in ev.files] == [["dcgm_diag"]]
    level, outcome = heldout.imported(ev)
    assert level == "NOT READY"
    assert heldout.above_info(outcome) == [("evidence-dcgm-diag-failed", "critical")]


def test_a_json_message_with_one_or_two_line_breaks_is_left_as_it_is(tmp_path: Path) -> None:
    ev = _write(tmp_path, '{"msg": "Successfully ran diagnostic for group.\\nDone\\n"}\n')
    assert not any("kept as one JSON string" in m for m in heldout.said(ev))


# --- nvidia-smi -L: masked UUIDs, a gap, MIG ------------------------------------------------------


def test_a_listing_with_masked_uuids_is_read_its_gap_and_mig_gpus_said() -> None:
    ev = _load(MASKED)
    said = heldout.said(ev)
    assert any(
        "nvidia-smi -L: 7 GPU(s) (NVIDIA A100-SXM4-80GB): GPU 0, 1, 3, 4, 5, 6, 7; GPU 2 not "
        "listed (nvidia-smi numbers its GPUs from 0 without a gap)" in m
        for m in said
    )
    assert [(g["gpu"], g["mig"]) for g in ev.mig_gpus] == [
        (0, ["4g.40gb", "3g.40gb"]),
        (1, ["1g.10gb"]),
        (3, ["2g.20gb"]),
        (4, ["3g.40gb"]),
    ]
    level, outcome = heldout.imported(ev)
    # a warning: a gap in a copy is no failure, and GPU 2 is not said to be missing as a fault
    assert level == "READY WITH WARNINGS"
    assert heldout.above_info(outcome) == [("evidence-gpu-mig-mode", "warning")]
    items = heldout.items(outcome, "evidence-gpu-mig-mode")
    assert items[0].startswith(
        "GPU 0 (NVIDIA A100-SXM4-80GB): 2 MIG instance(s) (4g.40gb, 3g.40gb)"
    )
    assert len(items) == 4 and not any(i.startswith(("GPU 5", "GPU 6", "GPU 7")) for i in items)


def test_uuids_masked_whole_are_each_their_own_gpu(tmp_path: Path) -> None:
    masked = "GPU-XXXXXXXX-XXXX-XXXX-XXXX-XXXXXXXXXXXX"
    ev = _write(
        tmp_path,
        "".join(f"GPU {i}: NVIDIA H100 80GB HBM3 (UUID: {masked})\n" for i in range(4)),
    )
    assert any(
        "nvidia-smi -L: 4 GPU(s) (NVIDIA H100 80GB HBM3): GPU 0, 1, 2, 3" in m
        for m in heldout.said(ev)
    )
    assert not any("again" in m for m in heldout.said(ev))
    level, _ = heldout.imported(ev)
    assert level == "READY"


def test_the_dgx_station_listing_warns_of_its_two_mig_gpus() -> None:
    ev = _load(STATION)
    assert any(
        "nvidia-smi -L: 5 GPU(s) (NVIDIA A100-SXM4-80GB, NVIDIA DGX Display): GPU 0, 1, 2, 3, 4"
        in m
        for m in heldout.said(ev)
    )
    level, outcome = heldout.imported(ev)
    assert level == "READY WITH WARNINGS"
    assert heldout.above_info(outcome) == [("evidence-gpu-mig-mode", "warning")]
    assert heldout.items(outcome, "evidence-gpu-mig-mode") == [
        "GPU 2 (NVIDIA A100-SXM4-80GB): 2 MIG instance(s) (3g.40gb, 3g.40gb) "
        f"({HELDOUT / STATION}, line 3)",
        "GPU 4 (NVIDIA A100-SXM4-80GB): 2 MIG instance(s) (3g.40gb, 3g.40gb) "
        f"({HELDOUT / STATION}, line 7)",
    ]


def test_mig_mode_enabled_in_a_query_gpu_csv_is_the_same_warning(tmp_path: Path) -> None:
    ev = _write(
        tmp_path,
        "index, name, mig.mode.current\n"
        "0, NVIDIA A100-SXM4-80GB, Enabled\n"
        "1, NVIDIA A100-SXM4-80GB, Disabled\n",
    )
    level, outcome = heldout.imported(ev)
    assert level == "READY WITH WARNINGS"
    (item,) = heldout.items(outcome, "evidence-gpu-mig-mode")
    assert item.startswith("GPU 0 (NVIDIA A100-SXM4-80GB): MIG mode Enabled")
