"""Review 69 (part c) of round WWWW (sets 724-726), faults 1, 2, 3 and 5: a multi-nic-cni row
"2/2" with no bitrate (nothing read, counted connected); ranks whose ``[rankN]:`` tracebacks
interleave or come grouped, each rank's own exception in one linear pass; NCCL WARN device tags
after pdsh's bare "host: "; the plugin-load-failed wording (NCCL used its internal network):
each on its input (tests/data/review69, described in tests/data/SOURCES.md)."""

from __future__ import annotations

import time
from functools import partial
from pathlib import Path

from advisor.evidence.load import EvidenceFacts, load_paths
from advisor.parsers import logs
from tests import heldout
from tests.conftest import DATA

REVIEW = DATA / "review69"
HELDOUT = DATA / "evidence_heldout_83"

_write = partial(heldout.load_copy, name="copy.log")


def _load(name: str, where: Path = REVIEW) -> EvidenceFacts:
    return load_paths([where / name])


# --- 1. multi-nic-cni: "N/N" with no bitrate measured nothing --------------------------------

MULTINIC_UNREAD = "multinic_cni_check_worker3_from_rows_2of2_no_bitrate_client_log_unread.txt"
MULTINIC_REAL = "multinic_cni_connection_check_iperf3_gpu_dallas_worker_3_rfrs4_0_of_2_cut.txt"


def test_a_row_counted_connected_with_no_bitrate_is_a_warning_not_ready() -> None:
    ev = _load(MULTINIC_UNREAD)
    assert [(f["kind"], f["line"]) for f in ev.failures] == [
        ("multinic_unmeasured", n) for n in range(30, 35)
    ]
    assert {f["host"] for f in ev.failures} == {"gpu-dallas-d5l8c-worker-3-rfrs4"}
    level, outcome = heldout.imported(ev)
    assert level == "READY WITH WARNINGS"
    assert heldout.above_info(outcome) == [("evidence-multinic-connection-unmeasured", "warning")]
    first = heldout.items(outcome, "evidence-multinic-connection-unmeasured")[0]
    assert "worker-3-rfrs4 to gpu-dallas-d5l8c-worker-2-5477j" in first
    assert "connected count without any measurement" in first
    (note,) = [m for _, m in heldout.notes(ev) if "multi-nic-cni connection check" in m]
    assert "25 with every address connected, 0 not, 5 counted connected with no bitrate" in note


def test_the_real_check_still_names_the_host_no_other_reaches() -> None:
    ev = _load(MULTINIC_REAL, HELDOUT)
    assert [f["kind"] for f in ev.failures] == ["multinic_unconnected"]
    assert ev.failures[0]["host"] == "gpu-dallas-d5l8c-worker-3-rfrs4"
    assert heldout.imported(ev)[0] == "NOT READY"


def test_one_address_without_bitrate_is_unmeasured_and_a_whole_row_is_not(tmp_path: Path) -> None:
    text = (REVIEW / MULTINIC_UNREAD).read_text().splitlines(keepends=True)
    # every row measured (the worker-3 rows given bitrates): READY, no finding
    full = [
        t.rstrip()[:-2] + "[ 7.10Gbits/sec 7.20Gbits/sec]\n" if t.rstrip().endswith("[]") else t
        for t in text
    ]
    ev = _write(tmp_path, "".join(full))
    assert not ev.failures
    assert heldout.imported(ev)[0] == "READY"
    # one row with one bitrate for its two addresses: that row only, the rest counted unread
    one = list(full)
    one[29] = one[29].replace("[ 7.10Gbits/sec 7.20Gbits/sec]", "[ 7.10Gbits/sec]")
    ev = _write(tmp_path, "".join(one))
    assert [(f["kind"], f["line"]) for f in ev.failures] == [("multinic_unmeasured", 30)]
    assert "the rest counted connected without a measurement" in ev.failures[0]["exception_type"]


# --- 2. [rankN]: tracebacks interleaved or grouped: each rank's own exception, linear ----------

RANKS_INTERLEAVED = "slurm_llama_pipeline_rank0_rank1_tracebacks_interleaved_own_valueerrors.log"
RANKS_REAL = (
    "slurm_pipeline_inference_openllama_2node_rank0_rank1_valueerror_no_device_set_"
    "llama_pipeline4205_cut.log"
)


def _raised(ev: EvidenceFacts) -> str:
    (f,) = [f for f in ev.failures if f["kind"] == "python_exception"]
    return str(f["exception_type"])


def test_interleaved_rank_tracebacks_name_rank_1s_own_exception() -> None:
    ev = _load(RANKS_INTERLEAVED)
    said = _raised(ev)
    assert (
        "rank 1 raised its own at line 60: ValueError: model.layers.0.self_attn.q_proj.weight "
        "doesn't have any device set." in said
    )
    assert heldout.imported(ev)[0] == "NOT READY"


def test_the_real_pipeline_log_still_names_the_other_ranks_own() -> None:
    said = _raised(_load(RANKS_REAL, HELDOUT))
    assert "raised its own at line" in said


def _grouped(ranks: int) -> str:
    heads = [f"[rank{r}]: Traceback (most recent call last):\n" for r in range(ranks)]
    frames = [f'[rank{r}]:   File "/app/run.py", line 9, in <module>\n' for r in range(ranks)]
    raised = [f"[rank{r}]: ValueError: layer {r} has no device\n" for r in range(ranks)]
    return "".join(heads + frames + raised)


def test_grouped_tracebacks_name_every_rank_and_count_the_rest(tmp_path: Path) -> None:
    ev = _write(tmp_path, _grouped(12))
    said = _raised(ev)
    assert said.startswith("ValueError: rank 1 raised its own at line 26: ValueError: layer 1")
    assert "rank 2 raised its own at line 27: ValueError: layer 2 has no device" in said


def _pass_seconds(ranks: int) -> float:
    lines = []
    for no, t in enumerate(_grouped(ranks).splitlines(), 1):
        bare, rank = logs.strip_launcher_prefix(t)
        lines.append((no, bare, rank))
    best = float("inf")
    for _ in range(3):
        raised = logs.LogEvent(
            kind="python_exception", line=1, message="x", rank=0, exception_type="ValueError"
        )
        start = time.perf_counter()
        logs._other_ranks_raised(lines, raised)
        best = min(best, time.perf_counter() - start)
    return best


def test_other_ranks_raised_is_linear() -> None:
    # (review 69c: 1.5 s for 500 ranks, 21.6 s for 2000: four times per doubling)
    small, big = _pass_seconds(500), _pass_seconds(4000)
    assert big < 20 * small + 0.05, (small, big)


# --- 3. NCCL WARN device after pdsh's bare "host: " -----------------------------------------

SHM_PDSH = "pdsh_bare_host_gpu_a_nccl_shm_cuda_invalid_argument_devices_1_0.log"
SHM_REAL = "nccl_shm_segment_create_cuda_invalid_argument_4gpu_torchrun_nccl1518_cut.log"


def _warn_items(ev: EvidenceFacts) -> tuple[str, list[str]]:
    _, outcome = heldout.imported(ev)
    (finding,) = [f for f in outcome.findings if f.rule_id == "evidence-nccl-warning"]
    return finding.message, heldout.items(outcome, "evidence-nccl-warning")


def test_a_bare_pdsh_host_keeps_each_warns_device() -> None:
    message, items = _warn_items(_load(SHM_PDSH))
    assert "from 2 device(s) (1, 0" in message
    assert items[0].startswith("gpu-a, device 1: Cuda failure 'invalid argument'")
    assert any(i.startswith("gpu-a, device 0: Cuda failure 'invalid argument'") for i in items)


def test_the_bare_copy_and_other_prefixes_read_the_same_devices(tmp_path: Path) -> None:
    message, items = _warn_items(_load(SHM_REAL, HELDOUT))
    assert "from 2 device(s) (1, 0" in message
    text = (REVIEW / SHM_PDSH).read_text()
    for prefix, host in (("node07: ", "node07"), ("[pod/train-0/nccl] ", None)):
        copy = text.replace("gpu-a: ", prefix)
        message, items = _warn_items(_write(tmp_path, copy))
        assert "from 2 device(s) (1, 0" in message, prefix
        assert items[0].startswith(f"{host or 'a process'}, device 1: "), items[0]


# --- 5. plugin load failed: NCCL used its internal network ----------------------------------

PLUGIN_DEP = "nccl2215_net_plugin_libfabric_missing_internal_ib_used.log"


def test_a_plugin_not_loaded_says_the_internal_network_used_not_a_wanted_transport() -> None:
    ev = _load(PLUGIN_DEP)
    level, outcome = heldout.imported(ev)
    assert level == "READY WITH WARNINGS"
    (finding,) = [f for f in outcome.findings if f.rule_id == "evidence-nccl-plugin-load-failed"]
    assert "is not what this run uses" not in finding.message
    assert "used its internal one instead" in finding.message
    (item,) = heldout.items(outcome, "evidence-nccl-plugin-load-failed")
    assert "and used its internal network IB (line 7)" in item


def test_a_socket_run_names_socket_and_a_copy_without_the_line_names_none(
    tmp_path: Path,
) -> None:
    text = (REVIEW / PLUGIN_DEP).read_text()
    ev = _write(tmp_path, text.replace("Using network IB", "Using network Socket"))
    (f,) = [f for f in ev.failures if f["kind"] == "nccl_plugin_load_failed"]
    assert "used its internal network Socket (line 7)" in f["exception_type"]
    cut = "".join(t for t in text.splitlines(True) if "Using network" not in t)
    (f,) = [f for f in _write(tmp_path, cut).failures if f["kind"] == "nccl_plugin_load_failed"]
    assert f["exception_type"].endswith("NCCL went on without it")
