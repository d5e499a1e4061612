"""Review 60 of round NNNN (sets 671, 672, 672b and review 59's mends), part b, faults 1, 2 and
3: two nodes' ping runs through pdsh, their lines interleaved; NeMo's duplicate Lightning ranks
behind pdsh hosts and kubectl pods whose names differ in letters; NCCL's INFO lines with their
prefix masked as ``<hostname>:<pid>:<tid>``: each on its input (tests/data/review60, described in
tests/data/SOURCES.md)."""

from __future__ import annotations

from functools import partial
from pathlib import Path

from advisor.evidence.load import EvidenceFacts, load_paths
from advisor.parsers import netif
from tests import heldout
from tests.conftest import DATA

REVIEW = DATA / "review60"
HELDOUT = DATA / "evidence_heldout_74"
INTERLEAVED = (
    REVIEW / "ping_pdsh_gpu01_gpu02_interleaved_gpu02_740_of_2240_lost_machineshop30_variant.txt"
)
PDSH59 = (
    DATA / "review59" / "ping_flood_ctrlc_pdsh_gpu01_prefix_2117_of_2240_machineshop30_variant.txt"
)
NEMO = "nemo_asr_duplicate_global_ranks_16_members_trainer_fit_error_cut_nemo4338.log"
NEMO_HOSTS = (
    REVIEW / "nemo_duplicate_global_ranks_pdsh_hosts_gpu_alpha_gpu_beta_nemo4338_variant.log"
)
NEMO_PODS = (
    REVIEW / "nemo_duplicate_global_ranks_kubectl_pytorchjob_master0_worker0_nemo4338_variant.log"
)
MASKED = "nccl_4gpu_single_node_init_nvls_unavailable_trees_p2p_chunksize_nccl1466_cut.log"
ANGLED = (
    REVIEW / "nccl_4gpu_init_prefix_masked_angle_brackets_hostname_pid_tid_nccl1466_variant.log"
)
NO_FORM = "a program's log in no form the advisor reads"

_write = partial(heldout.load_copy, name="copy.log")


# --- 1. pdsh ping from two nodes, their lines interleaved ----------------------------------------


def _runs(text: str) -> dict[str | None, tuple[int | None, int | None, int]]:
    return {r.node: (r.sent, r.received, r.summary_line) for r in netif.parse_ping(text)}


def test_interleaved_pdsh_runs_each_read_with_its_own_node() -> None:
    assert _runs(INTERLEAVED.read_text()) == {"gpu01": (2240, 2240, 7), "gpu02": (2240, 1500, 4)}
    ev = load_paths([INTERLEAVED])
    level, outcome = heldout.imported(ev)
    assert level == "READY WITH WARNINGS"
    assert heldout.above_info(outcome) == [("evidence-host-ping-loss", "warning")]
    _, (item,) = heldout.finding(outcome, "evidence-host-ping-loss")
    assert item.startswith("gpu02: ping lager.cs.illinois.edu (192.17.58.137)")
    assert "740 of 2240 request(s) got no reply (33.0357% loss)" in item
    assert [f["line"] for f in ev.failures if f["kind"] == "host_ping_loss"] == [4]


def test_review59_single_node_pdsh_copy_still_read() -> None:
    (run,) = netif.parse_ping(PDSH59.read_text())
    assert (run.node, run.sent, run.received, run.stopped_early) == ("gpu01", 2240, 2117, True)


def test_interleaved_the_other_way_round_and_a_node_s_command_kept_to_it() -> None:
    # gpu01's statistics first and gpu01 the lossy one; gpu02 ran -f with no count (its last
    # request may have been in flight), gpu01 a plain count: the state stays with each node
    lines = INTERLEAVED.read_text().splitlines()
    swapped = [
        "gpu02: $ ping -f lager.cs.illinois.edu",
        "gpu01: $ ping -c 2240 lager.cs.illinois.edu",
        lines[0],
        lines[1],
        *[ln.replace("gpu02", "gpu0X") for ln in lines[2:5]],
        *[ln.replace("gpu01", "gpu02") for ln in lines[5:8]],
    ]
    text = "\n".join(ln.replace("gpu0X", "gpu01") for ln in swapped) + "\n"
    runs = {r.node: r for r in netif.parse_ping(text)}
    assert (runs["gpu01"].sent, runs["gpu01"].received) == (2240, 1500)
    assert (runs["gpu02"].sent, runs["gpu02"].received) == (2240, 2240)
    assert runs["gpu02"].stopped_early and not runs["gpu01"].stopped_early


def test_unprefixed_two_runs_still_go_one_after_the_other() -> None:
    text = "\n".join(
        ln.split(": ", 1)[1] for ln in INTERLEAVED.read_text().splitlines() if "gpu01" in ln
    )
    text = text + "\n" + text.replace("2240 received", "2000 received") + "\n"
    assert [(r.node, r.received) for r in netif.parse_ping(text)] == [(None, 2240), (None, 2000)]


# --- 2. Lightning duplicate ranks behind host or pod prefixes of letters -------------------------


def _duplicates(ev: EvidenceFacts) -> list[tuple[int, int]]:
    return [(f["rank"], f["line"]) for f in ev.failures if f["kind"] == "duplicate_rank"]


EXPECTED = [(1, 3), (2, 5), (3, 6), (4, 8), (5, 9), (6, 13), (7, 14)]


def test_real_nemo_log_still_names_ranks_1_to_7_twice() -> None:
    assert _duplicates(load_paths([HELDOUT / NEMO])) == EXPECTED


def test_pdsh_hosts_of_letters_name_the_same_duplicate_ranks() -> None:
    ev = load_paths([NEMO_HOSTS])
    assert _duplicates(ev) == EXPECTED
    level, outcome = heldout.imported(ev)
    assert level == "NOT READY"
    assert ("evidence-duplicate-rank", "critical") in heldout.above_info(outcome)
    _, items = heldout.finding(outcome, "evidence-duplicate-rank")
    assert items[0].startswith(
        "global rank 1 of 16 initialised 2 times, while 8 of the 16 ranks never came (ranks 8-15)"
    )


def test_pytorchjob_master_and_worker_pods_name_the_same_duplicate_ranks() -> None:
    assert _duplicates(load_paths([NEMO_PODS])) == EXPECTED


def test_other_host_names_and_one_host_alone(tmp_path: Path) -> None:
    text = NEMO_HOSTS.read_text()
    renamed = text.replace("gpu-alpha: ", "login.cluster: ").replace("gpu-beta: ", "compute: ")
    assert _duplicates(_write(tmp_path, renamed)) == EXPECTED
    # one host's lines alone (each rank once): no duplicate
    alone = "\n".join(ln for ln in text.splitlines() if not ln.startswith("gpu-beta: ")) + "\n"
    assert _duplicates(_write(tmp_path, alone)) == []


# --- 3. NCCL INFO lines with their prefix masked in angle brackets ------------------------------


def _said(ev: EvidenceFacts) -> list[tuple[int | None, str]]:
    return [(m.line, m.message) for f in ev.files for m in f.messages]


COMM = "log: a communicator of 4 rank(s) on 1 node(s), 4 on each (this log: rank(s) 0, 1, 2, 3)"


def _read_as_nccl(ev: EvidenceFacts) -> None:
    assert ev.files[0].status == "read" and ev.failures == []
    level, outcome = heldout.imported(ev)
    assert level == "READY" and heldout.above_info(outcome) == []
    said = _said(ev)
    assert not any(NO_FORM in m for _, m in said)
    assert (9, COMM) in said
    assert any(no == 2 and "NVLink SHARP (NVLS) multicast is not available" in m for no, m in said)


def test_angle_bracket_mask_read_as_nccl_s_log() -> None:
    _read_as_nccl(load_paths([ANGLED]))


def test_real_pod_id_mask_still_read() -> None:
    _read_as_nccl(load_paths([HELDOUT / MASKED]))


def test_asterisk_mask_read_and_a_host_kept_with_a_masked_pid(tmp_path: Path) -> None:
    text = ANGLED.read_text()
    _read_as_nccl(_write(tmp_path, text.replace("<hostname>:<pid>:<tid>", "***:***:***")))
    _read_as_nccl(_write(tmp_path, text.replace("<hostname>:<pid>:<tid>", "gpu-node:<pid>:<tid>")))
