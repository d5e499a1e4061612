"""Outputs of round MMMM's held-out evaluation (set 666, framework logs on NVIDIA clusters) that
the advisor read in part before this change (tests/data/evidence_heldout_73, sources in
tests/data/SOURCES.md): NCCL 2.1's pair of WARNs for one HCA it could not open at start-up
("Call to ibv_open_device failed" then "NET/IB : Unable to open device mlx4_8"), read as a
critical cause and a fallback at once, and torch's monitored_barrier error on rank 1, read with
the reporter first and rank 0, the rank its text says to check, only as the peer."""

from __future__ import annotations

from functools import partial
from pathlib import Path

from tests import heldout
from tests.conftest import DATA

HELDOUT = DATA / "evidence_heldout_73"

HOROVOD = "horovod_0138_nccl_2115_ibv_open_device_failed_mlx4_8_horovod385_cut.log"
LIGHTNING = "lightning_ddp_monitored_barrier_rank1_waiting_on_rank0_pytorch76198_cut.log"
HOST = "bdb5d1df-0212-4abf-8fe6-d826d516440d"


_load = partial(heldout.load, HELDOUT)
_text = partial(heldout.text, HELDOUT)


_write = partial(heldout.load_copy, name="copy.log")


# --- NCCL 2.1: ibv_open_device failed, NET/IB skips mlx4_8 ------------------------------------


def test_horovod_ibv_open_failure_is_one_skipped_hca_a_warning() -> None:
    ev = _load(HOROVOD)
    (failure,) = ev.failures
    assert failure["kind"] == "nccl_warning"
    assert failure["exception_type"] == "start-up fallback"
    assert (failure["line"], failure["host"], failure["pid"], failure["device"]) == (
        6, HOST, 12122, 0,
    )  # fmt: skip
    assert failure["message"].startswith("NET/IB : Unable to open device mlx4_8 ")
    assert "its ibv_open_device call failed, line 4" in failure["message"]
    level, outcome = heldout.imported(ev)
    assert level == "READY WITH WARNINGS"
    assert heldout.above_info(outcome) == [("evidence-nccl-fallback-warning", "warning")]
    _, (item,) = heldout.finding(outcome, "evidence-nccl-fallback-warning")
    assert item.startswith(f"{HOST} pid 12122, device 0: NET/IB : Unable to open device mlx4_8")
    assert "skipped HCA mlx4_8" in item and item.endswith("line 6)")
    (finding,) = [f for f in outcome.findings if f.rule_id == "evidence-nccl-fallback-warning"]
    assert any("NCCL_IB_HCA" in r.why for r in finding.recommendations)


def test_horovod_two_hcas_each_with_its_own_wrapper_line(tmp_path: Path) -> None:
    # two HCAs refused in turn: the wrapper's text is the same for both (a repeat); each device's
    # WARN takes the wrapper line just above it, and nothing critical is left over
    head, pair = _text(HOROVOD).split(
        "\nbdb5d1df-0212-4abf-8fe6-d826d516440d:12122:12182 [0] misc", 1
    )
    pair = "\nbdb5d1df-0212-4abf-8fe6-d826d516440d:12122:12182 [0] misc" + pair
    second = pair.replace("mlx4_8", "mlx4_9")
    ev = _write(tmp_path, head + pair + second)
    got = sorted((f["line"], f["message"].split(" (")[0]) for f in ev.failures)
    assert got == [
        (6, "NET/IB : Unable to open device mlx4_8"),
        (10, "NET/IB : Unable to open device mlx4_9"),
    ]
    assert "line 4" in ev.failures[0]["message"] or "line 4" in ev.failures[1]["message"]
    assert any("call failed, line 8" in f["message"] for f in ev.failures)
    level, outcome = heldout.imported(ev)
    assert level == "READY WITH WARNINGS"
    assert heldout.above_info(outcome) == [("evidence-nccl-fallback-warning", "warning")]


def test_horovod_newer_nccl_wrapper_text_and_another_host(tmp_path: Path) -> None:
    # IBV_PTR_CHECK_ERRNO's "failed with error <strerror>" (later NCCL), another host, pid, GPU
    text = (
        _text(HOROVOD)
        .replace(HOST, "gpu-node7")
        .replace(":12122:12182 [0]", ":4051:4090 [3]")
        .replace(
            "Call to ibv_open_device failed",
            "Call to ibv_open_device failed with error No such device",
        )
        .replace("mlx4_8", "mlx5_2")
    )
    ev = _write(tmp_path, text)
    (failure,) = ev.failures
    assert (failure["host"], failure["pid"], failure["device"]) == ("gpu-node7", 4051, 3)
    assert "skipped HCA mlx5_2" in failure["message"]
    assert heldout.imported(ev)[0] == "READY WITH WARNINGS"


def test_horovod_wrapper_warn_cut_before_its_device_stays_an_error(tmp_path: Path) -> None:
    # a copy that ends at the wrapper's WARN says no HCA was skipped: the WARN is read as it is
    text = _text(HOROVOD).split("\nbdb5d1df-0212-4abf-8fe6-d826d516440d:12122:12182 [0] transport")[
        0
    ]
    ev = _write(tmp_path, text)
    (failure,) = ev.failures
    assert (failure["line"], failure["message"]) == (4, "Call to ibv_open_device failed")
    assert failure["exception_type"] is None
    assert heldout.imported(ev)[0] == "NOT READY"


def test_horovod_another_process_wrapper_is_not_folded(tmp_path: Path) -> None:
    # the wrapper's WARN from another process is that process's own: not the device's pair
    text = _text(HOROVOD).replace(":12122:12182 [0] misc", ":12123:12190 [1] misc")
    ev = _write(tmp_path, text)
    got = sorted((f["line"], f["pid"]) for f in ev.failures)
    assert got == [(4, 12123), (6, 12122)]
    assert heldout.imported(ev)[0] == "NOT READY"


def test_horovod_healthy_twin_stays_ready(tmp_path: Path) -> None:
    # the interface lines alone, no WARN
    text = "\n".join(_text(HOROVOD).splitlines()[:2]) + "\n"
    ev = _write(tmp_path, text)
    assert ev.failures == []
    assert heldout.imported(ev)[0] == "READY"


# --- torch monitored_barrier: rank 1 could not exchange with rank 0 ----------------------------


def test_lightning_monitored_barrier_names_rank_0_the_suspect() -> None:
    ev = _load(LIGHTNING)
    (failure,) = ev.failures
    assert failure["kind"] == "monitored_barrier_failure"
    assert (failure["line"], failure["rank"], failure["remote_rank"]) == (15, 1, 0)
    level, outcome = heldout.imported(ev)
    assert level == "NOT READY"
    assert heldout.above_info(outcome) == [("evidence-monitored-barrier-failed", "critical")]
    _, (item,) = heldout.finding(outcome, "evidence-monitored-barrier-failed")
    assert item.startswith(
        "rank 0 is the suspect: rank 1 reached the barrier, but its send/recv with rank 0 failed"
    )
    assert "check rank 0 logs for faulty rank" in item and item.endswith("line 15)")


def test_lightning_another_reporting_rank(tmp_path: Path) -> None:
    ev = _write(
        tmp_path, _text(LIGHTNING).replace("RuntimeError: Rank 1 ", "RuntimeError: Rank 5 ")
    )
    level, outcome = heldout.imported(ev)
    assert level == "NOT READY"
    _, (item,) = heldout.finding(outcome, "evidence-monitored-barrier-failed")
    assert item.startswith("rank 0 is the suspect: rank 5 reached the barrier")


def test_lightning_with_rank_0s_report_the_missing_ranks_are_the_suspects(tmp_path: Path) -> None:
    # rank 0's own error names the ranks that never came: rank 0 is no longer the suspect
    text = _text(LIGHTNING) + "RuntimeError: Ranks 3 failed to pass monitoredBarrier in 30000 ms\n"
    level, outcome = heldout.imported(_write(tmp_path, text))
    assert level == "NOT READY"
    _, items = heldout.finding(outcome, "evidence-monitored-barrier-failed")
    assert len(items) == 2
    assert not any("is the suspect" in i for i in items)
    assert any(i.startswith("rank(s) 3 never arrived within 30000 ms") for i in items)
    assert any("rank 0 named the ranks that never came" in i for i in items)


def test_lightning_frames_without_the_error_read_no_barrier_failure(tmp_path: Path) -> None:
    # the same frames with no monitoredBarrier error: nothing of the barrier to name
    text = "\n".join(_text(LIGHTNING).splitlines()[:14]) + "\n"
    ev = _write(tmp_path, text)
    assert not [f for f in ev.failures if f["kind"] == "monitored_barrier_failure"]
