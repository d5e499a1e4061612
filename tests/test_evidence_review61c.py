"""Review 61 of round OOOO (set 675's mend), part c, faults 1 to 4: a ``dcgmi stats`` box
whose Overall Health is Failure (Double Bit ECC and Xid 48 in its Event Stats); a ``dcgmi stats
-p PID`` box whose rows carry DCGM's "*"; an nvidia-smi table printed twice, the second cut
inside GPU 3's first row; a dcgmi stats box and an nvidia-smi table with pdsh's host prefix on
each line: each on its input (tests/data/review61, described in
tests/data/SOURCES.md)."""

from __future__ import annotations

from pathlib import Path

from advisor.evidence import load
from advisor.evidence.load import EvidenceFacts, load_paths
from advisor.parsers import dcgm, nvidia_smi
from tests import heldout
from tests.conftest import DATA

REVIEW = DATA / "review61"
DCGM171 = (
    DATA / "evidence_heldout_75/dcgmi_stats_process_id_1_gpu1_energy_0_perf_stats_cut_dcgm171.txt"
)
P100 = (
    DATA
    / "evidence_heldout_66/nvidia_smi_440_33_01_8x_p100_sxm2_busy_gpus_4_7_python_processes.txt"
)
V_FAIL = REVIEW / "dcgmi_stats_v_job_train42_gpu1_dbe4_xid48_overall_health_failure_dcgm171.txt"
J_FAIL = REVIEW / "dcgmi_stats_j_summary_train42_dbe4_xid48_overall_health_failure_dcgm171.txt"
P_PID = REVIEW / "dcgmi_stats_p_pid4242_gpu1_star_rows_dcgm171.txt"
DCGM83 = DATA / (
    "evidence_heldout_75/nvidia_smi_535_table_gpu6_gpu7_a100_sxm4_80gb_no_head_processes_header_cut_dcgm83.txt"
)
STATS_PDSH = REVIEW / "dcgmi_stats_v_gpu1_pdsh_prefix_gpu_node07_dcgm171.txt"
SMI_PDSH = REVIEW / "nvidia_smi_535_gpu6_gpu7_a100_pdsh_prefix_a100_node3_dcgm83.txt"
TWICE = REVIEW / "nvidia_smi_440_p100_run_twice_second_table_cut_inside_gpu3_row.txt"


def _load(path: Path) -> EvidenceFacts:
    return load_paths([path])


def _messages(ev: EvidenceFacts) -> list[str]:
    return [str(m) for f in ev.files for m in f.messages]


def test_fault1_v_box_overall_health_failure_is_not_ready_naming_gpu1() -> None:
    ev = _load(V_FAIL)
    assert heldout.imported(ev)[0] == "NOT READY"
    failed = [c for d in ev.dcgm_diags for c in d["failed"]]
    assert [(c["gpus"], c["result"], c["line"]) for c in failed] == [("GPU: 1", "Fail", 3)]
    assert "Double Bit ECC Errors 4" in failed[0]["summary"]
    assert "XID 48" in failed[0]["summary"] and "Memory Failure" in failed[0]["summary"]


def test_fault1_summary_box_failure_and_warning_variants() -> None:
    ev = _load(J_FAIL)
    assert heldout.imported(ev)[0] == "NOT READY"
    assert [c["gpus"] for d in ev.dcgm_diags for c in d["failed"]] == [None]
    # a Warning is DCGM's warning: a warned check, not a failed one
    text = V_FAIL.read_text().replace("| Failure  ", "| Warning  ")
    _, bad = dcgm.stats_read(text)
    assert [(b.gpu, b.result) for b in bad] == [("1", "Warn")]
    # Healthy: nothing judged
    healthy = V_FAIL.read_text().replace("| Failure  ", "| Healthy  ")
    assert dcgm.stats_read(healthy)[1] == []


def test_fault1_real_dcgm171_still_ready_with_no_check() -> None:
    ev = _load(DCGM171)
    assert ev.dcgm_diags == []
    assert heldout.imported(ev)[0] == "READY"


def test_fault3_pid_box_star_rows_said_as_the_process_stats() -> None:
    notes = dcgm.stats_notes(P_PID.read_text())
    assert len(notes) == 1
    said = notes[0].message
    assert "(PID 4242, GPU 1)" in said
    assert "Total Execution Time (sec) 20.48" in said
    assert "Max GPU Memory Used (bytes) 9934209024" in said
    assert said.endswith("the process's stats")


def test_fault3_job_box_and_bare_rows_say_whose() -> None:
    job = dcgm.stats_notes(V_FAIL.read_text())[0].message
    assert job.endswith("the job's stats")
    # without its "Successfully retrieved" line the copy names no job
    bare = "\n".join(V_FAIL.read_text().splitlines()[1:])
    assert dcgm.stats_notes(bare)[0].message.endswith("; the stats")
    real = dcgm.stats_notes(DCGM171.read_text())
    assert real and "job's" not in real[0].message.rpartition(";")[2]


def test_fault2_second_table_cut_inside_gpu3_is_partial() -> None:
    ev = _load(TWICE)
    assert [f.status for f in ev.files] == ["partial"]
    assert any("GPU 3's rows are cut" in m for m in _messages(ev))


def test_fault2_real_p100_and_single_cut_variant() -> None:
    ev = _load(P100)
    assert [f.status for f in ev.files] == ["read"]
    assert not any("rows are cut" in m for m in _messages(ev))
    # the same two tables, the copy ending at the border above GPU 3's row: nothing cut
    whole = "\n".join(TWICE.read_text().splitlines()[:-1])
    assert not any("rows are cut" in w.message for w in nvidia_smi.parse_status(whole).warnings)


def test_fault4_pdsh_prefixed_stats_box_is_read_as_the_bare_one() -> None:
    ev = _load(STATS_PDSH)
    assert [(f.status, f.formats) for f in ev.files] == [("read", ["dcgmi_stats"])]
    said = _messages(ev)
    assert any("pdsh's host prefix 'gpu-node07: ' taken off 16 line(s)" in m for m in said)
    assert any("(GPU 1)" in m and "Total Execution Time (sec) 20.48" in m for m in said)


def test_fault4_pdsh_prefixed_smi_table_reads_gpus_6_and_7_as_the_real_file() -> None:
    real, prefixed = _load(DCGM83), _load(SMI_PDSH)
    assert [f.status for f in prefixed.files] == [f.status for f in real.files] == ["read"]
    assert any("'a100-node3: ' taken off 15 line(s)" in m for m in _messages(prefixed))
    assert sorted(g["gpu"] for g in prefixed.gpus) == sorted(g["gpu"] for g in real.gpus) == [6, 7]


def test_fault4_two_hosts_or_a_log_keep_their_prefixes() -> None:
    # two hosts' tables interleaved are not one table: not taken off (so not read as one)
    lines = SMI_PDSH.read_text().splitlines()
    two = "\n".join(
        line if n % 2 else line.replace("a100-node3: ", "a100-node4: ", 1)
        for n, line in enumerate(lines)
    )
    assert load._pdsh_box_host([x for x in two.splitlines() if x.strip()]) is None
    # a log's lines under one host's prefix, no box: the log parsers read the host there
    log = [f"node-1a: [rank0]: step {n} loss 1.0" for n in range(10)]
    assert load._pdsh_box_host(log) is None
    assert load._pdsh_box_host([x for x in lines if x.strip()]) == "a100-node3"
