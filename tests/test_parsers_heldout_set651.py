"""Outputs of round KKKK's held-out evaluation (set 651, NVIDIA tool outputs) that the advisor did
not read before this change (tests/data/evidence_heldout_71, sources in tests/data/SOURCES.md):
gpu-burn on 16 GPUs, every one marked FAULTY under an exit code of 0, read as no format at all;
and dcgmi health -c's report in the layout the DCGM User Guide shows ("| Group 1 | Overall
Health: Warning |", "| GPU ID: 0 | Warning |"), read as no format though dcgmi health is one."""

from __future__ import annotations

from functools import partial
from pathlib import Path

from advisor.evidence.load import detect
from tests import heldout
from tests.conftest import DATA

HELDOUT = DATA / "evidence_heldout_71"

GPU_BURN = "gpu_burn_16gpu_all_faulty_compare_errors_exit0_gpuburn12_cut.txt"
HEALTH = (
    "dcgmi_health_c_docs_example_gpu0_pcie_replays_13_per_min_gpu1_corrupt_inforom_warning_"
    "dcgm_feature_overview.txt"
)


_load = partial(heldout.load, HELDOUT)
_text = partial(heldout.text, HELDOUT)


_write = partial(heldout.load_copy, name="copy.txt")


# --- gpu-burn: 16 GPUs FAULTY, exit 0 ------------------------------------------------------------


def test_gpu_burn_all_sixteen_faulty_is_not_ready() -> None:
    assert detect(_text(GPU_BURN)) == ["gpu_burn"]
    ev = _load(GPU_BURN)
    faulty = [f for f in ev.failures if f["kind"] == "gpu_burn_faulty"]
    # one a GPU, at its own summary line (lines 5-20)
    assert [(f["device"], f["line"]) for f in faulty] == [(g, 5 + g) for g in range(16)]
    level, outcome = heldout.imported(ev)
    assert level == "NOT READY"
    assert dict(heldout.above_info(outcome))["evidence-gpu-burn-faulty"] == "critical"
    message, items = heldout.finding(outcome, "evidence-gpu-burn-faulty")
    assert message.startswith("16 GPU(s) that gpu-burn marked FAULTY")
    assert "exits 0 whatever it found" in message
    # the GPUs with compare errors on line 1 name their counts; the others say why none shows
    with_errors = {1, 2, 3, 4, 9, 11, 14}
    for gpu, item in enumerate(items):
        assert item.startswith(f"GPU {gpu}: FAULTY (line {5 + gpu})")
        if gpu in with_errors:
            assert "-524288000 compare error(s) (WARNING!) at line 1" in item
            assert "overflowed" in item
        else:
            assert "no error on the progress line(s) in the copy" in item
    # temperatures and rates are figures, not a cause
    assert any("16 GPU(s) at 6311-6660 Gflop/s, 45-52 C" in n for n in heldout.said(ev))
    assert not any(r.startswith("evidence-gpu-throttled") for r, _ in heldout.above_info(outcome))


def test_gpu_burn_healthy_twin_stays_ready(tmp_path: Path) -> None:
    lines = _text(GPU_BURN).splitlines()
    first = lines[0].replace("-524288000  (WARNING!)", "0 ")
    summary = [line.replace("FAULTY", "OK") for line in lines[1:]]
    ev = _write(tmp_path, "\n".join([first, *summary]) + "\n")
    assert not [f for f in ev.failures if f["kind"] == "gpu_burn_faulty"]
    level, _ = heldout.imported(ev)
    assert level == "READY"
    assert any("GPU(s) 0, 1, 2" in n and "OK (lines 5-20)" in n for n in heldout.said(ev))


def test_gpu_burn_one_gpu_of_four_faulty_and_one_died(tmp_path: Path) -> None:
    # a newer release's progress line (power column), GPU 2 with errors, GPU 3's process dead
    text = (
        "Burning for 60 seconds.\n"
        "100.0%  proc'd: 5400 (21000 Gflop/s) - 5400 (21010 Gflop/s) - 5300 (20990 Gflop/s) - "
        "-1 (0 Gflop/s)   errors: 0 - 0 - 37  (WARNING!)- 0  (DIED!)   temps: 61 C - 62 C - "
        "60 C - --   power: 300 W - 301 W - 299 W - -- \n"
        "Killing processes with SIGTERM (soft kill)\n"
        "done\n"
        "\n"
        "Tested 4 GPUs:\n"
        "\tGPU 0: OK\n"
        "\tGPU 1: OK\n"
        "\tGPU 2: FAULTY\n"
        "\tGPU 3: FAULTY\n"
    )
    ev = _write(tmp_path, text)
    faulty = [f for f in ev.failures if f["kind"] == "gpu_burn_faulty"]
    assert [(f["device"], f["line"]) for f in faulty] == [(2, 9), (3, 10)]
    assert "37 compare error(s) (WARNING!) at line 2" in faulty[0]["exception_type"]
    assert "overflowed" not in faulty[0]["exception_type"]
    assert "its process died (DIED!, line 2)" in faulty[1]["exception_type"]
    level, _ = heldout.imported(ev)
    assert level == "NOT READY"
    assert any("GPU(s) 0, 1 OK (lines 7-8)" in n for n in heldout.said(ev))


def test_gpu_burn_cut_before_summary_names_gpu_with_errors(tmp_path: Path) -> None:
    text = "50.0%  proc'd: 100 (6000 Gflop/s) - 90 (6010 Gflop/s)   errors: 0 - 5  (WARNING!)   temps: 50 C - 51 C \n"
    ev = _write(tmp_path, text)
    (faulty,) = [f for f in ev.failures if f["kind"] == "gpu_burn_faulty"]
    assert (faulty["device"], faulty["line"]) == (1, 1)
    assert any("ends before its 'Tested N GPUs' summary" in n for n in heldout.said(ev))


# --- dcgmi health -c, the User Guide's layout ---------------------------------------------------


def test_dcgmi_health_docs_example_warns_on_gpu0_pcie_and_gpu1_inforom() -> None:
    assert detect(_text(HEALTH)) == ["dcgmi_health"]
    ev = _load(HEALTH)
    (diag,) = ev.dcgm_diags
    checks = [(c["name"], c["result"], c["gpus"], c["line"], c["details"]) for c in diag["checks"]]
    assert checks == [
        (
            "PCIe system",
            "Warn",
            "GPU: 0",
            6,
            ["Detected more than 8 PCIe replays per minute for GPU 0: 13"],
        ),
        (
            "InfoROM system",
            "Warn",
            "GPU: 1",
            10,
            ["A corrupt InfoROM has been detected in GPU 1."],
        ),
    ]
    level, outcome = heldout.imported(ev)
    assert level == "READY WITH WARNINGS"
    assert dict(heldout.above_info(outcome)) == {"evidence-dcgm-diag-warned": "warning"}
    _, items = heldout.finding(outcome, "evidence-dcgm-diag-warned")
    said = " ".join(items)
    assert "PCIe system (dcgmi health): Warn - GPU: 0" in said and "GPU 0: 13" in said
    assert "InfoROM system (dcgmi health): Warn - GPU: 1" in said


def test_dcgmi_health_older_layout_failure_on_another_gpu(tmp_path: Path) -> None:
    text = _text(HEALTH).replace("Overall Health: Warning", "Overall Health: Failure ")
    text = text.replace("GPU ID: 1 ", "GPU ID: 5 ").replace(
        "InfoROM system: Warning", "Memory system: Failure"
    )
    ev = _write(tmp_path, text)
    (diag,) = ev.dcgm_diags
    assert [(c["name"], c["result"], c["gpus"]) for c in diag["checks"]] == [
        ("PCIe system", "Warn", "GPU: 0"),
        ("Memory system", "Fail", "GPU: 5"),
    ]
    level, _ = heldout.imported(ev)
    assert level == "NOT READY"


def test_dcgmi_health_older_layout_healthy_stays_ready(tmp_path: Path) -> None:
    lines = _text(HEALTH).splitlines()
    text = "\n".join(lines[:4]).replace("Warning", "Healthy") + "\n"
    ev = _write(tmp_path, text)
    (diag,) = ev.dcgm_diags
    assert [(c["name"], c["result"], c["line"]) for c in diag["checks"]] == [
        ("Overall Health", "Pass", 3)
    ]
    level, _ = heldout.imported(ev)
    assert level == "READY"
