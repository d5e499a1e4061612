"""Outputs of round CCCC's held-out evaluation (set 603, NVIDIA tool outputs) that the advisor
read in part or not at all before this change (tests/data/evidence_heldout_65, sources in
tests/data/SOURCES.md): ``nvidia-smi dmon`` quoted in Markdown with its header's "#" escaped,
and a p2pBandwidthLatencyTest of two RTX 4090 whose copies between them, P2P on or off, run at
a quarter of their PCIe Gen 4 x16 links."""

from __future__ import annotations

from functools import partial
from pathlib import Path
from typing import Any

from advisor.evidence.load import EvidenceFacts
from advisor.parsers import p2p_bandwidth
from tests import heldout
from tests.conftest import DATA
from tests.rules_facts import builtin_findings

HELDOUT = DATA / "evidence_heldout_65"
DMON = "nvidia_smi_dmon_pucvmet_4gpu_quoted_gt_escaped_hash_deepspeech178.txt"
P2P_4090 = "p2pBandwidthLatencyTest_2x_rtx4090_fedora_prompt_prefixed_cut_tinygrad44.txt"


_load = partial(heldout.load, HELDOUT)


_write = partial(heldout.load_copy, name="copy.txt")


def _bad(ev: EvidenceFacts) -> dict[str, Any]:
    """The built-in rules' critical and warning findings on an import's facts."""
    found = builtin_findings(
        {
            "evidence.failures": ev.failures,
            "evidence.gpus": ev.gpus,
            "evidence.gpu_copy": ev.gpu_copy,
            "evidence.benchmarks": ev.benchmarks,
        },
        "nccl",
    )
    return {k: f for k, f in found.items() if f.severity in ("critical", "warning")}


def test_nvidia_smi_dmon_quoted_with_its_hash_escaped_reads_four_healthy_gpus() -> None:
    ev = _load(DMON)
    assert ev.files[0].formats == ["nvidia_smi_dmon"]
    assert not ev.failures and not ev.gpus  # (samples are said, no GPU record is made up)
    assert _bad(ev) == {}
    said = heldout.said(ev)
    assert any("2 line(s) whose leading '#' was escaped for Markdown" in s for s in said)
    (gpu0,) = [s for s in said if "nvidia-smi dmon GPU 0:" in s]
    assert "1 sample(s): pwr 111 W, temp 83 C, sm 25 %" in gpu0
    assert "pviol 0 %, tviol 0, fb 11651 MB" in gpu0 and "sbecc -, dbecc -, pci 0" in gpu0
    (gpu3,) = [s for s in said if "nvidia-smi dmon GPU 3:" in s]
    assert "pwr 86 W, temp 70 C" in gpu3
    assert any(
        "4 GPU(s), 4 sample(s): pviol, tviol, sbecc, dbecc, pci 0 in every sample" in s
        for s in said
    )
    assert not any("violation (" in s or "replays (" in s for s in said)


_DMON_DT = """\
#Date       Time        gpu   pwr gtemp mtemp    sm   mem   enc   dec  mclk  pclk pviol tviol    fb  bar1 sbecc dbecc   pci rxpci txpci
#YYYYMMDD   HH:MM:SS    Idx     W     C     C     %     %     %     %   MHz   MHz     %  bool    MB    MB  errs  errs  errs  MB/s  MB/s
 20240104   13:54:35      2   298    86    90    99    61     0     0  2619  1410    12     1 40110     5     0     0     0   210    96
 20240104   13:54:36      2   301    87    91    99    62     0     0  2619  1395    30     1 40110     5     0     2     7   215    99
 20240104   13:54:37      2   299    87    91    99    62     0     0  2619  1380    25     0 40110     5     0     2
"""  # fmt: skip


def test_nvidia_smi_dmon_with_dates_its_newer_columns_and_one_gpu_picked(tmp_path: Path) -> None:
    # -o DT's date and time columns, a newer driver's gtemp/mtemp, -i 2 (the index as printed),
    # the violations and errors said with where they first show, a last row the copy cut
    ev = _write(tmp_path, _DMON_DT)
    assert ev.files[0].formats == ["nvidia_smi_dmon"]
    said = heldout.said(ev)
    (gpu,) = [s for s in said if "nvidia-smi dmon GPU 2:" in s]
    assert "2 sample(s): pwr 298-301 W, gtemp 86-87 C, mtemp 90-91 C" in gpu
    assert "Date" not in gpu and "Time" not in gpu
    (trouble,) = [s for s in said if "nvidia-smi dmon: GPU 2 " in s]
    assert (
        "GPU 2 power violation (pviol up to 30 %) in 2 of 2 sample(s), first at line 3" in trouble
    )
    assert "GPU 2 thermal violation (tviol up to 1) in 2 of 2 sample(s)" in trouble
    assert "double-bit ECC errors (aggregate) (dbecc up to 2) in 1 of 2 sample(s), first at line 4" in trouble  # fmt: skip
    assert "PCIe replays (pci up to 7)" in trouble and "single-bit" not in trouble
    assert any("a row of GPU 2 with 18 of its 21 columns (the copy cut it)" in s for s in said)


def test_nvidia_smi_pmon_is_not_read_as_dmon(tmp_path: Path) -> None:
    # pmon's rows are processes: "# gpu pid type ..." over "# Idx # C/G ..."
    ev = _write(
        tmp_path,
        "# gpu        pid  type    sm   mem   enc   dec   command\n"
        "# Idx          #   C/G     %     %     %     %   name\n"
        "    0      14880     C    97    43     -     -   python\n",
    )
    assert "nvidia_smi_dmon" not in ev.files[0].formats


def test_two_rtx_4090_copying_at_a_quarter_of_their_gen4_links_is_a_warning() -> None:
    ev = _load(P2P_4090)
    assert ev.files[0].formats == ["p2p_bandwidth"]
    (run,) = ev.gpu_copy
    assert [d["name"] for d in run["devices"]] == ["NVIDIA GeForce RTX 4090"] * 2
    assert run["p2p_slower"] == []  # (P2P on is no slower than off: both are slow)
    assert run["pair_copy_slow"] == [
        {"a": 0, "b": 1, "gbytes_s": 6.6, "line": 20, "generation": 4, "x4_gbytes_s": 7.88},
        {"a": 1, "b": 0, "gbytes_s": 6.6, "line": 20, "generation": 4, "x4_gbytes_s": 7.88},
    ]
    bad = _bad(ev)
    assert list(bad) == ["evidence-gpu-pair-copy-slow"]
    (item,) = bad["evidence-gpu-pair-copy-slow"].items
    assert item.startswith("0->1 6.6 GB/s, 1->0 6.6 GB/s, best with P2P on or off, under 7.88 GB/s")
    assert "(PCIe Gen 4 x4)" in item and "line 20)" in item
    said = heldout.said(ev)
    assert any("Unidirectional P2P=Disabled Bandwidth: 2 GPU(s), between GPUs 6.34" in s for s in said)  # fmt: skip


def _p2p(name: str, uni_off: float, uni_on: float) -> str:
    return (
        "[P2P (Peer-to-Peer) GPU Bandwidth Latency Test]\n"
        f"Device: 0, {name}, pciBusID: 17, pciDeviceID: 0, pciDomainID:0\n"
        f"Device: 1, {name}, pciBusID: 65, pciDeviceID: 0, pciDomainID:0\n"
        "Unidirectional P2P=Disabled Bandwidth Matrix (GB/s)\n"
        "   D\\D     0      1 \n"
        f"     0 900.00 {uni_off:6.2f} \n"
        f"     1 {uni_off:6.2f} 900.00 \n"
        "Unidirectional P2P=Enabled Bandwidth (P2P Writes) Matrix (GB/s)\n"
        "   D\\D     0      1 \n"
        f"     0 900.00 {uni_on:6.2f} \n"
        f"     1 {uni_on:6.2f} 900.00 \n"
    )


def test_the_floor_is_the_gpus_own_generation_and_the_best_figure(tmp_path: Path) -> None:
    # Gen 5 boards at 12 GB/s: under x4 of Gen 5 (15.75); Gen 3 V100s at 6 GB/s are over x4 of
    # Gen 3 (3.94); a pair whose P2P path reaches 25 GB/s is not held to its staged 6 GB/s
    slow5 = _write(tmp_path, _p2p("NVIDIA GeForce RTX 5090", 11.9, 12.1))
    assert [p["generation"] for p in slow5.gpu_copy[0]["pair_copy_slow"]] == [5, 5]
    assert "evidence-gpu-pair-copy-slow" in _bad(slow5)
    v100 = _write(tmp_path, _p2p("Tesla V100-PCIE-32GB", 6.0, 6.1))
    assert v100.gpu_copy[0]["pair_copy_slow"] == []
    fast = _write(tmp_path, _p2p("NVIDIA GeForce RTX 4090", 6.0, 25.3))
    assert fast.gpu_copy[0]["pair_copy_slow"] == []


def test_a_gpu_model_not_known_is_not_judged(tmp_path: Path) -> None:
    ev = _write(tmp_path, _p2p("Some Future GPU", 2.0, 2.0))
    assert ev.gpu_copy[0]["pair_copy_slow"] == []
    assert "evidence-gpu-pair-copy-slow" not in _bad(ev)


def test_pcie_generation_by_name() -> None:
    assert p2p_bandwidth.pcie_generation("NVIDIA H100 80GB HBM3") == 5
    assert p2p_bandwidth.pcie_generation("NVIDIA A100-SXM4-80GB") == 4
    assert p2p_bandwidth.pcie_generation("NVIDIA A10G") == 4
    assert p2p_bandwidth.pcie_generation("NVIDIA L40S") == 4
    assert p2p_bandwidth.pcie_generation("NVIDIA GeForce RTX 3090") == 4
    assert p2p_bandwidth.pcie_generation("Tesla T4") == 3
    assert p2p_bandwidth.pcie_generation("NVIDIA GeForce GTX 1080 Ti") == 3
    assert p2p_bandwidth.pcie_generation("NVIDIA A1000") is None  # (not A100, not A10)
