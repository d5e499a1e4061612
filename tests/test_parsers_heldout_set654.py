"""Outputs of round KKKK's held-out evaluation (set 654, framework logs on NVIDIA clusters) that
the advisor read in part before this change (tests/data/evidence_heldout_71, sources in
tests/data/SOURCES.md): a JAX pmap whose ncclCommInitRank failed with an unhandled CUDA error,
read as two failures of "A process" (XLA's intercepted status and replica 3's report of it) with
the second intercepted failure left out; and SGLang's tensor-parallel ranks turning their custom
all-reduce off across nodes, noted as vLLM's."""

from __future__ import annotations

from functools import partial
from pathlib import Path

from advisor.evidence.load import EvidenceFacts
from tests import heldout
from tests.conftest import DATA

HELDOUT = DATA / "evidence_heldout_71"

JAX = "jax_xla_pmap_ncclcomminitrank_unhandled_cuda_error_replica3_cut_jax17399.log"
SGLANG = "sglang_h20_2node_tp16_nccl_init_custom_allreduce_disabled_benign_cut_sglang4978.log"


_load = partial(heldout.load, HELDOUT)
_text = partial(heldout.text, HELDOUT)


_write = partial(heldout.load_copy, name="copy.log")


def _calls(ev: EvidenceFacts) -> list[tuple[int, str | None, str | None]]:
    return [
        (f["line"], f["call"], f["worker"]) for f in ev.failures if f["kind"] == "nccl_call_failure"
    ]


# --- JAX pmap: ncclCommInitRank's unhandled cuda error, replica 3 ---------------------------------

_REPLICA3 = "Replica 3 (all-reduce-start.163 of pmap_train_step, line 3)"


def test_an_intercepted_failure_and_its_replicas_line_are_one_failure_of_that_replica() -> None:
    ev = _load(JAX)
    assert ev.files[0].formats == ["log"]
    # lines 2-3: XLA's intercepted status, then replica 3's report of it; line 5: another
    # intercepted failure, its replica's line cut off the copy
    assert _calls(ev) == [(2, "ncclCommInitRank", _REPLICA3), (5, "ncclCommInitRank", None)]
    assert {f["code_name"] for f in ev.failures} == {"ncclUnhandledCudaError"}
    level, outcome = heldout.imported(ev)
    assert level == "NOT READY"
    assert heldout.above_info(outcome) == [("evidence-nccl-call-failed", "critical")]
    (finding,) = [f for f in outcome.findings if f.rule_id == "evidence-nccl-call-failed"]
    assert finding.message.startswith("2 NCCL call(s) returned an error (ncclUnhandledCudaError)")
    first, second = heldout.items(outcome, "evidence-nccl-call-failed")
    assert first.startswith(f"{_REPLICA3}: ncclUnhandledCudaError at ncclCommInitRank (")
    assert first.endswith(f"{JAX}, line 2)")
    assert second.startswith("A process: ncclUnhandledCudaError at ncclCommInitRank (")
    assert second.endswith(f"{JAX}, line 5)")


def test_each_intercepted_failure_is_named_after_the_replica_line_under_it(tmp_path: Path) -> None:
    # the copy's sixth line completed (another replica, another op) and replica 3 made replica 6
    lines = _text(JAX).splitlines()
    intercepted = lines[4]
    replica1 = lines[2].replace("replica 3", "replica 1").replace(".163", ".7")
    text = "\n".join(
        [*lines[:2], lines[2].replace("replica 3", "replica 6"), *lines[3:5], replica1]
    )
    ev = _write(tmp_path, text + "\n")
    assert _calls(ev) == [
        (2, "ncclCommInitRank", "Replica 6 (all-reduce-start.163 of pmap_train_step, line 3)"),
        (5, "ncclCommInitRank", "Replica 1 (all-reduce-start.7 of pmap_train_step, line 6)"),
    ]
    assert intercepted.startswith("INTERNAL: ")


def test_interleaved_threads_lines_count_each_failure_once_and_name_no_replica(
    tmp_path: Path,
) -> None:
    # two intercepted failures, then two replicas' lines: which is whose the order does not tell
    lines = _text(JAX).splitlines()
    text = "\n".join(
        [*lines[:2], *lines[3:5], lines[2], lines[2].replace("replica 3", "replica 2")]
    )
    ev = _write(tmp_path, text + "\n")
    assert _calls(ev) == [(2, "ncclCommInitRank", None), (4, "ncclCommInitRank", None)]


def test_a_replica_line_of_another_error_is_a_failure_of_its_own(tmp_path: Path) -> None:
    lines = _text(JAX).splitlines()
    other = lines[2].replace("unhandled cuda error", "unhandled system error")
    ev = _write(tmp_path, "\n".join([*lines[:2], other]) + "\n")
    assert _calls(ev) == [
        (2, "ncclCommInitRank", None),
        (3, "ncclCommInitRank", "Replica 3 (all-reduce-start.163 of pmap_train_step)"),
    ]
    assert [f["code_name"] for f in ev.failures] == ["ncclUnhandledCudaError", "ncclSystemError"]


# --- SGLang: custom all-reduce off across nodes -----------------------------------------------


def test_sglangs_custom_all_reduce_off_across_nodes_is_said_as_sglangs() -> None:
    ev = _load(SGLANG)
    assert ev.failures == []
    level, outcome = heldout.imported(ev)
    assert level == "READY"
    assert heldout.above_info(outcome) == []
    notes = heldout.said(ev)
    (note,) = [n for n in notes if "custom all-reduce" in n]
    assert note.startswith("log: SGLang: 3 tensor-parallel rank(s) logged (TP0-TP2); its custom")
    assert "(this process group spans across nodes): NCCL's all-reduce instead" in note
    assert not any("vLLM" in n for n in notes)
    assert any("a communicator of 16 rank(s) started" in n for n in notes)


def test_another_sglang_tag_is_sglangs_and_vllms_own_line_stays_vllms(tmp_path: Path) -> None:
    text = _text(SGLANG).replace(" TP1]", " DP0 TP9]")
    notes = heldout.said(_write(tmp_path, text))
    assert any(
        n.startswith("log: SGLang: 3 tensor-parallel rank(s) logged (TP0, TP2, TP9)") for n in notes
    )
    # vLLM's logger has no TP tag: "INFO 04-01 09:58:02 custom_all_reduce.py:92] ..."
    vllm = "".join(
        line.replace(line[: line.index("]") + 1], "INFO 04-01 09:58:02 custom_all_reduce.py:92]")
        if line.startswith("[")
        else line
        for line in _text(SGLANG).splitlines(keepends=True)
    )
    ev = _write(tmp_path, vllm)
    level, _ = heldout.imported(ev)
    assert level == "READY"
    (note,) = [n for n in heldout.said(ev) if "custom all-reduce" in n]
    assert note.startswith("log: vLLM: its custom all-reduce off (this process group spans")
