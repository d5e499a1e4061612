"""Review 66's faults 1-4 of ``advisor import``'s log reader: a NameError of one worker beside
another worker's EIO; a glog FATAL line under another thread's warning; the same glog log behind
pdsh's "host: "; MindSpore's SyncStream failure of the device inside model.train: each on its
input (tests/data/review66, described in tests/data/SOURCES.md)."""

from __future__ import annotations

from functools import partial
from pathlib import Path

from advisor.evidence.load import EvidenceFacts, load_paths
from tests import heldout
from tests.conftest import DATA

REVIEW = DATA / "review66"
HELDOUT = DATA / "evidence_heldout_80"

_write = partial(heldout.load_copy, name="copy.log")


def _load(name: str, where: Path = REVIEW) -> EvidenceFacts:
    return load_paths([where / name])


def _kinds(ev: EvidenceFacts) -> list[tuple[str, int]]:
    return [(f["kind"], f["line"]) for f in ev.failures]


# --- 1. a NameError of one worker, another worker's EIO --------------------------------------

DS_EIO = "deepspeed_2gpu_rank0_nameerror_rank1_oserror_eio_lustre_index.log"
DS618 = "deepspeed_launcher_2gpu_user_script_nameerror_ds618_cut.log"


def test_another_workers_eio_is_the_failure_not_the_scripts_nameerror() -> None:
    ev = _load(DS_EIO)
    assert _kinds(ev) == [("python_exception", 17)]
    assert ev.failures[0]["exception_type"] == "OSError"
    assert heldout.imported(ev)[0] == "NOT READY"
    # the real file (both workers' NameError) is still the script's bug
    real = _load(DS618, HELDOUT)
    assert _kinds(real) == [("user_script_error", 11)]
    assert heldout.imported(real)[0] == "READY WITH WARNINGS"


def test_a_nameerror_beside_another_workers_reset_connection_is_no_script_bug(
    tmp_path: Path,
) -> None:
    text = (
        (REVIEW / DS_EIO)
        .read_text()
        .replace(
            "OSError: [Errno 5] Input/output error",
            "ConnectionResetError: [Errno 104] Connection reset by peer",
        )
    )
    ev = _write(tmp_path, text)
    assert _kinds(ev) == [("python_exception", 17)]
    assert ev.failures[0]["exception_type"] == "ConnectionResetError"
    assert heldout.imported(ev)[0] == "NOT READY"


def test_a_second_nameerror_traceback_leaves_it_the_scripts_bug(tmp_path: Path) -> None:
    text = (
        (REVIEW / DS_EIO)
        .read_text()
        .replace(
            "OSError: [Errno 5] Input/output error", "NameError: name 'data_loader' is not defined"
        )
    )
    ev = _write(tmp_path, text)
    assert _kinds(ev) == [("user_script_error", 11)]


# --- 2. a warning of another thread above a glog FATAL line ----------------------------------

OTHER_THREAD = "uccl_glog_check_failed_warning_above_from_other_thread_412.log"
UCCL301 = (
    "uccl_h100_glog_ncclIbRoceGetVersionNum_invalid_argument_check_failed_mlx5_0_uccl301_cut.log"
)


def test_another_threads_warning_is_not_the_fatals_cause() -> None:
    ev = _load(OTHER_THREAD)
    assert _kinds(ev) == [("glog_fatal", 5)]
    message = ev.failures[0]["message"]
    assert "after line" not in message and "Proxy thread idle" not in message
    assert "HCA mlx5_0:1 (UCCL_IB_HCA, line 2)" in message  # (thread 331's own HCA line)
    # the real file: its own thread's warning (line 4) still named
    real = _load(UCCL301, HELDOUT)
    assert _kinds(real) == [("glog_fatal", 5)]
    assert (
        "after line 4: W20250825 11:10:33.595331   331 util_rdma.h:547] NET/IB: read"
        in (real.failures[0]["message"])
    )


def test_same_threads_warning_above_another_threads_one_is_named(tmp_path: Path) -> None:
    lines = (HELDOUT / UCCL301).read_text().splitlines()
    # another thread's warning between the FATAL line and its own thread's warning
    lines.insert(4, "W20250825 11:10:33.595340   412 proxy.cc:210] Proxy thread idle for 5000 ms")
    ev = _write(tmp_path, "\n".join(lines) + "\n")
    assert _kinds(ev) == [("glog_fatal", 6)]
    message = ev.failures[0]["message"]
    assert "after line 4: W20250825 11:10:33.595331   331" in message
    # another thread's HCA is not this thread's
    other_hca = (
        (HELDOUT / UCCL301).read_text().replace("   331 rdma_io.cc:52]", "   412 rdma_io.cc:52]")
    )
    assert "HCA" not in _write(tmp_path, other_hca).failures[0]["message"]


# --- 3. the glog log behind pdsh's "host: " -------------------------------------------------

PDSH = "uccl_glog_check_failed_pdsh_prefix_gpu_node_07.log"


def test_a_glog_fatal_behind_pdsh_is_read_naming_the_host() -> None:
    ev = _load(PDSH)
    assert _kinds(ev) == [("glog_fatal", 5)]
    (f,) = ev.failures
    assert f["host"] == "gpu-node-07"
    assert f["message"].startswith("F20250825 11:10:33.595355   331 util_rdma.h:592] Check failed")
    assert "after line 4: W20250825" in f["message"]
    assert heldout.imported(ev)[0] == "NOT READY"


def test_two_pdsh_hosts_keep_each_hosts_warning(tmp_path: Path) -> None:
    lines = (HELDOUT / UCCL301).read_text().splitlines()
    # node-b's FATAL under node-a's warning of the same thread id: not its cause
    text = "\n".join(
        [f"node-a: {t}" for t in lines[:4]]
        + [f"node-b: {lines[4]}"]
        + [f"node-b: {t}" for t in lines[5:]]
    )
    ev = _write(tmp_path, text + "\n")
    assert _kinds(ev) == [("glog_fatal", 5)]
    assert ev.failures[0]["host"] == "node-b"
    assert "after line" not in ev.failures[0]["message"]
    assert "HCA" not in ev.failures[0]["message"]


# --- 4. MindSpore's SyncStream failure inside model.train ------------------------------------

MS_DEVICE = "mindspore_syncstream_failed_ascend0_inside_model_train_traceback.log"
MS186 = "mindspore_device_syncstream_failed_stream_null_then_train_traceback_modelarts_mindyolo186_cut.log"


def test_a_sync_stream_failure_in_training_is_the_device_fault_not_a_consequence() -> None:
    ev = _load(MS_DEVICE)
    assert _kinds(ev)[0] == ("hccl_plog_error", 1)
    assert "Sync stream failed:Ascend_0" in ev.failures[0]["message"]
    assert not any("never set up" in (f.get("exception_type") or "") for f in ev.failures)
    assert heldout.imported(ev)[0] == "NOT READY"
    # the real file: the null stream's SyncStream line is still the traceback's consequence
    real = _load(MS186, HELDOUT)
    assert _kinds(real) == [("python_exception", 8)]
    assert "never set up, a consequence of this" in real.failures[0]["exception_type"]


def test_a_null_stream_line_over_a_train_traceback_stays_a_consequence(tmp_path: Path) -> None:
    text = (
        (REVIEW / MS_DEVICE)
        .read_text()
        .replace(
            "SyncStream failed, exception:Sync stream failed:Ascend_0",
            "SyncStream failed, exception:The pointer[stream] is null.",
        )
    )
    ev = _write(tmp_path, text)
    assert _kinds(ev) == [("python_exception", 17)]
    assert "never set up" in ev.failures[0]["exception_type"]
