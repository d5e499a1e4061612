"""Review 45 of round ZZZ's change (Nos. 6-9 and 12: Horovod's stall inspector under PyTorch, an
XLA out-of-memory wrapped mid-word, a DeepSpeed loss scale that recovered, Megatron's count of
NaN iterations beside a finite loss, finding a rank table in a long Hugging Face Trainer log):
each fault it found, on its input (tests/data/review45, described in tests/data/SOURCES.md)."""

from __future__ import annotations

import time

from advisor.evidence import load
from advisor.evidence.load import EvidenceFacts, load_paths, load_text
from advisor.parsers import logs
from tests import heldout
from tests.conftest import DATA

REVIEW = DATA / "review45"


def _load(name: str) -> EvidenceFacts:
    return load_paths([REVIEW / name])


def test_horovods_torch_tensor_names_say_their_collective_and_the_deadlock() -> None:
    ev = _load(
        "horovod_torch_mpirun_stall_missing_ranks_rank0_broadcast_dot_names_rank1_allreduce_dot_names.log"
    )
    (hung,) = ev.failures
    assert (hung["kind"], hung["line"]) == ("horovod_deadlock", 1)
    assert (
        "the ranks are in different collectives (broadcast vs allreduce), each waiting for the "
        "others: a deadlock" in hung["exception_type"]
    )
    assert heldout.rules_verdict(ev) == "NOT READY"
    # (horovod.torch and horovod.mxnet name a tensor "<op>.<name>", an unnamed one
    # "<op>.noname.<handle>"; TensorFlow's "Horovod<Op>_<name>" as before; a parameter whose
    # own name holds an op's word names no collective)
    said = {
        name: (o.group(1).lower() if (o := logs._HOROVOD_OP_RE.search(name)) else None)
        for name in (
            "allreduce.noname.12",
            "allgather.layer1.weight",
            "alltoall.x",
            "reducescatter.grad",
            "HorovodBroadcast_global_step_0",
            "DistributedMomentumOptimizer_Allreduce/HorovodAllreduce_gradients_AddN_100_0",
            "broadcastx.weight",
            "model.allreduce.bias",
            "allreduce",
        )
    }
    assert list(said.values()) == [
        "allreduce",
        "allgather",
        "alltoall",
        "reducescatter",
        "broadcast",
        "allreduce",
        None,
        None,
        None,
    ]


def test_an_xla_out_of_memory_wrapped_mid_word_is_the_devices_oom() -> None:
    ev = _load("jax_replica0_resource_exhausted_oom_wrapped_mid_word_at_column_200.log")
    (oom,) = ev.failures
    assert (oom["kind"], oom["line"], oom["library"]) == ("device_oom", 1, "XLA")
    assert oom["exception_type"] == (
        "tried to allocate 5520758552 B (5.14 GiB) on replica 0: the device's memory ran out"
    )
    assert heldout.rules_verdict(ev) == "NOT READY"
    # a wrap anywhere in the message, in a word, at a space or in the number, reads the same size
    line = (
        "2019-06-13 01:17:08.886805: E external/org_tensorflow/tensorflow/compiler/xla/python/"
        "local_client.cc:672] Execution of replica 0 failed: Resource exhausted: Out of memory "
        "while trying to allocate 5520758552 bytes.\n"
    )
    for word in ("Resource exh", "Out of memory while trying to", "allocate 55207"):
        cut = line.index(word) + len(word)
        (event,) = logs.parse(f"{line[:cut]}\n{line[cut:]}").events
        assert (event.kind, event.exception_type) == ("device_oom", oom["exception_type"])
    # a copy that ends at the cut still says the replica failed: its glog E line is an error
    # ("replica 0 failed" is no count of none)
    (cut,) = load_text(line[: line.index("allo") + 4] + "\n", "jax.log").failures
    assert (cut["kind"], cut["line"]) == ("log_error", 1)


def test_a_loss_scale_that_a_later_overflow_shows_raised_is_a_note() -> None:
    ev = _load(
        "hf_trainer_deepspeed_fp16_scale_64_to_2_at_382_then_back_up_256_overflow_at_1183_loss_falling_alpaca534_window100.log"
    )
    assert not ev.failures
    assert heldout.rules_verdict(ev) == "READY"
    (note,) = [m for m in heldout.said(ev) if "loss scaler" in m]
    assert note == (
        "log: DeepSpeed's fp16 loss scaler: 7 fp16 overflow(s) skipped their step on rank 0, the "
        "loss scale falling from 64 to 2, then back up to 256 by line 22 (the scaler raises it "
        "after each scale window of steps without an overflow); 1 of them spent the scaler's "
        "hysteresis, the scale kept; no warning: the scale it fell to was raised again"
    )
    # the run's own minimum judges the scale: far above a min_loss_scale of 1e-10 a scale of 2
    # is none, near one of 1 (DeepSpeed's default, or as its config print says) it is
    overflow = (
        "[2023-06-07 22:16:00,018] [INFO] [loss_scaler.py:181:update_scale] [deepspeed] OVERFLOW! "
        "Rank 0 Skipping step. Attempted loss scale: {tried}, reducing to {to}\n"
    )
    falls = "".join(overflow.format(tried=2**i, to=2 ** (i - 1)) for i in range(6, 1, -1))
    config = "[INFO] [config.py:1] dynamic_loss_scale_args ...... {{'init_scale': 65536, 'min_scale': {}}}\n"
    assert not load_text(config.format("1e-10") + falls, "train.log").failures
    for text in (falls, config.format(1) + falls):
        (low,) = load_text(text, "train.log").failures
        assert low["exception_type"].endswith(
            "(at most 8: near the run's minimum, "
            + ("1 by default" if text == falls else "1 (min_loss_scale)")
            + ", below which the scaler cannot go: DeepSpeed stops the run there, or, where "
            "raise_error_at_min_scale is off, skips each step that overflows again)"
        )
    # (a later overflow at a scale still low is no recovery)
    again = falls + overflow.format(tried=4, to=2)
    assert [f["line"] for f in load_text(again, "train.log").failures] == [3]


def test_a_megatron_log_that_ends_at_a_skipped_nan_iteration_with_a_finite_loss_is_ready() -> None:
    ev = _load(
        "megatron_gpt2_fp16_one_skipped_nan_iteration_at_300_loss_finite_log_tail_ends_there.log"
    )
    assert not ev.failures
    assert heldout.rules_verdict(ev) == "READY"
    (note,) = [m for m in heldout.said(ev) if "loss lines" in m]
    assert note.endswith("to iteration 300 of 5000 (loss 7.912044E+00); no error in them")
    # (a printed NaN at the end is still the run diverged)
    nan = (REVIEW / ev.files[0].path).read_text().replace("7.912044E+00", "NAN")
    (turned,) = load_text(nan, "train.log").failures
    assert (turned["kind"], turned["line"]) == ("loss_diverged", 28)


def test_finding_a_rank_table_in_a_long_trainer_log_takes_linear_time() -> None:
    # set 588's alpaca534 lines: a tqdm bar with DeepSpeed's OVERFLOW line on it, then the
    # Trainer's dict of its loss (a Python repr: each fails as JSON, where the reader's error
    # counted every line before it)
    sample = DATA / "evidence_heldout_62"
    lines = (
        (
            sample
            / "hf_trainer_deepspeed_fp16_overflow_loss_scale_64_to_2_tqdm_concat_llama_alpaca534_cut.log"
        )
        .read_text()
        .splitlines(keepends=True)
    )
    pair = [line for line in lines if "OVERFLOW!" in line][:1] + [
        line for line in lines if line.startswith("{'loss'")
    ][:1]
    assert len(pair) == 2
    spent = []
    for n in (4_000, 8_000):
        text = "".join(pair) * n
        start = time.process_time()
        assert load.embedded_rank_table(text) is None
        spent.append(time.process_time() - start)
    # (twice the log: about twice the time, not four times)
    assert spent[1] < 1.0
    assert spent[1] < 3 * spent[0] + 0.05, spent
    # a table after the log's dicts is found, and one longer than the first window read whole
    ranks = ",".join(
        f'{{"device_id": "{i % 8}", "device_ip": "192.168.{i}.1", "rank_id": "{i}"}}'
        for i in range(256)
    )
    big = (
        '{"version": "1.0", "server_count": "1", "server_list": [{"server_id": "10.0.0.1", '
        f'"device": [{ranks}]}}], "status": "completed"}}\n'
    )
    assert len(big) > 2 * load.DECODE_WINDOW_CHARS
    found = load.embedded_rank_table("".join(pair) * 100 + big)
    assert found is not None and found == (big.rstrip("\n"), 200)
