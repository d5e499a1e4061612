"""Review 58 of round LLLL (sets 655-660), faults 1 and 4 (ibping): a flood run stopped by ^C
with one ping in flight (48213 sent, 48212 received, 0% loss) and a ^C during the first ping
(1 sent, 0 received, 0% loss) read as lost pongs; an ibping run under pdsh's ``node: `` prefix
not read at all: each on its input (tests/data/review58, described in tests/data/SOURCES.md)."""

from __future__ import annotations

from functools import partial
from pathlib import Path

from advisor.evidence.load import EvidenceFacts, load_paths
from tests import heldout
from tests.conftest import DATA

REVIEW = DATA / "review58"
HELDOUT = DATA / "evidence_heldout_72"

FLOOD = "ibping_flood_ctrlc_48213_sent_48212_received_0pct_one_in_flight.txt"
FIRST = "ibping_ctrlc_during_first_ping_1_sent_0_received_0pct.txt"
PDSH = "ibping_pdsh_prefix_gpu_b07_10_sent_2_received_80pct.txt"
PDSH_NONE = "ibping_pdsh_prefix_gpu_b07_5_sent_0_received_100pct.txt"
REAL = "ibping_ipoib_direct_2_of_2_received_archwiki_cut.txt"

_write = partial(heldout.load_copy, name="copy.txt")


def _load(name: str, where: Path = REVIEW) -> EvidenceFacts:
    return load_paths([where / name])


# --- fault 1: a ping in flight at ^C is neither received nor lost -----------------------------


def test_flood_run_stopped_with_one_ping_in_flight_is_ready() -> None:
    ev = _load(FLOOD)
    assert ev.files[0].formats == ["ibping"]
    assert ev.failures == []
    (note,) = heldout.said(ev)
    assert "48212 of 48213 pong(s) received (0% loss, statistics line 3)" in note
    assert "one ping in flight, counted sent but neither received nor lost" in note
    level, outcome = heldout.imported(ev)
    assert level == "READY"
    assert heldout.above_info(outcome) == []


def test_ctrl_c_during_the_first_ping_is_no_lost_pong() -> None:
    ev = _load(FIRST)
    assert ev.failures == []
    (note,) = heldout.said(ev)
    assert note.startswith("ibping: to Lid 23: 0 of 1 pong(s) received (0% loss")
    assert "interrupted before any pong came back, the path neither shown nor refuted" in note
    level, _ = heldout.imported(ev)
    assert level == "READY"


def test_real_sample_with_its_ctrl_c_still_reads_two_of_two() -> None:
    ev = _load(REAL, HELDOUT)
    assert ev.failures == []
    (note,) = heldout.said(ev)
    assert note.startswith("ibping: to Lid 1 (hostname.(none) answering): 2 of 2 pong(s) received")
    assert "in flight" not in note
    assert heldout.imported(ev)[0] == "READY"


def test_figure_that_counts_the_missing_pong_is_still_a_loss(tmp_path: Path) -> None:
    # 10 sent, 9 received, 10%: lost * 100 / ntrans fits 1 lost, not 0: a lost pong, ^C or not
    text = (
        (REVIEW / FLOOD)
        .read_text()
        .replace(
            "48213 packets transmitted, 48212 received, 0%",
            "10 packets transmitted, 9 received, 10%",
        )
    )
    ev = _write(tmp_path, text)
    (fail,) = ev.failures
    assert fail["kind"] == "ibping_loss"
    assert fail["exception_type"] == "1 of 10 ping(s) lost (10% loss)"
    assert heldout.imported(ev)[0] == "READY WITH WARNINGS"


def test_ctrl_c_in_flight_below_lost_pings_counts_only_the_lost(tmp_path: Path) -> None:
    # 10 sent, 2 received, 70%: 7 lost (70%), the eighth unanswered in flight (8 would be 80%)
    text = (REVIEW / PDSH).read_text().replace("80% packet loss", "70% packet loss")
    ev = _write(tmp_path, text)
    (fail,) = ev.failures
    assert fail["exception_type"] == "7 of 10 ping(s) lost (70% loss)"
    (note,) = heldout.said(ev)
    assert "one ping in flight" in note


def test_no_ctrl_c_and_a_figure_that_fits_both_says_it_cannot_tell(tmp_path: Path) -> None:
    # as `timeout` or a count run may end it: no ^C echoed, 1 of 48213 unanswered, 0% either way
    text = (REVIEW / FLOOD).read_text().replace("^C\n", "")
    ev = _write(tmp_path, text)
    (fail,) = ev.failures
    assert fail["kind"] == "ibping_loss"
    assert fail["exception_type"] == (
        "1 of 48213 ping(s) lost (0% loss), or in flight when ibping was stopped: "
        "its figure cannot tell"
    )


def test_ctrl_c_after_pings_all_unanswered_is_still_no_reply(tmp_path: Path) -> None:
    # 5 sent, 0 received, 80%: 4 lost, the fifth in flight: still no pong back at all
    text = (REVIEW / PDSH_NONE).read_text().replace("100% packet loss", "80% packet loss")
    ev = _write(tmp_path, text)
    (fail,) = ev.failures
    assert fail["kind"] == "ibping_no_reply"
    assert fail["exception_type"] == "no pong back to 4 ping(s)"


# --- fault 4: under pdsh's "node: " prefix -----------------------------------------------------


def test_pdsh_prefixed_run_with_loss_is_read_as_the_plain_one() -> None:
    ev = _load(PDSH)
    assert ev.files[0].formats == ["ibping"]
    (fail,) = ev.failures
    assert (fail["kind"], fail["line"], fail["host"]) == ("ibping_loss", 5, "gpu-b07")
    assert fail["exception_type"] == "8 of 10 ping(s) lost (80% loss)"
    (note,) = heldout.said(ev)
    assert note.startswith("ibping: to Lid 23 from gpu-b07 (gpu-b07.cluster answering): 2 of 10")
    level, outcome = heldout.imported(ev)
    assert level == "READY WITH WARNINGS"
    assert heldout.above_info(outcome) == [("evidence-ibping-loss", "warning")]
    (item,) = heldout.items(outcome, "evidence-ibping-loss")
    assert item.startswith("ibping Lid 23 from gpu-b07: 8 of 10 ping(s) lost (80% loss) (")


def test_pdsh_prefixed_run_with_no_reply_is_not_ready() -> None:
    ev = _load(PDSH_NONE)
    (fail,) = ev.failures
    assert (fail["kind"], fail["line"]) == ("ibping_no_reply", 3)
    assert fail["exception_type"] == "no pong back to 5 ping(s)"
    level, outcome = heldout.imported(ev)
    assert level == "NOT READY"
    assert heldout.above_info(outcome) == [("evidence-ibping-no-reply", "critical")]


def test_two_nodes_interleaved_by_pdsh_are_two_runs(tmp_path: Path) -> None:
    # node gpu-b08's healthy run interleaved line by line with gpu-b07's lossy one
    b07 = (REVIEW / PDSH).read_text().splitlines()
    b08 = [
        "gpu-b08: Pong from gpu-b01.cluster (Lid 5): time 0.050 ms",
        "gpu-b08: ",
        "gpu-b08: --- gpu-b01.cluster (Lid 5) ibping statistics ---",
        "gpu-b08: 1 packets transmitted, 1 received, 0% packet loss, time 0 ms",
        "gpu-b08: rtt min/avg/max = 0.050/0.050/0.050 ms",
    ]
    lines = [x for pair in zip(b07[:5], b08, strict=True) for x in pair] + b07[5:]
    ev = _write(tmp_path, "\n".join(lines) + "\n")
    (fail,) = ev.failures
    assert (fail["host"], fail["exception_type"]) == ("gpu-b07", "8 of 10 ping(s) lost (80% loss)")
    notes = heldout.said(ev)
    assert len(notes) == 2
    assert any(
        n.startswith("ibping: to Lid 5 from gpu-b08 ") and "1 of 1 pong(s)" in n for n in notes
    )
