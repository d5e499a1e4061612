"""Held-out real outputs the importer misread: a rank's own watchdog failure, EI0002's rankId,
an nccl-tests tail, nvidia-smi's ``mlx4_0`` column and cut matrices, ROCm's GPU hang.

Samples: ``tests/data/evidence_heldout_2/`` (sources in ``tests/data/SOURCES.md``).
"""

from __future__ import annotations

from functools import partial
from pathlib import Path

from advisor.evidence.load import EvidenceFacts, load_paths
from advisor.parsers import logs, nccl_tests, nvidia_smi
from tests import heldout
from tests.conftest import DATA
from tests.rules_facts import finding_items

HELDOUT = DATA / "evidence_heldout_2"


_text = partial(heldout.text, HELDOUT)


_load = partial(heldout.load, HELDOUT)


def _messages(ev: EvidenceFacts) -> list[tuple[int, str]]:
    (report,) = ev.files
    return [(m.line, m.message) for m in report.messages]


def _findings(changes: dict[str, object]) -> dict[str, list[str]]:
    return finding_items(changes, "gloo")


# ------------------------------------------------------------------- watchdog


def test_exception_detected_by_watchdog_is_the_ranks_own_failure() -> None:
    # pytorch ProcessGroupNCCL.cpp (torch 2.5) logs "Exception (either an error or timeout)
    # detected by watchdog at work: N" inside ``if (work.exception())``: rank 3's own work 1580
    # failed; it is no dump on a peer's signal
    parsed = logs.parse(_text("watchdog_torch25_pid_prefix_allreduce.log"))
    assert parsed.of_kind("watchdog_progress") == []
    timeouts = {e.rank: e for e in parsed.of_kind("watchdog_timeout")}
    assert sorted(timeouts) == [0, 4]
    assert (timeouts[0].seq, timeouts[0].last_enqueued, timeouts[0].last_completed) == (
        1580,
        1582,
        1579,
    )
    (own,) = parsed.of_kind("watchdog_failure")
    assert (own.rank, own.seq, own.line, own.group) == (3, 1580, 4, "1")
    assert (own.last_enqueued, own.last_completed, own.library) == (1582, 1579, "NCCL")


def test_timeline_counts_that_rank_as_failing_on_its_own() -> None:
    ev = _load("watchdog_torch25_pid_prefix_allreduce.log")
    (tl,) = ev.timelines
    roles = {x.rank: x.role for x in tl.entries}
    # all three at work 1580 within 0.06 s: one collective's waits, none marked first
    assert roles == {0: "own", 4: "own", 3: "own"} and tl.one_collective
    assert tl.consequences == [] and tl.behind == []
    assert "failed only because another did" not in tl.summary
    (entry,) = [x for x in tl.entries if x.rank == 3]
    assert entry.kind == "watchdog_failure" and entry.line == 4
    assert "work 1580" in entry.why
    (item,) = _findings({"evidence.failures": ev.failures})["evidence-watchdog-failure"]
    assert "Rank 3, process group 1: work 1580 failed" in item and "line 4" in item


def test_gpu_hang_before_the_watchdog_is_an_event_and_a_finding() -> None:
    # ROCm ROCR-Runtime's hardware-exception handler prints one line per process and aborts;
    # the two lines name one node and one reason: one event
    ev = _load("watchdog_torch26_rocm_after_gpu_hang.log")
    assert _messages(ev) == []
    (hang,) = [e for e in ev.failures if e["kind"] == "gpu_hw_exception"]
    assert (hang["line"], hang["exception_type"]) == (1, "GPU Hang (GPU node-9)")
    assert "node-9" in hang["message"]
    timeouts = sorted(e["rank"] for e in ev.failures if e["kind"] == "watchdog_timeout")
    assert timeouts == [2, 7]
    items = _findings({"evidence.failures": ev.failures})["evidence-gpu-hw-exception"]
    assert len(items) == 1 and "GPU Hang" in items[0] and "line 1" in items[0]


# ------------------------------------------------------------------- HCCL


def test_ei0002_without_rank_tag_takes_rank_id_of_its_group_information() -> None:
    (ev,) = logs.parse(_text("hccl_ei0002_broadcast_lmdeploy.log")).events
    assert (ev.code, ev.rank, ev.rank_size, ev.op) == ("EI0002", 6, 8, "broadcast")
    assert ev.group == "172.16.38.219%eth0_60000_0_1742963775856197"


# ------------------------------------------------------------------- nccl-tests


def test_nccl_tests_tail_counts_ranks_by_highest_index_and_reports_missing_header() -> None:
    log = nccl_tests.parse(_text("nccl_all_reduce_gb200_nvl72_tail.log"))
    assert log.ranks == 72  # "#  Rank 71": at least 72 ranks, not the one rank line left
    assert log.hosts == ["slurm-gb200-207-171"]
    (table,) = log.tables
    assert table.complete and len(table.rows) == 5 and table.max_bytes is None
    (warning,) = log.warnings
    assert warning.line == table.header_line == 4
    assert "no '# nThread" in warning.message
    # a note, not a skipped line: every line of the tail was read, so the file is read whole
    assert not warning.skipped
    ev = _load("nccl_all_reduce_gb200_nvl72_tail.log")
    assert ev.files[0].status == "read"
    # the second note: the tail never names its binary, its cells say all_reduce
    assert [line for line, _ in _messages(ev)] == [4, 4]
    (bench,) = ev.benchmarks
    assert bench["ranks"] == 72 and bench["sizes_asked"] is None
    assert (bench["op"], bench["op_from"]) == ("all_reduce", "columns")
    # the one host of rank 71's line is not the cluster: 72 ranks on it is no shape
    assert not bench["hosts_complete"] and ev.shapes == []


def test_cut_short_benchmark_quotes_sizes_done_against_sizes_asked() -> None:
    ev = _load("nccl_all_reduce_dgx_spark_2x1_truncated.log")
    (bench,) = ev.benchmarks
    assert (bench["min_bytes"], bench["max_bytes"], bench["sizes_asked"]) == (
        8192,
        8589934592,
        21,
    )
    assert bench["ranks"] == 2 and not bench["complete"]
    (item,) = _findings({"evidence.benchmarks": ev.benchmarks})["evidence-benchmark-cut-short"]
    assert "4 of 21 sizes (last 65536 B of the 8589934592 B maxBytes asked" in item


# ------------------------------------------------------------------- nvidia-smi


def test_mlx4_column_is_a_nic_and_the_cut_matrix_is_reported() -> None:
    topo = nvidia_smi.parse_topo(_text("nvidia_smi_topo_mlx4_k8s_cut.txt"))
    assert [topo.links[g]["mlx4_0"] for g in ("GPU0", "GPU1", "GPU2", "GPU3", "GPU4")] == [
        "PHB",
        "PHB",
        "PHB",
        "PHB",
        "SYS",
    ]
    assert topo.links["GPU0"]["GPU1"] == "PIX" and topo.links["GPU4"]["GPU5"] == "PIX"
    assert topo.cpu_affinity["GPU4"] == "10-19,30-39"
    assert topo.nics == {"mlx4_0": "mlx4_0"}
    (warning,) = topo.warnings
    assert warning.line == 7 and "GPU5, GPU6, GPU7" in warning.message


def test_cut_matrix_is_partial_with_its_line_and_newer_fields_reach_the_facts() -> None:
    ev = _load("nvidia_smi_topo_10nic_pix_deepep_cut.txt")
    (report,) = ev.files
    assert report.status == "partial"
    ((line, message), (_, near)) = _messages(ev)
    assert line == 7 and "GPU6, GPU7" in message
    assert "the nearest NIC of each GPU: GPU0: NIC0 (PIX)" in near
    (topo,) = ev.topologies
    assert topo["numa_affinity"] == {
        "GPU0": "0",
        "GPU1": "0",
        "GPU2": "0",
        "GPU3": "0",
        "GPU4": "1",
        "GPU5": "1",
    }
    assert topo["gpu_numa_id"]["GPU0"] == "N/A"
    assert [topo["links"][f"GPU{i}"][f"NIC{i}"] for i in range(6)] == ["PIX"] * 6
    assert topo["warnings"] == [{"line": 7, "message": topo["warnings"][0]["message"]}]


def test_whole_matrix_stays_read_without_messages() -> None:
    # the cut check is about missing rows, not a rule that fires on every matrix
    sample = Path(DATA / "evidence_real" / "nvidia_smi_topo_nvlink_tabs.txt")
    ev = load_paths([sample])
    assert ev.files[0].status == "read", _messages(ev)
    assert ev.topologies[0]["warnings"] == []
