"""``nvidia-smi -q``'s Processes section read as the status table's process table: which GPUs
a compute process holds, so a GPU of a -q capture whose memory a process has taken is judged as
the table's is (evidence-gpu-held-by-process), and a record of "Processes : None" holds none."""

from __future__ import annotations

from pathlib import Path

from advisor.evidence.load import EvidenceFacts, load_paths
from tests import heldout
from tests.conftest import DATA

# eight A100s of one job (-q during its hang); each record's Processes section lists the job's
# python on it, the third also Xorg (type G)
EIGHT = (
    DATA
    / "evidence_heldout_47"
    / "nvidia_smi_q_8xa100_hung_job_gpu0_util0_others_busy_m4_tr141.txt"
)
# one RTX 3060 on Windows: WDDM prints no memory per process
WDDM = (
    DATA
    / "evidence_heldout_59"
    / "nvidia_smi_q_610_88_kmd_umd_version_rtx3060_laptop_wddm_pcie_gen1_x8_idle_p8.txt"
)


def _held(ev: EvidenceFacts) -> list[str]:
    return [g["bus_id"] for g in ev.gpus if g.get("held_by_process")]


def test_each_records_processes_are_read_and_a_fifth_used_holds_no_gpu() -> None:
    ev = load_paths([EIGHT])
    assert len(ev.gpus) == 8 and all(g["has_process"] for g in ev.gpus)
    first = ev.gpus[0]
    assert first["processes"] == [
        "/gpfswork/rech/cnw/commun/conda/shared-m4-2023-02-28/bin/python (pid 280058, 22374 MiB)"
    ]
    # (Xorg, a graphics process, listed beside the job's python on the third GPU)
    assert ev.gpus[2]["processes"][0] == "/usr/libexec/Xorg (pid 19501, 63 MiB)"
    assert _held(ev) == []  # (16-22 GB of 80 GB: no GPU held)
    assert "evidence-gpu-held-by-process" not in heldout.found(ev)


def test_a_gpu_whose_memory_its_compute_process_took_is_held(tmp_path: Path) -> None:
    text = EIGHT.read_text()
    # the second GPU's record with 70 of its 80 GB used by its process
    text = text.replace(
        "        Used                              : 15995 MiB",
        "        Used                              : 70011 MiB",
        1,
    ).replace(
        "Used GPU Memory               : 15992 MiB", "Used GPU Memory               : 70008 MiB"
    )
    ev = heldout.load_copy(tmp_path, text, "copy.txt")
    assert _held(ev) == ["00000000:0B:00.0"]
    (item,) = heldout.found(ev)["evidence-gpu-held-by-process"].items
    assert "70011 of 81920 MiB used" in item
    assert item.startswith("GPU 00000000:0B:00.0 (NVIDIA A100-SXM4-80GB): 70011 of 81920 MiB used")
    assert "(pid 280059, 70008 MiB)" in item and "line 189)" in item
    assert heldout.found(ev)["evidence-gpu-held-by-process"].severity == "warning"


def test_processes_wddm_gives_no_memory_for_are_listed_without_one() -> None:
    (gpu,) = load_paths([WDDM]).gpus
    assert gpu["has_process"] and gpu["memory_used_mib"] == 116
    assert gpu["processes"] == [
        "C:\\Program Files\\BraveSoftware\\Brave-Browser\\Application\\brave.exe (pid 24420)",
        "C:\\Program Files\\BraveSoftware\\Brave-Browser\\Application\\brave.exe (pid 28204)",
    ]
    assert gpu["held_by_process"] is False  # (116 MiB of 6 GB)


def test_processes_none_holds_no_gpu_and_a_record_without_the_section_says_nothing(
    tmp_path: Path,
) -> None:
    text = EIGHT.read_text()
    head, first, _rest = text.partition("    Processes\n")
    second = text.index("\nGPU 00000000:0B:00.0")
    none_first = head + "    Processes                             : None\n" + text[second + 1 :]
    ev = heldout.load_copy(tmp_path, none_first, "none.txt")
    assert ev.gpus[0]["has_process"] is False and ev.gpus[0]["processes"] == []
    assert ev.gpus[1]["has_process"] is True
    # the first record with its Processes section cut away: nothing said of its processes
    ev = heldout.load_copy(tmp_path, head + text[second + 1 :], "cut.txt")
    assert "processes" not in ev.gpus[0] and "has_process" not in ev.gpus[0]
    assert first  # (the sample has the section to cut)
