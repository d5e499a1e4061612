"""Review 40 of nvidia_smi's readings (a "No devices were found" of another host, --query-gpu
rows by product name of several hosts, a looped copy cut inside its last sample or with zeroed
dates, MIG pending warnings before a table, long lines): each fault it found, on its input
(tests/data/review40)."""

from __future__ import annotations

import time
from collections.abc import Callable

import pytest

from advisor.evidence.load import EvidenceFacts, load_paths
from advisor.parsers import MARKED_PROMPT_HOST_RE, PROMPT_HOST_RE, numbered_lines, nvidia_smi
from tests import heldout
from tests.conftest import DATA

REVIEW = DATA / "review40"


def _load(name: str) -> EvidenceFacts:
    return load_paths([REVIEW / name])


def _ecc(ev: EvidenceFacts) -> list[tuple[int, int]]:
    return [(g["line"], g["ecc_uncorrected"]) for g in ev.gpus if g.get("ecc_uncorrected")]


def test_no_devices_of_another_host_is_not_paired_with_a_later_srun_table() -> None:
    for name in (
        "nvidia_smi_no_devices_on_gpu12_via_ssh_then_srun_on_gpu11_table_only.txt",
        "nvidia_smi_no_devices_on_gpu12_via_ssh_then_srun_on_gpu11_called_outside_step.txt",
    ):
        text = (REVIEW / name).read_text()
        assert nvidia_smi.no_devices_in_job_step(numbered_lines(text)) == {}, name
        ev = _load(name)
        assert not any("outside the Slurm job's step" in m for m in heldout.said(ev)), name
        (nvml,) = [f for f in ev.failures if f.get("call") == "nvml_init"]
        assert (nvml["host"], nvml["line"]) == ("gpu-12", 2)
    # a bare nvidia-smi on one prompt host, srun on a node named by -w the file never allocated
    # or from another prompt host's shell: no pairing either
    table = (REVIEW / name).read_text().split("\n", 5)[5]
    for head in (
        "[admin@login01 ~]$ nvidia-smi\nNo devices were found\n"
        "[admin@login01 ~]$ srun -w gpu-11 --gres=gpu:1 -n1 nvidia-smi\n",
        "[admin@gpu-12 ~]$ nvidia-smi\nNo devices were found\n"
        "[admin@login01 ~]$ srun --gres=gpu:1 -n1 nvidia-smi\n",
    ):
        assert nvidia_smi.no_devices_in_job_step(numbered_lines(head + table)) == {}
    # salloc's shell, srun -w on the node salloc granted: the salloc case still pairs
    salloc = (
        "salloc: Nodes gpu-11 are ready for job\n[admin@login01 ~]$ nvidia-smi\n"
        "No devices were found\n[admin@login01 ~]$ srun -w gpu-11 -n1 nvidia-smi\n"
    )
    assert list(nvidia_smi.no_devices_in_job_step(numbered_lines(salloc + table))) == [3]


def test_rows_by_name_of_several_hosts_outputs_stay_a_gpu_each_and_are_judged() -> None:
    two = _load("nvidia_smi_query_csv_two_hosts_by_name_read_as_two_samples_first_host_lost.txt")
    assert len(two.gpus) == 16
    assert _ecc(two) == [(6, 12)]
    assert not any("samples of" in m for m in heldout.said(two))
    five = _load("nvidia_smi_query_csv_name_rows_five_hosts_40_rows_none_judged_ecc_lost.txt")
    assert len(five.gpus) == 40
    assert _ecc(five) == [(26, 7)]
    assert not any("looped query" in m for m in heldout.said(five))


def test_mig_pending_warnings_before_a_table_read_the_later_tables_once(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    name = "nvidia_smi_mig_enable_8gpus_run_twice_pending_then_table_exponential.txt"
    text = (REVIEW / name).read_text()
    calls = 0
    parse = nvidia_smi.parse_status

    def counted(text: str, *, notes: bool = True) -> nvidia_smi.SmiStatus:
        nonlocal calls
        calls += 1
        return parse(text, notes=notes)

    monkeypatch.setattr(nvidia_smi, "parse_status", counted)
    status = nvidia_smi.parse_status(text)
    assert calls <= 3  # (was 2 ** 16)
    pending = [w for w in status.warnings if "MIG enable pending" in w.message]
    assert len(pending) == 16
    assert all("the table, line" in w.message for w in pending)


def _timed(fn: Callable[[str], object], text: str) -> float:
    # this process's CPU time: other jobs on a shared host do not count against it
    start = time.process_time()
    fn(text)
    return time.process_time() - start


@pytest.mark.parametrize(
    ("name", "fn", "line"),
    [
        (
            "_MIG_PENDING_RE",
            nvidia_smi._MIG_PENDING_RE.match,
            "Warning: MIG mode is in pending enable state for GPU 00000000:07:00.0:Not Suppor"
            + " " * 100_000
            + "ted",
        ),
        ("_SRUN_SMI_RE", nvidia_smi._SRUN_SMI_RE.search, " srun" * 20_000),
        ("_SRUN_SMI_RE", nvidia_smi._SRUN_SMI_RE.search, "$ srun " + "x" * 100_000),
        ("_REMOTE_RE", nvidia_smi._REMOTE_RE.search, " ssh" * 25_000),
        ("PROMPT_HOST_RE", PROMPT_HOST_RE.match, "a@" + "b" * 100_000),
        ("PROMPT_HOST_RE", PROMPT_HOST_RE.match, " " * 100_000 + "a@b"),
        ("MARKED_PROMPT_HOST_RE", MARKED_PROMPT_HOST_RE.match, "a@b:" + "x" * 100_000),
        ("_NODELIST_RE", nvidia_smi._NODELIST_RE.search, " -w" * 33_333),
        ("_NODELIST_RE", nvidia_smi._NODELIST_RE.search, " -w" + " " * 100_000),
        ("_SALLOC_NODES_RE", nvidia_smi._SALLOC_NODES_RE.match, "salloc: Nodes " + "x" * 100_000),
    ],
)
def test_changed_patterns_are_linear_on_a_long_line_and_many_blank_lines(
    name: str, fn: Callable[[str], object], line: str
) -> None:
    assert len(line) >= 99_999
    assert _timed(fn, line) < 1.0, name
    assert _timed(fn, "\n" * 100_000) < 1.0, name


def test_a_pending_warning_wrapped_with_a_long_gap_is_read_in_time() -> None:
    text = (REVIEW / "nvidia_smi_mig_pending_wrapped_gap_100k.txt").read_text()
    start = time.process_time()
    status = nvidia_smi.parse_status(text)
    assert time.process_time() - start < 2.0
    assert any("(Not Supported)" in w.message for w in status.warnings)


def test_a_loop_cut_inside_its_last_sample_is_read_from_its_whole_samples() -> None:
    name = "nvidia_smi_query_csv_loop_8gpu_5_samples_copy_cut_inside_last_sample_ecc_lost.txt"
    read = nvidia_smi.read_query_csv((REVIEW / name).read_text())
    assert len(read.gpus) == 8
    assert [(g.gpu, g.ecc_uncorrected) for g in read.gpus if g.ecc_uncorrected] == [(3, 12)]
    (note,) = read.notes
    assert "35 rows, 4 samples of 8 GPU(s)" in note.message
    assert "latest whole sample (3 row(s) of a sample the copy cut)" in note.message
    ev = _load(name)
    assert len(ev.gpus) == 8 and len(_ecc(ev)) == 1


@pytest.mark.parametrize(
    "name",
    [
        "nvidia_smi_query_csv_loop_dates_zeroed_by_redaction_crash.txt",
        "csv_loop_stamp_feb29_nonleap.txt",
    ],
)
def test_zeroed_or_invalid_stamps_are_no_stamps(name: str) -> None:
    assert nvidia_smi._stamp_s("0000/00/00 10:00:10.101") is None
    assert nvidia_smi._stamp_s("2025/02/29 10:00:10.101") is None
    ev = _load(name)
    assert len(ev.gpus) == 24
    assert [e for _, e in _ecc(ev)] == [12, 12, 12]
