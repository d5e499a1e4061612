"""Outputs of round LLLL's held-out evaluation (set 660, framework logs on NVIDIA clusters) that
the advisor read wrong or in part before this change (tests/data/evidence_heldout_72, sources in
tests/data/SOURCES.md): a healthy vLLM V1 start on Ray whose lines stand behind Ray's and vLLM's
actor tags ("(EngineCore_DP0 pid=6183) (RayWorkerWrapper pid=1672, ip=...) INFO ..."), not read
at all; vLLM 0.7's warning that its tensor-parallel workers span two Ray nodes of one GPU each,
read as READY with no finding; and a Megatron run's NCCL socket "message truncated" whose rank 9
traceback follows the process's WARN lines, read without the rank."""

from __future__ import annotations

from functools import partial
from pathlib import Path

from tests import heldout
from tests.conftest import DATA

HELDOUT = DATA / "evidence_heldout_72"

VLLM_V1 = "vllm_v1_ray_pp2_two_nodes_worker_init_healthy_vllm27409_cut.log"
VLLM_SPREAD = "vllm_0.7_ray_tp2_spread_over_two_1gpu_nodes_warning_vllm13521_cut.log"
ZBPP = "megatron_zbpp_torch2.4_nccl2.20.5_h200_socket_message_truncated_rank9_zbpp60_cut.log"


_load = partial(heldout.load, HELDOUT)
_text = partial(heldout.text, HELDOUT)


_write = partial(heldout.load_copy, name="copy.log")


# --- vLLM V1 on Ray: the lines behind the actors' tags ------------------------------------------


def test_vllm_v1_ray_worker_lines_are_read_as_a_healthy_log() -> None:
    ev = _load(VLLM_V1)
    (report,) = ev.files
    assert (report.status, report.formats) == ("read", ["log"])
    said = " ".join(m.message for m in report.messages)
    assert "NCCL 2.27.3" in said and "pid 578, 1672" in said
    assert ev.failures == []
    level, outcome = heldout.imported(ev)
    assert level == "READY"
    assert heldout.above_info(outcome) == []


def test_vllm_v1_ray_worker_error_behind_the_tags_is_a_failure(tmp_path: Path) -> None:
    # the same tags on another host, and an ERROR the worker logged: read, and not READY
    text = _text(VLLM_V1).replace("192.168.141.7", "10.3.0.21") + (
        "(EngineCore_DP0 pid=6183) (RayWorkerWrapper pid=1672, ip=10.3.0.21) ERROR 11-24 "
        "22:55:40 [worker_base.py:620] RuntimeError: CUDA error: out of memory\n"
    )
    ev = _write(tmp_path, text)
    assert ev.files[0].status == "read"
    assert heldout.imported(ev)[0] != "READY"


def test_tagged_lines_without_a_logger_stay_unread(tmp_path: Path) -> None:
    # Ray's tags before lines no logger wrote (a program's prints): still no log
    text = "".join(
        f"(RayWorkerWrapper pid={pid}, ip=10.0.0.{pid % 7}) loaded shard {pid} of 4\n"
        for pid in (101, 102, 103, 104)
    )
    ev = _write(tmp_path, text)
    assert ev.files[0].status == "unknown"


# --- vLLM 0.7: tensor_parallel_size bigger than the GPUs reserved on each node ---------------


def test_vllm_tp_spread_over_two_one_gpu_nodes_is_a_warning() -> None:
    ev = _load(VLLM_SPREAD)
    (spread,) = ev.failures
    assert (spread["kind"], spread["line"], spread["repeated_lines"]) == ("vllm_tp_spread", 3, [4])
    assert spread["rank_size"] == 2 and spread["library"] == "vLLM"
    level, outcome = heldout.imported(ev)
    assert level == "READY WITH WARNINGS"
    assert heldout.above_info(outcome) == [("evidence-vllm-tp-spread", "warning")]
    _, (item,) = heldout.finding(outcome, "evidence-vllm-tp-spread")
    assert "tensor_parallel_size=2" in item and "on 2 node(s)" in item
    assert "c797a74e... 1, 7b735ccf... 1" in item
    assert "line 3; again at line(s) 4)" in item


def test_vllm_tp_spread_other_sizes_behind_engine_tags(tmp_path: Path) -> None:
    # a V1 engine's tagged lines: TP 8 over nodes holding 4 GPUs each, one node named once
    line = (
        "(EngineCore_DP0 pid=742) WARNING 11-12 11:11:49 [ray_utils.py:227] tensor_parallel_size=8 "
        "is bigger than a reserved number of GPUs (4 GPUs) in a node {node}. Tensor parallel "
        "workers can be spread out to 2+ nodes which can degrade the performance unless you have "
        "fast interconnect across nodes, like Infiniband.\n"
    )
    text = (
        "(EngineCore_DP0 pid=742) INFO 11-12 11:11:49 [ray_utils.py:378] No current placement "
        "group found. Creating a new placement group.\n"
        + line.format(node="105bc4e57711c6d8")
        + line.format(node="ead2c3ac59a39ba0")
    )
    ev = _write(tmp_path, text)
    (spread,) = ev.failures
    assert (spread["line"], spread["rank_size"]) == (2, 8)
    assert "105bc4e5... 4, ead2c3ac... 4" in spread["exception_type"]
    assert heldout.imported(ev)[0] == "READY WITH WARNINGS"


def test_vllm_healthy_twin_without_the_warning_stays_ready(tmp_path: Path) -> None:
    lines = _text(VLLM_SPREAD).splitlines(keepends=True)
    ev = _write(tmp_path, "".join(lines[:2] + lines[4:]))
    assert [f["kind"] for f in ev.failures] == []
    assert heldout.imported(ev)[0] == "READY"


# --- Megatron zero-bubble PP: the rank of the process whose NCCL WARN lines precede -----------


def test_zbpp_message_truncated_names_rank_9() -> None:
    ev = _load(ZBPP)
    warns = [f for f in ev.failures if f["kind"] == "nccl_warning"]
    assert [(f["line"], f["host"], f["pid"], f["device"], f["rank"]) for f in warns] == [
        (1, "lzm-h200-10", 74737, 1, 9),
        (3, "lzm-h200-10", 74737, 1, 9),
    ]
    assert warns[0]["remote_ip"] == "10.0.5.194" and warns[0]["port"] == 41988
    level, outcome = heldout.imported(ev)
    assert level == "NOT READY"
    _, items = heldout.finding(outcome, "evidence-nccl-warning")
    assert items[0].startswith("lzm-h200-10 pid 74737 (rank 9), device 1: NET/Socket : peer")
    assert "message truncated" in items[0] and "line 1)" in items[0]


def test_zbpp_another_rank_and_host(tmp_path: Path) -> None:
    text = _text(ZBPP).replace("[rank9]", "[rank14]").replace("lzm-h200-10", "gpu-node-3")
    ev = _write(tmp_path, text)
    warns = [f for f in ev.failures if f["kind"] == "nccl_warning"]
    assert {(f["host"], f["rank"]) for f in warns} == {("gpu-node-3", 14)}


def test_zbpp_rank_not_tied_where_the_copy_does_not_tie_it(tmp_path: Path) -> None:
    lines = _text(ZBPP).splitlines(keepends=True)
    # another process's WARN line: two processes, one rank tag, which one raised is not said
    other = lines[2].replace(":74737:74737 [1]", ":74738:74738 [2]")
    ev = _write(tmp_path, "".join([*lines[:3], other, *lines[3:]]))
    assert {f["rank"] for f in ev.failures if f["kind"] == "nccl_warning"} == {None}
    # the traceback far below the WARN lines, other lines between: not tied either
    filler = [f"iteration {i} done\n" for i in range(5)]
    ev = _write(tmp_path, "".join([*lines[:3], *filler, *lines[3:]]))
    assert {f["rank"] for f in ev.failures if f["kind"] == "nccl_warning"} == {None}
