"""Review 56 of round KKKK (sets 649-654), faults 1 and 2: gpu-burn's summary behind pdsh's
``node: `` prefix read as no summary, so 16 FAULTY GPUs whose progress errors were reset read
READY; and a fork's summary words DIED and NO RESULTS dropped, those GPUs called OK: each on its
input (tests/data/review56, described in tests/data/SOURCES.md), with the real set-651 file it
was built from still read as before."""

from __future__ import annotations

from functools import partial
from pathlib import Path

from advisor.evidence.load import EvidenceFacts, detect, load_paths
from tests import heldout
from tests.conftest import DATA

REVIEW = DATA / "review56"
REAL = (
    DATA
    / "evidence_heldout_71"
    / "gpu_burn_16gpu_all_faulty_compare_errors_exit0_gpuburn12_cut.txt"
)

ZEROED = "gpu_burn_16gpu_pdsh_node07_prefix_all_faulty_progress_errors_zeroed.txt"
WITH_ERRORS = "gpu_burn_16gpu_pdsh_node07_prefix_all_faulty_7_with_compare_errors.txt"
FORK = "gpu_burn_16gpu_fork_summary_gpu3_died_gpu5_no_results_others_ok.txt"

_write = partial(heldout.load_copy, name="copy.txt")


def _load(name: str) -> EvidenceFacts:
    return load_paths([REVIEW / name])


def _faulty(ev: EvidenceFacts) -> list[dict[str, object]]:
    return [f for f in ev.failures if f["kind"] == "gpu_burn_faulty"]


# --- 1. the summary behind pdsh's prefix -------------------------------------------------------


def test_pdsh_prefixed_summary_all_faulty_with_zeroed_progress_is_not_ready() -> None:
    text = (REVIEW / ZEROED).read_text()
    assert detect(text) == ["gpu_burn"]
    ev = _load(ZEROED)
    faulty = _faulty(ev)
    assert [(f["device"], f["line"], f["host"]) for f in faulty] == [
        (g, 5 + g, "gpu-node07") for g in range(16)
    ]
    for f in faulty:
        assert "no error on the progress line(s) in the copy" in str(f["exception_type"])
    level, _ = heldout.imported(ev)
    assert level == "NOT READY"
    said = heldout.said(ev)
    assert not any("without compare errors" in n for n in said)
    assert not any("ends before its 'Tested N GPUs' summary" in n for n in said)


def test_pdsh_prefixed_summary_names_all_sixteen_and_the_seven_counts() -> None:
    faulty = _faulty(_load(WITH_ERRORS))
    assert [(f["device"], f["line"]) for f in faulty] == [(g, 5 + g) for g in range(16)]
    counted = {
        f["device"] for f in faulty if "-524288000 compare error(s)" in str(f["exception_type"])
    }
    assert counted == {1, 2, 3, 4, 9, 11, 14}


def test_real_unprefixed_file_still_sixteen_faulty_and_no_host() -> None:
    ev = load_paths([REAL])
    faulty = _faulty(ev)
    assert [(f["device"], f["line"], f["host"]) for f in faulty] == [
        (g, 5 + g, None) for g in range(16)
    ]
    assert heldout.imported(ev)[0] == "NOT READY"


def test_kubectl_prefix_and_a_kept_tab_read_the_summary(tmp_path: Path) -> None:
    lines = REAL.read_text().splitlines()[:20]
    # the progress errors zeroed, so only the summary can say FAULTY
    first = lines[0].replace("-524288000  (WARNING!)", "0 ")
    summary = [line.replace("FAULTY", "OK") if "GPU 7:" not in line else line for line in lines[1:]]
    for prefix, host in (
        ("[pod/burn-7xk2p/gpu-burn] ", None),  # (taken off by the loader before reading)
        ("gpu-node07: ", "gpu-node07"),
        ("10.0.0.11: ", "10.0.0.11"),
        ("0: ", None),  # srun --label's task, no host
    ):
        ev = _write(tmp_path, "".join(f"{prefix}{line}\n" for line in [first, *summary]))
        assert [(f["device"], f["line"], f["host"]) for f in _faulty(ev)] == [(7, 12, host)]
        assert heldout.imported(ev)[0] == "NOT READY"
        assert any("OK (lines 5-20)" in n for n in heldout.said(ev)), prefix


def test_two_hosts_each_their_own_summary(tmp_path: Path) -> None:
    def host(name: str, gpu2: str) -> str:
        return (
            f"{name}: 100.0%  proc'd: 10 (6000 Gflop/s) - 10 (6001 Gflop/s) - 10 (6002 Gflop/s)"
            "   errors: 0 - 0 - 0   temps: 50 C - 51 C - 52 C \n"
            f"{name}: Tested 3 GPUs:\n"
            f"{name}: \tGPU 0: OK\n"
            f"{name}: \tGPU 1: OK\n"
            f"{name}: \tGPU 2: {gpu2}\n"
        )

    ev = _write(tmp_path, host("node-a1", "FAULTY") + host("node-b2", "OK"))
    assert [(f["device"], f["line"], f["host"]) for f in _faulty(ev)] == [(2, 5, "node-a1")]
    said = heldout.said(ev)
    assert any("node-a1: gpu-burn: GPU(s) 0, 1 OK" in n for n in said)
    assert any("node-b2: gpu-burn: GPU(s) 0, 1, 2 OK" in n for n in said)


# --- 2. summary words other than OK / FAULTY ---------------------------------------------------


def test_fork_died_and_no_results_rows_are_failures_not_ok() -> None:
    ev = _load(FORK)
    faulty = _faulty(ev)
    assert [(f["device"], f["line"], f["message"]) for f in faulty] == [
        (3, 8, "gpu-burn: GPU 3 DIED"),
        (5, 10, "gpu-burn: GPU 5 NO RESULTS"),
    ]
    assert "its process died" in str(faulty[0]["exception_type"])
    assert "never reported a result" in str(faulty[1]["exception_type"])
    assert heldout.imported(ev)[0] == "NOT READY"
    (ok,) = [n for n in heldout.said(ev) if "OK (lines" in n]
    assert "GPU(s) 0, 1, 2, 4, 6, 7" in ok and " 3," not in ok and " 5," not in ok


def test_real_files_healthy_twin_stays_ready(tmp_path: Path) -> None:
    lines = REAL.read_text().splitlines()
    first = lines[0].replace("-524288000  (WARNING!)", "0 ")
    ev = _write(tmp_path, "\n".join([first, *(x.replace("FAULTY", "OK") for x in lines[1:])]))
    assert not _faulty(ev)
    assert heldout.imported(ev)[0] == "READY"


def test_no_results_behind_pdsh_prefix(tmp_path: Path) -> None:
    text = (
        "gpu-node03: 100.0%  proc'd: 10 (6000 Gflop/s) - 0 (0 Gflop/s)   errors: 0 - 0   "
        "temps: 50 C - 51 C \n"
        "gpu-node03: Tested 2 GPUs:\n"
        "gpu-node03: \tGPU 0: OK\n"
        "gpu-node03: \tGPU 1: NO RESULTS\n"
    )
    assert detect(text) == ["gpu_burn"]
    ev = _write(tmp_path, text)
    assert [(f["device"], f["line"]) for f in _faulty(ev)] == [(1, 4)]


def test_fork_dash_i_row_names_the_lone_gpu(tmp_path: Path) -> None:
    # a fork's `gpu_burn -i 3`: the progress line has the one GPU at position 0, the summary
    # prints its nvidia-smi index
    text = (
        "100.0%  proc'd: 900 (6000 Gflop/s)   errors: 12  (WARNING!)   temps: 50 C \n"
        "Tested 1 GPUs:\n"
        "\tGPU 3: FAULTY\n"
    )
    ev = _write(tmp_path, text)
    (f,) = _faulty(ev)
    assert (f["device"], f["line"]) == (3, 3)
    assert "12 compare error(s) (WARNING!) at line 1" in str(f["exception_type"])
    healthy = _write(tmp_path, text.replace("12  (WARNING!)", "0 ").replace("FAULTY", "OK"))
    assert not _faulty(healthy)
    assert any("GPU(s) 3 OK (lines 3-3)" in n for n in heldout.said(healthy))
    assert not any("GPU(s) 0" in n for n in heldout.said(healthy))


def test_summary_cut_short_says_so_and_calls_no_unlisted_gpu_ok(tmp_path: Path) -> None:
    text = (
        "100.0%  proc'd: 10 (6000 Gflop/s) - 10 (6001 Gflop/s) - 10 (6002 Gflop/s)   "
        "errors: 0 - 0 - 0   temps: 50 C - 51 C - 52 C \n"
        "Tested 3 GPUs:\n"
        "\tGPU 0: OK\n"
    )
    ev = _write(tmp_path, text)
    said = heldout.said(ev)
    assert any("GPU(s) 0 OK (lines 3-3)" in n for n in said)
    assert any("tested 3 GPU(s) but the copy keeps 1 row(s)" in n for n in said)
