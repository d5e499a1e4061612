"""Outputs of round DDDD's held-out evaluation (set 609, NVIDIA tool outputs) that the advisor read
in part before this change (tests/data/evidence_heldout_66, sources in tests/data/SOURCES.md):
``nvidia-smi -L | head -n10`` whose inventory was given as the host's though head cut it; an
``nvidia-smi`` table whose process table shows half the GPUs held by another user's processes,
read READY with nothing said."""

from __future__ import annotations

from functools import partial
from pathlib import Path

from advisor.evidence.load import EvidenceFacts
from tests import heldout
from tests.conftest import DATA

HELDOUT = DATA / "evidence_heldout_66"


_load = partial(heldout.load, HELDOUT)


_write = partial(heldout.load_copy, name="copy.txt")


def _severities(ev: EvidenceFacts) -> set[str]:
    return {f.severity for f in heldout.found(ev).values()} - {"info"}


# --- nvidia-smi -L cut by head ----------------------------------------------------------------


def test_a_listing_cut_by_head_is_said_cut_not_the_hosts_count() -> None:
    ev = _load("nvidia_smi_L_head_n10_dgx_a100_mig_all_balanced_cut_2_of_8_gpus.txt")
    assert ev.files[0].formats == ["nvidia_smi_list"]
    (inventory,) = [m for m in ev.files[0].messages if "GPU(s)" in m.message]
    assert inventory.line == 2
    assert inventory.message == (
        "nvidia_smi_list: nvidia-smi -L: 2 GPU(s) (NVIDIA A100-SXM4-80GB): GPU 0, 1; the listing was cut "
        "('nvidia-smi -L | head -n10' keeps its first 10 lines): GPUs after GPU 1, if any, are "
        "not shown, so this is not the host's count"
    )
    said = " ".join(heldout.said(ev))
    assert "8 GPU" not in said and "GPU 2" not in said  # (nothing of the GPUs cut away)
    assert said.count("split into 4 MIG device(s) (2 x 1g.10gb, 1 x 2g.20gb, 1 x 3g.40gb)") == 2
    assert _severities(ev) == set()  # an inventory: healthy


_GPU_LINE = "GPU {n}: NVIDIA A100-SXM4-80GB (UUID: GPU-8e100991-ce97-6694-b8eb-b8b1ff50{n:04d})\n"


def test_other_filters_and_counts_of_the_listing(tmp_path: Path) -> None:
    gpus = "".join(_GPU_LINE.format(n=n) for n in range(4))
    # "head -4" (the count without -n) and "--list-gpus" keep four lines: four GPUs, cut
    ev = _write(tmp_path, "$ nvidia-smi --list-gpus | head -4\n" + gpus)
    (note,) = heldout.said(ev)
    assert "keeps its first 4 lines): GPUs after GPU 3, if any, are not shown" in note
    # tail: the first GPUs are the ones left out
    last = "".join(_GPU_LINE.format(n=n) for n in (2, 3))
    ev = _write(tmp_path, "root@node:~# nvidia-smi -L | tail -n 2\n" + last)
    (note,) = heldout.said(ev)
    assert "2 GPU(s)" in note and "keeps its last 2 lines): GPUs before GPU 2" in note
    # grep keeps the lines it matches, whatever their count
    ev = _write(tmp_path, "> nvidia-smi -L | grep A100\n" + gpus)
    (note,) = heldout.said(ev)
    assert "the listing was filtered ('nvidia-smi -L | grep A100')" in note


def test_a_listing_shorter_than_what_head_keeps_is_whole(tmp_path: Path) -> None:
    # head keeps 10 lines by default (coreutils head(1)); three printed: nothing was cut, and a
    # plain listing says nothing of a cut either
    gpus = "".join(_GPU_LINE.format(n=n) for n in range(3))
    for command in ("$ nvidia-smi -L | head\n", "$ nvidia-smi -L\n"):
        (note,) = heldout.said(_write(tmp_path, command + gpus))
        assert (
            note == "nvidia_smi_list: nvidia-smi -L: 3 GPU(s) (NVIDIA A100-SXM4-80GB): GPU 0, 1, 2"
        )


# --- nvidia-smi: GPUs held by processes -------------------------------------------------------


def test_gpus_held_by_another_users_processes_warn() -> None:
    ev = _load("nvidia_smi_440_33_01_8x_p100_sxm2_busy_gpus_4_7_python_processes.txt")
    assert ev.files[0].formats == ["nvidia_smi"]
    assert len(ev.gpus) == 8 and {g["driver"] for g in ev.gpus} == {"440.33.01"}
    assert [g["gpu"] for g in ev.gpus if g["held_by_process"]] == [4, 5, 6, 7]
    assert _severities(ev) == {"warning"}
    items = heldout.found(ev)["evidence-gpu-held-by-process"].items
    assert len(items) == 4
    assert items[0].startswith(
        "GPU 4 (Tesla P100-SXM2..., 00000000:85:00.0): 10253 of 16280 MiB used, 0 % busy; held "
        "by ...L.CA/u12345/venv-ivadomed/bin/python3.6 (pid 32263, 10243 MiB) ("
    )
    assert items[0].endswith(", line 21)")
    assert items[3].startswith("GPU 7 (Tesla P100-SXM2..., 00000000:8A:00.0): 13684 of 16280")
    assert "(pid 33063, 10235 MiB), " in items[3] and "(pid 35147, 3439 MiB) (" in items[3]
    assert not any("GPU 0 " in i or "GPU 3 " in i for i in items)  # (the idle ones)


_TABLE_525 = """\
+---------------------------------------------------------------------------------------+
| NVIDIA-SMI 535.104.05             Driver Version: 535.104.05   CUDA Version: 12.2     |
|-----------------------------------------+----------------------+----------------------+
| GPU  Name                 Persistence-M | Bus-Id        Disp.A | Volatile Uncorr. ECC |
| Fan  Temp   Perf          Pwr:Usage/Cap |         Memory-Usage | GPU-Util  Compute M. |
|                                         |                      |               MIG M. |
|=========================================+======================+======================|
|   0  NVIDIA A100-SXM4-80GB          On  | 00000000:07:00.0 Off |                    0 |
| N/A   35C    P0              90W / 400W |  {used0:>5}MiB / 81920MiB |    {util}%      Default |
|                                         |                      |             Disabled |
+-----------------------------------------+----------------------+----------------------+
|   1  NVIDIA A100-SXM4-80GB          On  | 00000000:0F:00.0 Off |                    0 |
| N/A   33C    P0              60W / 400W |      4MiB / 81920MiB |      0%      Default |
|                                         |                      |             Disabled |
+-----------------------------------------+----------------------+----------------------+

+---------------------------------------------------------------------------------------+
| Processes:                                                                            |
|  GPU   GI   CI        PID   Type   Process name                            GPU Memory |
|        ID   ID                                                             Usage      |
|=======================================================================================|
|    0   N/A  N/A     41234    {kind}   {name}      {used0:>5}MiB |
+---------------------------------------------------------------------------------------+
"""


def test_a_held_gpu_in_the_tables_of_driver_450_on(tmp_path: Path) -> None:
    # the GI / CI columns before the PID, a process name with blanks in it
    held = _TABLE_525.format(used0=72000, util=97, kind="C", name="python train.py")
    ev = _write(tmp_path, held)
    assert [g["gpu"] for g in ev.gpus if g["held_by_process"]] == [0]
    (item,) = heldout.found(ev)["evidence-gpu-held-by-process"].items
    assert item.startswith(
        "GPU 0 (NVIDIA A100-SXM4-80GB, 00000000:07:00.0): 72000 of 81920 MiB used, 97 % busy; "
        "held by python train.py (pid 41234, 72000 MiB) ("
    )


def test_a_small_or_graphics_process_does_not_hold_a_gpu(tmp_path: Path) -> None:
    # a process with a few GB of 80 (a burn test captured under load: set 579's healthy one),
    # or a desktop's Xorg ("G") however much it holds, leaves the GPU free for a job
    for used, kind, name in ((9000, "C", "./gpu_burn"), (60000, "G", "/usr/lib/xorg/Xorg")):
        ev = _write(tmp_path, _TABLE_525.format(used0=used, util=10, kind=kind, name=name))
        assert ev.gpus[0]["processes"] == [f"{name} (pid 41234, {used} MiB)"]
        assert not any(g["held_by_process"] for g in ev.gpus)
        assert "evidence-gpu-held-by-process" not in heldout.found(ev)
